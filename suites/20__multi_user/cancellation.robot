*** Settings ***
Documentation       Users who hang up: a client that disconnects in the middle of a stream frees its slot at once
...                 (native and OpenAI routes), and the other users are not disturbed. Two slots of 256 tokens with
...                 `--context-shift`, so an abandoned request would otherwise run forever.
Resource            ../../resources/slots.resource
Suite Setup         Start Server For Suite    tiny-2-slots-context-shift
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    serial


*** Variables ***
${FIRST}            a user who will hang up
${SECOND}           a user who stays to the end
${ENDLESS}          ${100000}
${CHUNKS}           ${200}
${QUIET_POLL}       ${1.5}
${BUSY_POLL}        ${0.05}
@{FIRST_ONLY}       ${0}
@{THIRD_ONLY}       ${2}
@{ONE_ENDLESS}      ${ENDLESS}    ${300}
@{TWO_ENDLESS}      ${ENDLESS}    ${ENDLESS}    ${8}
&{ABANDONED_ALONE}  stream=${False}    n_predict=${ENDLESS}    cancel=${FIRST_ONLY}    cancel_when=busy
...                 server=abandoned


*** Test Cases ***
A Stream Abandoned Mid Generation Frees Its Slot
    [Template]    A Stream Abandoned After Some Chunks Should Free Its Slot
    native
    openai
    chat

The Other User Keeps Streaming When One Hangs Up
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    n_predicts=${ONE_ENDLESS}
    ...    cancel=${FIRST_ONLY}    cancel_after_chunks=${CHUNKS}
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${300}
    Cancelled Requests Should Have Freed Their Slots    ${batch}
    Slots Should Have Gone Back To Idle    ${batch}

A Request Abandoned Without Streaming Frees Its Slot
    [Documentation]    Contract: server-queue.h: "should_stop function will be called each polling_interval_seconds"
    ...    (1 s); llama.cpp#24496, llama.cpp#13262 (closed). This build runs `should_stop` only when a 1 s wait in
    ...    `recv_with_timeout` (server-queue.cpp) times out, and restarts that wait whenever any request gets a
    ...    result (every result wakes every waiter): other traffic, not the generation, starves the check. The
    ...    same endless non-streamed request is abandoned twice: with `/slots` polled every 1.5 s its slot is
    ...    freed; polled every 50 ms (as by a monitor or another user's stream) it keeps generating forever
    ...    (hence a server of its own).
    [Tags]    bug
    [Setup]    Start Preset Server    tiny-2-slots-context-shift    alias=abandoned
    ${quiet} =    Send Concurrent Completions    ${FIRST}    interval=${QUIET_POLL}    &{ABANDONED_ALONE}
    Cancelled Requests Should Have Freed Their Slots    ${quiet}
    ${busy} =    Send Concurrent Completions    ${FIRST}    interval=${BUSY_POLL}    &{ABANDONED_ALONE}
    Cancelled Requests Should Have Freed Their Slots    ${busy}
    [Teardown]    Stop Llama Server    abandoned

A Queued Request Abandoned By Its Client Leaves The Queue
    [Documentation]    Contract: as above, server-queue.h: "should_stop function will be called each
    ...    polling_interval_seconds". Two endless streams hold both slots; a third request waits in the queue,
    ...    and its client hangs up. The server should drop it (`requests_deferred` back to 0). This build keeps
    ...    it queued until a slot frees, then starts it and cancels it at once: the two streams get a result per
    ...    token, so the queued request's 1 s wait in `recv_with_timeout` never times out (see above). The batch
    ...    deadline (5 s) ends the two streams. Upstream: llama.cpp#13262 (closed).
    [Tags]    bug
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    a third user    n_predicts=${TWO_ENDLESS}
    ...    metrics=${True}    dispatch=in_order    cancel=${THIRD_ONLY}    cancel_when=deferred
    ...    timeout=${5}    # provoked
    Abandoned Requests Should Have Left The Queue    ${batch}
    [Teardown]    Slots Should Become Idle


*** Keywords ***
A Stream Abandoned After Some Chunks Should Free Its Slot
    [Documentation]    An endless stream on `route` whose client hangs up after some chunks: its slot goes idle.
    [Arguments]    ${route}
    ${batch} =    Send Concurrent Completions    ${FIRST}    route=${route}    n_predict=${ENDLESS}
    ...    cancel=${FIRST_ONLY}    cancel_after_chunks=${CHUNKS}
    Cancelled Requests Should Have Freed Their Slots    ${batch}
    Slots Should Have Gone Back To Idle    ${batch}
