*** Settings ***
Documentation       Multi-turn conversations on SmolLM2: four users (one per slot) each hold ShareGPT conversations
...                 of four turns, every turn sending the whole history with the recorded answers, one second of
...                 think time between turns. Each later turn must reuse the conversation so far from the prompt
...                 cache (server README, `cache_prompt`); the log shows TTFT, prompt and cached tokens per turn
...                 (docs/load.md quotes them). One thread: on a shared two-core machine a
...                 two-thread pool crawls while other processes run (1.1 tokens/s against 21 with one thread,
...                 measured here); prompt-cache reuse, what this suite measures, does not depend on it.
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    smollm2-load    --threads    1
Suite Teardown      Stop Servers For Suite
Test Timeout        3 minutes
Test Tags           load    needs-smollm2


*** Test Cases ***
ShareGPT Conversations Reuse Their History Turn After Turn
    ${talks} =    Load Dataset    sharegpt-multiturn    count=${40}    turns=${4}    max_chars=${300}    seed=${1}
    ${run} =    Run Load Profile    ${talks}    concurrency    users=${4}    duration=${60}    think_time=${1}
    ...    max_tokens=${32}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    output_tokens=${32}
    Later Turns Should Reuse The Conversation So Far    ${run}
