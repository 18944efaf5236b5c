*** Settings ***
Documentation       Speculative decoding with a draft model at its limits: a prompt that nearly fills the slot
...                 context (a draft must not write past it), several users at once on two slots, and the
...                 synthetic acceptance of `--spec-synth-rates` ("benchmarking only": each drafted position is
...                 accepted with the given probability, whatever the target model says).
...
...                 The suite's server drafts with `tiny-draft`; `plain` runs `tiny` alone; `synth` drafts with
...                 every position accepted; `shift` drafts under `--context-shift`. Answers are compared with
...                 `cache_prompt: false`.
Resource            ../../resources/adapters.resource
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Resource            ../../resources/slots.resource
Suite Setup         Start Draft Plain And Synthetic Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           speculative    needs:managed    build-specific    builds:10825-


*** Variables ***
${PROMPT}       hello world
${N}            ${32}
${N_MAX}        ${4}
${ROOM}         ${6}


*** Test Cases ***
A Prompt Nearly Filling The Slot Context Is Answered Within It
    [Documentation]    The prompt leaves `${ROOM}` tokens of the slot context: the answer stops inside it, whatever
    ...    the draft proposed beyond it (upstream's test_slot_ctx_not_exceeded: a draft past the end crashed).
    ${n_ctx} =    Slot Context Size
    VAR    @{prompt}    ${{ [42] * ($n_ctx - ${ROOM}) }}
    ${out} =    Complete    ${prompt}    n_predict=${N}    cache_prompt=${False}
    Should Be True    1 <= ${out}[tokens_predicted] <= ${ROOM}
    ...    ${out}[tokens_predicted] tokens predicted with ${ROOM} tokens of room
    Json Field Should Be    ${out}    truncated    ${True}

Generation With A Draft Runs Past The Slot Context Under Context Shift
    [Documentation]    `shift` has `--context-shift`: the answer goes on past the slot context, drafts included.
    ${n_ctx} =    Slot Context Size    shift
    ${out} =    Complete    ${PROMPT}    server=shift    n_predict=${n_ctx + 64}    cache_prompt=${False}
    Json Field Should Be    ${out}    tokens_predicted    ${n_ctx + 64}
    Json Field Should Be    ${out}    stop_type    limit
    Draft Counts Should Be Consistent    ${out}

Users On Two Slots At Once Get The Answer Without A Draft
    ${alone} =    Completion Text    ${PROMPT}    ${N}    server=plain
    ${batch} =    Send Concurrent Completions    ${PROMPT}    times=${4}    n_predict=${N}    cache_prompt=${False}
    Every Request Should Succeed    ${batch}
    Every Request Should Give The Text    ${batch}    ${alone}

Synthetic Acceptance Of One Accepts Every Drafted Token
    ${out} =    Complete    ${PROMPT}    server=synth    n_predict=${N}    cache_prompt=${False}
    Json Field Should Be    ${out}    tokens_predicted    ${N}
    Draft Counts Should Be Consistent    ${out}
    Json Field Should Be    ${out}    timings.draft_n_accepted    ${out}[timings][draft_n]

Synthetic Acceptance Keeps Ignore Eos And The Token Limit
    ${forced} =    Logit Bias Pairs    ${2}    ${1000}
    ${out} =    Complete    ${PROMPT}    server=synth    n_predict=${N}    ignore_eos=${True}
    ...    logit_bias=${forced}    cache_prompt=${False}
    Json Field Should Be    ${out}    tokens_predicted    ${N}
    Json Field Should Be    ${out}    stop_type    limit

Synthetic Acceptance Counts The Same Drafts Twice
    ${first} =    Complete    ${PROMPT}    server=synth    n_predict=${N}    cache_prompt=${False}
    ${second} =    Complete    ${PROMPT}    server=synth    n_predict=${N}    cache_prompt=${False}
    Json Field Should Be    ${second}    timings.draft_n    ${first}[timings][draft_n]
    Json Field Should Be    ${second}    timings.draft_n_accepted    ${first}[timings][draft_n_accepted]


*** Keywords ***
Start Draft Plain And Synthetic Servers
    [Documentation]    The suite's server: `tiny` on two slots with `tiny-draft`; `plain`: the same without a
    ...    draft; `synth`: one slot whose drafts are all accepted; `shift`: one slot with a draft and
    ...    `--context-shift`.
    Start Server With Draft Model    tiny-2-slots    tiny-draft    --spec-type    draft-simple
    Start Preset Server    tiny-2-slots    alias=plain
    ${draft} =    Model Path    tiny-draft
    Start Preset Server    tiny-1-slot    --model-draft    ${draft}    --spec-type    draft-simple
    ...    --spec-draft-n-max    ${N_MAX}    --spec-synth-rates    1,1,1,1    alias=synth
    Start Preset Server    tiny-1-slot    --model-draft    ${draft}    --spec-type    draft-simple    --context-shift
    ...    alias=shift
