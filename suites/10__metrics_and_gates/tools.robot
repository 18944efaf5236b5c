*** Settings ***
Documentation       The agent routes when they are on: `--tools get_info` serves only that built-in tool at
...                 `/tools`, and `--ui-mcp-proxy` turns `/cors-proxy` into a proxy to the URL it is given. Only
...                 the read-only `get_info` tool is enabled: no test runs a tool that writes or executes.
Library             Collections
Library             llamatest.media
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
    VAR    &{no_params}    &{EMPTY}
    VAR    &{call}    tool=get_info    params=${no_params}
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

Cors Proxy Forwards Only The Headers Named For The Target
    [Documentation]    The client's credentials for llama-server (`Proxy-Authorization`, `X-Api-Key`, `Cookie`) stay
    ...    behind; a header the client names `x-llama-server-proxy-header-NAME` goes to the target as `NAME`.
    ${target} =    Start Media Fixture
    VAR    &{headers}    Proxy-Authorization=Basic secret    X-Api-Key=client-key    Cookie=session=secret
    ...    x-llama-server-proxy-header-accept=application/json
    ...    x-llama-server-proxy-header-authorization=Bearer explicit
    GET On Session    suite    /cors-proxy    params=url=${target}/image.png    headers=${headers}
    ...    expected_status=200
    ${sent} =    Headers The Target Received
    Should Be Equal    ${sent}[accept]    application/json
    Should Be Equal    ${sent}[authorization]    Bearer explicit
    Dictionary Should Not Contain Key    ${sent}    proxy-authorization
    Dictionary Should Not Contain Key    ${sent}    x-api-key
    Dictionary Should Not Contain Key    ${sent}    cookie
    [Teardown]    Stop Media Fixture

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


*** Keywords ***
Headers The Target Received
    [Documentation]    The headers of the one request the media fixture got, with lower-case names.
    ${requests} =    Media Fixture Requests
    Length Should Be    ${requests}    1
    ${headers} =    Headers With Lower Case Names    ${requests}[0][headers]
    RETURN    ${headers}
