"""MCP servers for the MCP suite: fixture servers llama-server spawns over stdio, the config that names them,
the SDK client that says what llama-server should answer, and the sweep of fixture processes."""
