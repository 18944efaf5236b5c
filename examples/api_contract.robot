*** Settings ***
Documentation       My deployment's API contract: the routes my clients use answer with my key and refuse requests
...                 without it or with a wrong one, health checks need no key, the routes I do not expose stay
...                 closed even with the key, and only my web app's origin may call the API from a browser.
...                 The server this was written for runs with `--api-key KEY --no-slots --cors-origins
...                 https://app.example.com`; list your own routes and origin below. See examples/README.md for
...                 how to run it against your server.
Library             Collections
Resource            ../resources/security.resource
Suite Setup         Connect With And Without My Key
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           example


*** Variables ***
${BASE_URL}             %{LLAMA_SERVER_URL=http://127.0.0.1:8080}
${API_KEY: Secret}      %{LLAMATEST_API_KEY=}
${WRONG_KEY}            sk-not-my-key
${ALLOWED_ORIGIN}       https://app.example.com
${FOREIGN_ORIGIN}       https://elsewhere.example
&{HELLO}                role=user    content=Hello
@{MESSAGES}             ${HELLO}
&{CHAT}                 messages=${MESSAGES}    max_tokens=${1}
# What llama-server answers on a route it does not serve: 403 (a tool route off), 404 (no such route),
# 405 (wrong method), 501 (a route a flag turns off).
@{CLOSED}               ${403}    ${404}    ${405}    ${501}


*** Test Cases ***
Health Checks Need No Key
    GET On Session    anonymous    /health    expected_status=200

The Routes I Expose Answer With My Key
    [Template]    Request With Key Should Be Accepted
    GET     /v1/models    session=suite
    POST    /v1/chat/completions    ${CHAT}    session=suite

The Routes I Expose Refuse Requests Without A Key
    [Template]    Request Should Be Refused
    anonymous    GET     /v1/models
    anonymous    POST    /v1/chat/completions    ${CHAT}

The Routes I Expose Refuse A Wrong Key
    [Template]    Request Should Be Refused
    wrong    GET     /v1/models
    wrong    POST    /v1/chat/completions    ${CHAT}

The Routes I Do Not Expose Stay Closed Even With My Key
    [Template]    Route Should Be Closed
    GET     /slots
    GET     /metrics
    POST    /props    ${CHAT}
    POST    /tools    ${CHAT}

My Web App May Call The API From A Browser
    ${resp} =    Preflight From    ${ALLOWED_ORIGIN}    path=/v1/chat/completions
    Allowed Origin Should Be    ${resp}    ${ALLOWED_ORIGIN}

Other Web Sites May Not Call The API From A Browser
    ${resp} =    Preflight From    ${FOREIGN_ORIGIN}    path=/v1/chat/completions
    Origin Should Not Be Allowed    ${resp}    ${FOREIGN_ORIGIN}


*** Keywords ***
Connect With And Without My Key
    [Documentation]    The session `suite` sends my key, `wrong` a wrong one and `anonymous` none.
    Use Running Server For Suite    ${BASE_URL}    ${API_KEY}
    Open Session With Key    wrong    ${WRONG_KEY}    server=${BASE_URL}
    Create Session    anonymous    ${BASE_URL}    max_retries=${0}

Route Should Be Closed
    [Documentation]    `method path` with my key is not served: one of the statuses in `${CLOSED}`.
    [Arguments]    ${method}    ${path}    ${body}=${NONE}
    ${resp} =    Run Keyword    ${method} On Session    suite    ${path}    json=${body}    expected_status=any
    Should Contain    ${CLOSED}    ${resp.status_code}    ${method} ${path} answered ${resp.status_code}

Origin Should Not Be Allowed
    [Documentation]    A browser at `origin` may not read the answer `resp`: its `Access-Control-Allow-Origin` is
    ...    neither `origin` nor `*`.
    [Arguments]    ${resp}    ${origin}
    ${allowed} =    Get From Dictionary    ${resp.headers}    Access-Control-Allow-Origin    default=${EMPTY}
    Should Not Be Equal    ${allowed}    ${origin}
    Should Not Be Equal    ${allowed}    *
