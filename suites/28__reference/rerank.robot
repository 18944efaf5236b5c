*** Settings ***
Documentation       Rerank scores of the generated BERT reranker against the numpy reference of its model file
...                 (ReferenceLibrary; docs/reference.md): the Jina shape (`results` with `relevance_score`) and the
...                 TEI shape (a bare list with `score`), `top_n`, and the documents of one request, scored together.
...                 The reference reads each pair as the server builds it: `[CLS] query [SEP] document [SEP]`.
Resource            ../../resources/reference.resource
Suite Setup         Start Server For Suite    tiny-reranker
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    rerank    needs:generated-model


*** Variables ***
${QUERY}            what is the capital of france
@{DOCUMENTS}        the cat sat on the mat    paris is the capital of france    a recipe for pasta    python code
...                 where is the sun


*** Test Cases ***
Jina Scores Match The Reference
    ${pairs} =    Rerank Pair Tokens    ${QUERY}    ${DOCUMENTS}
    ${results} =    Ranking Of    ${QUERY}    ${DOCUMENTS}
    Rerank Scores Should Match Reference    ${results}    ${pairs}

TEI Scores Match The Reference
    ${pairs} =    Rerank Pair Tokens    ${QUERY}    ${DOCUMENTS}
    ${resp} =    Rerank Texts    ${QUERY}    ${DOCUMENTS}
    Rerank Scores Should Match Reference    ${resp.json()}    ${pairs}    key=score

Top N Keeps The Reference's Best Documents
    ${pairs} =    Rerank Pair Tokens    ${QUERY}    ${DOCUMENTS}
    ${results} =    Ranking Of    ${QUERY}    ${DOCUMENTS}    top_n=${2}
    Rerank Scores Should Match Reference    ${results}    ${pairs}    top_n=${2}

A Single Document's Score Matches The Reference
    ${pairs} =    Rerank Pair Tokens    ${QUERY}    ${{ $DOCUMENTS[1:2] }}
    ${results} =    Ranking Of    ${QUERY}    ${{ $DOCUMENTS[1:2] }}
    Rerank Scores Should Match Reference    ${results}    ${pairs}
