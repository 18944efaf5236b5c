*** Settings ***
Documentation       Users who hang up: a client that disconnects in the middle of a stream frees its slot at once
...                 (native and OpenAI routes), and the other users are not disturbed. Two slots of 256 tokens with
...                 `--context-shift`, so an abandoned request would otherwise run forever.
Resource            ../../resources/slots.resource
Suite Setup         Start Server For Suite    tiny-2-slots-context-shift
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user


*** Variables ***
${FIRST}            a user who will hang up
${SECOND}           a user who stays to the end
${ENDLESS}          ${100000}
${CHUNKS}           ${200}
${FREED_WITHIN}     ${3}
@{FIRST_ONLY}       ${0}
@{THIRD_ONLY}       ${2}
@{ONE_ENDLESS}      ${ENDLESS}    ${300}
@{TWO_ENDLESS}      ${ENDLESS}    ${ENDLESS}    ${8}


*** Test Cases ***
A Stream Abandoned Mid Generation Frees Its Slot
    [Template]    A Stream Abandoned After Some Chunks Should Free Its Slot
    native
    openai
    chat

The Other User Keeps Streaming When One Hangs Up
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    n_predicts=${ONE_ENDLESS}
    ...    cancel=${FIRST_ONLY}    cancel_after_chunks=${CHUNKS}    timeout=${30}
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${300}
    Cancelled Requests Should Have Freed Their Slots    ${batch}    within=${FREED_WITHIN}
    Slots Should Have Gone Back To Idle    ${batch}

A Request Abandoned Without Streaming Frees Its Slot
    [Documentation]    The server should notice within its polling interval that the client of a non-streamed
    ...    request left, and free the slot. This build never does while tokens are being generated: the slot
    ...    keeps generating to `n_predict` (here forever, so the test uses a server of its own).
    [Tags]    bug
    [Setup]    Start Preset Server    tiny-2-slots-context-shift    alias=abandoned
    ${batch} =    Send Concurrent Completions    ${FIRST}    stream=${False}    n_predict=${ENDLESS}
    ...    cancel=${FIRST_ONLY}    cancel_when=busy    server=abandoned    timeout=${20}
    Cancelled Requests Should Have Freed Their Slots    ${batch}    within=${FREED_WITHIN}
    [Teardown]    Stop Llama Server    abandoned

A Queued Request Abandoned By Its Client Leaves The Queue
    [Documentation]    Two endless streams hold both slots; a third request waits in the queue, and its client
    ...    hangs up. The server should drop it (`requests_deferred` back to 0). This build keeps it queued until
    ...    a slot frees, then starts it and cancels it at once. The batch deadline (5 s) ends the two streams.
    [Tags]    bug
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    a third user    n_predicts=${TWO_ENDLESS}
    ...    metrics=${True}    dispatch=in_order    cancel=${THIRD_ONLY}    cancel_when=deferred    timeout=${5}
    Abandoned Requests Should Have Left The Queue    ${batch}
    [Teardown]    Slots Should Become Idle


*** Keywords ***
A Stream Abandoned After Some Chunks Should Free Its Slot
    [Documentation]    An endless stream on `route` whose client hangs up after some chunks: its slot goes idle.
    [Arguments]    ${route}
    ${batch} =    Send Concurrent Completions    ${FIRST}    route=${route}    n_predict=${ENDLESS}
    ...    cancel=${FIRST_ONLY}    cancel_after_chunks=${CHUNKS}    timeout=${30}
    Cancelled Requests Should Have Freed Their Slots    ${batch}    within=${FREED_WITHIN}
    Slots Should Have Gone Back To Idle    ${batch}
