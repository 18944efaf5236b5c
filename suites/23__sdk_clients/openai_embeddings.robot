*** Settings ***
Documentation       `client.embeddings.create` against `/v1/embeddings` on a real sentence-embedding model: one typed
...                 `Embedding` per input in order, and the same vectors whether they travel as floats or as
...                 base64. The SDK asks for base64 unless told otherwise and decodes it itself; with
...                 `encoding_format="base64"` it hands the string over, and the test decodes it.
...                 Reference: https://platform.openai.com/docs/api-reference/embeddings
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Suite Server    minilm-embeddings
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    embeddings


*** Variables ***
@{INPUTS}       a cat sits on the mat    the stock market fell today


*** Test Cases ***
Embeddings Are One Typed Vector Per Input In Order
    ${answer} =    OpenAI Call    embeddings.create    input=${INPUTS}    encoding_format=float
    Should Be Typed    ${answer}    CreateEmbeddingResponse
    Each Should Be Typed    ${answer.data}    Embedding
    Should Be Equal As Integers    ${answer.data[0].index}    0
    Should Be Equal As Integers    ${answer.data[1].index}    1
    Should Be Equal    ${answer.data[1].object}    embedding

Vectors Have The Model's Dimension
    [Tags]    needs:minilm
    ${answer} =    OpenAI Call    embeddings.create    input=${INPUTS}    encoding_format=float
    Length Should Be    ${answer.data[0].embedding}    384
    Length Should Be    ${answer.data[1].embedding}    384

SDK Default Base64 Decodes To The Float Vectors
    ${floats} =    OpenAI Call    embeddings.create    input=${INPUTS}    encoding_format=float
    ${default} =    OpenAI Call    embeddings.create    input=${INPUTS}
    Should Be Equal    ${default.data[0].embedding}    ${floats.data[0].embedding}
    Should Be Equal    ${default.data[1].embedding}    ${floats.data[1].embedding}

Explicit Base64 Decodes To The Float Vector
    ${floats} =    OpenAI Call    embeddings.create    input=${INPUTS}[0]    encoding_format=float
    ${encoded} =    OpenAI Call    embeddings.create    input=${INPUTS}[0]    encoding_format=base64
    Should Be True    isinstance($encoded.data[0].embedding, str)
    ${decoded} =    Decode Base64 Embedding    ${encoded.data[0].embedding}
    Should Be Equal    ${decoded}    ${floats.data[0].embedding}

Usage Counts The Input Tokens
    ${answer} =    OpenAI Call    embeddings.create    input=${INPUTS}    encoding_format=float
    Should Be True    ${answer.usage.prompt_tokens} > 0
    Should Be Equal As Integers    ${answer.usage.total_tokens}    ${answer.usage.prompt_tokens}

Model Is The Model The Server Lists
    ${answer} =    OpenAI Call    embeddings.create    input=${INPUTS}    encoding_format=float
    ${served} =    Served Model
    Should Be Equal    ${answer.model}    ${served}

Strict Validation Accepts The Embeddings
    ${answer} =    OpenAI Call    embeddings.create    input=${INPUTS}    encoding_format=float    strict=${True}
    Should Be Typed    ${answer}    CreateEmbeddingResponse
