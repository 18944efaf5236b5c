# robocop: off=line-too-long
*** Settings ***
Documentation       With `--api-key`, every route family refuses a request without the key (401, the exact
...                 `authentication_error` object, as JSON), streaming included, refuses it the same with a key
...                 it does not have, and answers it with the key;
...                 `/health` and `/v1/health` stay public.
Resource            ../../resources/security.resource
Suite Setup         Start Keyed Server With A Wrong Key Session
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Request Should Be Refused
Test Tags           security


*** Variables ***
${API_KEY: Secret}       %{LLAMATEST_TEST_KEY=sk-llamatest-first-0123456789}
${WRONG_KEY: Secret}     %{LLAMATEST_TEST_WRONG_KEY=sk-llamatest-wrong}


*** Test Cases ***                                  SESSION    METHOD    PATH                    BODY
Props Needs The Key                                 suite      GET       /props                  ${NONE}
Models Need The Key                                 suite      GET       /models                 ${NONE}
V1 Models Need The Key                              suite      GET       /v1/models              ${NONE}
Slots Need The Key                                  suite      GET       /slots                  ${NONE}
Metrics Need The Key                                suite      GET       /metrics                ${NONE}
Lora Adapters Need The Key                          suite      GET       /lora-adapters          ${NONE}
Completion Needs The Key                            suite      POST      /completion             ${{ {"prompt": "x", "n_predict": 1} }}
Streamed Completion Needs The Key                   suite      POST      /completion             ${{ {"prompt": "x", "n_predict": 1, "stream": True} }}
V1 Completions Need The Key                         suite      POST      /v1/completions         ${{ {"prompt": "x", "max_tokens": 1} }}
Chat Needs The Key                                  suite      POST      /v1/chat/completions    ${{ {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1} }}
Streamed Chat Needs The Key                         suite      POST      /v1/chat/completions    ${{ {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1, "stream": True} }}
Tokenize Needs The Key                              suite      POST      /tokenize               ${{ {"content": "x"} }}
Detokenize Needs The Key                            suite      POST      /detokenize             ${{ {"tokens": [5]} }}
Apply Template Needs The Key                        suite      POST      /apply-template         ${{ {"messages": [{"role": "user", "content": "x"}]} }}
Infill Needs The Key                                suite      POST      /infill                 ${{ {"input_prefix": "a", "input_suffix": "b"} }}
Embeddings Need The Key                             suite      POST      /v1/embeddings          ${{ {"input": "x"} }}
Rerank Needs The Key                                suite      POST      /v1/rerank              ${{ {"query": "x", "documents": ["y"]} }}

Props Refuses A Wrong Key                           wrong      GET       /props                  ${NONE}
Models Refuse A Wrong Key                           wrong      GET       /models                 ${NONE}
V1 Models Refuse A Wrong Key                        wrong      GET       /v1/models              ${NONE}
Slots Refuse A Wrong Key                            wrong      GET       /slots                  ${NONE}
Metrics Refuse A Wrong Key                          wrong      GET       /metrics                ${NONE}
Lora Adapters Refuse A Wrong Key                    wrong      GET       /lora-adapters          ${NONE}
Completion Refuses A Wrong Key                      wrong      POST      /completion             ${{ {"prompt": "x", "n_predict": 1} }}
Streamed Completion Refuses A Wrong Key             wrong      POST      /completion             ${{ {"prompt": "x", "n_predict": 1, "stream": True} }}
V1 Completions Refuse A Wrong Key                   wrong      POST      /v1/completions         ${{ {"prompt": "x", "max_tokens": 1} }}
Chat Refuses A Wrong Key                            wrong      POST      /v1/chat/completions    ${{ {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1} }}
Streamed Chat Refuses A Wrong Key                   wrong      POST      /v1/chat/completions    ${{ {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1, "stream": True} }}
Tokenize Refuses A Wrong Key                        wrong      POST      /tokenize               ${{ {"content": "x"} }}
Detokenize Refuses A Wrong Key                      wrong      POST      /detokenize             ${{ {"tokens": [5]} }}
Apply Template Refuses A Wrong Key                  wrong      POST      /apply-template         ${{ {"messages": [{"role": "user", "content": "x"}]} }}
Infill Refuses A Wrong Key                          wrong      POST      /infill                 ${{ {"input_prefix": "a", "input_suffix": "b"} }}
Embeddings Refuse A Wrong Key                       wrong      POST      /v1/embeddings          ${{ {"input": "x"} }}
Rerank Refuses A Wrong Key                          wrong      POST      /v1/rerank              ${{ {"query": "x", "documents": ["y"]} }}

Completion Is Served With The Key
    [Template]    Request With Key Should Be Accepted
    POST    /completion    ${{ {"prompt": "x", "n_predict": 1} }}

Tokenize Is Served With The Key
    [Template]    Request With Key Should Be Accepted
    POST    /tokenize    ${{ {"content": "x"} }}

Health Stays Public
    [Template]    NONE
    ${resp} =    GET On Session    suite    /health    expected_status=200
    Json Field Should Be    ${resp}    status    ok

V1 Health Stays Public
    [Template]    NONE
    ${resp} =    GET On Session    suite    /v1/health    expected_status=200
    Json Field Should Be    ${resp}    status    ok


*** Keywords ***
Start Keyed Server With A Wrong Key Session
    [Documentation]    Starts the keyed server (see `Start Keyed Server`) and opens the session `wrong` with a key
    ...    it does not have.
    Start Keyed Server    ${API_KEY}
    Open Session With Key    wrong    ${WRONG_KEY}
