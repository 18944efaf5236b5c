*** Settings ***
Documentation       Wrong usage, excluded by default (run it with `--include wrong_usage`): a request without
...                 `n_predict` to a server without `-n`, on a model that never emits EOS. Without context shift
...                 the server stops at the end of the slot context; with `--context-shift` the generation never
...                 ends, and only the client's deadline ends the request: the run never hangs.
Resource            ../../resources/slots.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    serial    wrong_usage


*** Variables ***
${PROMPT}       tell me everything


*** Test Cases ***
A Request Without N Predict Stops At The End Of The Slot Context
    ${batch} =    Send Concurrent Completions    ${PROMPT}
    Every Request Should Succeed    ${batch}
    Every Request Should Finish With    ${batch}    limit
    Final Chunk Should Report    ${batch.results}[0]    truncated=true
    Slots Should Have Gone Back To Idle    ${batch}

A Request Without N Predict Under Context Shift Ends Only At The Client Deadline
    [Setup]    Start Preset Server    tiny-2-slots-context-shift    alias=endless
    ${batch} =    Send Concurrent Completions    ${PROMPT}    server=endless    settle=${0}
    ...    timeout=${2}    # provoked
    Every Request Should Have Run Out Of Time    ${batch}
    Slots Should Become Idle    endless
    [Teardown]    Stop Llama Server    endless
