*** Settings ***
Documentation       Tool calls with a real model: SmolLM2-135M-Instruct under Jinja, with a ChatML template that
...                 renders tools and tool calls in the Hermes style (`tool_template.jinja`; SmolLM2's own
...                 template has no tool support). The 135M model follows a pattern better than an instruction,
...                 so each question comes after two earlier turns in which the assistant called the tool: then it
...                 calls `get_weather` for the city asked about, and the server parses the call out of the text.
Resource            ../../resources/chat.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    smollm2    --jinja    --chat-template-file
...                 ${CURDIR}/tool_template.jinja
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           needs-smollm2    chat


*** Variables ***
${TIMEOUT}      ${90}
# The cities of the two earlier turns of `Ask For The Weather`, one per city asked about.
@{EARLIER_CITIES}       Rome    Oslo
@{OTHER_CITIES}         Lima    Kyiv


*** Test Cases ***
Props Report Tool Support Of The Template
    ${props} =    Get Props
    Json Field Should Be    ${props}    chat_template_caps.supports_tools    ${True}
    Json Field Should Be    ${props}    chat_template_caps.supports_tool_calls    ${True}
    Json Field Should Be    ${props}    chat_template_caps.supports_parallel_tool_calls    ${True}

Tools And Tool Results Are Rendered Into The Prompt
    ${tool} =    Weather Tool
    ${call} =    Tool Call Message    call    Rome
    ${result} =    Message    tool    sunny    tool_call_id=call-1
    ${user} =    Message    user    Weather in Rome?
    VAR    @{messages}    ${user}    ${call}    ${result}
    VAR    @{tools}    ${tool}
    ${prompt} =    Rendered Prompt Of    ${messages}    tools=${tools}
    Should Contain    ${prompt}    <tools>{"type": "function", "function": {"name": "get_weather",
    Should Contain    ${prompt}    <tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>
    Should Contain    ${prompt}    <tool_response>sunny</tool_response>

Model Calls The Weather Tool For The City Asked About
    ${resp} =    Ask For The Weather    Paris
    Json Field Should Be    ${resp}    choices.0.finish_reason    tool_calls
    ${calls} =    Tool Calls Of    ${resp}
    Length Should Be    ${calls}    1
    Tool Call Should Be    ${calls}[0]    get_weather    city=Paris

Streamed Tool Call Deltas Add Up To The Call
    ${result} =    Ask For The Weather    Paris    stream=${True}
    Only The Opening Delta Of Each Tool Call Should Name It    ${result}
    Finish Chunk Should Be    ${result}    tool_calls
    Stream Should End With Done Marker    ${result}
    ${calls} =    Streamed Tool Calls    ${result}
    Length Should Be    ${calls}    1
    Tool Call Should Be    ${calls}[0]    get_weather    city=Paris

Parallel Tool Calls Give One Call Per City
    ${resp} =    Ask For The Weather    Paris    Berlin    parallel_tool_calls=${True}
    ${calls} =    Tool Calls Of    ${resp}
    Length Should Be    ${calls}    2
    Tool Call Should Be    ${calls}[0]    get_weather    city=Paris
    Tool Call Should Be    ${calls}[1]    get_weather    city=Berlin
    Tool Call Ids Should Be Distinct    ${calls}

Parallel Tool Calls Off Allows One Call At Most
    [Documentation]    Contract: the server's README, `/v1/chat/completions`: "`parallel_tool_calls` : Whether to
    ...    enable parallel/multiple tool calls" (the OpenAI reference: "Whether to enable parallel function
    ...    calling during tool use"), so with `false` an answer calls one tool at most. This build returns both
    ...    calls the model writes for two cities, as with `parallel_tool_calls: true`: for templates that mark
    ...    each call, common/chat-auto-parser-generator.cpp wraps the call parser in `one_or_more` whatever the
    ...    flag.
    [Tags]    bug
    ${resp} =    Ask For The Weather    Paris    Berlin    parallel_tool_calls=${False}
    ${calls} =    Tool Calls Of    ${resp}
    Length Should Be    ${calls}    1


*** Keywords ***
Weather Tool
    [Documentation]    The one tool of this suite: `get_weather(city)`.
    ${tool} =    Function Tool    get_weather    Get the current weather in a city    city
    RETURN    ${tool}

Tool Call Message
    [Documentation]    An assistant message that calls `get_weather` once per city, with ids `id`-1, `id`-2, ….
    [Arguments]    ${id}    @{cities}
    VAR    @{tool_calls}    @{EMPTY}
    FOR    ${index}    ${city}    IN ENUMERATE    @{cities}    start=1
        VAR    &{function}    name=get_weather    arguments={"city": "${city}"}
        VAR    &{tool_call}    id=${id}-${index}    type=function    function=${function}
        VAR    @{tool_calls}    @{tool_calls}    ${tool_call}
    END
    ${message} =    Message    assistant    ${EMPTY}    tool_calls=${tool_calls}
    RETURN    ${message}

Ask For The Weather
    [Documentation]    Asks for the weather in `cities` after two turns in which the assistant called
    ...    `get_weather` for as many other cities, and returns the answer (a stream result with
    ...    `stream=${True}`; checks 200 either way). Extra `fields` go into the request. Constrained tool-call
    ...    decoding on SmolLM2's 49k-token vocabulary is slow on a busy machine, hence `${TIMEOUT}` (see `Deadline`).
    [Arguments]    @{cities}    ${stream}=${False}    &{fields}
    ${count} =    Get Length    ${cities}
    ${first} =    Weather Turn    call_1    @{EARLIER_CITIES}[:${count}]
    ${second} =    Weather Turn    call_2    @{OTHER_CITIES}[:${count}]
    ${question} =    Weather Question    @{cities}
    VAR    @{messages}    @{first}    @{second}    ${question}
    ${tool} =    Weather Tool
    VAR    @{tools}    ${tool}
    VAR    &{body}    messages=${messages}    tools=${tools}    max_tokens=${80}    temperature=${0}
    ...    stream=${stream}    &{fields}
    ${answer} =    Send Chat Within The Deadline    ${body}    ${stream}
    RETURN    ${answer}

Send Chat Within The Deadline
    [Documentation]    POSTs `body` to /v1/chat/completions, streamed or not, within `${TIMEOUT}` (see `Deadline`).
    [Arguments]    ${body}    ${stream}
    ${wait} =    Deadline    ${TIMEOUT}
    IF    ${stream}
        ${answer} =    Stream Request    /v1/chat/completions    ${body}    timeout=${wait}
    ELSE
        ${answer} =    POST On Session    suite    /v1/chat/completions    json=${body}    expected_status=200
        ...    timeout=${wait}
    END
    RETURN    ${answer}

Weather Turn
    [Documentation]    A user question about the weather in `cities` and the assistant's call of `get_weather` for
    ...    each of them.
    [Arguments]    ${id}    @{cities}
    ${question} =    Weather Question    @{cities}
    ${call} =    Tool Call Message    ${id}    @{cities}
    VAR    @{turn}    ${question}    ${call}
    RETURN    ${turn}

Weather Question
    [Documentation]    The user's message asking for the weather in `cities`: `Weather in Rome and Oslo?`.
    [Arguments]    @{cities}
    ${names} =    Catenate    SEPARATOR=${SPACE}and${SPACE}    @{cities}
    ${question} =    Message    user    Weather in ${names}?
    RETURN    ${question}
