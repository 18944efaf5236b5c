*** Settings ***
Documentation       llama-cpp-python's server answering bad chat requests: OpenAI's error object
...                 `{"error": {"message", "type", "param", "code"}}` with status 400 and `invalid_request_error`
...                 (https://platform.openai.com/docs/guides/error-codes/api-errors), and a server that still
...                 answers afterwards. llama-cpp-python turns every validation error into 500
...                 `internal_server_error` (its message quotes pydantic and a file and line of its source), answers
...                 malformed JSON with a 500 `text/plain` "Internal Server Error", and takes a body without
...                 `messages` as an empty conversation (200): every row is a deviation.
Resource            ../../resources/peers.resource
Resource            ../../resources/chat.resource
Suite Setup         Start Llama Cpp Python Server For Suite    tiny    n_ctx=${512}
Suite Teardown      Stop Llama Cpp Python Server For Suite
Test Timeout        1 minute
Test Tags           llama-cpp-python    errors
Test Template       Chat Request Should Be Rejected With


*** Test Cases ***    BODY    STATUS    TYPE    PARAM    CODE
Missing Messages Are Rejected
    [Tags]    deviation
    {"max_tokens": 1}    400    invalid_request_error    messages    ${NONE}

Malformed Json Is Rejected
    [Tags]    deviation
    {"messages": [    400    invalid_request_error    ${NONE}    ${NONE}

Messages That Are Not A List Are Rejected
    [Tags]    deviation
    {"messages": "hello"}    400    invalid_request_error    messages    ${NONE}

A Message Without A Role Is Rejected
    [Tags]    deviation
    {"messages": [{"content": "hello"}]}    400    invalid_request_error    messages    ${NONE}

Max Tokens Of The Wrong Type Is Rejected
    [Tags]    deviation
    {"messages": [{"role": "user", "content": "hi"}], "max_tokens": "many"}    400    invalid_request_error
    ...    max_tokens    ${NONE}

The Server Still Answers After Bad Requests
    [Template]    NONE
    VAR    &{headers}    Content-Type=application/json
    POST On Session    ${PEER}    /v1/chat/completions    data={"messages": [    headers=${headers}
    ...    expected_status=any
    POST On Session    ${PEER}    /v1/chat/completions    data={"messages": 7}    headers=${headers}
    ...    expected_status=any
    ${resp} =    Chat    hello    server=${PEER}    max_tokens=${2}
    Json Field Should Be    ${resp}    usage.completion_tokens    ${2}


*** Keywords ***
Chat Request Should Be Rejected With
    [Documentation]    The request is rejected with OpenAI's error object, and the server still answers
    ...    `/v1/models` afterwards.
    [Arguments]    ${body}    ${status}    ${type}    ${param}    ${code}
    OpenAI Chat Error Should Be    ${body}    ${status}    ${type}    ${param}    ${code}
    GET On Session    ${PEER}    /v1/models    expected_status=200
