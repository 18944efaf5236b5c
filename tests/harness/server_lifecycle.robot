*** Settings ***
Documentation       The project's own server handling, against the real llama-server: clear errors for bad input,
...                 free ports, several servers at once, graceful stop, crashes, and requests that hit their
...                 deadline without hanging the run. A harness test: `run.py --selftest` runs it apart from
...                 the suites, so a report about llama-server never mixes with tests of our tooling.
Library             OperatingSystem
Resource            ../../resources/server.resource
Suite Setup         Start Lifecycle Server
Suite Teardown      Stop Servers For Suite
Test Tags           harness
Test Timeout        2 minutes


*** Test Cases ***
Unknown Model Name Fails With The Known Names
    Run Keyword And Expect Error    unknown model 'no-such-model': known models are *smollm2, tiny, *
    ...    Model Path    no-such-model

Unknown Preset Fails With The Known Presets
    Run Keyword And Expect Error    unknown server preset 'no-such-preset': known presets are tiny-1-slot*
    ...    Start Preset Server    no-such-preset    alias=nopreset

Missing Server Binary Fails With Install Instructions
    Set Environment Variable    LLAMA_SERVER_BIN    /nonexistent/llama-server
    Run Keyword And Expect Error    *LLAMA_SERVER_BIN=/nonexistent/llama-server is not an executable file*
    ...    Start Preset Server    tiny-1-slot    alias=nobinary
    [Teardown]    Remove Environment Variable    LLAMA_SERVER_BIN

Crash At Start Fails With The Server's Last Log Lines
    Run Keyword And Expect Error    *failed to start*exiting due to model loading error*
    ...    Start Llama Server    ${CURDIR}/server_lifecycle.robot    alias=broken

Taken Port Is Replaced By A Free One
    ${taken} =    Evaluate    urllib.parse.urlsplit($SUITE_URL).port    modules=urllib.parse
    ${url} =    Start Llama Server    ${TINY}    alias=second    port=${taken}    port_taken=expected
    Should Not Be Equal    ${url}    ${SUITE_URL}
    GET On Session    second    /health    expected_status=200
    GET On Session    suite    /health    expected_status=200
    [Teardown]    Stop Llama Server    second

Two Servers On Different Models Run Side By Side
    ${raw_path} =    Model Path    tiny-raw
    Start Llama Server    ${raw_path}    alias=raw
    ${raw_props} =    GET On Session    raw    /props    expected_status=200
    ${props} =    GET On Session    suite    /props    expected_status=200
    Json Field Should Be    ${raw_props}    model_path    ${raw_path}
    Json Field Should Be    ${props}    model_path    ${TINY}
    [Teardown]    Stop Llama Server    raw

Stop Ends The Server Gracefully With Exit Code Zero
    Start Preset Server    tiny-1-slot    alias=graceful
    ${code} =    Stop Llama Server    graceful
    Should Be Equal As Integers    ${code}    0

Crashed Server Is Reported With Its Exit Signal
    Start Preset Server    tiny-1-slot    alias=victim
    Kill Llama Server    victim
    ${code} =    Server Should Have Exited    victim
    Should Be Equal As Integers    ${code}    -9
    Run Keyword And Expect Error    llama-server 'victim' exited with code -9*    Server Should Be Running    victim
    [Teardown]    Stop Llama Server    victim

Request Without An Answer Fails At Its Deadline
    Run Keyword And Expect Error    POST /completion: no answer within 0.5 s
    ...    POST On Session    suite    /completion    json=${ENDLESS}    timeout=0.5
    GET On Session    suite    /health    expected_status=200

Stream Without An End Fails At Its Deadline
    VAR    &{body}    &{ENDLESS}    stream=${True}
    Run Keyword And Expect Error    POST /completion: no complete answer within 0.5 s*
    ...    Stream Request    /completion    ${body}    timeout=0.5
    GET On Session    suite    /health    expected_status=200

Server Log Names The Address It Listens On
    Server Log Should Contain    ${SUITE_URL.replace("http://", "")}

Suite Metadata Shows The Exact Command Line
    ${command} =    Server Command Line
    Should Contain    ${command}    --ctx-size 32768 --parallel 1
    Should Be Equal    ${SUITE METADATA}[Server Command Line]    ${command}


*** Keywords ***
Start Lifecycle Server
    [Documentation]    A single-slot server with a context long enough that an unbounded request runs for
    ...    seconds: `${ENDLESS}` is such a request.
    Start Server For Suite    tiny-long-context
    ${path} =    Model Path    tiny
    ${url} =    Server Url
    VAR    ${TINY}    ${path}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${SUITE_URL}    ${url}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    &{ENDLESS}    prompt=never ending    n_predict=${-1}    scope=SUITE    # robocop: off=no-suite-variable
