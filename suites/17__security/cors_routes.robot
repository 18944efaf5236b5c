*** Settings ***
Documentation       With the default CORS flags (any origin, credentials allowed: the server's README says "By
...                 default the server reflects any `Origin` header back with credentials allowed"), the answer of
...                 every route a browser page calls carries `Access-Control-Allow-Origin` equal to the page's
...                 origin: the native, OpenAI, Anthropic and tokenizer routes, GET and POST, streamed or not, and a
...                 route that is public (`/health`). Without it a page on another origin cannot read the answer.
...                 `cors.robot` covers preflights and refused requests.
Resource            ../../resources/security.resource
Suite Setup         Start Keyed Server    ${API_KEY}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Answer From Origin Should Echo It
Test Tags           security    cors


*** Variables ***
${API_KEY: Secret}      %{LLAMATEST_TEST_KEY=sk-llamatest-first-0123456789}
${ORIGIN}               https://page.example
# The request bodies of the POST routes.
&{USER_X}               role=user    content=x
@{ONE_MESSAGE}          ${USER_X}
@{NO_TOKENS}            @{EMPTY}
&{CHAT}                 messages=${ONE_MESSAGE}    max_tokens=${1}
&{STREAMED_CHAT}        &{CHAT}    stream=${True}
&{MESSAGES}             &{CHAT}    model=m
&{COUNT_TOKENS}         model=m    messages=${ONE_MESSAGE}
&{V1_COMPLETION}        prompt=x    max_tokens=${1}
&{RESPONSES}            input=x    max_output_tokens=${1}
&{TOKENIZE}             content=x
&{DETOKENIZE}           tokens=${NO_TOKENS}
&{TEMPLATE}             messages=${ONE_MESSAGE}


*** Test Cases ***                                  METHOD    PATH                         BODY
Health Echoes The Origin                            GET       /health                      ${NONE}
Props Echo The Origin                               GET       /props                       ${NONE}
Models Echo The Origin                              GET       /v1/models                   ${NONE}
Slots Echo The Origin                               GET       /slots                       ${NONE}
V1 Completions Echo The Origin                      POST      /v1/completions              ${V1_COMPLETION}
Chat Echoes The Origin                              POST      /v1/chat/completions         ${CHAT}
Streamed Chat Echoes The Origin                     POST      /v1/chat/completions         ${STREAMED_CHAT}
Responses Echo The Origin                           POST      /v1/responses                ${RESPONSES}
Messages Echo The Origin                            POST      /v1/messages                 ${MESSAGES}
Count Tokens Echo The Origin                        POST      /v1/messages/count_tokens    ${COUNT_TOKENS}
Tokenize Echoes The Origin                          POST      /tokenize                    ${TOKENIZE}
Detokenize Echoes The Origin                        POST      /detokenize                  ${DETOKENIZE}
Apply Template Echoes The Origin                    POST      /apply-template              ${TEMPLATE}


*** Keywords ***
Answer From Origin Should Echo It
    [Documentation]    Sends `method path` with `body` (JSON; `${NONE}` for none) and an `Origin` header through the
    ...    keyed session: 200, with that origin in `Access-Control-Allow-Origin`.
    [Arguments]    ${method}    ${path}    ${body}
    ${resp} =    Request From Origin    ${method}    ${ORIGIN}    ${path}    ${body}    session=keyed
    Allowed Origin Should Be    ${resp}    ${ORIGIN}
