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
# The request bodies, one per route family.
&{USER_X}                role=user    content=x
@{ONE_MESSAGE}           ${USER_X}
@{TOKEN_FIVE}            ${5}
@{ONE_DOCUMENT}          y
&{COMPLETION}            prompt=x    n_predict=${1}
&{STREAMED_COMPLETION}   &{COMPLETION}    stream=${True}
&{V1_COMPLETION}         prompt=x    max_tokens=${1}
&{CHAT}                  messages=${ONE_MESSAGE}    max_tokens=${1}
&{STREAMED_CHAT}         &{CHAT}    stream=${True}
&{TOKENIZE}              content=x
&{DETOKENIZE}            tokens=${TOKEN_FIVE}
&{TEMPLATE}              messages=${ONE_MESSAGE}
&{INFILL}                input_prefix=a    input_suffix=b
&{EMBEDDINGS}            input=x
&{RERANK}                query=x    documents=${ONE_DOCUMENT}


*** Test Cases ***                                  SESSION    METHOD    PATH                    BODY
Props Needs The Key                                 suite      GET       /props                  ${NONE}
Models Need The Key                                 suite      GET       /models                 ${NONE}
V1 Models Need The Key                              suite      GET       /v1/models              ${NONE}
Slots Need The Key                                  suite      GET       /slots                  ${NONE}
Metrics Need The Key                                suite      GET       /metrics                ${NONE}
Lora Adapters Need The Key                          suite      GET       /lora-adapters          ${NONE}
Completion Needs The Key                            suite      POST      /completion             ${COMPLETION}
Streamed Completion Needs The Key                   suite      POST      /completion             ${STREAMED_COMPLETION}
V1 Completions Need The Key                         suite      POST      /v1/completions         ${V1_COMPLETION}
Chat Needs The Key                                  suite      POST      /v1/chat/completions    ${CHAT}
Streamed Chat Needs The Key                         suite      POST      /v1/chat/completions    ${STREAMED_CHAT}
Tokenize Needs The Key                              suite      POST      /tokenize               ${TOKENIZE}
Detokenize Needs The Key                            suite      POST      /detokenize             ${DETOKENIZE}
Apply Template Needs The Key                        suite      POST      /apply-template         ${TEMPLATE}
Infill Needs The Key                                suite      POST      /infill                 ${INFILL}
Embeddings Need The Key                             suite      POST      /v1/embeddings          ${EMBEDDINGS}
Rerank Needs The Key                                suite      POST      /v1/rerank              ${RERANK}

Props Refuses A Wrong Key                           wrong      GET       /props                  ${NONE}
Models Refuse A Wrong Key                           wrong      GET       /models                 ${NONE}
V1 Models Refuse A Wrong Key                        wrong      GET       /v1/models              ${NONE}
Slots Refuse A Wrong Key                            wrong      GET       /slots                  ${NONE}
Metrics Refuse A Wrong Key                          wrong      GET       /metrics                ${NONE}
Lora Adapters Refuse A Wrong Key                    wrong      GET       /lora-adapters          ${NONE}
Completion Refuses A Wrong Key                      wrong      POST      /completion             ${COMPLETION}
Streamed Completion Refuses A Wrong Key             wrong      POST      /completion             ${STREAMED_COMPLETION}
V1 Completions Refuse A Wrong Key                   wrong      POST      /v1/completions         ${V1_COMPLETION}
Chat Refuses A Wrong Key                            wrong      POST      /v1/chat/completions    ${CHAT}
Streamed Chat Refuses A Wrong Key                   wrong      POST      /v1/chat/completions    ${STREAMED_CHAT}
Tokenize Refuses A Wrong Key                        wrong      POST      /tokenize               ${TOKENIZE}
Detokenize Refuses A Wrong Key                      wrong      POST      /detokenize             ${DETOKENIZE}
Apply Template Refuses A Wrong Key                  wrong      POST      /apply-template         ${TEMPLATE}
Infill Refuses A Wrong Key                          wrong      POST      /infill                 ${INFILL}
Embeddings Refuse A Wrong Key                       wrong      POST      /v1/embeddings          ${EMBEDDINGS}
Rerank Refuses A Wrong Key                          wrong      POST      /v1/rerank              ${RERANK}

Completion Is Served With The Key
    [Template]    Request With Key Should Be Accepted
    POST    /completion    ${COMPLETION}

Tokenize Is Served With The Key
    [Template]    Request With Key Should Be Accepted
    POST    /tokenize    ${TOKENIZE}

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
