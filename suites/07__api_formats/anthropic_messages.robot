*** Settings ***
Documentation       The Anthropic Messages API (`/v1/messages`, `/v1/messages/count_tokens`), which llama-server maps
...                 onto chat: the message object, its usage (prompt tokens split into cache reads and the rest),
...                 `system`, stop sequences, and the streamed events with their `event:` names, in the documented
...                 order, ending without `[DONE]`. Expected texts and counts come from the chat route.
Resource            ../../resources/api_formats.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           api-formats


*** Variables ***
${QUESTION}     hello llama
${SYSTEM}       be brief


*** Test Cases ***
Message Has The Anthropic Shape
    ${resp} =    Anthropic Message    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    type    message
    Json Field Should Be    ${resp}    role    assistant
    Json Field Should Be    ${resp}    content.0.type    text
    Json Field Should Be    ${resp}    stop_sequence    ${NONE}
    ${models} =    Get Models
    Json Field Should Be    ${resp}    model    ${models.json()}[data][0][id]

Max Tokens Ends The Message With Stop Reason Max Tokens
    ${resp} =    Anthropic Message    ${QUESTION}    max_tokens=${5}    ignore_eos=${True}
    Json Field Should Be    ${resp}    stop_reason    max_tokens
    Json Field Should Be    ${resp}    usage.output_tokens    ${5}

Text Equals The Chat Answer
    ${resp} =    Anthropic Message    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    ${chat_answer} =    Chat Answer    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    Anthropic Content Should Be One Block    ${resp}    type=text    text=${chat_answer}

Input And Cache Read Tokens Add Up To The Counted Prompt
    ${messages} =    User Message    ${QUESTION}
    ${count} =    Count Anthropic Tokens    ${messages}
    ${resp} =    Anthropic Message    ${QUESTION}    max_tokens=${1}    ignore_eos=${True}
    ${prompt_tokens} =    Anthropic Prompt Tokens    ${resp}
    Json Field Should Be    ${count}    input_tokens    ${prompt_tokens}

Count Tokens Equals The Chat Prompt Tokens
    ${messages} =    User Message    ${QUESTION}
    ${count} =    Count Anthropic Tokens    ${messages}
    ${chat_count} =    Chat Input Tokens    ${messages}
    Json Field Should Be    ${count}    input_tokens    ${chat_count}[input_tokens]

System Field Counts Like A System Message
    ${messages} =    User Message    ${QUESTION}
    ${count} =    Count Anthropic Tokens    ${messages}    system=${SYSTEM}
    ${system} =    Message    system    ${SYSTEM}
    VAR    @{with_system}    ${system}    @{messages}
    ${chat_count} =    Chat Input Tokens    ${with_system}
    Json Field Should Be    ${count}    input_tokens    ${chat_count}[input_tokens]

System Given As Text Blocks Counts Like The String
    ${messages} =    User Message    ${QUESTION}
    ${blocks} =    Text Parts    ${SYSTEM}
    ${as_blocks} =    Count Anthropic Tokens    ${messages}    system=${blocks}
    ${as_string} =    Count Anthropic Tokens    ${messages}    system=${SYSTEM}
    Should Be Equal    ${as_blocks}    ${as_string}

Text Blocks In Content Are Answered Like A String
    ${blocks} =    Text Parts    ${QUESTION}
    ${as_blocks} =    Anthropic Message    ${blocks}    max_tokens=${6}    ignore_eos=${True}
    ${as_string} =    Anthropic Message    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    Json Field Should Be    ${as_blocks}    content    ${as_string.json()}[content]

Stop Sequence Ends The Text Before It
    ${free} =    Anthropic Message    ${QUESTION}    max_tokens=${8}    ignore_eos=${True}
    ${free_text} =    Get Json Field    ${free}    content.0.text
    VAR    ${stop}    ${free_text}[4]
    VAR    @{stops}    ${stop}
    ${resp} =    Anthropic Message    ${QUESTION}    max_tokens=${8}    stop_sequences=${stops}    ignore_eos=${True}
    ${before} =    Text Before    ${free_text}    ${stop}
    Json Field Should Be    ${resp}    content.0.text    ${before}
    Json Field Should Be    ${resp}    stop_sequence    ${stop}

Stop Sequence Match Reports Stop Reason Stop Sequence
    [Documentation]    Contract: the Anthropic Messages API reference, `stop_reason`: `"stop_sequence"`: "one of
    ...    your provided custom `stop_sequences` was generated" (`end_turn` is "the model reached a natural
    ...    stopping point"). This build says `end_turn` (while filling `stop_sequence` correctly):
    ...    `to_json_anthropic` in server-task.cpp maps a stop word to `end_turn`.
    [Tags]    bug
    ${free} =    Anthropic Message    ${QUESTION}    max_tokens=${8}    ignore_eos=${True}
    ${free_text} =    Get Json Field    ${free}    content.0.text
    VAR    @{stops}    ${free_text}[4]
    ${resp} =    Anthropic Message    ${QUESTION}    max_tokens=${8}    stop_sequences=${stops}    ignore_eos=${True}
    Json Field Should Be    ${resp}    stop_reason    stop_sequence

Streamed Events Follow The Documented Order
    [Tags]    needs:tiny
    ${result} =    Stream Anthropic Message    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Stream Content Type Should Be    ${result}    text/event-stream
    Anthropic Events Should Follow The Documented Order    ${result}
    Stream Should Have No Done Marker    ${result}

Every Streamed Event Is Named After Its Type
    ${result} =    Stream Anthropic Message    ${QUESTION}    max_tokens=${3}    ignore_eos=${True}
    Every Event Should Be Named After Its Type    ${result}

Streamed Text Deltas Add Up To The Non Streamed Text
    ${resp} =    Anthropic Message    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    ${result} =    Stream Anthropic Message    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    ${deltas} =    Joined Event Field    ${result}    content_block_delta    delta.text
    Json Field Should Be    ${resp}    content.0.text    ${deltas}

Message Start And Delta Frame The Streamed Message
    ${result} =    Stream Anthropic Message    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    ${start} =    Event Data    ${result}    message_start
    Json Field Should Be    ${start}    message.content    expected=@{EMPTY}
    Json Field Should Be    ${start}    message.usage.output_tokens    ${0}
    ${message_delta} =    Event Data    ${result}    message_delta
    Json Field Should Be    ${message_delta}    delta.stop_reason    max_tokens
    Json Field Should Be    ${message_delta}    usage.output_tokens    ${4}

Missing Messages Are Rejected As A Client Error
    [Documentation]    Contract: the Anthropic API reference lists `messages` as required, and its errors page
    ...    gives 400 `invalid_request_error` for "an issue with the format or content of your request"; RFC
    ...    9110 §15.5.1 (400: "something that is perceived to be a client error") against §15.6.1 (500: "an
    ...    unexpected condition"). The OpenAI route answers 400 for the same mistake. Both Anthropic routes
    ...    answer 500 `server_error` with the message `'messages' is required` (server-chat.cpp throws a
    ...    `runtime_error` where the OpenAI path throws `invalid_argument`).
    [Tags]    bug    errors
    [Template]    Anthropic Request Should Fail With
    /v1/messages    {"max_tokens": 1}
    /v1/messages/count_tokens    {}


*** Keywords ***
Anthropic Request Should Fail With
    [Documentation]    POSTs `body` (JSON text, sent exactly as written) to `route` and checks 400
    ...    `invalid_request_error` saying that `messages` is required.
    [Arguments]    ${route}    ${body}
    VAR    &{headers}    Content-Type=application/json
    ${resp} =    POST On Session    suite    ${route}    data=${body}    headers=${headers}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message='messages' is required
