# robocop: off=line-too-long
*** Settings ***
Documentation       The server's HTTP error contract: unknown paths, malformed bodies and a GET on a route that only
...                 takes POST get the exact error object `{"error": {"code", "type", "message"}}` with the matching
...                 status (llama-server answers a method it does not route with 404, as for an unknown path).
Resource            ../../resources/server.resource
Suite Setup         Start Server For Suite    tiny-1-slot    external_ok=${True}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Request Should Fail With
Test Tags           health    errors


*** Test Cases ***                                  PATH                    BODY                   STATUS    TYPE                     MESSAGE
Unknown Path Returns Not Found                      /no/such/route          ${NONE}                404       not_found_error          File Not Found
Unknown Path Under V1 Returns Not Found             /v1/no-such-endpoint    {"x": 1}               404       not_found_error          File Not Found
Malformed Json On Completion Is Invalid Request     /completion             {"prompt": "hello",    400       invalid_request_error    ${NONE}
Malformed Json On Chat Is Invalid Request           /v1/chat/completions    {"messages": [}        400       invalid_request_error    ${NONE}
Non Json Body On Tokenize Is Invalid Request        /tokenize               not json at all        400       invalid_request_error    ${NONE}
Get On Completion Is Not Found                      /completion             ${NONE}                404       not_found_error          File Not Found
Get On V1 Completions Is Not Found                  /v1/completions         ${NONE}                404       not_found_error          File Not Found
Get On Chat Completions Is Not Found                /chat/completions       ${NONE}                404       not_found_error          File Not Found
Get On V1 Chat Completions Is Not Found             /v1/chat/completions    ${NONE}                404       not_found_error          File Not Found
Get On Apply Template Is Not Found                  /apply-template         ${NONE}                404       not_found_error          File Not Found
Get On Responses Is Not Found                       /v1/responses           ${NONE}                404       not_found_error          File Not Found
Get On Messages Is Not Found                        /v1/messages            ${NONE}                404       not_found_error          File Not Found
Get On Count Tokens Is Not Found                    /v1/messages/count_tokens    ${NONE}            404       not_found_error          File Not Found
Get On Tokenize Is Not Found                        /tokenize               ${NONE}                404       not_found_error          File Not Found
Get On Detokenize Is Not Found                      /detokenize             ${NONE}                404       not_found_error          File Not Found


*** Keywords ***
Request Should Fail With
    [Documentation]    GETs `path` when `body` is `${NONE}`, else POSTs `body` exactly as given (declared as
    ...    JSON), and checks the error object. A `message` of `${NONE}` only requires a non-empty message.
    [Arguments]    ${path}    ${body}    ${status}    ${type}    ${message}
    VAR    &{json}    Content-Type=application/json
    IF    $body is None
        ${resp} =    GET On Session    suite    ${path}    expected_status=any
    ELSE
        ${resp} =    POST On Session    suite    ${path}    data=${body}    headers=${json}    expected_status=any
    END
    Error Response Should Be    ${resp}    ${status}    ${type}    message=${message}
