"""The load engine (room 2 of ``load``): schedules, the pacing of open and closed loops and sessions, one request
timed at the socket, what runs beside the requests, the raw event logs, Ray shards. Asyncio and aiohttp."""
