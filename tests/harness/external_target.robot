*** Settings ***
Documentation       A keyed server as the external target (`LLAMA_SERVER_URL`, `LLAMATEST_API_KEY`): the suite's
...                 server is bound to it instead of being started, its session sends the key, and no file of the
...                 output folder holds the key.
Library             OperatingSystem
Resource            ../../resources/server.resource
Suite Setup         Use A Keyed Server As The External Target
Suite Teardown      Forget The External Target
Test Timeout        1 minute
Test Tags           harness


*** Variables ***
${KEY: Secret}      %{LLAMATEST_HARNESS_KEY=sk-harness-external-0123456789}


*** Test Cases ***
The Suite Server Is The External Target
    ${suite} =    Server Url
    ${target} =    Server Url    target
    Should Be Equal    ${suite}    ${target}
    ${command} =    Server Command Line
    Should Be Equal    ${command}    external server at ${target}

The Suite Session Sends The Key
    ${resp} =    GET On Session    suite    /v1/models    expected_status=200
    Media Type Should Be    ${resp}    application/json

The Description Comes From The Target Itself
    ${description} =    Server Description
    Should Contain    ${description}    (external server at

No File Of The Output Folder Holds The Key
    GET On Session    suite    /props    expected_status=200
    Output Folder Should Not Hold The Key


*** Keywords ***
Use A Keyed Server As The External Target
    [Documentation]    Starts a keyed tiny server (alias `target`), points `LLAMA_SERVER_URL` and
    ...    `LLAMATEST_API_KEY` at it, and starts the suite's server, which is then bound to it.
    ${url} =    Start Preset Server    tiny-1-slot    alias=target    api_key=${KEY}
    Evaluate    os.environ.update(LLAMA_SERVER_URL=$url, LLAMATEST_API_KEY=$KEY.value)    modules=os
    Start Preset Server    tiny-1-slot

Forget The External Target
    [Documentation]    Unsets both variables, forgets the suite's server and stops the target.
    [Timeout]    1 minute
    Remove Environment Variable    LLAMA_SERVER_URL    LLAMATEST_API_KEY
    Stop Suite Servers

Output Folder Should Not Hold The Key
    [Documentation]    Reads every file written to the output folder so far (output.xml, the server logs).
    ${holding} =    Files Holding Secret    ${OUTPUT_DIR}    ${KEY}
    Should Be Empty    ${holding}
