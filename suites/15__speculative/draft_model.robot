*** Settings ***
Documentation       Speculative decoding with a draft model (`--model-draft` and `--spec-type draft-simple`): the
...                 target model checks every drafted token, so the answer is exactly the one the target gives
...                 alone, and the server reports how many tokens were drafted and accepted.
...
...                 The draft is `tiny-draft`: `tiny` without its last layer, with the same vocabulary, so it
...                 guesses some of `tiny`'s tokens right and others wrong. A second server, `plain`, runs `tiny`
...                 without a draft. Answers are compared with `cache_prompt: false`.
Resource            ../../resources/adapters.resource
Resource            ../../resources/completion.resource
Resource            ../../resources/chat.resource
Resource            ../../resources/metrics.resource
Suite Setup         Start Speculative Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           speculative    needs:managed


*** Variables ***
${PROMPT}       hello world
${N}            ${32}
${DRAFT_TYPE}   none,draft-simple


*** Test Cases ***
Zero Temperature Output Equals The Output Without A Draft
    ${drafted} =    Completion Text    ${PROMPT}    ${N}
    ${alone} =    Completion Text    ${PROMPT}    ${N}    server=plain
    Should Be Equal    ${drafted}    ${alone}

Seeded Sampling Gives The Same Text With And Without A Draft
    ${drafted} =    Completion Text    ${PROMPT}    ${N}    temperature=${1.0}    seed=${3}
    ${alone} =    Completion Text    ${PROMPT}    ${N}    server=plain    temperature=${1.0}    seed=${3}
    Should Be Equal    ${drafted}    ${alone}

Chat Answer Equals The Answer Without A Draft And Counts Its Drafts
    ${drafted} =    Chat    hello    max_tokens=${N}    cache_prompt=${False}
    ${alone} =    Chat Answer    hello    max_tokens=${N}    cache_prompt=${False}    server=plain
    Json Field Should Be    ${drafted}    choices.0.message.content    ${alone}
    Json Field Should Be    ${drafted}    usage.completion_tokens    ${N}
    Draft Counts Should Be Consistent    ${drafted}

Timings Count Drafted And Accepted Tokens
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    Json Field Should Be    ${out}    timings.predicted_n    ${N}
    Draft Counts Should Be Consistent    ${out}

An Answer Of One Token Drafts Nothing
    [Documentation]    The first token comes from the prompt's own evaluation, so nothing is drafted and the
    ...    timings carry no draft counts.
    ${out} =    Complete    ${PROMPT}    n_predict=${1}    cache_prompt=${False}
    Json Field Should Be    ${out}    timings.predicted_n    ${1}
    Should Not Contain    ${out}[timings]    draft_n
    Should Not Contain    ${out}[timings]    draft_n_accepted

Slots Report Speculative Decoding
    ${slots} =    GET On Session    suite    /slots    expected_status=200
    ${plain} =    GET On Session    plain    /slots    expected_status=200
    Json Field Should Be    ${slots}    0.speculative    ${True}
    Json Field Should Be    ${plain}    0.speculative    ${False}

Generation Settings Name The Draft Type
    [Documentation]    This build names the speculative decoding types of a request in
    ...    `generation_settings["speculative.types"]`; older builds showed `speculative.n_max`, `n_min`, `p_min`.
    [Tags]    build-specific    builds:9905-
    ${out} =    Complete    ${PROMPT}    n_predict=${4}
    Should Be Equal    ${out}[generation_settings][speculative.types]    ${DRAFT_TYPE}

Streamed Tokens Arrive One Per Chunk With The Same Text
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    ${alone} =    Completion Text    ${PROMPT}    ${N}    server=plain
    Stream Should Have No Error    ${result}
    Every Partial Chunk Should Carry One Token    ${result}
    Streamed Text Should Be    ${result}    ${alone}
    ${events} =    Stream Json Events    ${result}
    Draft Counts Should Be Consistent    ${events}[-1]

Metrics Count The Drafted And Accepted Tokens Of A Request
    [Tags]    build-specific    builds:10825-
    ${before} =    Scrape Metrics
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    ${after} =    Scrape Metrics
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:spec_decode_num_draft_tokens_total
    ...    ${out}[timings][draft_n]
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:spec_decode_num_accepted_tokens_total
    ...    ${out}[timings][draft_n_accepted]

Props Default Settings Name The Draft Type
    [Documentation]    Contract: the server's README, `GET /props`: "`default_generation_settings` - the default
    ...    generation settings for the `/completion` endpoint, which has the same fields as the
    ...    `generation_settings` response object"; they are the settings of a request that sets none. This
    ...    build shows `"speculative.types": "none"` there, while such a request runs (and reports) the
    ...    server's `none,draft-simple` (`get_res_props` copies only the sampling defaults, as for `n_predict`).
    [Tags]    bug
    ${props} =    GET On Session    suite    /props    expected_status=200
    ${params} =    Get Json Field    ${props}    default_generation_settings.params
    Should Be Equal    ${params}[speculative.types]    ${DRAFT_TYPE}


*** Keywords ***
Start Speculative Servers
    [Documentation]    Starts the suite's server with `tiny-draft` as draft model and `/metrics` on, and `plain`,
    ...    the same model without a draft.
    Start Server With Draft Model    tiny-1-slot    tiny-draft    --spec-type    draft-simple    --metrics
    Start Preset Server    tiny-1-slot    alias=plain
