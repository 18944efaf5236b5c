*** Settings ***
Documentation       The server's HTTP error contract: unknown paths and malformed bodies get the exact error
...                 object `{"error": {"code", "type", "message"}}` with the matching status.
Resource            ../../resources/server.resource
Suite Setup         Start Server For Suite    tiny-1-slot    external_ok=${True}
Suite Teardown      Stop Servers For Suite
Test Template       Raw Request Should Fail With
Test Tags           health    errors


*** Test Cases ***                                  METHOD    PATH                    BODY                   STATUS    TYPE                     MESSAGE
Unknown Path Returns Not Found                      GET       /no/such/route          ${NONE}                404       not_found_error          File Not Found
Unknown Path Under V1 Returns Not Found             POST      /v1/no-such-endpoint    {"x": 1}               404       not_found_error          File Not Found
Malformed Json On Completion Is Invalid Request     POST      /completion             {"prompt": "hello",    400       invalid_request_error    ${NONE}
Malformed Json On Chat Is Invalid Request           POST      /v1/chat/completions    {"messages": [}        400       invalid_request_error    ${NONE}
Non Json Body On Tokenize Is Invalid Request        POST      /tokenize               not json at all        400       invalid_request_error    ${NONE}


*** Keywords ***
Raw Request Should Fail With
    [Documentation]    Sends `body` exactly as given (declared as JSON) and checks the error object; a
    ...    `message` of `${NONE}` only requires a non-empty message.
    [Arguments]    ${method}    ${path}    ${body}    ${status}    ${type}    ${message}
    VAR    &{headers}    Content-Type=application/json
    ${resp} =    Run Keyword    ${method} On Session    suite    ${path}    data=${body}    headers=${headers}
    ...    expected_status=any
    Error Response Should Be    ${resp}    ${status}    ${type}    message=${message}
