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
    [Documentation]    Contract: the OpenAI embeddings reference (the README's pointer for `/v1/embeddings`):
    ...    "Creates an embedding vector representing the input text", so a text's vector does not depend on what
    ...    is computed with it. Confirmed by measurement, root cause not found; llama.cpp#26282 (same symptom with
    ...    `-np` > 1, closed as stale). Four users at once each ask for the same two texts in one request, so the
    ...    two are computed in one decode step. This build changes the longer text's vector (components off by
    ...    0.09 to 0.2; the shorter one's is right), on SmolLM2 too, with or without `--no-cache-prompt`; single
    ...    different texts of concurrent requests hit it whenever the server computes them in one step.
    [Tags]    bug
    ${alone} =    Send Concurrent Embeddings    @{PAIR}    dispatch=one_by_one
    ${together} =    Send Concurrent Embeddings    ${PAIR}    times=${4}
    Every Request Should Succeed    ${together}
    Every Request Should Get The Embedding Of Its Input    ${together}    ${alone}
