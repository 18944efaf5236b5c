*** Settings ***
Documentation       A draft model without `--spec-type`: this build loads the draft but does not use it, since the
...                 speculative decoding types default to `none` (older builds drafted as soon as `--model-draft`
...                 was given).
Resource            ../../resources/adapters.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Server With Draft Model    tiny-1-slot    tiny-draft
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           speculative    build-specific    needs:managed    builds:9905-


*** Test Cases ***
Slots Report No Speculative Decoding
    ${slots} =    GET On Session    suite    /slots    expected_status=200
    Json Field Should Be    ${slots}    0.speculative    ${False}

Answers Carry No Draft Counts
    ${out} =    Complete    hello world    n_predict=${16}    cache_prompt=${False}
    Json Field Should Be    ${out}    timings.predicted_n    ${16}
    Should Not Contain    ${out}[timings]    draft_n
    Should Be Equal    ${out}[generation_settings][speculative.types]    none
