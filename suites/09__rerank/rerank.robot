*** Settings ***
Documentation       Reranking with a BERT reranker (random weights, so the scores carry no meaning but are
...                 deterministic): Jina and TEI request formats, results sorted by relevance score, each document
...                 ranked once with a score of its own, usage counted per query-document pair, `top_n` and
...                 `return_text`.
Resource            ../../resources/embeddings.resource
Suite Setup         Start Server For Suite    tiny-reranker
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           rerank


*** Variables ***
${QUERY}            what is the capital of france
@{DOCUMENTS}        the cat sat on the mat    paris is the capital of france    a recipe for pasta    python code
...                 where is the sun


*** Test Cases ***
Jina Answer Is A List Object With Usage
    ${resp} =    Rerank    ${QUERY}    ${DOCUMENTS}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    object    list
    Json Fields Should Exist    ${resp}    ${EMPTY}    model    usage    results
    Json Fields Should Exist    ${resp}    results.0    index    relevance_score
    Json Field Should Be Of Type    ${resp}    results.0.relevance_score    number

Results Are Sorted By Descending Relevance Score
    ${results} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    Ranking Should Be Sorted By Score    ${results}

Every Document Is Ranked Exactly Once
    ${results} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    Ranking Should Hold Every Document Once    ${results}    ${{ len($DOCUMENTS) }}

A Document's Score Does Not Depend On Its Position
    ${forward} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    ${reversed} =    Ranking Of    ${QUERY}    ${DOCUMENTS}[::-1]
    ${forward_scores} =    Scores By Document    ${forward}    ${DOCUMENTS}
    ${reversed_scores} =    Scores By Document    ${reversed}    ${DOCUMENTS}[::-1]
    Should Be Equal    ${reversed_scores}    ${forward_scores}

Same Request Gives The Same Ranking
    ${first} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    ${second} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    Should Be Equal    ${second}    ${first}

Usage Counts Every Query Document Pair
    ${resp} =    Rerank    ${QUERY}    ${DOCUMENTS}
    ${tokens} =    Rerank Prompt Tokens    ${QUERY}    ${DOCUMENTS}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${tokens}
    Json Field Should Be    ${resp}    usage.total_tokens    ${tokens}

Tei Format Answers A Bare List Of Scores
    ${resp} =    Rerank Texts    ${QUERY}    ${DOCUMENTS}
    ${jina} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    Media Type Should Be    ${resp}    application/json
    Ranking Should Be Sorted By Score    ${resp.json()}    score
    ${tei_scores} =    Scores By Document    ${resp.json()}    ${DOCUMENTS}    score
    ${jina_scores} =    Scores By Document    ${jina}    ${DOCUMENTS}
    Should Be Equal    ${tei_scores}    ${jina_scores}

Tei Return Text Adds Each Document's Text
    ${resp} =    Rerank Texts    ${QUERY}    ${DOCUMENTS}    return_text=${True}
    ${index} =    Get Json Field    ${resp}    0.index
    Json Field Should Be    ${resp}    0.text    ${DOCUMENTS}[${index}]
    ${texts} =    Texts By Index    ${resp.json()}
    Should Be Equal    ${texts}    ${DOCUMENTS}

Tei Answer Has No Text Unless Asked
    ${resp} =    Rerank Texts    ${QUERY}    ${DOCUMENTS}
    Json Keys Should Be    ${resp.json()}[0]    index    score

Top N Keeps The Best Documents
    ${all} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    ${top} =    Ranking Of    ${QUERY}    ${DOCUMENTS}    top_n=${2}
    Should Be Equal    ${top}    ${all}[:2]

Top N Zero Returns No Results
    ${resp} =    Rerank    ${QUERY}    ${DOCUMENTS}    top_n=${0}
    Json Field Should Be    ${resp}    results    expected=@{EMPTY}

Top N Larger Than The Documents Returns Them All
    ${all} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    ${top} =    Ranking Of    ${QUERY}    ${DOCUMENTS}    top_n=${100}
    Should Be Equal    ${top}    ${all}

Negative Top N Is Rejected
    [Documentation]    Contract: RFC 9110 §15.5.1, 400 is for "something that is perceived to be a client error",
    ...    and §15.6.1, 500 for "an unexpected condition" of the server; a negative count of results is the
    ...    client's mistake. This build answers 500 `server_error` with the C++ exception text
    ...    `vector::_M_default_append` instead (`format_response_rerank` in server-common.cpp resizes with it).
    [Tags]    bug
    ${resp} =    Rerank    ${QUERY}    ${DOCUMENTS}    top_n=${-1}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error

Empty Document Is Still Ranked
    VAR    @{one_empty_document}    ${EMPTY}
    ${results} =    Ranking Of    ${QUERY}    ${one_empty_document}
    Ranking Should Hold Every Document Once    ${results}    1


*** Keywords ***
Texts By Index
    [Documentation]    Returns the `text` of TEI rerank results ordered by their `index`: the documents as sent.
    [Arguments]    ${results}
    ${texts} =    Field In Index Order    ${results}    text
    RETURN    ${texts}
