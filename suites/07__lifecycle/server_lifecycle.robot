*** Settings ***
Documentation       The project's own server handling: clear errors for bad input, free ports, several servers
...                 at once, graceful stop, crashes, and requests that hit their deadline without hanging the run.
Library             OperatingSystem
Resource            ../../resources/api.resource
Suite Setup         Start Lifecycle Server
Suite Teardown      Stop Servers For Suite
Test Tags           lifecycle


*** Test Cases ***
Unknown Model Name Fails With The Known Names
    Run Keyword And Expect Error    unknown model 'no-such-model': known models are smollm2, tiny, tiny-raw*
    ...    Model Path    no-such-model

Missing Server Binary Fails With Install Instructions
    Set Environment Variable    LLAMA_SERVER_BIN    /nonexistent/llama-server
    Run Keyword And Expect Error    *LLAMA_SERVER_BIN=/nonexistent/llama-server is not an executable file*
    ...    Start Llama Server    ${TINY}    alias=nobinary
    [Teardown]    Remove Environment Variable    LLAMA_SERVER_BIN

Crash At Start Fails With The Server's Last Log Lines
    Run Keyword And Expect Error    *failed to start*exiting due to model loading error*
    ...    Start Llama Server    ${CURDIR}/server_lifecycle.robot    alias=broken

Taken Port Is Replaced By A Free One
    ${taken} =    Evaluate    int($BASE_URL.rsplit(":", 1)[1])
    ${url} =    Start Llama Server    ${TINY}    alias=second    port=${taken}
    Should Not Be Equal    ${url}    ${BASE_URL}
    Health Should Be Ok    ${url}
    Health Should Be Ok    ${BASE_URL}
    [Teardown]    Stop Llama Server    second

Two Servers On Different Models Run Side By Side
    ${raw_path} =    Model Path    tiny-raw
    ${raw_url} =    Start Llama Server    ${raw_path}    alias=raw
    ${raw_props} =    GET From Server    ${raw_url}    /props
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be    ${raw_props}    model_path    ${raw_path}
    Json Field Should Be    ${props}    model_path    ${TINY}
    [Teardown]    Stop Llama Server    raw

Stop Ends The Server Gracefully With Exit Code Zero
    Start Llama Server    ${TINY}    alias=graceful
    ${code} =    Stop Llama Server    graceful
    Should Be Equal As Integers    ${code}    0

Crashed Server Is Reported With Its Exit Signal
    Start Llama Server    ${TINY}    alias=victim
    Kill Llama Server    victim
    Run Keyword And Expect Error    llama-server 'victim' exited with code -9*    Server Should Be Running    victim
    [Teardown]    Stop Llama Server    victim

Request Without An Answer Fails At Its Deadline
    Run Keyword And Expect Error    POST /completion: no answer within 0.5 s*
    ...    POST Json To Server    ${BASE_URL}    /completion    ${ENDLESS}    timeout=0.5
    Health Should Be Ok    ${BASE_URL}

Stream Without An End Fails At Its Deadline
    Run Keyword And Expect Error    no complete answer within 0.5 s*
    ...    Stream Request    ${BASE_URL}    /completion    ${{ {**$ENDLESS, "stream": True} }}    timeout=0.5
    Health Should Be Ok    ${BASE_URL}

Server Log Names The Address It Listens On
    Server Log Should Contain    ${BASE_URL.replace("http://", "")}


*** Keywords ***
Start Lifecycle Server
    [Documentation]    A single-slot server with a context long enough that an unbounded request runs for
    ...    seconds: `${ENDLESS}` is such a request.
    ${path} =    Model Path    tiny
    VAR    ${TINY}    ${path}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    &{ENDLESS}    prompt=never ending    n_predict=${-1}    scope=SUITE    # robocop: off=no-suite-variable
    Start Server For Suite    tiny    --ctx-size    32768    --parallel    1

Health Should Be Ok
    [Documentation]    Fails unless the server at ``url`` answers /health with 200.
    [Arguments]    ${url}
    ${resp} =    GET From Server    ${url}    /health
    Status Should Be    ${resp}    200
