*** Settings ***
Documentation       Several users asking for embeddings at once on four slots: identical inputs get identical
...                 vectors, and different inputs should each get the vector of their own input, the one it gets
...                 alone (no cross-talk between slots). Mean pooling, since `/v1/embeddings` refuses pooling `none`.
Resource            ../../resources/slots.resource
Suite Setup         Start Server For Suite    tiny-embeddings    --pooling    mean    n_slots=${4}    n_ctx=${2048}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    embeddings


*** Variables ***
${INPUT}        the same sentence from every user
@{PAIR}         green apples fall    quiet rivers run deep and slow


*** Test Cases ***
Users Sending One Input At Once Get One Vector
    ${batch} =    Send Concurrent Embeddings    ${INPUT}    times=${8}
    Every Request Should Succeed    ${batch}
    No Request Should Be Lost Or Duplicated    ${batch}
    Every Request Should Give The Same Embedding    ${batch}

Users Sending Two Inputs Each Get The Vector Of Each Input
    [Documentation]    Four users at once, each asking for the embeddings of the same two texts in one request, so
    ...    that the two are computed in one decode step. Each text should get the vector it gets alone. This
    ...    build changes the vector of the longer text (components off by about 0.1 to 0.2; the shorter one's
    ...    is right), on SmolLM2 too, with or without `--no-cache-prompt`. Concurrent requests of single
    ...    different texts hit the same defect whenever the server happens to compute them in one step.
    [Tags]    bug
    ${alone} =    Send Concurrent Embeddings    @{PAIR}    dispatch=one_by_one
    ${together} =    Send Concurrent Embeddings    ${PAIR}    times=${4}
    Every Request Should Succeed    ${together}
    Every Request Should Get The Embedding Of Its Input    ${together}    ${alone}
