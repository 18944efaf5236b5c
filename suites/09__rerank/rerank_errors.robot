*** Settings ***
Documentation       Rerank request validation: a missing or non-string `query` and a missing, empty or non-string
...                 `documents` list get 400 with the exact error object.
Resource            ../../resources/embeddings.resource
Suite Setup         Start Server For Suite    tiny-reranker
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Rerank Request Should Be Rejected
Test Tags           rerank    errors


*** Variables ***
${NO_QUERY}         "query" must be provided
${BAD_QUERY}        "query" must be a string
${BAD_DOCUMENTS}    "documents" must be a non-empty string array


*** Test Cases ***                              BODY                                        MESSAGE
Missing Query Is Rejected                       {"documents": ["a cat"]}                    ${NO_QUERY}
Query That Is Not A String Is Rejected          {"query": 5, "documents": ["a cat"]}        ${BAD_QUERY}
Missing Documents Are Rejected                  {"query": "cats"}                           ${BAD_DOCUMENTS}
Empty Document List Is Rejected                 {"query": "cats", "documents": []}          ${BAD_DOCUMENTS}
Documents That Are Not Strings Are Rejected     {"query": "cats", "documents": [1, 2]}      ${BAD_DOCUMENTS}
Documents That Are One String Are Rejected      {"query": "cats", "documents": "a cat"}     ${BAD_DOCUMENTS}


*** Keywords ***
Rerank Request Should Be Rejected
    [Documentation]    POSTs `body` (JSON text) to /rerank and checks the 400 error object and its `message`.
    [Arguments]    ${body}    ${message}
    ${json} =    Parsed Json    ${body}
    ${resp} =    POST On Session    suite    /rerank    json=${json}    expected_status=any
    Media Type Should Be    ${resp}    application/json
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${message}
