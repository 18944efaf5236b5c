*** Settings ***
Documentation       /infill on a model without FIM tokens: SmolLM2 has no prefix, suffix or middle token, so the
...                 route answers 501 `not_supported_error` naming each missing token.
Resource            ../../resources/infill.resource
Suite Setup         Start Server For Suite    smollm2
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           infill    errors    needs-smollm2    needs:smollm2


*** Variables ***
${NO_FIM}       Infill is not supported by this model: prefix token is missing. suffix token is missing.
...             middle token is missing.${SPACE}


*** Test Cases ***
Infill Needs Fim Tokens In The Model
    ${resp} =    Request Infill    def f():    \n    n_predict=${4}    expected_status=any
    Error Response Should Be    ${resp}    501    not_supported_error    message=${NO_FIM}
    Media Type Should Be    ${resp}    application/json

Fim Token Text Is Not A Special Token Of The Model
    [Documentation]    The FIM markers of `tiny` are plain text to SmolLM2: they split into several tokens.
    ${tokens} =    Tokenize    <|fim_prefix|>    parse_special=${True}
    Should Be True    len($tokens) > 1
