*** Settings ***
Documentation       The log-probabilities and greedy tokens of `tiny` against the numpy reference of its model file
...                 (ReferenceLibrary; docs/reference.md): the first and the later generated tokens of native and
...                 OpenAI completions and of chat, with their alternatives (`n_probs`, `top_logprobs`); the greedy
...                 continuation against the reference's argmax chain; infill's first token; several prompts of one
...                 request, decoded in one batch on the two slots.
...
...                 The server's README: `n_probs` gives "the probabilities of top N tokens for each generated
...                 token"; they are the softmax of the raw logits unless `post_sampling_probs` is set. The reference
...                 is fed the ids the server says it read (`/tokenize` with BOS) and generated (each entry's `id`).
Resource            ../../resources/reference.resource
Resource            ../../resources/infill.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    completion    needs:generated-model


*** Variables ***
${PROMPT}       hello world of llama tokens
${OTHER}        the server is a test of the llama
${N}            ${16}


*** Test Cases ***
First Token Logprobs Match The Reference
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${probs} =    Completion Logprobs    ${PROMPT}    ${10}    n_predict=${1}
    Length Should Be    ${probs}    1
    Log Probabilities Should Match Reference    ${probs}    ${ids}

Logprobs Of Every Later Token Match The Reference
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${probs} =    Completion Logprobs    ${PROMPT}    ${5}    n_predict=${N}
    Length Should Be    ${probs}    ${N}
    Log Probabilities Should Match Reference    ${probs}    ${ids}

Logprobs Of A Prompt Given As Token Ids Match The Reference
    ${ids} =    Prompt Tokens    ${OTHER}
    ${probs} =    Completion Logprobs    ${ids}    ${3}    n_predict=${N}
    Log Probabilities Should Match Reference    ${probs}    ${ids}

Sampled Tokens Carry The Logprobs Of The Raw Logits
    [Documentation]    At temperature 1 with a seed the tokens are sampled, not greedy: their `logprob` is still the
    ...    softmax of the raw logits, so each must match the reference after the prefix the server sampled.
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${probs} =    Completion Logprobs    ${PROMPT}    ${3}    n_predict=${N}    temperature=${1.0}    seed=${7}
    Log Probabilities Should Match Reference    ${probs}    ${ids}

Greedy Continuation Is The Reference's Argmax Chain
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${tokens} =    Generated Tokens    ${PROMPT}    n_predict=${32}
    Length Should Be    ${tokens}    32
    Greedy Tokens Should Match Reference    ${tokens}    ${ids}

OpenAI Completion Logprobs Match The Reference
    ${ids} =    Prompt Tokens    ${PROMPT}
    ${resp} =    Request V1 Completion    ${PROMPT}    max_tokens=${N}    logprobs=${5}
    VAR    ${content}    ${resp.json()}[choices][0][logprobs][content]
    Length Should Be    ${content}    ${N}
    Log Probabilities Should Match Reference    ${content}    ${ids}

Chat Logprobs Match The Reference
    [Tags]    chat
    ${ids} =    Chat Prompt Tokens    ${PROMPT}
    ${content} =    Chat Logprobs    ${PROMPT}    ${5}    max_tokens=${N}
    Length Should Be    ${content}    ${N}
    Log Probabilities Should Match Reference    ${content}    ${ids}

Infill Logprobs Match The Reference From The First Token
    [Tags]    infill    needs:infill
    ${ids} =    Infill Prompt Tokens    hello world    the end
    ${out} =    Infill    hello world    the end    n_predict=${4}    n_probs=${5}    temperature=${0}
    Log Probabilities Should Match Reference    ${out}[completion_probabilities]    ${ids}

Several Prompts Of One Request Each Match The Reference
    [Documentation]    A native request with a list of prompts runs them as tasks of their own, decoded together on
    ...    the two slots: each answer must be its own prompt's, as if it ran alone.
    ${first_ids} =    Prompt Tokens    ${PROMPT}
    ${second_ids} =    Prompt Tokens    ${OTHER}
    ${resp} =    Request Completion    ${{ [$PROMPT, $OTHER] }}    n_predict=${N}    n_probs=${3}
    Log Probabilities Should Match Reference    ${resp.json()}[0][completion_probabilities]    ${first_ids}
    Log Probabilities Should Match Reference    ${resp.json()}[1][completion_probabilities]    ${second_ids}
