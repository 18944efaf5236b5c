*** Settings ***
Documentation       Native /completion sampling controls: token probabilities (`n_probs`, `post_sampling_probs`),
...                 constrained output (`grammar`, `json_schema`), forcing logit biases and seeds. Expectations come
...                 from the answers themselves: alternatives are sorted probabilities, greedy decoding picks the
...                 most likely one, a grammar's language contains the output, a schema validates it.
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           completion


*** Variables ***
${PROMPT}           hello world
${YES_OR_NO}        root ::= "yes" | "no"
@{YES_NO}           yes    no
&{DIGIT}            type=integer    minimum=${0}    maximum=${9}
&{ONE_OF_YES_NO}    enum=${YES_NO}
&{ANSWER_FIELDS}    answer=${ONE_OF_YES_NO}    n=${DIGIT}
@{ANSWER_NAMES}     answer    n
&{ANSWER_SCHEMA}
...                 type=object
...                 properties=${ANSWER_FIELDS}
...                 required=${ANSWER_NAMES}
...                 additionalProperties=${False}


*** Test Cases ***
N Probs Lists That Many Alternatives For Every Generated Token
    ${out} =    Complete    ${PROMPT}    n_predict=${6}    n_probs=${3}    return_tokens=${True}    ignore_eos=${True}
    Length Should Be    ${out}[completion_probabilities]    6
    Token Probabilities Should Be Well Formed    ${out}[completion_probabilities]    logprob    ${3}
    ...    tokens=${out}[tokens]
    Json Field Should Be    ${out}    generation_settings.n_probs    ${3}

Greedy Decoding Picks The Most Likely Alternative Every Time
    ${out} =    Complete    ${PROMPT}    n_predict=${8}    n_probs=${2}    ignore_eos=${True}
    Length Should Be    ${out}[completion_probabilities]    8
    Each Chosen Token Should Lead Its Alternatives    ${out}[completion_probabilities]    logprob

Probability Bytes Reassemble The Generated Content
    ${out} =    Complete    ${PROMPT}    n_predict=${16}    n_probs=${1}    ignore_eos=${True}
    Length Should Be    ${out}[completion_probabilities]    16
    Probability Bytes Should Spell    ${out}[completion_probabilities]    ${out}[content]

Post Sampling Probabilities Lie Between Zero And One And Are Sorted
    ${out} =    Complete    ${PROMPT}    n_predict=${6}    n_probs=${5}    post_sampling_probs=${True}
    ...    temperature=${1.0}    seed=${5}    return_tokens=${True}    ignore_eos=${True}
    Token Probabilities Should Be Well Formed    ${out}[completion_probabilities]    prob    ${NONE}
    ...    tokens=${out}[tokens]
    Alternatives Should Sum To At Most One    ${out}[completion_probabilities]

Post Sampling Probabilities At Temperature Zero Give The Chosen Token Certainty
    [Documentation]    Greedy sampling keeps one candidate, so the only alternative is the chosen token, p = 1.
    ${out} =    Complete    ${PROMPT}    n_predict=${3}    n_probs=${4}    post_sampling_probs=${True}
    ...    ignore_eos=${True}
    Token Probabilities Should Be Well Formed    ${out}[completion_probabilities]    prob    ${1}
    Json Field Should Be    ${out}    completion_probabilities.0.prob    ${1.0}
    Json Field Should Be    ${out}    completion_probabilities.2.top_probs.0.prob    ${1.0}

N Probs Beyond The Vocabulary Lists The Whole Vocabulary
    [Documentation]    One more than the model's vocabulary (`n_vocab` in /v1/models): Gemma 3's has 262,144 tokens.
    ${models} =    Get Models
    VAR    ${n_vocab}    ${models.json()}[data][0][meta][n_vocab]
    ${out} =    Complete    ${PROMPT}    n_predict=${1}    n_probs=${n_vocab + 1}    ignore_eos=${True}
    Length Should Be    ${out}[completion_probabilities][0][top_logprobs]    ${n_vocab}

No Probabilities Without N Probs
    ${out} =    Complete    ${PROMPT}    n_predict=${4}    ignore_eos=${True}
    Should Not Contain    ${out}    completion_probabilities
    Json Field Should Be    ${out}    generation_settings.n_probs    ${0}

Grammar Restricts The Output To Its Language
    ${out} =    Complete    ${PROMPT}    n_predict=${16}    grammar=${YES_OR_NO}
    Should Contain    ${YES_NO}    ${out}[content]
    Json Field Should Be    ${out}    stop_type    eos
    Json Field Should Be    ${out}    generation_settings.grammar    ${YES_OR_NO}

Json Schema Output Parses And Satisfies The Schema
    ${out} =    Complete    ${PROMPT}    n_predict=${64}    json_schema=${ANSWER_SCHEMA}
    Json Field Should Be    ${out}    stop_type    eos
    ${answer} =    Evaluate    json.loads($out["content"])
    Json Keys Should Be    ${answer}    @{ANSWER_NAMES}
    Should Contain    ${YES_NO}    ${answer}[answer]
    Json Field Should Be Of Type    ${answer}    n    int
    Should Be True    0 <= $answer["n"] <= 9

Grammar Wins Over Json Schema
    ${out} =    Complete    ${PROMPT}    n_predict=${64}    grammar=${YES_OR_NO}    json_schema=${ANSWER_SCHEMA}
    Should Contain    ${YES_NO}    ${out}[content]
    Json Field Should Be    ${out}    generation_settings.grammar    ${YES_OR_NO}

Lazy Grammar Without Triggers Is Accepted And Not Applied
    [Documentation]    Older builds answer 400 `no triggers set for lazy grammar`; this one accepts the request and
    ...    generates as if there were no grammar.
    [Tags]    build-specific    builds:9905-
    ${free} =    Complete    ${PROMPT}    n_predict=${8}    ignore_eos=${True}
    ${out} =    Complete    ${PROMPT}    n_predict=${8}    grammar=root ::= "yes"    grammar_lazy=${True}
    Json Field Should Be    ${out}    content    ${free}[content]
    Json Field Should Be    ${out}    generation_settings.grammar_lazy    ${True}

Large Positive Bias Makes One Token Win Every Step
    ${first} =    Complete    ${PROMPT}    n_predict=${1}    n_probs=${2}    ignore_eos=${True}
    VAR    ${runner_up}    ${first}[completion_probabilities][0][top_logprobs][1][id]
    ${favour} =    Logit Bias Pairs    ${runner_up}    ${100}
    ${tokens} =    Generated Tokens    ${PROMPT}    n_predict=${8}    logit_bias=${favour}
    Length Should Be    ${tokens}    8
    Every Value Should Be    ${tokens}    ${runner_up}

Bias For A Token Outside The Vocabulary Is Ignored
    ${free} =    Complete    ${PROMPT}    n_predict=${8}    ignore_eos=${True}
    VAR    &{outside}    999999=${False}
    ${out} =    Complete    ${PROMPT}    n_predict=${8}    logit_bias=${outside}
    Json Field Should Be    ${out}    content    ${free}[content]
    Json Field Should Be    ${out}    generation_settings.logit_bias    expected=@{EMPTY}

Fixed Seed Repeats Sampled Output On Another Slot
    ${first} =    Complete    ${PROMPT}    n_predict=${24}    temperature=${1.0}    seed=${11}    id_slot=${0}
    ...    cache_prompt=${False}    ignore_eos=${True}
    ${second} =    Complete    ${PROMPT}    n_predict=${24}    temperature=${1.0}    seed=${11}    id_slot=${1}
    ...    cache_prompt=${False}    ignore_eos=${True}
    Json Field Should Be    ${second}    content    ${first}[content]
    Json Field Should Be    ${second}    id_slot    ${1}
    Json Field Should Be    ${second}    generation_settings.seed    ${11}


*** Keywords ***
Each Chosen Token Should Lead Its Alternatives
    [Documentation]    Under greedy decoding every generated token is the first (most likely) of its alternatives.
    [Arguments]    ${probabilities}    ${kind}
    ${chosen} =    Field Of Each    ${probabilities}    id
    ${leaders} =    Values Of Each    ${probabilities}    top_${kind}s.0.id
    Should Be Equal    ${chosen}    ${leaders}

Alternatives Should Sum To At Most One
    [Documentation]    The post-sampling probabilities of the alternatives of each token add up to at most 1.
    [Arguments]    ${probabilities}
    ${sums} =    Totals Of Each    ${probabilities}    top_probs    prob
    Should Be True    max($sums) <= 1 + 1e-6    sums above 1: ${sums}
