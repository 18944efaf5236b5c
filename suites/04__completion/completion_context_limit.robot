*** Settings ***
Documentation       A prompt that does not fit the slot context is rejected before anything is generated: 400
...                 `exceed_context_size_error`, with `n_prompt_tokens` and `n_ctx` in the error object, on
...                 /completion and /v1/completions. A streamed request gets the same plain JSON error with its
...                 status, not an event stream. A prompt as long as the context leaves no room and is rejected too.
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Prompt Beyond The Context Should Be Rejected
Test Tags           completion    errors


*** Test Cases ***                                                          ROUTE              STREAM      OVER
Prompt Longer Than The Slot Context Is Rejected                             /completion        ${False}    ${90}
Prompt Longer Than The Slot Context Is Rejected On V1 Completions           /v1/completions    ${False}    ${90}
Streamed Prompt Longer Than The Slot Context Gets A Plain Json Error        /completion        ${True}     ${90}
Streamed V1 Prompt Longer Than The Slot Context Gets A Plain Json Error     /v1/completions    ${True}     ${90}
Prompt Exactly As Long As The Slot Context Is Rejected                      /completion        ${False}    ${0}
Streamed Prompt Exactly As Long As The Slot Context Is Rejected             /completion        ${True}     ${0}


*** Keywords ***
Prompt Beyond The Context Should Be Rejected
    [Documentation]    Sends a token-id prompt `over` tokens longer than the slot context to `route` (streamed or
    ...    not) and checks the whole `exceed_context_size_error` object.
    [Arguments]    ${route}    ${stream}    ${over}
    ${n_ctx} =    Slot Context Size
    VAR    ${n_prompt}    ${{ $n_ctx + $over }}
    ${prompt} =    Repeated Token Prompt    ${n_prompt}
    ${message} =    Context Size Error Message    ${n_prompt}    ${n_ctx}
    VAR    &{body}    prompt=${prompt}    n_predict=${4}    stream=${stream}
    ${error} =    Context Size Error Of    ${route}    ${body}    ${message}
    Json Field Should Be    ${error}    n_prompt_tokens    ${n_prompt}
    Json Field Should Be    ${error}    n_ctx    ${n_ctx}

Context Size Error Of
    [Documentation]    POSTs `body` to `route` (as a stream when `body.stream` is true), checks 400
    ...    `exceed_context_size_error` with `message`, and returns the error object.
    [Arguments]    ${route}    ${body}    ${message}
    IF    ${body}[stream]
        ${result} =    Stream Request    ${route}    ${body}    expected_status=400
        ${error} =    Stream Should Be Rejected With    ${result}    400    exceed_context_size_error    ${message}
        RETURN    ${error}
    END
    ${resp} =    POST On Session    suite    ${route}    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    exceed_context_size_error    message=${message}
    RETURN    ${resp.json()}[error]
