"""The official OpenAI and Anthropic Python SDKs, bound to a llama-server: what an application sees.

- `connect`: an `Endpoint` (base URL, key, timeout, strictness) and the SDK clients made from it, sync and
  async, with ``max_retries=0``;
- `calls`: one SDK call or stream, sync or async, each under a deadline, recorded as a `Call`;
  concurrent async streams;
- `views`: what the tests read from the SDK's typed objects (JSON, streamed text, event types, errors,
  base64 embeddings), and their deviations from the SDK's models in pydantic's strict mode;
- `log`: the one collapsed log block of a call.

No Robot Framework here.
"""
