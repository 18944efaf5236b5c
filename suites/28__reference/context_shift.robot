*** Settings ***
Documentation       Log-probabilities of a generation that runs past its slot's context with `--context-shift`,
...                 against the numpy reference fed what the server kept (ReferenceLibrary; docs/reference.md): before
...                 a token would fill the slot, the server keeps the first `n_keep` tokens (plus BOS), drops
...                 `n_discard` (by default half of the rest) and moves the others back, keeping their cells as they
...                 were computed. The reference shifts its own cache the same way.
Resource            ../../resources/reference.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-1-slot    --context-shift    n_ctx=${128}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    completion    needs:generated-model


*** Variables ***
${PROMPT}       the llama server the llama server the llama server the llama server the llama server


*** Test Cases ***
Logprobs After A Context Shift Match What The Server Kept
    ${n_ctx} =    Slot Context Size
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${out} =    Complete    ${PROMPT}    n_predict=${{ $n_ctx + 40 }}    n_probs=${3}
    Json Field Should Be    ${out}    truncated    ${True}
    Log Probabilities After Context Shift Should Match Reference    ${out}[completion_probabilities]    ${ids}
    ...    ${n_ctx}

Logprobs After A Shift That Keeps Part Of The Prompt Match What The Server Kept
    ${n_ctx} =    Slot Context Size
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${out} =    Complete    ${PROMPT}    n_predict=${{ $n_ctx + 40 }}    n_probs=${3}    n_keep=${6}
    Json Field Should Be    ${out}    truncated    ${True}
    Log Probabilities After Context Shift Should Match Reference    ${out}[completion_probabilities]    ${ids}
    ...    ${n_ctx}    n_keep=${6}

Logprobs After Shifts Of A Given Size Match What The Server Kept
    ${n_ctx} =    Slot Context Size
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${out} =    Complete    ${PROMPT}    n_predict=${{ $n_ctx * 2 }}    n_probs=${3}    n_discard=${20}
    Json Field Should Be    ${out}    truncated    ${True}
    Log Probabilities After Context Shift Should Match Reference    ${out}[completion_probabilities]    ${ids}
    ...    ${n_ctx}    n_discard=${20}
