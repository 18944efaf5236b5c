*** Settings ***
Documentation       Liveness routes and the headers every JSON response carries.
Resource            ../../resources/server.resource
Suite Setup         Start Server For Suite    tiny-1-slot    external_ok=${True}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           health


*** Test Cases ***
Health Reports Ok
    ${resp} =    GET On Session    suite    /health    expected_status=200
    Json Field Should Be    ${resp}    status    ok

V1 Health Reports Ok
    ${resp} =    GET On Session    suite    /v1/health    expected_status=200
    Json Field Should Be    ${resp}    status    ok

Json Responses Declare The Json Media Type
    ${resp} =    GET On Session    suite    /health    expected_status=200
    Media Type Should Be    ${resp}    application/json

Responses Name The Server
    ${resp} =    GET On Session    suite    /health    expected_status=200
    Header Should Be    ${resp}    Server    llama.cpp
