*** Settings ***
Documentation       Router mode: a server started without a model serves the models of its `--models-dir`
...                 folder, loads each in a child server on demand or on POST /models/load, and routes every
...                 request by its `model`. Requests without a known model are rejected with 400.
...
...                 The folder holds `tiny` and `tiny-draft` (different weights, same vocabulary), so their
...                 answers differ. A second server, `alone`, runs `tiny` as a single model: a request routed to
...                 `tiny` must answer exactly like it.
Resource            ../../resources/router.resource
Resource            ../../resources/completion.resource
Library             MetricsLibrary
Suite Setup         Start Router Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           router    needs:managed


*** Variables ***
@{MODELS}       tiny    tiny-draft
${PROMPT}       hello world
${N}            ${16}
${MISSING}      model name is missing from the request
&{HELLO}        role=user    content=hello
@{SAY_HELLO}    ${HELLO}
&{COMPLETION}    prompt=hello    n_predict=${1}
&{CHAT}         messages=${SAY_HELLO}    max_tokens=${1}
&{TOKENIZE}     content=hello


*** Test Cases ***
Props Describe The Router
    ${props} =    GET On Session    suite    /props    expected_status=200
    Media Type Should Be    ${props}    application/json
    Json Field Should Be    ${props}    role    router
    Json Field Should Be    ${props}    model_path    none
    Json Field Should Be    ${props}    models_autoload    ${True}
    Json Field Should Be    ${props}    max_instances    ${4}

Models Lists Every Model Of The Folder With A Status
    ${ids} =    Router Model Ids    /models
    ${v1_ids} =    Router Model Ids    /v1/models
    Lists Should Be Equal    ${ids}    ${MODELS}    ignore_order=${True}
    Lists Should Be Equal    ${v1_ids}    ${ids}
    Every Listed Model Should Have A Status

Request Without A Model Is Rejected
    [Template]    Request Without A Model Should Be Rejected
    POST    /completion    ${COMPLETION}
    POST    /v1/chat/completions    ${CHAT}
    POST    /tokenize    ${TOKENIZE}
    GET    /slots    ${NONE}
    GET    /lora-adapters    ${NONE}
    GET    /metrics    ${NONE}

Request For An Unknown Model Is Rejected
    ${resp} =    Request Completion    ${PROMPT}    model=nope    n_predict=${1}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=model 'nope' not found
    ${props} =    GET On Session    suite    /props    params=model=nope    expected_status=any
    Error Response Should Be    ${props}    400    invalid_request_error    message=model 'nope' not found

A Request Loads Its Model On Demand
    Model Is Unloaded    tiny-draft
    Routed Completion Text    tiny-draft    ${PROMPT}    ${N}
    Model Status Should Be    tiny-draft    loaded

Requests Are Routed By Their Model
    ${tiny} =    Routed Completion Text    tiny    ${PROMPT}    ${N}
    ${draft} =    Routed Completion Text    tiny-draft    ${PROMPT}    ${N}
    ${again} =    Routed Completion Text    tiny    ${PROMPT}    ${N}
    Should Not Be Equal    ${tiny}    ${draft}
    Should Be Equal    ${again}    ${tiny}

A Routed Request Answers Like The Model Served Alone
    ${routed} =    Routed Completion Text    tiny    ${PROMPT}    ${N}
    ${alone} =    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}    server=alone
    Should Be Equal    ${routed}    ${alone}[content]

Props With A Model Describe That Model
    Model Is Loaded    tiny
    ${props} =    GET On Session    suite    /props    params=model=tiny    expected_status=200
    Json Field Should Be    ${props}    model_path    ${MODELS_DIR}${/}tiny.gguf
    Json Field Should Be    ${props}    total_slots    ${1}
    Json Field Should Be    ${props}    default_generation_settings.n_ctx    ${512}

Metrics Of A Model Count Its Requests
    Model Is Loaded    tiny
    ${before} =    Model Metrics    tiny
    Routed Completion Text    tiny    ${PROMPT}    ${N}
    ${after} =    Model Metrics    tiny
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:tokens_predicted_total    ${N}

Model Events Report A Load Until The Model Is Loaded
    [Documentation]    The router's event stream ends on the server's side only at an event or at its 1 s poll
    ...    (server-models.cpp, `http_polling_seconds`), and the router's exit waits for it: the loads and unloads
    ...    of the tests after this one end it once the teardown has closed the stream, so that the suite's
    ...    teardown does not wait for the poll.
    Model Is Unloaded    tiny-draft
    ${stream} =    Open Model Events
    Load Model    tiny-draft
    ${events} =    Model Events Until    ${stream}    tiny-draft    loaded
    Should Be Equal    ${events}[0][data][status]    loading
    Should Be Equal    ${events}[-1][data][status]    loaded
    [Teardown]    Close Model Events If Opened

Loading A Model Makes It Loaded
    Model Is Unloaded    tiny-draft
    ${resp} =    Load Model    tiny-draft
    Json Field Should Be    ${resp}    success    ${True}
    Wait Until Model Status Is    tiny-draft    loaded

Unloading A Model Makes It Unloaded
    Model Is Loaded    tiny-draft
    ${resp} =    Unload Model    tiny-draft
    Json Field Should Be    ${resp}    success    ${True}
    Wait Until Model Status Is    tiny-draft    unloaded

Loading A Running Model Is Rejected
    [Documentation]    This build says "model is already running"; older builds said "model is already loaded".
    [Tags]    build-specific    builds:9905-
    Model Is Loaded    tiny
    ${resp} =    Load Model    tiny    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=model is already running

Unloading A Model That Is Not Running Is Rejected
    Model Is Unloaded    tiny-draft
    ${resp} =    Unload Model    tiny-draft    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=model is not running

Unloading An Unknown Model Is Rejected
    ${resp} =    Unload Model    nope    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=model is not found

Autoload False Does Not Load An Unloaded Model
    Model Is Unloaded    tiny-draft
    VAR    &{body}    model=tiny-draft    prompt=${PROMPT}    n_predict=${1}
    ${resp} =    POST On Session    suite    /completion    json=${body}    params=autoload=false    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=model is not loaded
    Model Status Should Be    tiny-draft    unloaded

Loading An Unknown Model Is Rejected
    [Documentation]    Contract: RFC 9110 §15.5: with a 4xx "the server SHOULD send a representation containing
    ...    an explanation of the error situation". The load route (server-models.cpp) answers 404
    ...    `not_found_error` "model is not found" for a name the router does not know. This build replaces the
    ...    message with the generic "File Not Found" of an unknown route (`set_error_handler` in server-http.cpp
    ...    rewrites every 404 body), so a client cannot tell a wrong model name from a wrong path.
    [Tags]    bug
    ${resp} =    Load Model    nope    expected_status=any
    Error Response Should Be    ${resp}    404    not_found_error    message=model is not found


*** Keywords ***
Start Router Servers
    [Documentation]    Starts the router on a folder of `@{MODELS}` with `/metrics` on (the children inherit the
    ...    flag), and `alone`, a single-model server on `tiny`.
    Start Router For Suite    ${MODELS}    --metrics
    Start Preset Server    tiny-1-slot    alias=alone

Every Listed Model Should Have A Status
    [Documentation]    Every entry of /models has a `status.value` among `unloaded`, `loading` and `loaded`.
    ${resp} =    Get Router Models
    ${statuses} =    Values Of Each    ${resp.json()}[data]    status.value
    VAR    @{known}    unloaded    loading    loaded
    FOR    ${status}    IN    @{statuses}
        Should Contain    ${known}    ${status}    unknown model status '${status}'
    END

Request Without A Model Should Be Rejected
    [Documentation]    `method path` (with the JSON `body`, `${NONE}` for none) and no model answers 400
    ...    "model name is missing from the request".
    [Arguments]    ${method}    ${path}    ${body}
    ${resp} =    Run Keyword    ${method} On Session    suite    ${path}    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${MISSING}

Model Metrics
    [Documentation]    GETs /metrics?model=`name`, checks 200 and the Prometheus media type, and returns the
    ...    parsed scrape.
    [Arguments]    ${name}
    ${resp} =    GET On Session    suite    /metrics    params=model=${name}    expected_status=200
    Media Type Should Be    ${resp}    text/plain
    ${metrics} =    Parse Metrics    ${resp}
    RETURN    ${metrics}
