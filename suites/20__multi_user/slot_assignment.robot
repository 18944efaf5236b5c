*** Settings ***
Documentation       Slot assignment on two slots with `/metrics`: a request that names a busy slot waits for it
...                 (deferred) even while the other slot is idle, and is then served on it. Choosing a slot on any
...                 server: slot_choice.robot.
Resource            ../../resources/slots.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Server For Suite    tiny-2-slots-metrics
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    serial


*** Variables ***
${RUNNING}          Harbour lights flickered as the night ferry left, carrying letters, lanterns and three tired sailors
${WAITING}          Quarterly figures arrived late again, so the accountant sharpened every pencil in the office twice
${GENERATING}       Mountain goats wandered across the pass while the shepherd counted clouds instead of his flock
${CACHED}           Violins tuned in the empty hall long before the conductor, the audience or the snow arrived
${UNRELATED}        Seven kettles whistled at once in the bakery, and nobody could remember who had lit the ovens
${LONG}             ${600}
${SHORT}            ${8}
@{LONG_THEN_SHORT}  ${LONG}    ${SHORT}


*** Test Cases ***
A Busy Requested Slot Defers The Request
    [Documentation]    Two users name slot 0 at once while slot 1 is idle. The one the server takes second finds
    ...    slot 0 busy: it must wait in the queue (`requests_deferred` above 0) until the first has ended (the
    ...    server's counters show one busy slot per decode throughout), and then be served on slot 0, not moved
    ...    to the idle slot. Each runs 600 tokens, so the wait does not hinge on when the second is sent.
    ${batch} =    Send Concurrent Completions    ${RUNNING}    ${WAITING}    id_slot=${0}    n_predict=${LONG}
    ...    stream=${False}    metrics=${True}
    Every Request Should Predict    ${batch}    ${LONG}
    Requests Should Have Been Deferred    ${batch}
    Requests Should Have Run One At A Time    ${batch}
    Json Field Should Be    ${batch.results[0].json_body}    id_slot    ${0}
    Json Field Should Be    ${batch.results[1].json_body}    id_slot    ${0}

A Request Waiting For A Busy Slot Leaves The Running Request Alone
    [Documentation]    Contract: README `/completion`: "Given a `prompt`, it returns the predicted completion", so a
    ...    deferred request (`id_slot` of a busy slot) must not touch the running one. The first three requests put
    ...    `CACHED` in the prompt cache (`--cache-ram`, on by default). This build's `get_available_slot` (path from
    ...    PR llama.cpp#24755) still loads the cached prompt into the busy slot's KV cache while its request
    ...    generates; the running text changes from there on (with an uncached waiting prompt it does not).
    [Tags]    bug
    ${alone} =    Complete    ${GENERATING}    n_predict=${LONG}    id_slot=${1}
    Complete    ${CACHED}    n_predict=${4}    id_slot=${0}
    Complete    ${UNRELATED}    n_predict=${4}    id_slot=${0}
    ${batch} =    Send Concurrent Completions    ${GENERATING}    ${CACHED}    id_slot=${0}
    ...    n_predicts=${LONG_THEN_SHORT}    stream=${False}    dispatch=mid_generation
    Every Request Should Get What It Asked For    ${batch}
    ${texts} =    Request Texts    ${batch}
    Should Be Equal    ${texts}[0]    ${alone}[content]
