*** Settings ***
Documentation       `--lora-init-without-apply`: the adapter is loaded but starts at scale 0, so the server answers
...                 like the base model until a scale is set with POST /lora-adapters or a request's `lora` field.
...
...                 The suite's server loads `tiny-lora` once (`--lora PATH --lora-init-without-apply`); a request
...                 that sets the adapter's scale to 0 explicitly stands for the base model. Every test starts
...                 from the start scales. Answers are compared with `cache_prompt: false`.
Resource            ../../resources/adapters.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Server Without Applying The Adapter
Suite Teardown      Stop Servers For Suite
Test Setup          Restore Lora Scales    ${START}
Test Timeout        2 minutes
Test Tags           lora    needs:managed


*** Variables ***
${PROMPT}    hello world
${N}         ${16}


*** Test Cases ***
Adapter Is Listed With Its Path
    ${resp} =    Get Lora Adapters
    Json Field Should Be    ${resp}    0.id    ${0}
    Json Field Should Be    ${resp}    0.path    ${ADAPTER}

Posted Scale Applies The Adapter To Later Requests
    ${on} =    Lora Scales    0=1
    ${off} =    Lora Scales    0=0
    ${per_request} =    Completion Text    ${PROMPT}    ${N}    lora=${on}
    Set Lora Scales    0=1
    ${global} =    Completion Text    ${PROMPT}    ${N}
    Should Be Equal    ${global}    ${per_request}
    ${base} =    Completion Text    ${PROMPT}    ${N}    lora=${off}
    Should Not Be Equal    ${global}    ${base}

Adapter Starts At Scale Zero
    [Documentation]    Contract: `--help`, `--lora-init-without-apply`: "load LoRA adapters without applying them
    ...    (apply later via POST /lora-adapters)", and the server's README, `GET /lora-adapters`: "To
    ...    initialize all adapters scale to 0, add `--lora-init-without-apply`". This build ignores the flag:
    ...    the adapter is listed at scale 1 (common.cpp skips only the initial apply). Upstream: llama.cpp#28674.
    [Tags]    bug
    Lora Scales Should Be    0=0.0

Requests Without A Lora Field Answer Like The Base Model
    [Documentation]    Contract: as above, `--help`: "load LoRA adapters without applying them"; until a scale
    ...    is set, the adapter must not change any answer. This build applies it at scale 1: a request without
    ...    a `lora` field answers like one with `"lora": [{"id": 0, "scale": 1}]`. Upstream: llama.cpp#28674.
    [Tags]    bug
    ${off} =    Lora Scales    0=0
    ${text} =    Completion Text    ${PROMPT}    ${N}
    ${base} =    Completion Text    ${PROMPT}    ${N}    lora=${off}
    Should Be Equal    ${text}    ${base}


*** Keywords ***
Start Server Without Applying The Adapter
    [Documentation]    Starts the suite's server with `tiny-lora` loaded but not applied. Keeps the adapter path in
    ...    `${ADAPTER}` and the start list of /lora-adapters in `${START}`.
    ${adapter} =    Model Path    tiny-lora
    Start Server For Suite    tiny-1-slot    --lora    ${adapter}    --lora-init-without-apply
    ${adapters} =    Get Lora Adapters
    VAR    ${ADAPTER}    ${adapter}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${START}    ${adapters.json()}    scope=SUITE    # robocop: off=no-suite-variable
