*** Settings ***
Documentation       LoRA adapters: the `/lora-adapters` list and its global scales, the per-request `lora` field,
...                 and what a scale does to the output.
...
...                 The suite's server loads the adapter `tiny-lora` twice: id 0 with `--lora` (scale 1) and id 1
...                 with `--lora-scaled PATH:0.5`. Both entries are the same file, so either one alone at scale 1
...                 gives the same output. A second server, `base`, runs `tiny` without adapters: scale 0 must
...                 answer exactly like it. Every test starts from the start scales. Answers are compared with
...                 `cache_prompt: false` unless a test is about the prompt cache.
Resource            ../../resources/adapters.resource
Resource            ../../resources/completion.resource
Resource            ../../resources/chat.resource
Suite Setup         Start Lora Servers
Suite Teardown      Stop Servers For Suite
Test Setup          Restore Lora Scales    ${START}
Test Timeout        2 minutes
Test Tags           lora    needs:managed


*** Variables ***
${PROMPT}               hello world
${N}                    ${16}
${NOT_AN_ARRAY}         Request body must be an array
${LORA_NOT_AN_ARRAY}    Field 'lora': Error: 'lora' must be an array of objects with 'id' and 'scale' fields
# One adapter object where the routes want an array of them.
&{ONE_ADAPTER}          id=${0}    scale=${0.5}


*** Test Cases ***
Adapter List Shows Each Loaded File With Its Start Scale
    ${resp} =    Get Lora Adapters
    Json Field Should Be    ${resp}    0.id    ${0}
    Json Field Should Be    ${resp}    0.path    ${ADAPTER}
    Json Field Should Be    ${resp}    1.id    ${1}
    Json Field Should Be    ${resp}    1.path    ${ADAPTER}
    Lora Scales Should Be    0=1.0    1=0.5

Adapter Without Metadata Has Empty Task Name And Prompt Prefix
    ${resp} =    Get Lora Adapters
    Json Fields Should Exist    ${resp}    0    id    path    scale    task_name    prompt_prefix
    Json Field Should Be    ${resp}    0.task_name    ${EMPTY}
    Json Field Should Be    ${resp}    0.prompt_prefix    ${EMPTY}

Posted Scales Are Reported Back
    Set Lora Scales    0=0.25    1=0.75
    Lora Scales Should Be    0=0.25    1=0.75

Adapters Left Out Of The Posted List Are Disabled
    Set Lora Scales    1=0.75
    Lora Scales Should Be    0=0.0    1=0.75

An Empty Posted List Disables Every Adapter
    ${resp} =    Post Lora Adapters    body=@{EMPTY}
    Json Field Should Be    ${resp}    success    ${True}
    Lora Scales Should Be    0=0.0    1=0.0

Posted Body That Is Not An Array Is Rejected And Changes Nothing
    [Template]    Posted Body Should Be Rejected
    ${ONE_ADAPTER}
    adapters
    ${5}

Unknown Adapter Id In The Posted List Is Ignored
    [Documentation]    An id that names no loaded adapter is accepted and ignored; as with any list, the
    ...    adapters it does not name are disabled. (Older builds rejected the list: "invalid adapter id".)
    [Tags]    build-specific    builds:9905-
    ${unknown} =    Lora Scales    7=0.5
    ${resp} =    Post Lora Adapters    ${unknown}
    Json Field Should Be    ${resp}    success    ${True}
    Lora Scales Should Be    0=0.0    1=0.0

Start Scales Change The Output Deterministically
    ${adapted} =    Completion Text    ${PROMPT}    ${N}
    ${again} =    Completion Text    ${PROMPT}    ${N}
    ${base} =    Completion Text    ${PROMPT}    ${N}    server=base
    Should Not Be Equal    ${adapted}    ${base}
    Should Be Equal    ${again}    ${adapted}

Request Scale Zero Reproduces The Base Model
    ${off} =    Lora Scales    0=0    1=0
    ${text} =    Completion Text    ${PROMPT}    ${N}    lora=${off}
    ${base} =    Completion Text    ${PROMPT}    ${N}    server=base
    Should Be Equal    ${text}    ${base}

Global Scale Zero Reproduces The Base Model
    Set Lora Scales    0=0    1=0
    ${text} =    Completion Text    ${PROMPT}    ${N}
    ${base} =    Completion Text    ${PROMPT}    ${N}    server=base
    Should Be Equal    ${text}    ${base}

Request Scale One Answers Like The Same Global Scale
    ${one} =    Lora Scales    0=1
    ${per_request} =    Completion Text    ${PROMPT}    ${N}    lora=${one}
    Set Lora Scales    0=1
    ${global} =    Completion Text    ${PROMPT}    ${N}
    Should Be Equal    ${per_request}    ${global}

Adapters Not Listed In A Request Run At Scale Zero
    [Documentation]    Both ids are the same file: alone at scale 1, either gives the same text, and that text is
    ...    not the one of the start scales (1 and 0.5), which the request would get if it kept the unlisted one.
    ${first} =    Lora Scales    0=1
    ${second} =    Lora Scales    1=1
    ${first_only} =    Completion Text    ${PROMPT}    ${N}    lora=${first}
    ${second_only} =    Completion Text    ${PROMPT}    ${N}    lora=${second}
    ${start_scales} =    Completion Text    ${PROMPT}    ${N}
    Should Be Equal    ${first_only}    ${second_only}
    Should Not Be Equal    ${first_only}    ${start_scales}

A Request Scale Leaves The Global Scales Unchanged
    ${off} =    Lora Scales    0=0    1=0
    Completion Text    ${PROMPT}    ${N}    lora=${off}
    Lora Scales Should Be    0=1.0    1=0.5

Request Adapters Are Echoed In Generation Settings And Slot Params
    ${lora} =    Lora Scales    0=0.25
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    lora=${lora}    cache_prompt=${False}
    Json Field Should Be    ${out}    generation_settings.lora    ${lora}
    ${slots} =    GET On Session    suite    /slots    expected_status=200
    Json Field Should Be    ${slots}    0.params.lora    ${lora}

Chat Honours The Request Lora Field
    ${off} =    Lora Scales    0=0    1=0
    ${answer} =    Chat Answer    hello    max_tokens=${N}    lora=${off}    cache_prompt=${False}
    ${adapted} =    Chat Answer    hello    max_tokens=${N}    cache_prompt=${False}
    ${base} =    Chat Answer    hello    max_tokens=${N}    cache_prompt=${False}    server=base
    Should Be Equal    ${answer}    ${base}
    Should Not Be Equal    ${adapted}    ${base}

Streamed Text Follows The Request Lora Field
    ${off} =    Lora Scales    0=0    1=0
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}    lora=${off}    cache_prompt=${False}
    ${base} =    Completion Text    ${PROMPT}    ${N}    server=base
    Stream Should Have No Error    ${result}
    Streamed Text Should Be    ${result}    ${base}

Lora Field That Is Not An Array Is Rejected
    VAR    &{one_adapter}    id=${0}    scale=${0}
    ${resp} =    Request Completion    ${PROMPT}    lora=${one_adapter}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${LORA_NOT_AN_ARRAY}

Explicit Request Scales Never Reuse A Prompt Cached Under Others
    ${fresh} =    Completion Text    ${PROMPT}    ${N}
    ${off} =    Lora Scales    0=0    1=0
    Complete    ${PROMPT}    n_predict=${N}    lora=${off}
    ${start} =    Lora Scales    0=1    1=0.5
    ${cached} =    Complete    ${PROMPT}    n_predict=${N}    lora=${start}
    Json Field Should Be    ${cached}    content    ${fresh}
    Json Field Should Be    ${cached}    timings.cache_n    ${0}

Empty Lora List In A Request Disables Every Adapter
    [Documentation]    Contract: the server's README, `/completion` option `lora`: "If a LoRA adapter is not
    ...    specified in the list, its scale will default to `0.0`", so `"lora": []` runs none. This build
    ...    treats an empty list like an absent field (server-context.cpp tests `lora.empty()`) and applies the
    ...    global scales. Upstream: llama.cpp#28674, PR llama.cpp#28707.
    [Tags]    bug
    ${text} =    Completion Text    ${PROMPT}    ${N}    lora=@{EMPTY}
    ${base} =    Completion Text    ${PROMPT}    ${N}    server=base
    Should Be Equal    ${text}    ${base}

Request On The Global Scales Does Not Reuse A Prompt Cached Under Others
    [Documentation]    Contract: the server's README, `/lora-adapters`: the global scales apply to a request
    ...    unless "overwritten by the `lora` field for each request", and `lora` is "A list of LoRA adapters to
    ...    be applied to this specific request"; so a request without `lora` must be computed on the global
    ...    scales, and a prompt cached under other scales must be computed again. This build reuses it: after a
    ...    request with every adapter off, a request on the global scales reports `timings.cache_n` 2 and
    ...    answers a text that neither the adapters nor the base model give (`launch_slot_with_task` sets the
    ...    scales without clearing the cache). Related: llama.cpp#26207 (the same with two per-request lists).
    [Tags]    bug
    ${fresh} =    Completion Text    ${PROMPT}    ${N}
    ${off} =    Lora Scales    0=0    1=0
    Complete    ${PROMPT}    n_predict=${N}    lora=${off}
    ${cached} =    Complete    ${PROMPT}    n_predict=${N}
    Json Field Should Be    ${cached}    content    ${fresh}

New Global Scales Do Not Reuse A Prompt Cached Under The Old Ones
    [Documentation]    Contract: the server's README, `POST /lora-adapters`: "This sets the global scale for LoRA
    ...    adapters" and "To disable an adapter, either remove it from the list below, or set scale to 0"; so
    ...    with every adapter at 0 a request answers like the base model, and a prompt cached under the old
    ...    scales must be computed again. This build reuses it: with every adapter set to 0 after a request on
    ...    the start scales (which leaves its prompt in the slot, even with `cache_prompt: false`), the next
    ...    request reports `timings.cache_n` 2 and answers neither like the base model nor like the adapters
    ...    (`SET_LORA` never invalidates a cache). Related: llama.cpp#26207.
    [Tags]    bug
    Completion Text    ${PROMPT}    ${N}
    Set Lora Scales    0=0    1=0
    ${cached} =    Complete    ${PROMPT}    n_predict=${N}
    ${base} =    Completion Text    ${PROMPT}    ${N}    server=base
    Json Field Should Be    ${cached}    content    ${base}


*** Keywords ***
Start Lora Servers
    [Documentation]    Starts the suite's server with `tiny-lora` as adapter 0 (`--lora`, scale 1) and adapter 1
    ...    (`--lora-scaled PATH:0.5`), and `base` without adapters. Keeps the adapter path in `${ADAPTER}`
    ...    and the start list of /lora-adapters in `${START}`.
    ${adapter} =    Model Path    tiny-lora
    Start Server For Suite    tiny-1-slot    --lora    ${adapter}    --lora-scaled    ${adapter}:0.5
    Start Preset Server    tiny-1-slot    alias=base
    ${adapters} =    Get Lora Adapters
    VAR    ${ADAPTER}    ${adapter}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${START}    ${adapters.json()}    scope=SUITE    # robocop: off=no-suite-variable

Posted Body Should Be Rejected
    [Documentation]    POST /lora-adapters with `body` answers 400 "Request body must be an array", and the
    ...    scales stay as they were.
    [Arguments]    ${body}
    ${resp} =    Post Lora Adapters    ${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${NOT_AN_ARRAY}
    Lora Scales Should Be    0=1.0    1=0.5
