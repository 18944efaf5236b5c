*** Settings ***
Documentation       Log-probabilities of answers whose prompt came partly from the slot's cache, against the numpy
...                 reference (ReferenceLibrary; docs/reference.md): the same prompt again, a prompt that extends the
...                 cached one, and `--cache-reuse` ("min chunk size to attempt reusing from the cache via KV
...                 shifting", `--help`), where the chunk after a dropped middle part keeps the cells computed after
...                 that part and only moves: the reference computes them that way too.
...
...                 The server keeps no prompt cache in RAM (`--cache-ram 0`): only the slot serves cached tokens.
...                 Prompts given as ids are read as they are (no BOS).
Resource            ../../resources/reference.resource
Suite Setup         Start Server For Suite    tiny-1-slot    --cache-reuse    8    --cache-ram    0
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    completion    needs:generated-model


*** Variables ***
${PROMPT}       the llama server is a test of the token world
${A}            ${{ list(range(300, 340)) }}
${MIDDLE}       ${{ list(range(340, 370)) }}
${C}            ${{ list(range(270, 300)) }}
@{A_MIDDLE_C}    @{A}    @{MIDDLE}    @{C}
@{A_C}          @{A}    @{C}
${N}            ${12}


*** Test Cases ***
A Prompt Served From The Cache Gives The Reference's Logprobs
    ${ids} =    Prompt Tokens    ${PROMPT}
    Complete    ${PROMPT}    n_predict=${4}
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    n_probs=${3}
    Prompt Should Have Come From The Cache    ${out}    ${{ len($ids) }}
    Log Probabilities Should Match Reference    ${out}[completion_probabilities]    ${ids}

A Prompt That Extends The Cached One Gives The Reference's Logprobs
    ${ids} =    Prompt Tokens    ${PROMPT}
    Complete    ${ids}    n_predict=${4}
    ${out} =    Complete    ${{ $ids + $C }}    n_predict=${N}    n_probs=${3}
    Prompt Should Have Come From The Cache    ${out}    ${{ len($ids) + 1 }}
    Log Probabilities Should Match Reference    ${out}[completion_probabilities]    ${{ $ids + $C }}

Chunks Shifted By Cache Reuse Give The Logprobs Of The Shifted Cache
    [Documentation]    The first request leaves `A MIDDLE C` in the slot; the second asks `A C`: C's cells come from
    ...    the cache, moved back by the length of MIDDLE (`timings.cache_n`), and the answer must be what a model
    ...    reading that cache gives.
    Complete    ${A_MIDDLE_C}    n_predict=${4}
    ${out} =    Complete    ${A_C}    n_predict=${N}    n_probs=${3}
    Json Field Should Be    ${out}    timings.cache_n    ${{ len($A) + len($C) - 1 }}
    Log Probabilities After Cache Reuse Should Match Reference    ${out}[completion_probabilities]    ${A_MIDDLE_C}
    ...    ${A_C}    ${{ len($A) }}
