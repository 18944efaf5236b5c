*** Settings ***
Documentation       Native /completion prompts and results: token-id, mixed and JSON-object prompts, several
...                 prompts and `n_cmpl` copies in one request (an array of results in order), slot choice
...                 (`id_slot`), the prompt cache (`cache_prompt`, `timings.cache_n`, `tokens_cached`) and the shape
...                 of the answer (`response_fields`, `return_tokens`). Expected texts come from single requests
...                 for the same prompt, since equal token sequences at temperature 0 give equal answers.
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Library             Collections
Suite Setup         Start Server For Suite With Its Slot Count    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           completion


*** Variables ***
${PROMPT}           hello world
${OTHER}            the llama server
${N}                ${6}
@{BOTH}             ${PROMPT}    ${OTHER}


*** Test Cases ***
Token Id Prompt Is Evaluated Without Bos
    ${ids} =    Tokenize    ${PROMPT}
    ${out} =    Complete    ${ids}    n_predict=${N}    cache_prompt=${False}    ignore_eos=${True}
    Json Field Should Be    ${out}    tokens_evaluated    ${{ len($ids) }}
    Json Field Should Be    ${out}    tokens_predicted    ${N}

Token Ids With Bos Answer Like The Text Prompt
    ${ids} =    Tokenize    ${PROMPT}    add_special=${True}
    ${text} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    ${out} =    Complete    ${ids}    n_predict=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    content    ${text}[content]
    Json Field Should Be    ${out}    tokens_evaluated    ${text}[tokens_evaluated]

Text Prompt Is Echoed With Its Bos
    ${ids} =    Tokenize    ${PROMPT}    add_special=${True}
    ${rendered} =    Detokenize    ${ids}
    ${out} =    Complete    ${PROMPT}    n_predict=${1}    ignore_eos=${True}
    Json Field Should Be    ${out}    prompt    ${rendered}

Mixed Prompt Of Ids And Text Is One Prompt Of Their Tokens
    ${ids} =    Tokenize    ${PROMPT}    add_special=${True}
    ${tail} =    Tokenize    ${OTHER}
    ${joined} =    Complete    ${{ $ids + $tail }}    n_predict=${N}    ignore_eos=${True}
    VAR    @{mixed}    @{ids}    ${OTHER}
    ${out} =    Complete    ${mixed}    n_predict=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    content    ${joined}[content]
    Json Field Should Be    ${out}    tokens_evaluated    ${{ len($ids) + len($tail) }}

Json Object Prompt Answers Like The Plain String
    ${plain} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    VAR    &{prompt}    prompt_string=${PROMPT}
    ${out} =    Complete    ${prompt}    n_predict=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    content    ${plain}[content]
    Json Field Should Be    ${out}    index    ${0}

Empty Text Prompt Evaluates Only The Bos Token
    [Tags]    needs:tiny
    ${out} =    Complete    ${EMPTY}    n_predict=${N}    cache_prompt=${False}    ignore_eos=${True}
    Json Field Should Be    ${out}    tokens_evaluated    ${1}
    Json Field Should Be    ${out}    tokens_predicted    ${N}

Empty Token List In A Prompt Array Gets An Empty Answer
    [Documentation]    Deliberate: `prompt: [[]]` is one prompt of no tokens, and `update_slots`
    ...    (tools/server/server-context.cpp) handles it on purpose: "empty prompt passed -> release the slot and
    ...    send empty response". Nothing is evaluated or generated, whatever `n_predict` says, and `stop_type`
    ...    stays `none` because generation never started. Only `prompt: []` (no prompt at all) is refused, with
    ...    400 `"prompt" must not be empty`.
    VAR    @{no_tokens}    @{EMPTY}
    VAR    @{one_empty_prompt}    ${no_tokens}
    ${out} =    Complete    ${one_empty_prompt}    n_predict=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    content    ${EMPTY}
    Json Field Should Be    ${out}    tokens_evaluated    ${0}
    Json Field Should Be    ${out}    tokens_predicted    ${0}
    Json Field Should Be    ${out}    stop_type    none
    Json Field Should Be    ${out}    generation_settings.n_predict    ${N}

Several Prompts Give One Result Each In Prompt Order
    [Tags]    needs:tiny
    ${first} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    ${second} =    Complete    ${OTHER}    n_predict=${N}    ignore_eos=${True}
    ${results} =    Complete    ${BOTH}    n_predict=${N}    ignore_eos=${True}
    Results Should Be Indexed In Order    ${results}
    ${contents} =    Field Of Each    ${results}    content
    VAR    @{expected}    ${first}[content]    ${second}[content]
    Should Be Equal    ${contents}    ${expected}

A Text Prompt And A Token Prompt Can Share One Request
    ${ids} =    Tokenize    ${OTHER}    add_special=${True}
    VAR    @{prompts}    ${PROMPT}    ${ids}
    ${results} =    Complete    ${prompts}    n_predict=${N}    ignore_eos=${True}
    Results Should Be Indexed In Order    ${results}
    ${evaluated} =    Field Of Each    ${results}    tokens_evaluated
    ${text_ids} =    Tokenize    ${PROMPT}    add_special=${True}
    VAR    @{as_ids}    ${text_ids}    ${ids}
    ${expected} =    Lengths Of Each    ${as_ids}
    Should Be Equal    ${evaluated}    ${expected}

N Cmpl Gives That Many Identical Results At Temperature Zero
    ${single} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    ${results} =    Complete    ${PROMPT}    n_predict=${N}    n_cmpl=${2}    ignore_eos=${True}
    Results Should Be Indexed In Order    ${results}
    ${contents} =    Field Of Each    ${results}    content
    VAR    @{expected}    ${single}[content]    ${single}[content]
    Should Be Equal    ${contents}    ${expected}

N Is An Alias Of N Cmpl
    ${results} =    Complete    ${PROMPT}    n_predict=${N}    n=${2}    ignore_eos=${True}
    Results Should Be Indexed In Order    ${results}
    Length Should Be    ${results}    2

N Cmpl Copies Run On Distinct Slots
    [Tags]    needs:multi-slot
    ${results} =    Complete    ${PROMPT}    n_predict=${N}    n_cmpl=${2}    ignore_eos=${True}
    ${used} =    Field Of Each    ${results}    id_slot
    Length Should Be    ${used}    2
    List Should Not Contain Duplicates    ${used}    the copies ran on slots ${used}
    Should Be A Slot Of The Server    ${used}[0]
    Should Be A Slot Of The Server    ${used}[1]

Several Prompts With N Cmpl Give Every Prompt N Times
    [Tags]    needs:tiny
    ${first} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    ${second} =    Complete    ${OTHER}    n_predict=${N}    ignore_eos=${True}
    ${results} =    Complete    ${BOTH}    n_predict=${N}    n_cmpl=${2}    ignore_eos=${True}
    Results Should Be Indexed In Order    ${results}
    ${contents} =    Field Of Each    ${results}    content
    VAR    @{expected}    ${first}[content]    ${first}[content]    ${second}[content]    ${second}[content]
    Should Be Equal    ${contents}    ${expected}

Requested Slot Serves The Request And Is Reported
    [Tags]    needs:multi-slot
    ${on_zero} =    Complete    ${PROMPT}    n_predict=${2}    id_slot=${0}    ignore_eos=${True}
    ${on_one} =    Complete    ${PROMPT}    n_predict=${2}    id_slot=${1}    ignore_eos=${True}
    Json Field Should Be    ${on_zero}    id_slot    ${0}
    Json Field Should Be    ${on_one}    id_slot    ${1}

Slot Id Beyond The Slot Count Wraps Around
    [Documentation]    `id_slot` is taken modulo the slot count: twice the count plus one runs on slot 1, twice
    ...    the count on slot 0 (5 and 4 on two slots).
    [Tags]    needs:multi-slot
    ${past} =    Complete    ${PROMPT}    n_predict=${2}    id_slot=${{ 2 * $SLOTS + 1 }}    ignore_eos=${True}
    ${wrapped} =    Complete    ${PROMPT}    n_predict=${2}    id_slot=${{ 2 * $SLOTS }}    ignore_eos=${True}
    Json Field Should Be    ${past}    id_slot    ${1}
    Json Field Should Be    ${wrapped}    id_slot    ${0}

Slot Id Below Minus One Or Not A Number Falls Back To Any Slot
    ${negative} =    Complete    ${PROMPT}    n_predict=${2}    id_slot=${-5}    ignore_eos=${True}
    ${text} =    Complete    ${PROMPT}    n_predict=${2}    id_slot=x    ignore_eos=${True}
    Should Be A Slot Of The Server    ${negative}[id_slot]
    Should Be A Slot Of The Server    ${text}[id_slot]

Repeated Prompt Reuses All But Its Last Token From The Cache
    [Tags]    needs:full-prompt-cache
    ${first} =    Complete    one two three    n_predict=${N}    id_slot=${0}    ignore_eos=${True}
    ${again} =    Complete    one two three    n_predict=${N}    id_slot=${0}    ignore_eos=${True}
    Json Field Should Be    ${again}    tokens_evaluated    ${first}[tokens_evaluated]
    Json Field Should Be    ${again}    timings.cache_n    ${{ $first["tokens_evaluated"] - 1 }}
    Json Field Should Be    ${again}    timings.prompt_n    ${1}

Cache Prompt False Evaluates The Whole Prompt Again
    Complete    four five six    n_predict=${N}    id_slot=${1}    ignore_eos=${True}
    ${again} =    Complete    four five six    n_predict=${N}    id_slot=${1}    cache_prompt=${False}
    ...    ignore_eos=${True}
    Json Field Should Be    ${again}    timings.cache_n    ${0}
    Json Field Should Be    ${again}    timings.prompt_n    ${again}[tokens_evaluated]

Longer Prompt Reuses The Cached Prefix
    [Tags]    needs:tiny
    ${short} =    Tokenize    seven eight    add_special=${True}
    ${long} =    Tokenize    seven eight nine ten    add_special=${True}
    Complete    seven eight    n_predict=${N}    id_slot=${0}    ignore_eos=${True}
    ${out} =    Complete    seven eight nine ten    n_predict=${N}    id_slot=${0}    ignore_eos=${True}
    ${common} =    Common Prefix Length    ${short}    ${long}
    Json Field Should Be    ${out}    timings.cache_n    ${common}
    Json Field Should Be    ${out}    timings.prompt_n    ${{ $out["tokens_evaluated"] - $out["timings"]["cache_n"] }}

Tokens Cached Counts The Prompt And All But The Last Generated Token
    [Documentation]    The last sampled token is returned but never decoded, so the slot's cache holds the prompt
    ...    and every generated token but that one.
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    tokens_predicted    ${N}
    Json Field Should Be    ${out}    tokens_cached    ${{ $out["tokens_evaluated"] + $N - 1 }}

Response Fields Keep Only The Named Fields
    VAR    @{fields}    content    tokens_predicted
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    response_fields=${fields}    ignore_eos=${True}
    Json Keys Should Be    ${out}    @{fields}
    Json Field Should Be    ${out}    tokens_predicted    ${N}

Response Fields Reach Nested Fields Under Their Path
    VAR    @{fields}    generation_settings/n_predict    timings/predicted_n
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    response_fields=${fields}    ignore_eos=${True}
    Length Should Be    ${out}    2
    Json Field Should Be    ${out}    generation_settings/n_predict    ${N}
    Json Field Should Be    ${out}    timings/predicted_n    ${N}

Unknown Response Field Is Left Out
    VAR    @{fields}    content    no_such_field
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    response_fields=${fields}    ignore_eos=${True}
    Json Keys Should Be    ${out}    content
    Json Field Should Be Of Type    ${out}    content    str

Return Tokens Lists The Ids Of The Generated Text
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    return_tokens=${True}    ignore_eos=${True}
    Length Should Be    ${out}[tokens]    ${N}
    ${text} =    Detokenize    ${out}[tokens]
    Should Be Equal    ${text}    ${out}[content]

Tokens Stay Empty Without Return Tokens
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    ignore_eos=${True}
    Json Field Should Be    ${out}    tokens_predicted    ${N}
    Json Field Should Be    ${out}    tokens    expected=@{EMPTY}
