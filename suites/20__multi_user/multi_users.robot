*** Settings ***
Documentation       Several users at once on two slots: each is served on its own slot while the other runs, gets
...                 exactly the tokens it asked for, and the server goes back to idle; more users than slots wait
...                 their turn (deferred), are served in arrival order and none is lost or served twice. Every
...                 batch logs its slot timeline as a chart.
...
...                 Lengths are the least that keeps each claim visible, measured with
...                 `benchmarks/multi_user_overlap.py` on a quiet 2-core machine: each of two busy slots of `tiny`
...                 decodes about 2,000 tokens a second, the two sends of a batch are under 2 ms apart, and one `/slots`
...                 and `/metrics` poll takes about 15 ms; but the second of two requests sent together sometimes starts
...                 on its slot some 0.1 s after the first (in one of 40 batches of 256 tokens, about 0.12 s each, the
...                 two ran one after the other). `${N}` (384 tokens, about 0.2 s) keeps them side by side for at least
...                 0.15 s in 40 of 40 batches of each of the three shapes (streamed, plain, chat), seen both busy by 9
...                 polls or more and in the server's own decode counters (`--lengths 384 --runs 40`, 5290499).
...                 `${SHORT}` (192 tokens) keeps the first of six running long enough for `/metrics` to show the others
...                 queued (40 of 40 batches).
Resource            ../../resources/slots.resource
Suite Setup         Start Server For Suite    tiny-2-slots-metrics
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    serial


*** Variables ***
${FIRST}        Once upon a time, in a village at the edge of a great forest, there lived an old clockmaker
${SECOND}       The committee met on a rainy Tuesday to decide, after years of debate, where the bridge should go
${N}            ${384}
${SHORT}        ${192}
${BRIEF}        ${64}
${LONGEST}      ${2020}
@{BOTH}         ${0}    ${1}
@{SIX}          first user    second user    third user    fourth user    fifth user    sixth user
${IN_ORDER}     ${768}


*** Test Cases ***
Two Users On Two Slots Are Served At Once
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    n_predict=${N}    metrics=${True}
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${N}
    Every Request Should Finish With    ${batch}    limit
    All Slots Should Have Been Busy    ${batch}
    Slots Should Have Gone Back To Idle    ${batch}

Two Users Without Streaming Are Served At Once
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    stream=${False}    n_predict=${N}
    ...    metrics=${True}
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${N}
    All Slots Should Have Been Busy    ${batch}
    Slots Should Have Gone Back To Idle    ${batch}

Server Reports No Idle Slot While Every Slot Is Busy
    [Documentation]    Two requests as long as a slot holds keep both slots busy; the sampler asks
    ...    `/slots?fail_on_no_slot=1` whenever it sees every slot busy, and both clients hang up once it got 503.
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    n_predict=${LONGEST}
    ...    probe_no_idle_slot=${True}    cancel=${BOTH}    cancel_when=all_busy
    Server Should Have Reported No Idle Slot    ${batch}
    Slots Should Have Gone Back To Idle    ${batch}
    Server Should Report An Idle Slot

Chat Users Streaming Get One Choice Per Chunk
    ${batch} =    Send Concurrent Chat Completions    ${FIRST}    ${SECOND}    max_tokens=${N}    metrics=${True}
    Every Request Should Succeed    ${batch}
    Every Chunk Should Carry One Choice    ${batch}
    Every Request Should Predict    ${batch}    ${N}
    Every Request Should Finish With    ${batch}    length
    All Slots Should Have Been Busy    ${batch}

Streamed Chat Deltas Concatenate To The Non Streamed Answers
    [Documentation]    Short answers: over hundreds of tokens, two runs at temperature 0 may part ways when the
    ...    requests share decode steps differently (see the determinism suite).
    ${streamed} =    Send Concurrent Chat Completions    ${FIRST}    ${SECOND}    max_tokens=${BRIEF}
    ${plain} =    Send Concurrent Chat Completions    ${FIRST}    ${SECOND}    stream=${False}    max_tokens=${BRIEF}
    Every Request Should Succeed    ${plain}
    Batch Texts Should Be Equal    ${streamed}    ${plain}
    Slots Should Have Gone Back To Idle    ${plain}

Six Users On Two Slots Are All Served Exactly Once
    ${batch} =    Send Concurrent Completions    @{SIX}    n_predict=${SHORT}    metrics=${True}
    No Request Should Be Lost Or Duplicated    ${batch}
    Every Request Should Predict    ${batch}    ${SHORT}
    Requests Should Have Been Deferred    ${batch}
    Metrics Should Count Every Predicted Token    ${batch}
    Slots Should Have Gone Back To Idle    ${batch}

Deferred Users Are Served In Arrival Order
    [Documentation]    The six requests reach the server one after the other (each is sent once /metrics counts
    ...    the one before); the slots must take them first in, first out. 768 tokens each (about 0.4 s on a quiet
    ...    machine): the first two run eight times as long as the 50 ms the other four take to be sent one by one,
    ...    so all four wait in the queue together, and no request can run whole between two polls of the sampler,
    ...    which must see each on its slot to order them (with 192 tokens, a busy machine's 145 ms gap between
    ...    polls hid one, and the next was taken for it).
    ${batch} =    Send Concurrent Completions    @{SIX}    n_predict=${IN_ORDER}    metrics=${True}    dispatch=in_order
    Every Request Should Succeed    ${batch}
    Requests Should Have Been Deferred    ${batch}
    Requests Should Have Been Served In Order    ${batch}
