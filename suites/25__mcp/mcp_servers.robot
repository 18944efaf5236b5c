*** Settings ***
Documentation       MCP servers: llama-server reads a Cursor-format `mcpServers` config (`--mcp-servers-config`),
...                 spawns each server over stdio once to list its tools, and spawns it again on demand when one
...                 of them is called through `POST /tools` (server README, "MCP servers"; README-dev, "API for
...                 tools"). The servers are ours: `echo` is a real MCP server built with the mcp SDK, the others
...                 misbehave on purpose (hang, crash, garbage lines, a reply without result, a notification
...                 first, in its own write or in the reply's, no tool at all). What llama-server should answer
...                 comes from the SDK's own client on the same fixture.
...                 Only stdio is supported (README): a server given by `url` is never contacted.
...
...                 The tests that call `echo` come last: llama-server spawns it on the first call, and the SDK server
...                 takes about a second to start (importing the mcp package). The set-up sends that first call in the
...                 background, so that it starts while the tests of the other servers run. It also launches the
...                 servers of the URL, proxy and process tests once the suite's is up, and each of those tests waits
...                 for its own. The HTTP fixture, which needs the mcp SDK, starts after the suite's server: McpLibrary
...                 imports the SDK meanwhile (most of a second), so the server that names the fixture by `url` is
...                 `remote`, started after it.
Resource            ../../resources/mcp.resource
Suite Setup         Start Suite Server With Every Fixture
Suite Teardown      Stop Servers And Mcp Fixtures
Test Timeout        2 minutes
Test Tags           mcp    needs:managed    build-specific    builds:10825-


*** Variables ***
# the timeout_ms of the faulty servers whose calls wait for it to run out (hang, garbage, huge) on a quiet
# machine. It also bounds the spawn and the `initialize` of each call: 20-37 ms here (twenty spawns of the fixture,
# python included, while other suites ran; median 27 ms): ten times that, no more, since three tests wait for it
# whole; the set-up stretches it on a busy machine (`Deadline`) and gives the entries and `${SHORT_MS}` the figure.
${SHORT_TIMEOUT}    250 ms
${BOUND_MS}         ${1500}
${PROBE}            LLAMATEST_MCP_PROBE
${PLACE_DIR}        ${OUTPUT_DIR}${/}mcp${/}place
${NO_CONFIG}        ${OUTPUT_DIR}${/}mcp${/}no-such-config.json
&{ECHO}             name=echo    kind=echo
&{CRASH}            name=crash    kind=crash    timeout_ms=${BOUND_MS}
&{SHAPELESS}        name=shapeless    kind=shapeless    timeout_ms=${BOUND_MS}
&{NOTIFY}           name=notify    kind=notify
&{BURST}            name=burst    kind=burst
&{NO_TOOLS}         name=empty    kind=empty
&{GRANDCHILD}       name=gc    kind=grandchild
&{PLACE_ENV}        LLAMATEST_MCP_PROBE=probe value
# the tests of the config and of the processes use `plain`, written by hand: it starts in some 20 ms, where the
# SDK's `echo` takes a second, and llama-server spawns it at start and again on the call
&{PLACE}            name=place    kind=plain    cwd=${PLACE_DIR}    env=${PLACE_ENV}
&{PLAIN}            name=plain    kind=plain
&{MISSING}          name=missing    kind=missing
&{REMOTE}           name=remote    kind=url
&{CLIENT_INFO}      name=llamatest    version=1
&{INITIALIZE_PARAMS}    protocolVersion=2025-03-26    capabilities=&{EMPTY}    clientInfo=${CLIENT_INFO}


*** Test Cases ***
Every Tool Of Every MCP Server Is Listed Under Its Server Prefix
    Mcp Tools Should Be Listed    @{STDIO_FIXTURES}

A Crashing MCP Server Gives An Error Object Each Time
    Tool Should Answer Error    crash_echo    transport closed    message=hi
    Tool Should Answer Error    crash_echo    transport closed    message=again
    Server Should Still Serve Completions

Lines That Are Not JSON-RPC Are Skipped Until The Timeout
    Tool Should Answer Error    garbage_echo    request timed out    message=hi
    Server Should Still Serve Completions

A Reply With Neither Result Nor Error Is An Invalid Response
    Tool Should Answer Error    shapeless_echo    invalid response from MCP server    message=hi

A Notification Before The Reply Is Not Taken For It
    Tool Answer Should Be The Sdk Answer    ${NOTIFY}    echo    message=after the notification

A Notification Sent In The Same Write As The Reply Is Not Taken For It
    Tool Answer Should Be The Sdk Answer    ${BURST}    echo    message=in one write

A Result Line Over Eight Megabytes Is Dropped And Times Out
    [Documentation]    The stdio reader drops any line over 8 MiB (server-mcp.cpp, `max_line`), so the reply never
    ...    arrives: the call ends at the server's `timeout_ms` with an error object, and the server goes on. The
    ...    server's log shows that the line came and was dropped, so the timeout did not merely come first.
    [Tags]    builds:11434-
    Tool Should Answer Error    huge_echo    request timed out    message=hi
    ${wait} =    Deadline    5 s
    Wait Until Keyword Succeeds    ${wait}    100 ms    Server Log Should Contain    MCP: dropping oversized line
    Server Should Still Serve Completions

The Config Sets The Environment And The Working Directory Of A Server
    VAR    &{params}    variable=${PROBE}
    ${answer} =    Tool Answer    place_whereami    ${params}
    ${seen} =    Parsed Json    ${answer}[plain_text_response]
    VAR    &{expected}    cwd=${PLACE_DIR}    value=probe value
    Should Be Equal    ${seen}    ${expected}

A Server Whose Command Does Not Exist Has No Tools And Cannot Be Called
    [Documentation]    An unknown tool is a 404 (README-dev); the HTTP layer replaces the body of every 404 with
    ...    its generic `File Not Found`, so the message is not checked.
    ${names} =    Listed Tool Names
    Should Not Contain Match    ${names}    missing_*
    VAR    &{params}    message=hi
    ${resp} =    Call Tool    missing_echo    ${params}    expected_status=any
    Error Response Should Be    ${resp}    404    not_found_error

A Server Given By URL Is Never Contacted
    [Documentation]    The server `remote` has the HTTP fixture, given by `url`, beside a `plain` one (llama-server
    ...    turns `/tools` off without a server it can spawn). The fixture answered the SDK client before `remote`
    ...    started (suite setup); since then it has received no request.
    Wait Until Server Is Ready    remote
    ${names} =    Listed Tool Names    server=remote
    Should Not Contain Match    ${names}    remote_*
    ${count} =    Http Mcp Server Request Count
    Should Be Equal    ${count}    ${HTTP_SDK_REQUESTS}    llama-server sent requests to ${HTTP_URL}

A Config That Is Not JSON Stops The Server At Start
    [Template]    MCP Config Should Stop The Server
    --mcp-servers-json    {"mcpServers": {    failed to parse MCP config JSON
    --mcp-servers-config    ${NO_CONFIG}    failed to open MCP config file: ${NO_CONFIG}

The Web UI's Proxy Reaches An MCP Server Over HTTP
    [Documentation]    llama-server itself speaks MCP over stdio only; the Web UI reaches HTTP MCP servers through
    ...    `--ui-mcp-proxy` ("lets the Web UI reach remote MCP servers from the browser", README), which
    ...    forwards a request to `url` with the headers named `x-llama-server-proxy-header-*`. An `initialize`
    ...    sent that way gets the HTTP fixture's own answer.
    Wait Until Server Is Ready    proxy
    ${before} =    Http Mcp Server Request Count
    ${reply} =    Mcp Request Through Proxy    ${HTTP_URL}    initialize    ${INITIALIZE_PARAMS}
    Should Be Equal    ${reply}[result][serverInfo][name]    llamatest-echo
    ${after} =    Http Mcp Server Request Count
    Should Be Equal    ${after}    ${before + 1}
    [Teardown]    Stop Llama Server    proxy

A Grandchild Holding The Pipes Holds Up Neither Start Nor Calls Nor Stop
    [Documentation]    The fixture leaves a child that keeps its stdout and stderr open after llama-server has ended
    ...    it at the end of warmup: reading those pipes until EOF would never end. llama-server must start,
    ...    answer the call and stop on SIGTERM (exit code 0, before the harness's SIGKILL). The harness signals
    ...    the whole process tree, the grandchild of the call included, so the stop is the weaker check.
    Wait Until Server Is Ready    third
    VAR    &{params}    message=hello
    ${answer} =    Tool Answer    gc_echo    ${params}    server=third
    VAR    &{expected}    plain_text_response=hello
    Should Be Equal    ${answer}    ${expected}
    ${code} =    Stop Llama Server    third
    Should Be Equal    ${code}    ${0}
    [Teardown]    Stop Llama Server    third

MCP Servers Are Spawned On Demand And End With Llama-Server
    [Documentation]    The fixture is `plain`, quick to start: the test is about its process, not its protocol.
    Wait Until Server Is Ready    second
    Mcp Fixture Processes Should End    llamatest-mcp-second
    VAR    &{params}    message=spawned
    Tool Answer    plain_echo    ${params}    server=second
    ${count} =    Mcp Fixture Process Count    llamatest-mcp-second
    Should Be Equal    ${count}    ${1}    fixture processes after one call
    Stop Llama Server    second
    Mcp Fixture Processes Should End    llamatest-mcp-second

A Hanging MCP Server Times Out With An Error Object And Frees Nothing Else
    [Documentation]    The call waits for the `timeout_ms` of its server's config (`${SHORT_TIMEOUT}` on a quiet
    ...    machine, sized in the suite's variables), then answers with an error object, never earlier; the server
    ...    goes on.
    ${resp} =    Tool Should Answer Error    hang_echo    request timed out    message=hi
    Should Be True    $resp.elapsed.total_seconds() >= ${SHORT_MS} / 1000    answered before its timeout_ms
    Server Should Still Serve Completions
    Tool Answer Should Be The Sdk Answer    ${ECHO}    echo    message=still here

A Tool Call Passes Its Arguments And Its Result Through
    Tool Answer Should Be The Sdk Answer    ${ECHO}    echo    message=héllo, wörld ✓ "quoted"
    Tool Answer Should Be The Sdk Answer    ${ECHO}    add    a=${3}    b=${5}

Concurrent Calls To One Server Each Get Their Own Answer
    [Documentation]    Ten calls at once to the one `echo` process: each answer must be the one to its own request.
    VAR    @{messages}    call 0 of ten    call 1 of ten    call 2 of ten    call 3 of ten    call 4 of ten
    ...    call 5 of ten    call 6 of ten    call 7 of ten    call 8 of ten    call 9 of ten
    Concurrent Echo Answers Should Be The Sdk Answers    @{messages}
    Server Should Still Serve Completions

Calls To One Server Reach The Same Process
    [Documentation]    The server process spawned for the first call serves the next ones: the fixture's `count`
    ...    tool counts the calls its process has answered.
    ${first} =    Tool Answer    echo_count
    ${second} =    Tool Answer    echo_count
    VAR    &{expected}    plain_text_response=${{ str(int($first["plain_text_response"]) + 1) }}
    Should Be Equal    ${second}    ${expected}

An Error Result Of A Tool Is An Error Object
    Tool Answer Should Be The Sdk Answer    ${ECHO}    fail    reason=the fixture refuses

A Result Of Two Megabytes Is Passed Through Whole
    Tool Answer Should Be The Sdk Answer    ${ECHO}    repeat    text=ab    times=${1000000}

A Server That Lists No Tool Adds None
    ${names} =    Listed Tool Names
    Should Not Contain Match    ${names}    empty_*
    Tool Answer Should Be The Sdk Answer    ${ECHO}    echo    message=the others still answer


*** Keywords ***
MCP Config Should Stop The Server
    [Documentation]    llama-server on `tiny` with `flag value` exits with code 1 and `message` before it listens.
    [Arguments]    ${flag}    ${value}    ${message}
    ${model} =    Model Path    tiny
    ${result} =    Run Server Command    --model    ${model}    --port    0    ${flag}    ${value}
    Should Be Equal As Integers    ${result.rc}    1    msg=exit code (stderr: ${result.stderr})
    Should Contain    ${result.stdout}${result.stderr}    ${message}
    Should Not Contain    ${result.stdout}${result.stderr}    listening on

Concurrent Echo Answers Should Be The Sdk Answers
    [Documentation]    Sends `echo_echo` with each of the `messages`, all at once; each answer must be 200 and what
    ...    the SDK client gets for its own message.
    [Arguments]    @{messages}
    ${bodies} =    Tool Call Bodies    echo_echo    message    @{messages}
    ${results} =    Stream Requests Concurrently    /tools    ${bodies}
    FOR    ${message}    ${result}    IN ZIP    ${messages}    ${results}
        Stream Status Should Be    ${result}    200
        ${expected} =    Expected Mcp Answer    ${ECHO}    echo    message=${message}
        Answers Should Be Equal    ${result.json_body}    ${expected}
    END

Start Suite Server With Every Fixture
    [Documentation]    Starts the suite's server with one entry of each kind stdio takes (`@{STDIO_FIXTURES}`, and
    ...    a missing command), while McpLibrary imports the mcp SDK in the background and the SDK client's own
    ...    fixtures start beside it; then the HTTP fixture (which needs the SDK); then launches the servers of the
    ...    URL, proxy and process tests and sends the first call to `echo` in the background (see the suite's
    ...    documentation). The suite's server comes first among the servers: with `$LLAMA_SERVER_URL` set, it skips
    ...    the suite before any other starts.
    Create Directory    ${PLACE_DIR}
    Time Out The Waiting Servers After    ${SHORT_TIMEOUT}
    VAR    @{STDIO_FIXTURES}    ${ECHO}    ${HANG}    ${CRASH}    ${GARBAGE}    ${SHAPELESS}    ${NOTIFY}    ${BURST}
    ...    ${NO_TOOLS}    ${HUGE}    ${PLACE}    scope=SUITE    # robocop: off=no-suite-variable
    Start Sdk Reference Fixtures    @{STDIO_FIXTURES}
    Start Server With Mcp Servers    @{STDIO_FIXTURES}    ${MISSING}
    Start The Http Fixture
    Launch The Servers Of The URL, Proxy And Process Tests
    Begin The First Echo Call

Launch The Servers Of The URL, Proxy And Process Tests
    [Documentation]    Launches `remote` (the HTTP fixture by its URL, beside a `plain` one), `proxy`
    ...    (`--ui-mcp-proxy`), `third` (a fixture whose grandchild holds the pipes) and `second` (a `plain` fixture
    ...    under a marker of its own); each test waits for its own.
    Launch Server With Mcp Servers    ${PLAIN}    ${REMOTE}    alias=remote
    Launch Preset Server    tiny-1-slot    --ui-mcp-proxy    alias=proxy
    Launch Server With Mcp Servers    ${GRANDCHILD}    alias=third    marker=llamatest-mcp-third
    Launch Server With Mcp Servers    ${PLAIN}    alias=second    marker=llamatest-mcp-second

Start The Http Fixture
    [Documentation]    Starts the HTTP fixture, checks that it answers the SDK client, and keeps its URL
    ...    (`${HTTP_URL}`) and the requests it has received so far (`${HTTP_SDK_REQUESTS}`) for the suite.
    ${url} =    Start Http Mcp Server
    ${tools} =    Http Mcp Tools    ${url}
    Should Contain    ${tools}    echo
    ${sdk_requests} =    Http Mcp Server Request Count
    VAR    ${HTTP_URL}    ${url}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${HTTP_SDK_REQUESTS}    ${sdk_requests}    scope=SUITE    # robocop: off=no-suite-variable

Begin The First Echo Call
    [Documentation]    Sends `echo_echo` to the suite's server in the background (`echo-spawn`), so that llama-server
    ...    spawns the SDK's `echo` while other tests run; the suite's teardown ends it.
    VAR    &{params}    message=spawned by the set-up
    Call Tool In Background    echo-spawn    echo_echo    ${params}

Time Out The Waiting Servers After
    [Documentation]    Sets `${SHORT_MS}` to `quiet` (a Robot time) as the machine allows now (`Deadline`), in
    ...    milliseconds, and makes it the `timeout_ms` of the faulty servers whose calls wait for it: `${HANG}`,
    ...    `${GARBAGE}`, `${HUGE}`.
    [Arguments]    ${quiet}
    ${seconds} =    Deadline    ${quiet}
    ${ms} =    Convert To Integer    ${seconds * 1000}
    VAR    ${SHORT_MS}    ${ms}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    &{HANG}    name=hang    kind=hang    timeout_ms=${ms}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    &{GARBAGE}    name=garbage    kind=garbage    timeout_ms=${ms}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    &{HUGE}    name=huge    kind=oversized    timeout_ms=${ms}    scope=SUITE    # robocop: off=no-suite-variable

Stop Servers And Mcp Fixtures
    [Documentation]    Stops the suite's servers, the set-up's background call, then every MCP fixture process the
    ...    suite left.
    [Timeout]    1 minute
    Stop Servers For Suite
    Stop Background Post    echo-spawn
    Stop Mcp Fixtures
