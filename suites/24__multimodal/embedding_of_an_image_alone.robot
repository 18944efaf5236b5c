*** Settings ***
Documentation       An embeddings input that is an image and nothing else, on a server of its own: in this build
...                 it aborts the whole server (`GGML_ASSERT(batch.size() > 0)` in server-context.cpp, as for any
...                 prompt whose last part is an image: see `prompt_ending_with_an_image.robot`).
Resource            ../../resources/multimodal.resource
Resource            ../../resources/embeddings.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision    --pooling    mean
...                 embeddings=${True}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    embeddings    needs:image-input    needs:tiny


*** Test Cases ***
An Image Alone Gets One Vector
    [Documentation]    Contract: the server's README, `/v1/embeddings`: "each element of `input` can also be an
    ...    object with a `content` array, using the same parts as `/v1/chat/completions`" and "Each object
    ...    gives one embedding"; its own example input starts with an image part. This build aborts (the
    ...    server process dies) when the image is the whole input.
    [Tags]    bug
    ${image} =    Generated Image Part    png    ${1}
    VAR    @{content}    ${image}
    VAR    &{input}    content=${content}
    VAR    @{inputs}    ${input}
    ${resp} =    Embeddings    ${inputs}
    ${vectors} =    Embedding Vectors    ${resp}
    Length Should Be    ${vectors}    1
    Server Should Be Running
