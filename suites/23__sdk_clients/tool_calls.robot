*** Settings ***
Documentation       Tool calls read through both SDKs, with a real model: SmolLM2-135M-Instruct under Jinja with a
...                 ChatML template that renders tools in the Hermes style (`../05__chat/tool_template.jinja`;
...                 SmolLM2's own template has no tool support). The question comes after two turns in which the
...                 assistant called `get_weather` (`sdk_schemas.py`), so the model calls it for Paris. The OpenAI SDK
...                 types the call (`ChatCompletionMessageFunctionToolCall`) and its stream helper reassembles the
...                 argument deltas; the Anthropic SDK gives a `ToolUseBlock`. Each call takes 10 to 30 s on a busy
...                 2-core machine, hence `${TIMEOUT}` (see `Deadline`).
...                 References: https://platform.openai.com/docs/guides/function-calling,
...                 https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview
Resource            ../../resources/clients.resource
Variables           sdk_schemas.py
Suite Setup         Start SDK Suite Server    smollm2    --jinja    --chat-template-file
...                 ${CURDIR}/../05__chat/tool_template.jinja
Suite Teardown      Stop Servers For Suite
Test Timeout        3 minutes
Test Tags           sdk    needs-smollm2    needs:smollm2    chat


*** Variables ***
${TIMEOUT}      ${150}
&{PARIS}        city=Paris
&{GREEDY}       temperature=${0}


*** Test Cases ***
OpenAI Answer Calls The Tool With Typed Arguments
    ${wait} =    Deadline    ${TIMEOUT}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${OPENAI_WEATHER_QUESTION}
    ...    tools=${WEATHER_TOOLS}    max_tokens=${80}    temperature=${0}    timeout=${wait}
    Should Be Equal    ${answer.choices[0].finish_reason}    tool_calls
    VAR    ${call}    ${answer.choices[0].message.tool_calls[0]}
    Should Be Typed    ${call}    ChatCompletionMessageFunctionToolCall
    Should Be Equal    ${call.function.name}    get_weather
    ${arguments} =    Parsed Json    ${call.function.arguments}
    Should Be Equal    ${arguments}    ${PARIS}

OpenAI Stream Helper Reassembles The Tool Call Deltas
    ${wait} =    Deadline    ${TIMEOUT}
    ${call} =    OpenAI Stream    chat.completions.stream    messages=${OPENAI_WEATHER_QUESTION}
    ...    tools=${WEATHER_TOOLS}    max_tokens=${80}    temperature=${0}    timeout=${wait}
    VAR    ${tool_call}    ${call.result.choices[0].message.tool_calls[0]}
    ${arguments} =    Parsed Json    ${tool_call.function.arguments}
    Should Be Equal    ${arguments}    ${PARIS}
    ${types} =    Event Types    ${call}
    Should Contain    ${types}    tool_calls.function.arguments.delta
    Should Be Equal    ${types.count("tool_calls.function.arguments.done")}    ${1}

Anthropic Message Has A Typed Tool Use Block
    ${wait} =    Deadline    ${TIMEOUT}
    ${message} =    Anthropic Call    messages.create    messages=${ANTHROPIC_WEATHER_QUESTION}
    ...    tools=${ANTHROPIC_WEATHER_TOOLS}    max_tokens=${80}    extra_body=${GREEDY}    timeout=${wait}
    Should Be Equal    ${message.stop_reason}    tool_use
    Should Be Typed    ${message.content[-1]}    ToolUseBlock
    Should Be Equal    ${message.content[-1].name}    get_weather
    Should Be Equal    ${message.content[-1].input}    ${PARIS}

Anthropic Stream Helper Reassembles The Tool Input
    ${wait} =    Deadline    ${TIMEOUT}
    ${call} =    Anthropic Stream    messages.stream    messages=${ANTHROPIC_WEATHER_QUESTION}
    ...    tools=${ANTHROPIC_WEATHER_TOOLS}    max_tokens=${80}    extra_body=${GREEDY}    timeout=${wait}
    Should Be Equal    ${call.result.stop_reason}    tool_use
    Should Be Typed    ${call.result.content[-1]}    ToolUseBlock
    Should Be Equal    ${call.result.content[-1].input}    ${PARIS}
    ${types} =    Event Types    ${call}
    Should Contain    ${types}    input_json
