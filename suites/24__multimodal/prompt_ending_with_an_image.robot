*** Settings ***
Documentation       A `/completion` prompt whose last part is an image, on a server of its own: in this build
...                 it aborts the whole server (`GGML_ASSERT(batch.size() > 0)` in server-context.cpp: the
...                 prompt's last chunk is an image, so the batch that should carry the last prompt token for
...                 the logits is empty). Sometimes, with part of the prompt cached, it answers 500
...                 "got exception: Chunk not found" instead.
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    needs:image-input    needs:tiny


*** Test Cases ***
A Completion Prompt May End With An Image
    [Documentation]    Contract: the server's README, `/completion` `prompt`: "A JSON object which optionally
    ...    contains multimodal data: `{ "prompt_string": "string", "multimodal_data": ["base64"] }`" with
    ...    "an identical number of MTMD media markers in the string prompt", and no rule on where they stand.
    ...    This build aborts (the server process dies) on a prompt that ends with the marker.
    [Tags]    bug
    ${marker} =    Media Marker
    ${data} =    Image Base64    png    seed=${14}
    ${expected} =    Prompt Tokens With Media    describe ${marker}
    ${resp} =    Media Completion    describe ${marker}    ${data}    n_predict=${4}
    Json Field Should Be    ${resp}    tokens_evaluated    ${expected}
    Server Should Be Running
