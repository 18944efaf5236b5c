*** Settings ***
Documentation       Speculative decoding with a draft that is the target model itself: at temperature 0 the draft
...                 guesses every token right, so every drafted token is accepted, and no step drafts more than
...                 `--spec-draft-n-max` tokens.
Resource            ../../resources/adapters.resource
Resource            ../../resources/completion.resource
Resource            ../../resources/metrics.resource
Suite Setup         Start Server With Itself As Draft
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           speculative    needs:managed


*** Variables ***
${PROMPT}       hello world
${N}            ${32}
${N_MAX}        ${4}


*** Test Cases ***
Every Drafted Token Is Accepted
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    Draft Counts Should Be Consistent    ${out}
    Json Field Should Be    ${out}    timings.draft_n_accepted    ${out}[timings][draft_n]

No Step Drafts More Than N Max Tokens
    [Tags]    build-specific    builds:10825-
    ${before} =    Scrape Metrics
    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    ${after} =    Scrape Metrics
    ${drafted} =    Counter Growth    ${before}    ${after}    llamacpp:spec_decode_num_draft_tokens_total
    ${steps} =    Counter Growth    ${before}    ${after}    llamacpp:spec_decode_num_drafts_total
    Should Be True    0 < ${drafted} <= ${N_MAX} * ${steps}
    ...    ${drafted} tokens drafted in ${steps} steps of at most ${N_MAX}

Position Zero Is Accepted At Every Step
    [Documentation]    `spec_decode_num_accepted_tokens_per_pos_total{position="0"}` counts the steps whose first
    ...    drafted token was accepted: with an identical draft, every step.
    [Tags]    build-specific    builds:10825-
    ${before} =    Scrape Metrics
    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    ${after} =    Scrape Metrics
    ${steps} =    Counter Growth    ${before}    ${after}    llamacpp:spec_decode_num_drafts_total
    ${at_zero} =    Counter Growth    ${before}    ${after}    llamacpp:spec_decode_num_accepted_tokens_per_pos_total
    ...    position=0
    Should Be True    ${steps} > 0
    Should Be Equal    ${at_zero}    ${steps}


*** Keywords ***
Start Server With Itself As Draft
    [Documentation]    Starts the suite's server with `tiny` as its own draft (at most `${N_MAX}` tokens a step)
    ...    and `/metrics` on, and sends one request, so that the per-position series exist.
    Start Server With Draft Model    tiny-1-slot    tiny    --spec-type    draft-simple
    ...    --spec-draft-n-max    ${N_MAX}    --metrics
    Complete    ${PROMPT}    n_predict=${N}

Counter Growth
    [Documentation]    How much the counter `name` (with exactly the `labels` given) grew from the scrape
    ...    `before` to the scrape `after`.
    [Arguments]    ${before}    ${after}    ${name}    &{labels}
    ${old} =    Metric Value    ${before}    ${name}    &{labels}
    ${new} =    Metric Value    ${after}    ${name}    &{labels}
    ${growth} =    Evaluate    $new - $old
    RETURN    ${growth}
