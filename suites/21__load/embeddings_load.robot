*** Settings ***
Documentation       Embeddings under load on all-MiniLM-L6-v2: two users send four ShareGPT texts per request to
...                 /v1/embeddings, then one text per request to /embedding. Every request must get one embedding
...                 per text; the run reports latency and inputs per second (no TTFT: the answer is one body).
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    minilm-embeddings
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           load    embeddings    needs:minilm    needs:embeddings


*** Test Cases ***
OpenAI Embeddings Of Four Texts Per Request Hold Under Two Users
    ${texts} =    Load Dataset    route-mix    weights=/v1/embeddings=1    inputs=${4}    max_chars=${400}
    ${run} =    Run Load Profile    ${texts}    concurrency    users=${2}    duration=${10}
    Every Load Request Should Succeed    ${run}
    Load Route Should Count Every Input    ${run}    /v1/embeddings    inputs=${4}
    Load Results Should Be Valid    ${run}

Native Embedding Of One Text Per Request Holds Under Two Users
    ${texts} =    Load Dataset    route-mix    weights=/embedding=1    inputs=${1}    max_chars=${400}
    ${run} =    Run Load Profile    ${texts}    concurrency    users=${2}    duration=${10}
    Every Load Request Should Succeed    ${run}
    Load Route Should Count Every Input    ${run}    /embedding    inputs=${1}
    Load Results Should Be Valid    ${run}
