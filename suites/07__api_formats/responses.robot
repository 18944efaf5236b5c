*** Settings ***
Documentation       The OpenAI Responses API (`/v1/responses`), which llama-server maps onto chat: the response
...                 object, its usage, the `input_tokens` route, the input forms that mean the same chat, and the
...                 streamed events with their `event:` names, in order, ending without `[DONE]`. Expected texts
...                 and counts come from the chat route asked the same question.
Resource            ../../resources/api_formats.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           api-formats


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Response Is A Completed Response Object
    ${resp} =    Respond    ${QUESTION}    max_output_tokens=${4}    ignore_eos=${True}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    object    response
    Json Field Should Be    ${resp}    status    completed
    Should Start With    ${resp.json()}[id]    resp_
    Json Field Should Be    ${resp}    output.0.type    message
    Json Field Should Be    ${resp}    output.0.role    assistant
    Json Field Should Be    ${resp}    output.0.status    completed

Output Text Equals The Chat Answer
    ${resp} =    Respond    ${QUESTION}    max_output_tokens=${6}    ignore_eos=${True}
    ${text} =    Response Output Text    ${resp}
    ${chat_answer} =    Chat Answer    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    Should Be Equal    ${text}    ${chat_answer}

Usage Counts The Chat Prompt And The Output Tokens
    ${resp} =    Respond    ${QUESTION}    max_output_tokens=${5}    ignore_eos=${True}
    ${chat} =    Chat    ${QUESTION}    max_tokens=${1}    ignore_eos=${True}
    ${prompt_tokens} =    Get Json Field    ${chat}    usage.prompt_tokens
    Json Field Should Be    ${resp}    usage.input_tokens    ${prompt_tokens}
    Json Field Should Be    ${resp}    usage.output_tokens    ${5}
    Json Field Should Be    ${resp}    usage.total_tokens    ${prompt_tokens + 5}

Input Tokens Route Counts The Same Prompt
    ${count} =    Response Input Tokens    ${QUESTION}
    ${resp} =    Respond    ${QUESTION}    max_output_tokens=${1}    ignore_eos=${True}
    Json Field Should Be    ${count}    input_tokens    ${resp.json()}[usage][input_tokens]
    Json Field Should Be    ${count}    object    response.input_tokens

Instructions Count Like A System Message
    ${count} =    Response Input Tokens    ${QUESTION}    instructions=be brief
    ${system} =    Message    system    be brief
    ${user} =    Message    user    ${QUESTION}
    VAR    @{messages}    ${system}    ${user}
    ${chat_count} =    Chat Input Tokens    ${messages}
    Json Field Should Be    ${count}    input_tokens    ${chat_count}[input_tokens]

Message List Input Is Answered Like The String Input
    ${messages} =    User Message    ${QUESTION}
    ${listed} =    Respond    ${messages}    max_output_tokens=${6}    ignore_eos=${True}
    ${plain} =    Respond    ${QUESTION}    max_output_tokens=${6}    ignore_eos=${True}
    Should Be Equal    ${listed.json()}[output][0][content]    ${plain.json()}[output][0][content]
    Should Be Equal    ${listed.json()}[usage][input_tokens]    ${plain.json()}[usage][input_tokens]

Input Text Parts Are Answered Like The String Input
    VAR    &{part}    type=input_text    text=${QUESTION}
    VAR    @{content}    ${part}
    ${message} =    Message    user    ${content}
    VAR    @{messages}    ${message}
    ${parts} =    Respond    ${messages}    max_output_tokens=${6}    ignore_eos=${True}
    ${plain} =    Respond    ${QUESTION}    max_output_tokens=${6}    ignore_eos=${True}
    Should Be Equal    ${parts.json()}[output][0][content]    ${plain.json()}[output][0][content]

Responses Route Answers Without The V1 Prefix
    ${resp} =    Respond    ${QUESTION}    route=/responses    max_output_tokens=${6}    ignore_eos=${True}
    Json Field Should Be    ${resp}    object    response
    ${text} =    Response Output Text    ${resp}
    ${v1} =    Respond    ${QUESTION}    max_output_tokens=${6}    ignore_eos=${True}
    Json Field Should Be    ${v1}    output.0.content.0.text    ${text}

Streamed Events Follow The Documented Order
    [Tags]    needs:tiny
    ${result} =    Stream Response    ${QUESTION}    max_output_tokens=${4}    ignore_eos=${True}
    Stream Content Type Should Be    ${result}    text/event-stream
    Responses Events Should Follow The Documented Order    ${result}
    Stream Should Have No Done Marker    ${result}

Every Streamed Event Is Named After Its Type
    ${result} =    Stream Response    ${QUESTION}    max_output_tokens=${3}    ignore_eos=${True}
    Every Event Should Be Named After Its Type    ${result}

Streamed Deltas Add Up To The Text Of The Done Events
    ${result} =    Stream Response    ${QUESTION}    max_output_tokens=${6}    ignore_eos=${True}
    ${deltas} =    Joined Event Field    ${result}    response.output_text.delta    delta
    ${done} =    Event Data    ${result}    response.output_text.done
    Json Field Should Be    ${done}    text    ${deltas}
    ${completed} =    Event Data    ${result}    response.completed
    ${final_text} =    Response Output Text    ${completed}[response]
    Should Be Equal    ${final_text}    ${deltas}

Streamed Text Equals The Non Streamed Text
    ${resp} =    Respond    ${QUESTION}    max_output_tokens=${6}    ignore_eos=${True}
    ${text} =    Response Output Text    ${resp}
    ${result} =    Stream Response    ${QUESTION}    max_output_tokens=${6}    ignore_eos=${True}
    ${deltas} =    Joined Event Field    ${result}    response.output_text.delta    delta
    Should Be Equal    ${deltas}    ${text}

Invalid Input Is Rejected
    [Tags]    errors
    [Template]    Responses Request Should Fail With
    'input' is required    max_output_tokens=${1}
    'input' must be a string or array of objects    input=${5}


*** Keywords ***
Responses Request Should Fail With
    [Documentation]    POSTs the fields `body` (named arguments) to /v1/responses and checks 400
    ...    `invalid_request_error` with `message`.
    [Arguments]    ${message}    &{body}
    ${resp} =    POST On Session    suite    /v1/responses    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${message}
    Media Type Should Be    ${resp}    application/json
