*** Settings ***
Documentation       Embeddings from a real sentence-embedding model (all-MiniLM-L6-v2, mean pooling): the native
...                 and OpenAI response shapes, batches in order, vectors of the model's width, the `embd_normalize`
...                 norms, base64 floats, usage counted in tokens, identical inputs giving identical vectors, and
...                 meaning: related sentences lie closer together than unrelated ones.
Resource            ../../resources/embeddings.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    minilm-embeddings
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           embeddings


*** Variables ***
${TEXT}         The quick brown fox jumps over the lazy dog.
${OTHER}        Embeddings map text to vectors.
${TOO_LONG}     input (513 tokens) is too large to process. increase the physical batch size (current batch size: 512)
@{BOTH}         ${TEXT}    ${OTHER}
@{THREE}        ${TEXT}    ${OTHER}    x


*** Test Cases ***
Native Embedding Is One Pooled Vector In A List
    ${resp} =    Native Embeddings    ${TEXT}
    Media Type Should Be    ${resp}    application/json
    Length Should Be    ${resp.json()}    1
    Json Field Should Be    ${resp}    0.index    ${0}
    Length Should Be    ${resp.json()}[0][embedding]    1

Embeddings Route Answers Like The Legacy Embedding Route
    ${legacy} =    Native Vectors Of    ${TEXT}    route=/embedding
    ${current} =    Native Vectors Of    ${TEXT}    route=/embeddings
    Vectors Should Be Equal Within    ${current}[0]    ${legacy}[0]

Native Route Takes Input As Well As Content
    VAR    &{body}    input=${TEXT}
    ${resp} =    POST On Session    suite    /embeddings    json=${body}    expected_status=200
    ${expected} =    Native Vectors Of    ${TEXT}
    Vectors Should Be Equal Within    ${resp.json()}[0][embedding][0]    ${expected}[0]

Native Batch Answers Each Input In Order
    ${resp} =    Native Embeddings    ${BOTH}    route=/embeddings
    ${indexes} =    Result Indexes    ${resp.json()}
    Values Should Count From Zero    ${indexes}    2
    ${other} =    Native Vectors Of    ${OTHER}
    Vectors Should Be Equal Within    ${resp.json()}[1][embedding][0]    ${other}[0]

OpenAI Embeddings Answer Is A List Object
    ${resp} =    Embeddings    ${TEXT}
    ${models} =    Get Models
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    object    list
    Json Field Should Be    ${resp}    model    ${models.json()}[data][0][id]
    Json Field Should Be    ${resp}    data.0.object    embedding
    Json Field Should Be    ${resp}    data.0.index    ${0}

OpenAI Batch Answers Each Input In Order
    ${resp} =    Embeddings    ${THREE}
    ${indexes} =    Result Indexes    ${resp.json()}[data]
    Values Should Count From Zero    ${indexes}    3
    ${other} =    Embedding Of    ${OTHER}
    Vectors Should Be Equal Within    ${resp.json()}[data][1][embedding]    ${other}

Vector Width Is The Model's Embedding Length
    [Tags]    needs:model-file
    ${meta} =    Suite Model Metadata
    ${resp} =    Embeddings    ${BOTH}
    ${vectors} =    Embedding Vectors    ${resp}
    Each Vector Should Have Length    ${vectors}    ${meta}[n_embd]

Default Vectors Have Unit Euclidean Norm
    ${openai} =    Embedding Of    ${TEXT}
    ${native} =    Native Vectors Of    ${TEXT}
    Vector Norm Should Be    ${openai}    2    1
    Vector Norm Should Be    ${native}[0]    2    1

Embd Normalize Minus One Returns The Raw Pooled Vector
    [Documentation]    The raw vector points the same way as the default (unit) one; only its length differs.
    ${raw} =    Native Vectors Of    ${TEXT}    embd_normalize=${-1}
    ${default} =    Native Vectors Of    ${TEXT}
    Vector Norm Should Not Be    ${raw}[0]    2    1
    ${direction} =    Unit Vector    ${raw}[0]
    Vectors Should Be Equal Within    ${direction}    ${default}[0]

Base64 Encoding Decodes To The Same Floats
    ${encoded} =    Embedding Of    ${TEXT}    encoding_format=base64
    ${floats} =    Embedding Of    ${TEXT}
    ${decoded} =    Floats From Base64    ${encoded}
    Should Be Equal    ${decoded}    ${floats}

Base64 Encoding Keeps The Batch Order
    ${encoded} =    Embeddings    ${BOTH}    encoding_format=base64
    ${decoded} =    Floats From Base64    ${encoded.json()}[data][1][embedding]
    ${other} =    Embedding Of    ${OTHER}
    Vectors Should Be Equal Within    ${decoded}    ${other}

Unknown Encoding Format Is Rejected
    ${resp} =    Embeddings    ${TEXT}    encoding_format=hex    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error
    ...    message=The format to return the embeddings in. Can be either float or base64

Usage Counts The Tokens Of The Input With Special Tokens
    ${resp} =    Embeddings    ${TEXT}
    ${tokens} =    Tokens With Specials    ${TEXT}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${tokens}
    Json Field Should Be    ${resp}    usage.total_tokens    ${tokens}

Usage Of A Batch Sums The Tokens Of Every Input
    ${resp} =    Embeddings    ${THREE}
    ${tokens} =    Tokens With Specials    ${TEXT}    ${OTHER}    x
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${tokens}
    Json Field Should Be    ${resp}    usage.total_tokens    ${tokens}

Empty Text Embeds The Special Tokens Alone
    ${resp} =    Embeddings    ${EMPTY}
    ${tokens} =    Tokens With Specials    ${EMPTY}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${tokens}
    ${vectors} =    Embedding Vectors    ${resp}
    Vector Norm Should Be    ${vectors}[0]    2    1

Token Ids Embed Like The Text They Spell
    ${ids} =    Tokenize    ${TEXT}    add_special=${True}
    ${resp} =    Embeddings    ${ids}
    ${text} =    Embedding Of    ${TEXT}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${{ len($ids) }}
    Vectors Should Be Equal Within    ${resp.json()}[data][0][embedding]    ${text}

Identical Inputs In One Batch Get Identical Vectors
    VAR    @{again}    ${TEXT}    ${OTHER}    ${TEXT}
    ${resp} =    Embeddings    ${again}
    ${vectors} =    Embedding Vectors    ${resp}
    Vectors Should Be Equal Within    ${vectors}[2]    ${vectors}[0]

Repeated Requests Get Identical Vectors
    ${first} =    Embedding Of    ${TEXT}
    ${second} =    Embedding Of    ${TEXT}
    Should Be Equal    ${second}    ${first}

Missing Input Is Rejected
    VAR    &{body}    model=x
    ${resp} =    POST On Session    suite    /v1/embeddings    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message="input" or "content" must be provided

Empty Input List Is Rejected
    ${resp} =    Embeddings    input=@{EMPTY}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message="input" must not be empty

Input Longer Than The Physical Batch Is A Server Error
    [Documentation]    An embedding input must fit in one physical batch (`--ubatch-size`, 512 here). 511 words
    ...    plus `[CLS]` and `[SEP]` are 513 tokens: the server answers 500 and names the limit to raise.
    ${resp} =    Embeddings    ${{ "word " * 511 }}    expected_status=any
    Error Response Should Be    ${resp}    500    server_error    message=${TOO_LONG}
