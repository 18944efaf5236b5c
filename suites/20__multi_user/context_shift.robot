*** Settings ***
Documentation       Context shift and continuous batching on two slots of 256 tokens with `--context-shift`: a user
...                 generating past the slot context keeps going to its `n_predict`, and a user arriving in the middle
...                 of another's generation is served at once, side by side, as the slot timeline shows.
...
...                 `${PAST}` is 320 tokens: past the 256-token slot by enough that every request shifts its context
...                 once (a prompt of about 10 tokens fills the slot at some 245 generated tokens, and a shift frees
...                 127), and no more tokens than that proof needs.
Resource            ../../resources/slots.resource
Suite Setup         Start Server For Suite    tiny-2-slots-context-shift
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    serial


*** Variables ***
${FIRST}                 a long story about the sea
${SECOND}                another long story about the mountains
${PAST}                  ${320}
${ENDLESS}               ${100000}
@{ENDLESS_THEN_PAST}     ${ENDLESS}    ${PAST}
@{FIRST_ONLY}            ${0}


*** Test Cases ***
Generation Past The Slot Context Goes On With Context Shift
    [Documentation]    320 tokens in a 256-token slot: the server shifts the context and reports `truncated: true`.
    ${batch} =    Send Concurrent Completions    ${FIRST}    n_predict=${PAST}
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${PAST}
    Final Chunk Should Report    ${batch.results}[0]    stop_type=limit    truncated=true

Two Users Both Shift Their Contexts At Once
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    n_predict=${PAST}    metrics=${True}
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${PAST}
    All Slots Should Have Been Busy    ${batch}
    Slots Should Have Gone Back To Idle    ${batch}

A User Arriving Mid Generation Is Served While The First Goes On
    [Documentation]    Continuous batching: the first request never ends by itself; the second (320 tokens) is
    ...    sent once `/slots` shows the first generating, and is served to its end while the first goes on (both
    ...    busy in one slot sample, or more than one busy slot per decode in the server's counters), shifting
    ...    its own context. Then the first user hangs up.
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    n_predicts=${ENDLESS_THEN_PAST}
    ...    metrics=${True}    dispatch=mid_generation    dispatch_after_tokens=${8}
    ...    cancel=${FIRST_ONLY}    cancel_when=others_done
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${PAST}
    Requests Should Have Overlapped    ${batch}    earlier=${0}    later=${1}
    Final Chunk Should Report    ${batch.results}[1]    truncated=true
