"""Many users at once: concurrent requests, a sampler of ``/slots`` and ``/metrics``, the slot timeline.

- ``answers``: what one request got, whatever the route (native or OpenAI) and streamed or not.
- ``timeline``: the slot timeline model (samples, busy intervals, requests) and its queries.
- ``sampler``: polls ``GET /slots`` (and ``/metrics``) every few milliseconds into a timeline.
- ``batch``: sends a batch of requests at once through ``llamatest.streaming.client.stream_one``,
  with the sampler in the same ``asyncio.gather``, and optional hang-ups and dispatch orders.
- ``checks``: one-line assertions on a batch and its timeline.
"""
