*** Settings ***
Documentation       The four rerank routes are aliases: each answers a Jina request with the same ranking.
Resource            ../../resources/embeddings.resource
Suite Setup         Start Server For Suite    tiny-reranker
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Route Should Rank Like Rerank
Test Tags           rerank


*** Variables ***
${QUERY}        what is the capital of france
@{DOCUMENTS}    the cat sat on the mat    paris is the capital of france    a recipe for pasta    python code


*** Test Cases ***                  ROUTE
Rerank                              /rerank
Reranking                           /reranking
V1 Rerank                           /v1/rerank
V1 Reranking                        /v1/reranking


*** Keywords ***
Route Should Rank Like Rerank
    [Documentation]    POSTs the same Jina request to `route` and to `/rerank`: the answers must be identical
    ...    JSON lists objects that rank every document once.
    [Arguments]    ${route}
    VAR    &{body}    query=${QUERY}    documents=${DOCUMENTS}
    ${resp} =    POST On Session    suite    ${route}    json=${body}    expected_status=200
    ${reference} =    Rerank    ${QUERY}    ${DOCUMENTS}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    object    list
    Ranking Should Hold Every Document Once    ${resp.json()}[results]    ${{ len($DOCUMENTS) }}
    Should Be Equal    ${resp.json()}    ${reference.json()}
