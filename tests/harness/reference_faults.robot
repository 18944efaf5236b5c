*** Settings ***
Documentation       A server made wrong on purpose: a proxy in front of real llama-servers (`tiny`, the generated
...                 reranker, the same reranker as a mean-pooled embedding model) alters the numbers of their JSON
...                 answers: scaled (by 1 %, logprobs by 5 %), clamped, rounded (to two decimals, logprobs and
...                 rerank scores to one), or taken from the next item of the list (the wrong token, document or
...                 input): each beyond the tolerance of its number (docs/reference.md). The reference checks of
...                 suites/28__reference must fail on every route with each alteration, and pass through the proxy
...                 when it changes nothing.
Library             AlteringProxyLibrary.py
Resource            ../../resources/reference.resource
Suite Setup         Start Servers And Proxies
Suite Teardown      Stop Servers And Proxies
Test Template       Reference Check Through The Proxy
Test Timeout        2 minutes
Test Tags           harness    reference


*** Variables ***
${PROMPT}           hello world of llama tokens
${QUERY}            what is the capital of france
@{DOCUMENTS}        the cat sat on the mat    paris is the capital of france    a recipe for pasta
@{TEXTS}            the cat sat on the mat    where is the sun    python code
${MISMATCH}         *differs from the reference in*


*** Test Cases ***
Completion Logprobs Pass Unaltered
    Completion Logprobs    none

Completion Logprobs Scaled By Five Percent Fail
    Completion Logprobs    scale    factor=${1.05}

Clamped Completion Logprobs Fail
    Completion Logprobs    clamp    limit=${3}

Completion Logprobs Rounded To One Decimal Fail
    Completion Logprobs    round    digits=${1}

Completion Logprobs Of The Wrong Item Fail
    Completion Logprobs    shift

Chat Logprobs Pass Unaltered
    Chat Logprobs    none

Chat Logprobs Scaled By Five Percent Fail
    Chat Logprobs    scale    factor=${1.05}

Clamped Chat Logprobs Fail
    Chat Logprobs    clamp    limit=${3}

Chat Logprobs Rounded To One Decimal Fail
    Chat Logprobs    round    digits=${1}

Chat Logprobs Of The Wrong Item Fail
    Chat Logprobs    shift

Native Embeddings Pass Unaltered
    Native Embeddings    none

Native Embeddings Scaled By One Percent Fail
    Native Embeddings    scale

Clamped Native Embeddings Fail
    Native Embeddings    clamp    limit=${0.5}

Native Embeddings Rounded To Two Decimals Fail
    Native Embeddings    round

Native Embeddings Of The Wrong Item Fail
    Native Embeddings    shift

OpenAI Embeddings Pass Unaltered
    OpenAI Embeddings    none

OpenAI Embeddings Scaled By One Percent Fail
    OpenAI Embeddings    scale

Clamped OpenAI Embeddings Fail
    OpenAI Embeddings    clamp    limit=${0.1}

OpenAI Embeddings Rounded To Two Decimals Fail
    OpenAI Embeddings    round

OpenAI Embeddings Of The Wrong Item Fail
    OpenAI Embeddings    shift

Jina Rerank Scores Pass Unaltered
    Jina Rerank Scores    none

Jina Rerank Scores Scaled By One Percent Fail
    Jina Rerank Scores    scale

Clamped Jina Rerank Scores Fail
    Jina Rerank Scores    clamp    limit=${1}

Jina Rerank Scores Rounded To One Decimal Fail
    Jina Rerank Scores    round    digits=${1}

Jina Rerank Scores Of The Wrong Item Fail
    Jina Rerank Scores    shift

TEI Rerank Scores Pass Unaltered
    TEI Rerank Scores    none

TEI Rerank Scores Scaled By One Percent Fail
    TEI Rerank Scores    scale

Clamped TEI Rerank Scores Fail
    TEI Rerank Scores    clamp    limit=${1}

TEI Rerank Scores Rounded To One Decimal Fail
    TEI Rerank Scores    round    digits=${1}

TEI Rerank Scores Of The Wrong Item Fail
    TEI Rerank Scores    shift


*** Keywords ***
Start Servers And Proxies
    [Documentation]    `tiny`, the reranker and the embedding model, each behind a proxy whose RequestsLibrary
    ...    session is named after it (`altered-tiny`, `altered-rerank`, `altered-embed`); the proxies' URLs are
    ...    `${TINY}`, `${RERANK}`, `${EMBED}`.
    Start Server For Suite    tiny-2-slots
    Start Preset Server    tiny-reranker    alias=rerank
    Start Preset Server    tiny-reranker-embeddings    --pooling    mean    alias=embed
    Proxy Server    suite    altered-tiny    TINY
    Proxy Server    rerank    altered-rerank    RERANK
    Proxy Server    embed    altered-embed    EMBED

Proxy Server
    [Documentation]    Starts a proxy in front of server `alias`, opens the session `session` on it and keeps its
    ...    URL in the suite variable `${name}`.
    [Arguments]    ${alias}    ${session}    ${name}
    ${url} =    Server Url    ${alias}
    ${proxy} =    Start Altering Proxy    ${url}
    Create Session    ${session}    ${proxy}
    VAR    ${${name}}    ${proxy}    scope=SUITE    # robocop: off=no-suite-variable

Stop Servers And Proxies
    [Documentation]    Stops the proxies, then the servers.
    [Timeout]    1 minute
    Stop Altering Proxies
    Stop Servers For Suite

Completion Logprobs Should Pass Or Fail
    [Documentation]    Native completion logprobs through the proxy against the reference (fails when they differ).
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${probs} =    Completion Logprobs    ${PROMPT}    ${5}    server=altered-tiny    n_predict=${8}
    Log Probabilities Should Match Reference    ${probs}    ${ids}    server=${TINY}

Chat Logprobs Should Pass Or Fail
    [Documentation]    OpenAI chat logprobs through the proxy against the reference.
    ${ids} =    Chat Prompt Tokens    ${PROMPT}
    ${content} =    Chat Logprobs    ${PROMPT}    ${5}    server=altered-tiny    max_tokens=${8}
    Log Probabilities Should Match Reference    ${content}    ${ids}    server=${TINY}

Native Embeddings Should Pass Or Fail
    [Documentation]    The unnormalised vectors of a native request with several contents through the proxy against
    ...    the reference.
    ${resp} =    Native Embeddings    ${TEXTS}    server=altered-embed    embd_normalize=${-1}
    ${vectors} =    Field Of Each    ${resp.json()}    embedding
    FOR    ${vector}    ${text}    IN ZIP    ${vectors}    ${TEXTS}
        ${ids} =    Prompt Tokens    ${text}    server=embed
        Embedding Should Match Reference    ${vector}    ${ids}    embd_normalize=${-1}    server=${EMBED}
    END

OpenAI Embeddings Should Pass Or Fail
    [Documentation]    Each vector of an OpenAI batch through the proxy against the reference.
    ${resp} =    Embeddings    ${TEXTS}    server=altered-embed
    ${vectors} =    Embedding Vectors    ${resp}
    FOR    ${vector}    ${text}    IN ZIP    ${vectors}    ${TEXTS}
        ${ids} =    Prompt Tokens    ${text}    server=embed
        Embedding Should Match Reference    ${vector}    ${ids}    server=${EMBED}
    END

Jina Rerank Scores Should Pass Or Fail
    [Documentation]    Jina-shaped rerank scores through the proxy against the reference.
    ${pairs} =    Rerank Pair Tokens    ${QUERY}    ${DOCUMENTS}    server=rerank
    ${results} =    Ranking Of    ${QUERY}    ${DOCUMENTS}    server=altered-rerank
    Rerank Scores Should Match Reference    ${results}    ${pairs}    server=${RERANK}

TEI Rerank Scores Should Pass Or Fail
    [Documentation]    TEI-shaped rerank scores through the proxy against the reference.
    ${pairs} =    Rerank Pair Tokens    ${QUERY}    ${DOCUMENTS}    server=rerank
    ${resp} =    Rerank Texts    ${QUERY}    ${DOCUMENTS}    server=altered-rerank
    Rerank Scores Should Match Reference    ${resp.json()}    ${pairs}    key=score    server=${RERANK}

Reference Check Through The Proxy
    [Documentation]    With the proxy's numbers altered (`alteration` and its `options`), the check of `route` must
    ...    fail with the reference's mismatch report; with `none` it must pass.
    [Arguments]    ${route}    ${alteration}    &{options}
    Alter Numbers    ${alteration}    &{options}
    IF    $alteration == "none"
        Run Keyword    ${route} Should Pass Or Fail
    ELSE
        Run Keyword And Expect Error    ${MISMATCH}    ${route} Should Pass Or Fail
    END
