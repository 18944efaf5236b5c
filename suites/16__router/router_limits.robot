*** Settings ***
Documentation       Router limits: with `--no-models-autoload` a request for a model that is not loaded is rejected
...                 unless it asks for `autoload=true`, and with `--models-max 1` loading a second model unloads
...                 the first.
Resource            ../../resources/router.resource
Suite Setup         Start Router For Suite    ${MODELS}    --no-models-autoload    --models-max    1
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           router    needs:managed


*** Variables ***
@{MODELS}       tiny    tiny-draft
${PROMPT}       hello world


*** Test Cases ***
Props Report The Limits
    ${props} =    GET On Session    suite    /props    expected_status=200
    Json Field Should Be    ${props}    role    router
    Json Field Should Be    ${props}    models_autoload    ${False}
    Json Field Should Be    ${props}    max_instances    ${1}

Request For A Model That Is Not Loaded Is Rejected
    Model Is Unloaded    tiny-draft
    VAR    &{body}    model=tiny-draft    prompt=${PROMPT}    n_predict=${1}
    ${resp} =    POST On Session    suite    /completion    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=model is not loaded
    Model Status Should Be    tiny-draft    unloaded

Autoload True In The Query Loads The Model Anyway
    Model Is Unloaded    tiny-draft
    VAR    &{body}    model=tiny-draft    prompt=${PROMPT}    n_predict=${1}
    ${resp} =    POST On Session    suite    /completion    json=${body}    params=autoload=true    expected_status=200
    Json Field Should Be    ${resp}    model    tiny-draft
    Model Status Should Be    tiny-draft    loaded

Loading A Model Beyond Models Max Unloads The Other One
    Model Is Loaded    tiny
    Load Model    tiny-draft
    Wait Until Model Status Is    tiny-draft    loaded
    Model Status Should Be    tiny    unloaded
