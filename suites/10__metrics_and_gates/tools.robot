*** Settings ***
Documentation       The agent routes when they are on: `--tools get_info` serves only that built-in tool at
...                 `/tools`, and `--ui-mcp-proxy` turns `/cors-proxy` into a proxy to the URL it is given. Only
...                 the read-only `get_info` tool is enabled: no test runs a tool that writes or executes.
Resource            ../../resources/props.resource
Resource            ../../resources/security.resource
Suite Setup         Start Server For Suite    tiny-1-slot    --tools    get_info    --ui-mcp-proxy
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           gates    build-specific    builds:10825-


*** Test Cases ***
Tools Lists Only The Enabled Tool
    ${resp} =    GET On Session    suite    /tools    expected_status=200
    Media Type Should Be    ${resp}    application/json
    Length Should Be    ${resp.json()}    1
    Json Field Should Be    ${resp}    0.tool    get_info
    Json Field Should Be    ${resp}    0.definition.function.name    get_info
    Json Field Should Be    ${resp}    0.permissions.write    ${False}

Get Info Tool Reports The Operating System And Working Directory
    VAR    &{call}    tool=get_info    params=${{ {} }}
    ${resp} =    POST On Session    suite    /tools    json=${call}    expected_status=200
    Json Fields Should Exist    ${resp}    ${EMPTY}    os    cwd
    Json Field Should Be Of Type    ${resp}    cwd    str

Tool Call Without A Tool Name Is A Well Formed Error
    [Documentation]    Contract: the server's README, "API errors": "`llama-server` returns errors in the same
    ...    format as OAI", with the example `{"error": {"code": 401, "message": …, "type": …}}`. A missing
    ...    `tool` is a 400 `invalid_request_error`, but this build sends the error object bare (`{"code": 400,
    ...    "message": "[json.exception.out_of_range.403] key 'tool' not found", …}`) instead of inside
    ...    `{"error": …}` like every other error (the catch blocks of server-tools.cpp).
    [Tags]    bug
    VAR    &{call}    params=${None}
    ${resp} =    POST On Session    suite    /tools    json=${call}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message_contains=tool

Tools Narrow Cors To Localhost Origins By Default
    [Documentation]    With tools on and no `--cors-origins`, the server acts as if `--cors-origins localhost` were
    ...    given (arg.cpp): a web page elsewhere may not drive tools that read the machine.
    ${local} =    Preflight From    http://localhost:8080
    Allowed Origin Should Be    ${local}    http://localhost:8080
    ${other} =    Preflight From    https://evil.example
    Header Should Be Absent    ${other}    Access-Control-Allow-Origin

Cors Proxy Forwards To The Url It Is Given
    ${url} =    Server Url
    ${resp} =    GET On Session    suite    /cors-proxy    params=url=${url}/health    expected_status=200
    Media Type Should Be    ${resp}    application/json
    VAR    &{ok}    status=ok
    Json Field Should Be    ${resp}    ${EMPTY}    ${ok}

Cors Proxy Without A Url Is A Bad Request
    [Documentation]    Contract: RFC 9110 §15.5.1, 400 is for "something that is perceived to be a client error",
    ...    and §15.6.1, 500 for "an unexpected condition" of the server; a request without the `url` parameter
    ...    is the client's mistake. This build answers 500 `server_error` "invalid URL: no scheme"
    ...    (server-cors-proxy.h throws `runtime_error`, which the route wrapper turns into a 500). The message
    ...    is not checked: no contract says what it must be.
    [Tags]    bug
    ${resp} =    GET On Session    suite    /cors-proxy    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error

Props Report The Cors Proxy On
    ${props} =    Get Props
    Json Field Should Be    ${props}    cors_proxy_enabled    ${True}
