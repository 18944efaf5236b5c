*** Settings ***
Documentation       Log-probabilities and greedy tokens of `tiny` with the LoRA adapter `tiny-lora`, against the
...                 numpy reference with the adapter merged at the same scale (ReferenceLibrary; docs/reference.md):
...                 the delta of a weight is `scale * alpha / rank * B A`. The server loads it with
...                 `--lora-scaled PATH:0.5`; a request's own `lora` list replaces that scale for the request
...                 (server README, "lora").
Resource            ../../resources/reference.resource
Suite Setup         Start Server With The Adapter At Half Scale
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    lora    needs:generated-model    needs:managed


*** Variables ***
${PROMPT}       hello world of llama tokens
${N}            ${16}


*** Test Cases ***
Logprobs With The Adapter At Its Start Scale Match The Reference
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${probs} =    Completion Logprobs    ${PROMPT}    ${5}    n_predict=${N}    cache_prompt=${False}
    Log Probabilities Should Match Reference    ${probs}    ${ids}

Logprobs With A Request's Own Scale Match The Reference
    VAR    @{lora}    ${{ {"id": 0, "scale": 1.5} }}
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${probs} =    Completion Logprobs    ${PROMPT}    ${5}    n_predict=${N}    lora=${lora}    cache_prompt=${False}
    Log Probabilities Should Match Reference    ${probs}    ${ids}    lora=${lora}

Greedy Continuation With The Adapter Is The Reference's Argmax Chain
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${tokens} =    Generated Tokens    ${PROMPT}    n_predict=${32}    cache_prompt=${False}
    Greedy Tokens Should Match Reference    ${tokens}    ${ids}


*** Keywords ***
Start Server With The Adapter At Half Scale
    [Documentation]    Starts `tiny` with `tiny-lora` at scale 0.5.
    ${adapter} =    Model Path    tiny-lora
    Start Server For Suite    tiny-1-slot    --lora-scaled    ${adapter}:0.5
