*** Settings ***
Documentation       Gate and naming flags that change what a server reports: `--props` turns on `POST /props`,
...                 `--no-slots` turns `/slots` off, `--no-ui` turns the UI off, and `--alias`/`--tags` name the
...                 model in `/v1/models`, `/props` and every answer.
Resource            ../../resources/metrics.resource
Resource            ../../resources/props.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Server For Suite    tiny-1-slot    --props    --no-slots    --no-ui
...                     --alias    tiny-a,tiny-b    --tags    t1,t2
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           gates    props


*** Variables ***
@{ALIASES}      tiny-a    tiny-b
@{TAGS}         t1    t2
&{NO_FIELDS}    &{EMPTY}


*** Test Cases ***
Post Props Answers Success With The Props Flag
    ${resp} =    POST On Session    suite    /props    json=${NO_FIELDS}    expected_status=200
    Media Type Should Be    ${resp}    application/json
    VAR    &{success}    success=${True}
    Json Field Should Be    ${resp}    ${EMPTY}    ${success}

Post Props Ignores Its Body
    [Documentation]    `POST /props` changes nothing in this build, so it does not even parse its body: a
    ...    malformed one gets the same success as a valid one, and `/props` is unchanged.
    [Tags]    build-specific    builds:9905-
    ${before} =    Get Props
    ${resp} =    POST On Session    suite    /props    data={"total_slots":    expected_status=200
    Json Field Should Be    ${resp}    success    ${True}
    ${after} =    Get Props
    Should Be Equal    ${after.json()}[total_slots]    ${before.json()}[total_slots]

Props Report The Gates The Flags Set
    ${props} =    Get Props
    Json Field Should Be    ${props}    endpoint_props    ${True}
    Json Field Should Be    ${props}    endpoint_slots    ${False}
    Json Field Should Be    ${props}    endpoint_metrics    ${False}
    Json Field Should Be    ${props}    ui    ${False}

No Slots Turns The Slots Endpoint Off
    Gate Should Be Off    GET    /slots    ${NONE}
    ...    This server does not support slots endpoint. Start it with `--slots`

No Ui Leaves The Root Path Not Found
    ${resp} =    GET On Session    suite    /    expected_status=any
    Error Response Should Be    ${resp}    404    not_found_error    message=File Not Found

First Alias Is The Model Id
    ${models} =    Get Models
    Json Field Should Be    ${models}    data.0.id    tiny-a
    Json Field Should Be    ${models}    data.0.aliases    ${ALIASES}
    Json Field Should Be    ${models}    data.0.tags    ${TAGS}

Model List Entry Of Ollama Style Is Named After The First Alias
    ${models} =    Get Models    /models
    Json Field Should Be    ${models}    models.0.name    tiny-a
    Json Field Should Be    ${models}    models.0.model    tiny-a

Props Report The First Alias
    ${props} =    Get Props
    Json Field Should Be    ${props}    model_alias    tiny-a

Completion Names The First Alias As Its Model
    ${out} =    Complete    which model    n_predict=${1}
    Json Field Should Be    ${out}    model    tiny-a
