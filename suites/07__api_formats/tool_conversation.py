"""One tool conversation in Anthropic and in OpenAI form, for anthropic_conversion.robot (Robot variables).

Each ``A_`` value is the Anthropic Messages form of the ``O_`` value of the same name: the conversion the
server documents as "Anthropic-compatible" should make them one chat.
"""

import json

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
A_TOOL = {"name": "get_weather", "description": "Weather of a city", "input_schema": SCHEMA}
O_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
                                           "parameters": SCHEMA}}
ASK = {"role": "user", "content": "Weather in Rome?"}
A_CALL = {"role": "assistant",
          "content": [{"type": "tool_use", "id": "call-1", "name": "get_weather", "input": {"city": "Rome"}}]}
O_CALL = {"role": "assistant", "content": "",
          "tool_calls": [{"id": "call-1", "type": "function",
                          "function": {"name": "get_weather", "arguments": json.dumps({"city": "Rome"})}}]}
_RESULT = {"type": "tool_result", "tool_use_id": "call-1", "content": "sunny"}
A_RESULT = {"role": "user", "content": [_RESULT]}
O_RESULT = {"role": "tool", "tool_call_id": "call-1", "content": "sunny"}
# The result as two text blocks, and the user's next words in the message that carries the result.
A_RESULT_AS_BLOCKS = {"role": "user", "content": [{**_RESULT, "content": [{"type": "text", "text": "sun"},
                                                                          {"type": "text", "text": "ny"}]}]}
A_RESULT_AND_TEXT = {"role": "user", "content": [_RESULT, {"type": "text", "text": "and Paris?"}]}
O_NEXT = {"role": "user", "content": "and Paris?"}
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
A_RESULT_WITH_IMAGE = {"role": "user", "content": [{**_RESULT, "content": [
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}]}
# An earlier answer with its reasoning, and the same answer without.
A_REASONED = {"role": "assistant", "content": [{"type": "thinking", "thinking": "add them", "signature": ""},
                                               {"type": "text", "text": "4"}]}
O_REASONED = {"role": "assistant", "content": "4", "reasoning_content": "add them"}
O_UNREASONED = {"role": "assistant", "content": "4"}
