*** Settings ***
Documentation       Four users whose prompts share a system prompt of exactly 200 tokens, on the tiny model with 1, 2
...                 and 4 slots: at most the first request on each slot may miss the shared prefix in the prompt
...                 cache (server README, `cache_prompt`: "Re-use KV cache from a previous request if possible"),
...                 and the log gives the cache-hit ratio each slot count reaches.
Resource            ../../resources/load.resource
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           load    needs:tiny    needs:managed


*** Variables ***
${PREFIX_TOKENS}    ${200}
${USERS}            ${4}


*** Test Cases ***
One Slot Reuses The Shared System Prompt
    Start Preset Server    tiny-1-slot    alias=prefix
    ${prompts} =    Load Dataset    shared-prefix    server=prefix    prefix_tokens=${PREFIX_TOKENS}
    ${run} =    Run Shared Prefix Load    ${prompts}
    Shared Prefix Should Be Reused    ${run}    slots=${1}
    [Teardown]    Stop Llama Server    prefix

Two Slots Reuse The Shared System Prompt
    Start Preset Server    tiny-2-slots    alias=prefix
    ${prompts} =    Load Dataset    shared-prefix    server=prefix    prefix_tokens=${PREFIX_TOKENS}
    ${run} =    Run Shared Prefix Load    ${prompts}
    Shared Prefix Should Be Reused    ${run}    slots=${2}
    [Teardown]    Stop Llama Server    prefix

Four Slots Reuse The Shared System Prompt
    Start Preset Server    tiny-4-slots    alias=prefix
    ${prompts} =    Load Dataset    shared-prefix    server=prefix    prefix_tokens=${PREFIX_TOKENS}
    ${run} =    Run Shared Prefix Load    ${prompts}
    Shared Prefix Should Be Reused    ${run}    slots=${4}
    [Teardown]    Stop Llama Server    prefix


*** Keywords ***
Run Shared Prefix Load
    [Documentation]    `USERS` users for 8 s, 8 output tokens each; every request must succeed.
    [Arguments]    ${prompts}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${USERS}    duration=${8}    max_tokens=${8}
    ...    server=prefix
    Every Load Request Should Succeed    ${run}
    RETURN    ${run}
