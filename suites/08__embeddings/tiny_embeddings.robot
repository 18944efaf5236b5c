*** Settings ***
Documentation       A generative (llama) model with `--embeddings` and no `--pooling` flag keeps its own pooling,
...                 none: the native route returns one vector per token and the OpenAI route refuses.
Resource            ../../resources/embeddings.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-embeddings
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           embeddings


*** Variables ***
${TEXT}         hello world of llama tokens
${NOT_OAI}      Pooling type 'none' is not OAI compatible. Please use a different pooling type


*** Test Cases ***
Generative Model Embeds Each Token Including Bos
    [Tags]    needs:model-file
    ${meta} =    Suite Model Metadata
    ${vectors} =    Native Vectors Of    ${TEXT}
    ${tokens} =    Tokens With Specials    ${TEXT}
    Length Should Be    ${vectors}    ${tokens}
    Each Vector Should Have Length    ${vectors}    ${meta}[n_embd]

OpenAI Route Refuses The Model's Own Pooling
    ${resp} =    Embeddings    ${TEXT}    expected_status=any
    Media Type Should Be    ${resp}    application/json
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${NOT_OAI}
