*** Settings ***
Documentation       Pooling modes on all-MiniLM-L6-v2. With `--pooling none` the native route returns one raw vector
...                 per token and the OpenAI route refuses; the pooled modes reduce exactly those token vectors:
...                 `mean` averages them, `cls` takes the first (`[CLS]`) and `last` the last (`[SEP]`).
Resource            ../../resources/embeddings.resource
Suite Setup         Start Pooling Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           embeddings    needs:managed


*** Variables ***
${TEXT}         The quick brown fox jumps over the lazy dog.
${NOT_OAI}      Pooling type 'none' is not OAI compatible. Please use a different pooling type


*** Test Cases ***
Pooling None Returns One Vector Per Token
    ${vectors} =    Native Vectors Of    ${TEXT}
    ${pooled} =    Native Vectors Of    ${TEXT}    server=mean
    ${tokens} =    Tokens With Specials    ${TEXT}
    Length Should Be    ${vectors}    ${tokens}
    Each Vector Should Have Length    ${vectors}    ${{ len($pooled[0]) }}

Pooling None Token Vectors Are Not Normalised
    [Documentation]    Normalisation applies to pooled vectors only: token vectors come back raw, whatever
    ...    `embd_normalize` says.
    ${default} =    Native Vectors Of    ${TEXT}
    ${euclidean} =    Native Vectors Of    ${TEXT}    embd_normalize=${2}
    Vector Norm Should Not Be    ${default}[0]    2    1
    Vector Norm Should Not Be    ${euclidean}[1]    2    1
    Vectors Should Be Equal Within    ${euclidean}[1]    ${default}[1]

Pooling None Batch Gives Each Input Its Own Token Vectors
    VAR    @{inputs}    a b    ${TEXT}
    ${resp} =    Native Embeddings    ${inputs}    route=/embeddings
    ${short} =    Tokens With Specials    a b
    ${long} =    Tokens With Specials    ${TEXT}
    Length Should Be    ${resp.json()}[0][embedding]    ${short}
    Length Should Be    ${resp.json()}[1][embedding]    ${long}

OpenAI Route Refuses Pooling None
    ${resp} =    Embeddings    ${TEXT}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${NOT_OAI}

Mean Pooling Averages The Token Vectors
    ${tokens} =    Native Vectors Of    ${TEXT}
    ${pooled} =    Native Vectors Of    ${TEXT}    server=mean    embd_normalize=${-1}
    ${mean} =    Mean Vector    ${tokens}
    Vectors Should Be Equal Within    ${pooled}[0]    ${mean}    tolerance=1e-4

Cls Pooling Takes The First Token's Vector
    ${tokens} =    Native Vectors Of    ${TEXT}
    ${pooled} =    Native Vectors Of    ${TEXT}    server=cls    embd_normalize=${-1}
    Vectors Should Be Equal Within    ${pooled}[0]    ${tokens}[0]    tolerance=1e-4

Last Pooling Takes The Last Token's Vector
    ${tokens} =    Native Vectors Of    ${TEXT}
    ${pooled} =    Native Vectors Of    ${TEXT}    server=last    embd_normalize=${-1}
    Vectors Should Be Equal Within    ${pooled}[0]    ${tokens}[-1]    tolerance=1e-4


*** Keywords ***
Start Pooling Servers
    [Documentation]    The suite's server embeds per token (`--pooling none`); three more on the same model pool
    ...    with `mean` (the model's own pooling), `cls` and `last`.
    Start Server For Suite    minilm-embeddings    --pooling    none
    Start Preset Server    minilm-embeddings    alias=mean
    Start Preset Server    minilm-embeddings    --pooling    cls    alias=cls
    Start Preset Server    minilm-embeddings    --pooling    last    alias=last
