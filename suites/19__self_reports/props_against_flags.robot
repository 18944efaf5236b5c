*** Settings ***
Documentation       What the server says about its own configuration (`/props`, `/slots`, the model lists, the
...                 settings a request runs with) against the command line it was started with, as `Server
...                 Settings` reads it. The server gets a slot count no default gives, a context that does not
...                 split evenly (1000 tokens over 3 slots: llama-server pads each share up to 512), an alias,
...                 and sampling flags whose values no default has.
Resource            ../../resources/self_reports.resource
Suite Setup         Start Flagged Server
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           self-report    needs:managed


*** Variables ***
@{FLAGS}        --alias    self-report    --seed    4242    --temp    0.25    --top-k    13    --top-p    0.5
...             --min-p    0.1    --repeat-last-n    17    --props
${PROMPT}       hello world


*** Test Cases ***
Props Report The Started Slots Context Model And Gates
    ${props} =    Get Props
    Props Should Match The Started Server    ${props}    ${SETTINGS}

Props Defaults Echo The Sampling Flags
    ${props} =    Get Props
    Props Defaults Should Echo The Server Flags    ${props}    ${SETTINGS}    sampling_only=${True}

Slots List Every Started Slot With Its Context
    ${slots} =    Get Slots
    Slots Should Match The Started Server    ${slots}    ${SETTINGS}

Model Lists Name The Alias And The Slot Context
    ${v1} =    Get Models    /v1/models
    ${plain} =    Get Models    /models
    Model List Should Match The Started Server    ${v1}    ${SETTINGS}
    Model List Should Match The Started Server    ${plain}    ${SETTINGS}

Request Without Settings Runs With The Server Flags
    ${out} =    Complete Without Settings    ${PROMPT}    n_predict=${4}
    Generation Settings Should Echo The Server Flags    ${out}    ${SETTINGS}

Answers Name The Model By Its Alias
    [Documentation]    The server's README: `model` of a native answer is "The model alias"; the OpenAI routes
    ...    answer a request that names no model with the same name.
    ${name} =    Model Name Of    ${SETTINGS}
    ${native} =    Complete    ${PROMPT}    n_predict=${2}
    ${v1} =    Complete V1    ${PROMPT}    max_tokens=${2}
    ${chat} =    Chat    ${PROMPT}    max_tokens=${2}
    Json Field Should Be    ${native}    model    ${name}
    Json Field Should Be    ${v1}    model    ${name}
    Json Field Should Be    ${chat}    model    ${name}

Unified Kv Cache Gives Every Slot The Whole Context
    [Documentation]    With `--kv-unified` the slots share one cache: each may use all of it.
    [Setup]    Start Preset Server    tiny-2-slots    --kv-unified    alias=unified
    ${settings} =    Server Settings    unified
    ${props} =    Get Props    unified
    ${slots} =    Get Slots    unified
    Props Should Match The Started Server    ${props}    ${settings}
    Slots Should Match The Started Server    ${slots}    ${settings}
    [Teardown]    Stop Llama Server    unified

Props Defaults Are The Settings Of A Request That Sets None
    [Documentation]    Contract: the server's README, GET /props: "`default_generation_settings` - the default
    ...    generation settings for the `/completion` endpoint, which has the same fields as the
    ...    `generation_settings` response object from the `/completion` endpoint." This build reports
    ...    `reasoning_format` `none` there, while a request that sets nothing runs with `deepseek`, the
    ...    server's default: `get_res_props` fills a fresh `task_params` with the sampling settings alone,
    ...    whereas `eval_llama_cmpl_schema` (server-schema.cpp) also copies `n_keep`, `n_predict`,
    ...    `speculative` and `reasoning_format` from the server's parameters into every request.
    [Tags]    bug
    ${props} =    Get Props
    ${out} =    Complete Without Settings    ${PROMPT}
    Props Defaults Should Be The Settings Of    ${props}    ${out}

Props Defaults Echo The Keep Flag
    [Documentation]    Contract: the server README, `/props`: `default_generation_settings` are "the default
    ...    generation settings for the `/completion` endpoint". For `--keep 5`: a request that sets no `n_keep`
    ...    runs with 5 (see `Request Without Settings Runs With The Server Flags`), but `/props` reports `n_keep`
    ...    0, the built-in default. Same cause as above.
    [Tags]    bug
    [Setup]    Start Preset Server    tiny-1-slot    --keep    5    alias=keep
    ${settings} =    Server Settings    keep
    ${props} =    Get Props    keep
    Props Defaults Should Echo The Server Flags    ${props}    ${settings}
    [Teardown]    Stop Llama Server    keep


*** Keywords ***
Start Flagged Server
    [Documentation]    Starts `tiny` on 3 slots sharing 1000 tokens with `@{FLAGS}`, and keeps what it was started
    ...    with in `${SETTINGS}` (see `Server Settings`).
    Start Server For Suite    tiny-3-slots    @{FLAGS}    n_ctx=${1000}
    ${settings} =    Server Settings
    VAR    ${SETTINGS}    ${settings}    scope=SUITE    # robocop: off=no-suite-variable
