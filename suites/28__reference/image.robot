*** Settings ***
Documentation       Log-probabilities of `tiny` after an image in the prompt, with the generated `tiny-vision`
...                 projector, against the numpy reference (ReferenceLibrary; docs/reference.md): the reference
...                 computes the image's 16 input embeddings from the projector file (a 32x32 image, the projector's
...                 own size, so the server copies it unresized) and feeds them between the text before and after
...                 the media marker, as mtmd does (BOS with the first text only).
Resource            ../../resources/reference.resource
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    multimodal    needs:image-input    needs:generated-model    needs:managed


*** Variables ***
${TEXT_BEFORE}    describe this picture${SPACE}
${TEXT_AFTER}     ${SPACE}in a few words


*** Test Cases ***
Logprobs After An Image Match The Reference
    ${marker} =    Media Marker
    ${image} =    Image Base64    png    seed=${5}    width=${32}    height=${32}
    ${before} =    Prompt Tokens    ${TEXT_BEFORE}
    ${after} =    Tokenize    ${TEXT_AFTER}
    ${resp} =    Media Completion    ${TEXT_BEFORE}${marker}${TEXT_AFTER}    ${image}    n_predict=${8}    n_probs=${3}
    ${projector} =    Model Path    tiny-vision
    Log Probabilities With An Image Should Match Reference    ${resp.json()}[completion_probabilities]
    ...    ${before}    ${image}    ${after}    ${projector}
