*** Settings ***
Documentation       `--embeddings` alone does not turn reranking on: without `--reranking` all four rerank routes
...                 answer 501 with the exact error object that names the missing flag.
Resource            ../../resources/embeddings.resource
Suite Setup         Start Server For Suite    tiny-embeddings
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Rerank Route Should Be Off
Test Tags           rerank    errors


*** Variables ***
${OFF}      This server does not support reranking. Start it with `--reranking`


*** Test Cases ***                              ROUTE
Rerank Route Needs The Flag                     /rerank
Reranking Route Needs The Flag                  /reranking
V1 Rerank Route Needs The Flag                  /v1/rerank
V1 Reranking Route Needs The Flag               /v1/reranking


*** Keywords ***
Rerank Route Should Be Off
    [Documentation]    POSTs a valid Jina rerank body to `route` and checks the 501 error object.
    [Arguments]    ${route}
    VAR    @{documents}    world
    VAR    &{body}    query=hello    documents=${documents}
    ${resp} =    POST On Session    suite    ${route}    json=${body}    expected_status=any
    Media Type Should Be    ${resp}    application/json
    Error Response Should Be    ${resp}    501    not_supported_error    message=${OFF}
