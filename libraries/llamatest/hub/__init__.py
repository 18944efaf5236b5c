"""A local stand-in for the Hugging Face hub's file routes, for llama.cpp's downloader (``MODEL_ENDPOINT``)."""
