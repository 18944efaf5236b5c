*** Settings ***
Documentation       llama.cpp's own load test, constant virtual users, run from Robot: four users (one per slot) send
...                 request after request for 60 s to SmolLM2, once with ShareGPT prompts (real, variable lengths)
...                 and once with prompts of exactly 500 tokens, each asking for 128 tokens. The numbers are
...                 compared with the previous run of the same configuration and with the baseline `release`
...                 when one was saved (see docs/load.md).
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    smollm2-load
Suite Teardown      Stop Servers For Suite
Test Timeout        5 minutes
Test Tags           load    needs-smollm2


*** Variables ***
${SAVE_BASELINE}      ${None}    # -v SAVE_BASELINE:release keeps this run as the baseline 'release'
${USERS}            ${4}
${DURATION}         ${60}
${MAX_TOKENS}       ${128}


*** Test Cases ***
Constant Users With ShareGPT Prompts
    ${prompts} =    ShareGPT Prompts    count=${400}    seed=${1}    max_chars=${1500}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${USERS}    duration=${DURATION}
    ...    warmup_requests=${USERS}    max_tokens=${MAX_TOKENS}    baseline=release
    ...    save_baseline=${SAVE_BASELINE}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    output_tokens=${MAX_TOKENS}
    Load Results Should Be Valid    ${run}

Constant Users With 500 Token Prompts
    ${prompts} =    Fixed Length Prompts    count=${400}    tokens=${500}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${USERS}    duration=${DURATION}
    ...    warmup_requests=${USERS}    max_tokens=${MAX_TOKENS}    baseline=release
    ...    save_baseline=${SAVE_BASELINE}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    prompt_tokens=${500}    output_tokens=${MAX_TOKENS}
    Load Results Should Be Valid    ${run}
