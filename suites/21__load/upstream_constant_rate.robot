*** Settings ***
Documentation       llama.cpp's other load test, a constant arrival rate, run from Robot: for 60 s requests arrive at
...                 fixed times (open loop, whatever the server's pace) at SmolLM2, with ShareGPT prompts and with
...                 500-token prompts. The rate is below what four slots serve on two cores, so every request must
...                 be sent on time (none dropped, no client queueing) and answered.
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    smollm2-load
Suite Teardown      Stop Servers For Suite
Test Timeout        5 minutes
Test Tags           load    needs-smollm2


*** Variables ***
${SAVE_BASELINE}      ${None}    # -v SAVE_BASELINE:release keeps this run as the baseline 'release'
${RATE}             ${0.25}
${DURATION}         ${60}
${MAX_TOKENS}       ${64}


*** Test Cases ***
Constant Rate With ShareGPT Prompts
    ${prompts} =    ShareGPT Prompts    count=${400}    seed=${2}    max_chars=${1500}
    ${run} =    Run Load Profile    ${prompts}    rate    rate=${RATE}    duration=${DURATION}    warmup_requests=${4}
    ...    max_tokens=${MAX_TOKENS}    max_in_flight=${32}    baseline=release
    ...    save_baseline=${SAVE_BASELINE}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    output_tokens=${MAX_TOKENS}
    Load Results Should Be Valid    ${run}

Constant Rate With 500 Token Prompts
    ${prompts} =    Fixed Length Prompts    count=${400}    tokens=${500}
    ${run} =    Run Load Profile    ${prompts}    rate    rate=${RATE}    duration=${DURATION}    warmup_requests=${4}
    ...    max_tokens=${MAX_TOKENS}    max_in_flight=${32}    baseline=release
    ...    save_baseline=${SAVE_BASELINE}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    prompt_tokens=${500}    output_tokens=${MAX_TOKENS}
    Load Results Should Be Valid    ${run}
