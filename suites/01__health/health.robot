*** Settings ***
Documentation       Liveness routes and the server's HTTP error contract: unknown paths, wrong methods,
...                 malformed bodies and the headers every response carries.
Resource            ../../resources/common.resource
Suite Setup         Start Server For Suite    tiny    --ctx-size    512    --parallel    1
...                     external_ok=${True}
Suite Teardown      Stop Servers For Suite
Test Tags           health


*** Test Cases ***
Health Reports Ok
    ${resp} =    GET From Server    ${BASE_URL}    /health
    Status Should Be    ${resp}    200
    Json Field Should Be    ${resp}    status    ok

V1 Health Reports Ok
    ${resp} =    GET From Server    ${BASE_URL}    /v1/health
    Status Should Be    ${resp}    200
    Json Field Should Be    ${resp}    status    ok

Json Responses Declare Json Content Type And Server Header
    ${resp} =    GET From Server    ${BASE_URL}    /health
    Header Should Start With    ${resp}    Content-Type    application/json
    Header Should Be    ${resp}    Server    llama.cpp

Unknown Path Returns Not Found Error Object
    ${resp} =    GET From Server    ${BASE_URL}    /no/such/route
    Error Response Should Be    ${resp}    404    not_found_error    message=File Not Found

Unknown Path Under V1 Returns Not Found Error Object
    ${resp} =    POST Json To Server    ${BASE_URL}    /v1/no-such-endpoint    ${{ {"x": 1} }}
    Error Response Should Be    ${resp}    404    not_found_error    message=File Not Found

Malformed Json Body Returns Invalid Request Error
    ${resp} =    POST Raw Body To Server    ${BASE_URL}    /completion    {"prompt": "hello",
    Error Response Should Be    ${resp}    400    invalid_request_error

Malformed Json Body On Chat Returns Invalid Request Error
    ${resp} =    POST Raw Body To Server    ${BASE_URL}    /v1/chat/completions    {"messages": [}
    Error Response Should Be    ${resp}    400    invalid_request_error

Non Json Body Returns Invalid Request Error
    ${resp} =    POST Raw Body To Server    ${BASE_URL}    /tokenize    not json at all
    Error Response Should Be    ${resp}    400    invalid_request_error
