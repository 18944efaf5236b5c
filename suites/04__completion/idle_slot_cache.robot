*** Settings ***
Documentation       `--cache-idle-slots` (on by default; `--help`: "save idle slots to the prompt cache on new task,
...                 and clear them when using unified KV", needs `--cache-ram`), the successor of
...                 `--kv-keep-only-active`: when a task starts, every idle slot is copied to the prompt cache in
...                 RAM and, with a unified KV cache, emptied; a later request with the same prompt takes it back
...                 from RAM. `kept` runs with `--no-cache-idle-slots`: its idle slots keep their tokens.
Resource            ../../resources/completion.resource
Suite Setup         Start Servers With And Without Idle Slot Caching
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           completion    needs:managed


*** Variables ***
${STORY}        ${{ "Once upon a time in a land far away there lived a brave knight who crossed the mountains " * 2 }}
${OTHER}        The quick brown fox
${N}            ${4}
@{FLAGS}        --kv-unified    --cache-ram    100


*** Test Cases ***
A New Task Empties The Idle Slot
    Complete    ${STORY}    n_predict=${N}    id_slot=${0}
    Complete    ${OTHER}    n_predict=${N}    id_slot=${1}
    Slot Should Hold Tokens    0    ${0}

A Slot Emptied For Another Task Gets Its Prompt Back From The Prompt Cache
    ${first} =    Complete    ${STORY}    n_predict=${N}    id_slot=${0}
    Complete    ${OTHER}    n_predict=${N}    id_slot=${1}
    ${again} =    Complete    ${STORY}    n_predict=${N}
    Json Field Should Be    ${again}    timings.cache_n    ${{ $first["timings"]["prompt_n"] - 1 }}
    Json Field Should Be    ${again}    timings.prompt_n    ${1}
    Should Be Equal    ${again}[content]    ${first}[content]

Without Idle Slot Caching The Idle Slot Keeps Its Tokens
    ${first} =    Complete    ${STORY}    server=kept    n_predict=${N}    id_slot=${0}
    Complete    ${OTHER}    server=kept    n_predict=${N}    id_slot=${1}
    Slot Should Hold Tokens    0    ${{ $first["timings"]["prompt_n"] + $N - 1 }}    server=kept


*** Keywords ***
Start Servers With And Without Idle Slot Caching
    [Documentation]    Two slots on a unified KV cache with 100 MiB of prompt cache, with the default
    ...    `--cache-idle-slots` (`suite`) and without (`kept`).
    Start Server For Suite    tiny-2-slots    @{FLAGS}
    Start Preset Server    tiny-2-slots    @{FLAGS}    --no-cache-idle-slots    alias=kept

Slot Should Hold Tokens
    [Documentation]    `GET /slots` reports `expected` (a number) as the `n_prompt_tokens`
    ...    of slot `id`: the tokens its KV cache holds, the prompt and all but the last generated token.
    [Arguments]    ${id}    ${expected: int}    ${server}=suite
    ${slots} =    GET On Session    ${server}    /slots    expected_status=200
    Json Field Should Be    ${slots}    ${id}.n_prompt_tokens    ${expected}
