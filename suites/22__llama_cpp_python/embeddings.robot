*** Settings ***
Documentation       llama-cpp-python's own server (`--embedding true`, on MiniLM) against the OpenAI embeddings
...                 contract, https://platform.openai.com/docs/api-reference/embeddings: the `list` of `embedding`
...                 objects, one per input in order, `usage`, determinism, `encoding_format`.
Resource            ../../resources/peers.resource
Resource            ../../resources/embeddings.resource
Suite Setup         Start Llama Cpp Python Server For Suite    minilm    n_ctx=${512}    embedding=${True}
Suite Teardown      Stop Llama Cpp Python Server For Suite
Test Timeout        2 minutes
Test Tags           llama-cpp-python    embeddings


*** Test Cases ***
Embeddings Answer Is A List Of Embedding Objects
    ${resp} =    Embeddings    the cat sat on the mat    server=${PEER}
    Embeddings Should Follow The OpenAI Schema    ${resp}    ${1}

Each Input Gets Its Own Vector In Order
    VAR    @{texts}    the cat sat    a dog ran    the cat sat
    ${resp} =    Embeddings    ${texts}    server=${PEER}
    Embeddings Should Follow The OpenAI Schema    ${resp}    ${3}
    ${vectors} =    Embedding Vectors    ${resp}
    Vectors Should Point The Same Way    ${vectors}[0]    ${vectors}[2]

The Same Text Gives The Same Vector On Its Own And In A Batch
    ${alone} =    Embedding Of    a dog ran    server=${PEER}
    VAR    @{texts}    the cat sat    a dog ran
    ${batch} =    Embeddings    ${texts}    server=${PEER}
    ${vectors} =    Embedding Vectors    ${batch}
    Vectors Should Point The Same Way    ${alone}    ${vectors}[1]

Embeddings Are Normalized To Length One
    [Documentation]    OpenAI: "OpenAI embeddings are normalized to length 1", so that a dot product is the
    ...    cosine similarity (https://platform.openai.com/docs/guides/embeddings, "Which distance function
    ...    should I use?"). llama-cpp-python's `/v1/embeddings` returns the model's pooled vector as it is
    ...    (`Llama.embed(normalize=False)`).
    [Tags]    deviation
    ${vector} =    Embedding Of    the cat sat on the mat    server=${PEER}
    Vector Norm Should Be    ${vector}    2    1.0

Base64 Encoding Format Returns The Same Floats
    [Documentation]    OpenAI: `encoding_format` is "the format to return the embeddings in. Can be either
    ...    float or base64"; base64 is the little-endian float32 array. llama-cpp-python ignores the field
    ...    and sends a list of floats.
    [Tags]    deviation
    ${floats} =    Embedding Of    the cat sat    server=${PEER}
    ${resp} =    Embeddings    the cat sat    server=${PEER}    encoding_format=base64
    Json Field Should Be Of Type    ${resp}    data.0.embedding    str
    ${decoded} =    Floats From Base64    ${resp.json()}[data][0][embedding]
    Vectors Should Point The Same Way    ${decoded}    ${floats}


*** Keywords ***
Vectors Should Point The Same Way
    [Documentation]    Two embeddings of the same text: the same length and a cosine similarity of 1 within
    ...    float rounding (the server may batch the same input differently).
    [Arguments]    ${a}    ${b}
    Length Should Be    ${a}    ${{ len($b) }}
    ${similarity} =    Cosine Similarity    ${a}    ${b}
    Should Be True    $similarity > 0.99999    cosine similarity was ${similarity}
