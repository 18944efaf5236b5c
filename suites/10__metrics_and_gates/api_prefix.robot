*** Settings ***
Documentation       `--api-prefix /x` moves every route under `/x`: the prefixed routes answer, the unprefixed ones
...                 are unknown paths (404), and nothing is served twice.
Resource            ../../resources/metrics.resource
Suite Setup         Start Server For Suite    tiny-metrics    --api-prefix    /x
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Route Should Move Under The Prefix
Test Tags           gates


*** Variables ***
&{TOKENIZE_BODY}    content=hello


*** Test Cases ***                          METHOD    PATH             BODY
Health Moves Under The Prefix               GET       /health          ${NONE}
V1 Health Moves Under The Prefix            GET       /v1/health       ${NONE}
Props Move Under The Prefix                 GET       /props           ${NONE}
Model List Moves Under The Prefix           GET       /v1/models       ${NONE}
Metrics Move Under The Prefix               GET       /metrics         ${NONE}
Slots Move Under The Prefix                 GET       /slots           ${NONE}
Tokenize Moves Under The Prefix             POST      /tokenize        ${TOKENIZE_BODY}


*** Keywords ***
Route Should Move Under The Prefix
    [Documentation]    `/x{path}` answers 200 and `{path}` answers the JSON 404 of an unknown path.
    [Arguments]    ${method}    ${path}    ${body}
    Run Keyword    ${method} On Session    suite    /x${path}    json=${body}    expected_status=200
    ${resp} =    Run Keyword    ${method} On Session    suite    ${path}    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    404    not_found_error    message=File Not Found
