"""Variables of the SDK suites: the pydantic model of the structured outputs (openai_structured.robot) and
the tool and conversation of the tool calls (tool_calls.robot).

Every field of `City` is a literal, so the schema's grammar fixes the answer of any model and the answer
ends by itself.
"""

import json
from typing import Literal

from pydantic import BaseModel


class City(BaseModel):
    name: Literal["Paris"]
    country: Literal["France"]


CITY = City
CITY_SCHEMA = {"name": "city", "strict": True, "schema": City.model_json_schema()}
CITY_RESPONSE_FORMAT = {"type": "json_schema", "json_schema": CITY_SCHEMA}
# The one answer the schema allows, as the SDK parses it.
PARIS_CITY = City(name="Paris", country="France")


# ----- tool calls (tool_calls.robot) -----
# SmolLM2-135M follows a pattern better than an instruction: two earlier turns in which the assistant
# called the tool, then the question; it then calls get_weather for Paris.
WEATHER_PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = {"name": "get_weather", "description": "Get the current weather in a city"}
WEATHER_TOOL = {"type": "function", "function": {**WEATHER, "parameters": WEATHER_PARAMETERS}}
ANTHROPIC_WEATHER_TOOL = {**WEATHER, "input_schema": WEATHER_PARAMETERS}
WEATHER_TOOLS = [WEATHER_TOOL]
ANTHROPIC_WEATHER_TOOLS = [ANTHROPIC_WEATHER_TOOL]


def _openai_call(call_id, city):
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]}


def _anthropic_call(call_id, city):
    return {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "get_weather",
                                              "input": {"city": city}}]}


def _history(call):
    return [{"role": "user", "content": "Weather in Rome?"}, call("call_1", "Rome"),
            {"role": "user", "content": "Weather in Lima?"}, call("call_2", "Lima"),
            {"role": "user", "content": "Weather in Paris?"}]


OPENAI_WEATHER_QUESTION = _history(_openai_call)
ANTHROPIC_WEATHER_QUESTION = _history(_anthropic_call)
