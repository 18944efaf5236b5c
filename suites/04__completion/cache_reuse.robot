*** Settings ***
Documentation       `--cache-reuse N` (`--help`: "min chunk size to attempt reusing from the cache via KV shifting"):
...                 when a prompt drops a middle part of the prompt cached in its slot, the chunks after the
...                 gap of at least N tokens are shifted into place instead of evaluated again. They count as
...                 cached tokens (`timings.cache_n`), and the answer is the answer of a fresh evaluation.
...
...                 Prompts are token ids: `${A}`, `${MIDDLE}` and `${C}` are runs of 40, 30 and 60 distinct
...                 tokens. The servers keep no prompt cache in RAM (`--cache-ram 0`), so that nothing but the
...                 slot can serve a cached token; `plain` runs without `--cache-reuse`.
Resource            ../../resources/completion.resource
Suite Setup         Start Servers With And Without Cache Reuse
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           completion    needs:managed


*** Variables ***
${A}            ${{ list(range(100, 140)) }}
${MIDDLE}       ${{ list(range(200, 230)) }}
${C}            ${{ list(range(300, 360)) }}
@{A_MIDDLE_C}    @{A}    @{MIDDLE}    @{C}
@{A_C}          @{A}    @{C}
${N}            ${8}
${REUSE}        ${8}


*** Test Cases ***
Chunks After A Dropped Middle Count As Cached Tokens
    Complete    ${A_MIDDLE_C}    n_predict=${N}
    ${out} =    Complete    ${A_C}    n_predict=${N}
    Json Field Should Be    ${out}    timings.cache_n    ${{ len($A) + len($C) - 1 }}
    Json Field Should Be    ${out}    timings.prompt_n    ${1}

Without Cache Reuse Only The Common Prefix Is Cached
    Complete    ${A_MIDDLE_C}    server=plain    n_predict=${N}
    ${out} =    Complete    ${A_C}    server=plain    n_predict=${N}
    Json Field Should Be    ${out}    timings.cache_n    ${{ len($A) }}
    Json Field Should Be    ${out}    timings.prompt_n    ${{ len($C) }}

Reused Chunks Give The Answer Of A Fresh Evaluation
    Complete    ${A_MIDDLE_C}    n_predict=${N}
    ${reused} =    Complete    ${A_C}    n_predict=${N}
    ${fresh} =    Complete    ${A_C}    server=plain    n_predict=${N}    cache_prompt=${False}
    Should Be Equal    ${reused}[content]    ${fresh}[content]

A Request With N Cache Reuse Zero Reuses Nothing
    Complete    ${A_MIDDLE_C}    n_predict=${N}
    ${out} =    Complete    ${A_C}    n_predict=${N}    n_cache_reuse=${0}
    Json Field Should Be    ${out}    timings.cache_n    ${{ len($A) }}

Chunks Shorter Than The Minimum Are Evaluated Again
    [Documentation]    Only `${REUSE} - 1` tokens follow the gap, fewer than `--cache-reuse` asks for.
    VAR    @{tail}    @{C}[:${REUSE - 1}]
    VAR    @{cached}    @{A}    @{MIDDLE}    @{tail}
    VAR    @{dropped}    @{A}    @{tail}
    Complete    ${cached}    n_predict=${N}
    ${out} =    Complete    ${dropped}    n_predict=${N}
    Json Field Should Be    ${out}    timings.cache_n    ${{ len($A) }}


*** Keywords ***
Start Servers With And Without Cache Reuse
    [Documentation]    One slot each, no prompt cache in RAM; the suite's server reuses chunks of `${REUSE}` tokens.
    Start Server For Suite    tiny-1-slot    --cache-reuse    ${REUSE}    --cache-ram    0
    Start Preset Server    tiny-1-slot    --cache-ram    0    alias=plain
