"""Streamed answers (SSE): the parser, StreamResult with every event and its arrival time, the aiohttp client, the
chunk checks and the stream log blocks."""
