*** Settings ***
Documentation       Without `--embeddings` every embeddings route answers 501 with the exact error object that
...                 names the missing flag.
Resource            ../../resources/embeddings.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Embeddings Route Should Be Off
Test Tags           embeddings    errors    needs:default-routes


*** Variables ***
${OFF}      This server does not support embeddings. Start it with `--embeddings`


*** Test Cases ***                                  ROUTE
Legacy Embedding Route Needs The Flag               /embedding
Native Embeddings Route Needs The Flag              /embeddings
OpenAI Embeddings Route Needs The Flag              /v1/embeddings


*** Keywords ***
Embeddings Route Should Be Off
    [Documentation]    POSTs a valid body to `route` and checks the 501 error object.
    [Arguments]    ${route}
    VAR    &{body}    input=hello    content=hello
    ${resp} =    POST On Session    suite    ${route}    json=${body}    expected_status=any
    Media Type Should Be    ${resp}    application/json
    Error Response Should Be    ${resp}    501    not_supported_error    message=${OFF}
