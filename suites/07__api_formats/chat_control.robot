*** Settings ***
Documentation       POST /v1/chat/completions/control acts on a running chat completion by its id (the one action
...                 is `reasoning_end`). Without a running completion to act on, this suite pins how the route
...                 validates its body and what it says about an id that is not running.
Resource            ../../resources/api_formats.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           api-formats    chat


*** Test Cases ***
Unknown Completion Id Reports No Success
    ${resp} =    Control Completion    id=chatcmpl-not-running    action=reasoning_end
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    success    ${False}
    Json Field Should Be    ${resp}    message    no active completion for this id

Finished Completion Id Reports No Success
    ${chat} =    Chat    hello llama    max_tokens=${2}    ignore_eos=${True}
    ${resp} =    Control Completion    id=${chat.json()}[id]    action=reasoning_end
    Json Field Should Be    ${resp}    success    ${False}

Invalid Control Requests Are Rejected
    [Tags]    errors
    [Template]    Control Request Should Fail With
    missing completion id
    missing completion id    action=reasoning_end
    missing completion id    id=${5}    action=reasoning_end
    unknown control action    id=chatcmpl-x
    unknown control action    id=chatcmpl-x    action=stop


*** Keywords ***
Control Request Should Fail With
    [Documentation]    POSTs the fields `body` (named arguments, none for an empty object) to the control route and
    ...    checks 400 `invalid_request_error` with `message`.
    [Arguments]    ${message}    &{body}
    ${resp} =    Control Completion    expected_status=any    &{body}
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${message}
    Media Type Should Be    ${resp}    application/json
