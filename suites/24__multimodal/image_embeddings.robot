*** Settings ***
Documentation       Embeddings with an image (`/v1/embeddings` and `/embeddings` with OAI content parts, a
...                 llama.cpp extension the server's README documents for models loaded with `--mmproj`), on
...                 `tiny` with the generated `tiny-vision` projector, embeddings on and mean pooling: one
...                 vector per input, the same image gives the same vector, different images different ones,
...                 and a text-only input gets the vector it gets from `tiny` without a projector.
Resource            ../../resources/multimodal.resource
Resource            ../../resources/embeddings.resource
Suite Setup         Start Embedding Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    embeddings    needs:image-input    needs:tiny


*** Test Cases ***
Each Input Gets One Vector In Order
    [Tags]    build-specific    builds:11434-
    ${first} =    Image Input    ${1}
    ${second} =    Image Input    ${2}
    ${text} =    Text Input    hello
    VAR    @{inputs}    ${first}    ${second}    ${text}
    ${resp} =    Embeddings    ${inputs}
    ${indexes} =    Result Indexes    ${resp.json()}[data]
    Values Should Count From Zero    ${indexes}    3
    ${vectors} =    Embedding Vectors    ${resp}
    Each Vector Should Have Length    ${vectors}    ${N_EMBD}

The Same Image Gives The Same Vector
    [Tags]    build-specific    builds:11434-
    ${input} =    Image Input    ${3}
    VAR    @{inputs}    ${input}
    ${first} =    Embedding Of    ${inputs}
    ${again} =    Embedding Of    ${inputs}
    Vectors Should Be Equal Within    ${again}    ${first}

Different Images Give Different Vectors
    [Tags]    build-specific    builds:11434-
    ${one} =    Image Input    ${4}
    ${other} =    Image Input    ${5}
    VAR    @{one_input}    ${one}
    VAR    @{other_input}    ${other}
    ${first} =    Embedding Of    ${one_input}
    ${second} =    Embedding Of    ${other_input}
    ${cosine} =    Cosine Similarity    ${first}    ${second}
    Should Be True    $cosine < 0.9999    the two images gave vectors with cosine ${cosine}

The Native Route Embeds An Image Like The OpenAI Route
    [Tags]    build-specific    builds:11434-
    ${input} =    Image Input    ${6}
    VAR    @{inputs}    ${input}
    ${oai} =    Embedding Of    ${inputs}
    ${resp} =    Native Embeddings    ${inputs}    route=/embeddings
    Vectors Should Be Equal Within    ${resp.json()}[0][embedding][0]    ${oai}    tolerance=1e-4

A Loaded Projector Leaves Text Embeddings Unchanged
    ${with_projector} =    Embedding Of    hello world
    ${without} =    Embedding Of    hello world    server=plain
    Vectors Should Be Equal Within    ${with_projector}    ${without}


*** Keywords ***
Start Embedding Servers
    [Documentation]    Starts the suite's server (`tiny-vision` with its projector, embeddings on, mean pooling)
    ...    and `plain`, the same model and flags without a projector. Keeps `tiny`'s width in `${N_EMBD}`.
    Start Projector Server For Suite    tiny-vision    tiny-vision    --pooling    mean    embeddings=${True}
    Start Preset Server    tiny-vision    --pooling    mean    embeddings=${True}    alias=plain
    ${model} =    Model Metadata    tiny
    VAR    ${N_EMBD}    ${model}[n_embd]    scope=SUITE    # robocop: off=no-suite-variable

Image Input
    [Documentation]    Returns one `/v1/embeddings` input object: a content list with the generated PNG of `seed`
    ...    and a text after it (a prompt that ends with an image aborts this build: see
    ...    `prompt_ending_with_an_image.robot`).
    [Arguments]    ${seed}
    ${image} =    Generated Image Part    png    ${seed}
    ${text} =    Text Part    describe
    VAR    @{content}    ${image}    ${text}
    VAR    &{input}    content=${content}
    RETURN    ${input}

Text Input
    [Documentation]    Returns one `/v1/embeddings` input object whose content is the one text part `text`.
    [Arguments]    ${text}
    ${part} =    Text Part    ${text}
    VAR    @{content}    ${part}
    VAR    &{input}    content=${content}
    RETURN    ${input}
