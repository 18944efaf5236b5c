# robocop: off=line-too-long
*** Settings ***
Documentation       With `--api-key`, every route family refuses a request without the key (401, the exact
...                 `authentication_error` object, as JSON), streaming included, and answers it with the key;
...                 `/health` and `/v1/health` stay public.
Resource            ../../resources/security.resource
Suite Setup         Start Keyed Server    ${API_KEY}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Request Without Key Should Be Refused
Test Tags           security


*** Variables ***
${API_KEY: Secret}      %{LLAMATEST_TEST_KEY=sk-llamatest-first-0123456789}


*** Test Cases ***                                  METHOD    PATH                    BODY
Props Needs The Key                                 GET       /props                  ${NONE}
Models Need The Key                                 GET       /models                 ${NONE}
V1 Models Need The Key                              GET       /v1/models              ${NONE}
Slots Need The Key                                  GET       /slots                  ${NONE}
Metrics Need The Key                                GET       /metrics                ${NONE}
Lora Adapters Need The Key                          GET       /lora-adapters          ${NONE}
Completion Needs The Key                            POST      /completion             ${{ {"prompt": "x", "n_predict": 1} }}
Streamed Completion Needs The Key                   POST      /completion             ${{ {"prompt": "x", "n_predict": 1, "stream": True} }}
V1 Completions Need The Key                         POST      /v1/completions         ${{ {"prompt": "x", "max_tokens": 1} }}
Chat Needs The Key                                  POST      /v1/chat/completions    ${{ {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1} }}
Streamed Chat Needs The Key                         POST      /v1/chat/completions    ${{ {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1, "stream": True} }}
Tokenize Needs The Key                              POST      /tokenize               ${{ {"content": "x"} }}
Detokenize Needs The Key                            POST      /detokenize             ${{ {"tokens": [5]} }}
Apply Template Needs The Key                        POST      /apply-template         ${{ {"messages": [{"role": "user", "content": "x"}]} }}
Infill Needs The Key                                POST      /infill                 ${{ {"input_prefix": "a", "input_suffix": "b"} }}
Embeddings Need The Key                             POST      /v1/embeddings          ${{ {"input": "x"} }}
Rerank Needs The Key                                POST      /v1/rerank              ${{ {"query": "x", "documents": ["y"]} }}

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
