*** Settings ***
Documentation       Embedding vectors against the numpy reference of the model file (ReferenceLibrary;
...                 docs/reference.md): the generated BERT model (`tiny-reranker` run as an embedding model) under
...                 every pooling, on the native and the OpenAI routes, with every `embd_normalize`; each input of a
...                 batch; and `tiny` (a causal llama model) mean-pooled.
...
...                 The server's README: `embd_normalize` is -1 for none, 0 for max absolute (int16 range), 1 for
...                 taxicab, 2 for Euclidean (the default), >2 for a p-norm; pooled vectors only are normalised.
Resource            ../../resources/reference.resource
Suite Setup         Start Embedding Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    embeddings    needs:generated-model


*** Variables ***
${TEXT}         the cat sat on the mat
@{TEXTS}        a    paris is the capital of france    where is the sun and the rain    python code


*** Test Cases ***
Mean Pooled Native Embedding Matches The Reference
    ${tokens} =    Prompt Tokens    ${TEXT}
    ${vector} =    Native Vectors Of    ${TEXT}
    Embedding Should Match Reference    ${vector}    ${tokens}    pooling=mean

Every Normalisation Matches The Reference
    [Template]    Native Embedding Should Match Reference With
    ${-1}
    ${0}
    ${1}
    ${2}
    ${3}

OpenAI Embedding Matches The Reference Under Every Pooling
    [Template]    OpenAI Embedding Should Match Reference On
    suite    mean
    cls    cls
    last    last

OpenAI Unnormalised Embedding Matches The Reference
    ${tokens} =    Prompt Tokens    ${TEXT}
    ${vector} =    Embedding Of    ${TEXT}    embd_normalize=${-1}
    Embedding Should Match Reference    ${vector}    ${tokens}    pooling=mean    embd_normalize=${-1}

Token Vectors Of Pooling None Match The Reference
    ${tokens} =    Prompt Tokens    ${TEXT}    server=none
    ${vectors} =    Native Vectors Of    ${TEXT}    server=none
    Embedding Should Match Reference    ${vectors}    ${tokens}    pooling=none    server=none

Each Input Of A Batch Matches The Reference
    [Documentation]    One request with several inputs of different lengths: the server embeds them together, and
    ...    each vector must still be its own input's (llama.cpp#26282 was batch-dependent embeddings).
    ${resp} =    Embeddings    ${TEXTS}
    ${vectors} =    Embedding Vectors    ${resp}
    Length Should Be    ${vectors}    ${{ len($TEXTS) }}
    Every Vector Should Match Its Input's Reference    ${vectors}    ${TEXTS}

Mean Pooled Embedding Of The Llama Model Matches The Reference
    ${tokens} =    Prompt Tokens    ${TEXT}    server=llama
    ${vector} =    Embedding Of    ${TEXT}    server=llama
    Embedding Should Match Reference    ${vector}    ${tokens}    pooling=mean    server=llama


*** Keywords ***
Start Embedding Servers
    [Documentation]    The suite's server embeds with mean pooling; `cls`, `last` and `none` pool the same model
    ...    their way; `llama` runs `tiny` mean-pooled.
    Start Server For Suite    tiny-reranker-embeddings    --pooling    mean
    Start Preset Server    tiny-reranker-embeddings    --pooling    cls    alias=cls
    Start Preset Server    tiny-reranker-embeddings    --pooling    last    alias=last
    Start Preset Server    tiny-reranker-embeddings    --pooling    none    alias=none
    Start Preset Server    tiny-embeddings    --pooling    mean    alias=llama

Native Embedding Should Match Reference With
    [Documentation]    The native mean-pooled vector of `${TEXT}` normalised as `embd_normalize` asks must match
    ...    the reference's.
    [Arguments]    ${embd_normalize}
    ${tokens} =    Prompt Tokens    ${TEXT}
    ${vector} =    Native Vectors Of    ${TEXT}    embd_normalize=${embd_normalize}
    Embedding Should Match Reference    ${vector}    ${tokens}    pooling=mean    embd_normalize=${embd_normalize}

OpenAI Embedding Should Match Reference On
    [Documentation]    The `/v1/embeddings` vector of `${TEXT}` on `server`, which pools with `pooling`, must match
    ...    the reference's (Euclidean-normalised, the default).
    [Arguments]    ${server}    ${pooling}
    ${tokens} =    Prompt Tokens    ${TEXT}    server=${server}
    ${vector} =    Embedding Of    ${TEXT}    server=${server}
    Embedding Should Match Reference    ${vector}    ${tokens}    pooling=${pooling}    server=${server}

Every Vector Should Match Its Input's Reference
    [Documentation]    The `n`-th of `vectors` must match the reference's mean-pooled, normalised vector of the
    ...    `n`-th of `texts`.
    [Arguments]    ${vectors}    ${texts}
    FOR    ${vector}    ${text}    IN ZIP    ${vectors}    ${texts}
        ${tokens} =    Prompt Tokens    ${text}
        Embedding Should Match Reference    ${vector}    ${tokens}    pooling=mean
    END
