*** Settings ***
Documentation       A second llama-server on the port of a running one cannot bind it: it exits 1 at once with a
...                 message that names the host and port, and the running server is not disturbed.
Resource            ../../resources/command_line.resource
Resource            ../../resources/server.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           command-line    errors    needs:managed


*** Test Cases ***
Port In Use Exits With A Bind Error
    ${port} =    Suite Server Port
    ${model} =    Model Path    tiny
    ${result} =    Run Server Command    --model    ${model}    --host    127.0.0.1    --port    ${port}
    Command Should Fail With    ${result}
    ...    couldn't bind HTTP server socket, hostname: 127.0.0.1, port: ${port}
    ...    exiting due to HTTP server error
    Should Not Contain    ${result.stderr}    load_model

Running Server Still Answers After The Failed Start
    ${port} =    Suite Server Port
    ${model} =    Model Path    tiny
    Run Server Command    --model    ${model}    --host    127.0.0.1    --port    ${port}
    Server Should Be Running
    ${resp} =    GET On Session    suite    /health    expected_status=200
    Json Field Should Be    ${resp}    status    ok


*** Keywords ***
Suite Server Port
    [Documentation]    The port the suite's server listens on, from its URL.
    ${url} =    Server Url
    ${port} =    Evaluate    urllib.parse.urlsplit($url).port    modules=urllib.parse
    RETURN    ${port}
