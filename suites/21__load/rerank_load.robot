*** Settings ***
Documentation       Reranking under load on the generated reranker: two users each ask /v1/rerank to score four
...                 ShareGPT texts against a fifth. Every request must get one score per document; the run
...                 reports latency and documents per second (no TTFT: the answer is one body).
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    tiny-reranker
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           load    rerank    needs:reranker    needs:reranking


*** Test Cases ***
Rerank Of Four Documents Per Request Holds Under Two Users
    ${texts} =    Load Dataset    route-mix    weights=/v1/rerank=1    inputs=${4}    max_chars=${200}
    ${run} =    Run Load Profile    ${texts}    concurrency    users=${2}    duration=${10}
    Every Load Request Should Succeed    ${run}
    Load Route Should Count Every Input    ${run}    /v1/rerank    inputs=${4}
    Load Results Should Be Valid    ${run}
