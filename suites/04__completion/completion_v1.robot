*** Settings ***
Documentation       OpenAI-compatible `/v1/completions`, non-stream: the `text_completion` object, usage counts,
...                 finish reasons, `logprobs`, several choices (`n`, several prompts), seeds and logit bias.
...                 The text must equal what native /completion generates for the same prompt.
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           completion


*** Variables ***
${PROMPT}           hello world
${OTHER}            the llama server
${N}                ${8}


*** Test Cases ***
Text Completion Has The OpenAI Object Shape
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    Json Fields Should Exist    ${out}    ${EMPTY}    id    object    created    model    system_fingerprint    choices
    ...    usage
    Json Field Should Be    ${out}    object    text_completion
    Json Field Should Be Of Type    ${out}    id    str
    Json Field Should Be Of Type    ${out}    created    int
    Length Should Be    ${out}[choices]    1
    Json Keys Should Be    ${out}[choices][0]    finish_reason    index    logprobs    text
    Json Field Should Be    ${out}    choices.0.index    ${0}
    Json Field Should Be    ${out}    choices.0.logprobs    ${NONE}

Model And Fingerprint Name The Served Model And Build
    ${models} =    Get Models
    ${props} =    Get Props
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${1}    ignore_eos=${True}
    Json Field Should Be    ${out}    model    ${models.json()}[data][0][id]
    Json Field Should Be    ${out}    system_fingerprint    ${props.json()}[build_info]

Max Tokens Sets The Completion Tokens And Finishes With Length
    ${tokens} =    Tokenize    ${PROMPT}    add_special=${True}
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    choices.0.finish_reason    length
    Json Field Should Be    ${out}    usage.completion_tokens    ${N}
    Json Field Should Be    ${out}    usage.prompt_tokens    ${{ len($tokens) }}
    Json Field Should Be    ${out}    usage.total_tokens    ${{ len($tokens) + $N }}

Text Equals The Native Completion Text
    ${native} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    choices.0.text    ${native}[content]

Forced Eos Finishes With Stop
    ${eos} =    End Of Sequence Token
    ${forced} =    Logit Bias In Form    map    ${eos}    ${100}
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    logit_bias=${forced}
    Json Field Should Be    ${out}    choices.0.finish_reason    stop
    Should Be True    $out["usage"]["completion_tokens"] < $N

Stop String Finishes With Stop And Cuts The Text Before It
    ${free} =    Complete V1    ${PROMPT}    max_tokens=${32}    ignore_eos=${True}
    VAR    ${stop}    ${free}[choices][0][text][10:13]
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${32}    stop=${stop}    ignore_eos=${True}
    ${before} =    Text Before    ${free}[choices][0][text]    ${stop}
    Json Field Should Be    ${out}    choices.0.text    ${before}
    Json Field Should Be    ${out}    choices.0.finish_reason    stop

Logprobs Gives That Many Alternatives For Every Token
    [Documentation]    This build answers in the chat shape (`logprobs.content[]` with `top_logprobs`), not the
    ...    legacy completions shape (`tokens`, `token_logprobs`, `top_logprobs`, `text_offset`).
    [Tags]    build-specific    builds:9905-
    ${native} =    Generated Tokens    ${PROMPT}    n_predict=${N}
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    logprobs=${3}    ignore_eos=${True}
    Length Should Be    ${out}[choices][0][logprobs][content]    ${N}
    Token Probabilities Should Be Well Formed    ${out}[choices][0][logprobs][content]    logprob    ${3}
    ...    tokens=${native}

N Gives That Many Choices With Their Indexes
    ${native} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    n=${2}    ignore_eos=${True}
    Results Should Be Indexed In Order    ${out}[choices]
    ${texts} =    Field Of Each    ${out}[choices]    text
    VAR    @{expected}    ${native}[content]    ${native}[content]
    Should Be Equal    ${texts}    ${expected}

Several Prompts Give One Choice Each In Prompt Order
    [Tags]    needs:tiny
    ${first} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    ${second} =    Complete    ${OTHER}    n_predict=${N}    ignore_eos=${True}
    VAR    @{prompts}    ${PROMPT}    ${OTHER}
    ${out} =    Complete V1    ${prompts}    max_tokens=${N}    ignore_eos=${True}
    Results Should Be Indexed In Order    ${out}[choices]
    ${texts} =    Field Of Each    ${out}[choices]    text
    VAR    @{expected}    ${first}[content]    ${second}[content]
    Should Be Equal    ${texts}    ${expected}

Usage Counts The Tokens Of Every Choice
    [Documentation]    Contract: the OpenAI API reference, `n`: "you will be charged based on the number of
    ...    generated tokens across all of the choices", and `usage.completion_tokens` is the "Number of tokens
    ...    in the generated completion". With two choices of `max_tokens` each, this build reports the tokens of
    ...    one choice only (and `prompt_tokens` one prompt): `handle_completions_impl` keeps the usage of the
    ...    first result. Upstream: llama.cpp#27318 (open pull request).
    [Tags]    bug
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    n=${2}    ignore_eos=${True}
    Json Field Should Be    ${out}    usage.completion_tokens    ${{ 2 * $N }}
    Json Field Should Be    ${out}    usage.total_tokens    ${{ $out["usage"]["prompt_tokens"] + 2 * $N }}

Repeated Prompt Reports Its Cached Tokens
    [Tags]    needs:full-prompt-cache
    Complete V1    one two three    max_tokens=${N}    id_slot=${0}    ignore_eos=${True}
    ${out} =    Complete V1    one two three    max_tokens=${N}    id_slot=${0}    ignore_eos=${True}
    VAR    ${cached}    ${out}[usage][prompt_tokens_details][cached_tokens]
    Should Be Equal As Integers    ${cached}    ${{ $out["usage"]["prompt_tokens"] - 1 }}
    Json Field Should Be    ${out}    timings.cache_n    ${cached}

Fixed Seed Repeats Sampled Text
    ${first} =    Complete V1    ${PROMPT}    max_tokens=${24}    temperature=${1.0}    seed=${3}    ignore_eos=${True}
    ${second} =    Complete V1    ${PROMPT}    max_tokens=${24}    temperature=${1.0}    seed=${3}    ignore_eos=${True}
    Json Field Should Be    ${second}    choices.0.text    ${first}[choices][0][text]

Logit Bias Map Keeps The First Token Out
    ${free} =    Generated Tokens    ${PROMPT}    n_predict=${N}
    ${avoid} =    Logit Bias In Form    map    ${free}[0]    ${-100}
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    logprobs=${1}    logit_bias=${avoid}
    ${tokens} =    Field Of Each    ${out}[choices][0][logprobs][content]    id
    Should Not Contain    ${tokens}    ${free}[0]
    Length Should Be    ${tokens}    ${N}

N Predict Takes Precedence Over Max Tokens
    ${out} =    Complete    ${PROMPT}    max_tokens=${5}    n_predict=${3}    ignore_eos=${True}
    ${alias} =    Complete    ${PROMPT}    max_tokens=${5}    ignore_eos=${True}
    Json Field Should Be    ${out}    tokens_predicted    ${3}
    Json Field Should Be    ${alias}    tokens_predicted    ${5}
