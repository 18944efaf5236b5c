*** Settings ***
Documentation       `/metrics` counters against what the suite counted for the requests it sent between two
...                 scrapes, on a single slot, one request at a time: prompt tokens from `/tokenize`, tokens
...                 reused from the slot (the suite replays what the slot holds), `n_predict`, and the decode
...                 calls the server's batch size implies. The batch is 32 tokens, so that a prompt of a few
...                 batches is cheap; the time counters are checked against the answers' own `timings`.
Resource            ../../resources/self_reports.resource
Suite Setup         Start Counted Server
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           self-report    metrics    needs:managed


*** Variables ***
&{COLD_HELLO}       prompt=hello world    n_predict=${3}    cache_prompt=${False}
&{COLD_LLAMA}       prompt=the llama server    n_predict=${5}    cache_prompt=${False}
&{COLD_TOKEN}       prompt=token test is of    n_predict=${7}    cache_prompt=${False}
&{WARM_TOKEN}       prompt=token test is of    n_predict=${4}    cache_prompt=${True}
&{WARM_TOKEN_AND}   prompt=token and the world    n_predict=${2}    cache_prompt=${True}


*** Test Cases ***
Token Counters Grow By The Tokens The Suite Counted
    [Tags]    build-specific    builds:10825-
    ${before} =    Scrape Metrics
    ${sent} =    Send Counted Completions    ${COLD_HELLO}    ${COLD_LLAMA}    ${COLD_TOKEN}
    ${after} =    Scrape Metrics
    Counters Should Have Grown By The Counted Requests    ${before}    ${after}    ${sent}    ${SETTINGS}

Prompt Longer Than A Batch Takes One Decode Call Per Batch
    [Tags]    build-specific    builds:10825-
    ${prompt} =    Repeated Token Prompt    ${{ 3 * $SETTINGS["n_batch"] + 4 }}
    VAR    &{long}    prompt=${prompt}    n_predict=${4}    cache_prompt=${False}
    ${before} =    Scrape Metrics
    ${sent} =    Send Counted Completions    ${long}
    ${after} =    Scrape Metrics
    Counters Should Have Grown By The Counted Requests    ${before}    ${after}    ${sent}    ${SETTINGS}

Prompt Tokens Reused From The Slot Are Counted As Cached
    [Documentation]    The same prompt again reuses all of it but its last token; another prompt that starts
    ...    like it reuses the common start.
    [Tags]    build-specific    builds:10825-
    ${before} =    Scrape Metrics
    ${sent} =    Send Counted Completions    ${COLD_TOKEN}    ${WARM_TOKEN}    ${WARM_TOKEN_AND}
    ${after} =    Scrape Metrics
    Counters Should Have Grown By The Counted Requests    ${before}    ${after}    ${sent}    ${SETTINGS}

Time Counters Grow By The Times The Answers Report
    ${before} =    Scrape Metrics
    ${sent} =    Send Counted Completions    ${COLD_HELLO}    ${COLD_LLAMA}
    ${after} =    Scrape Metrics
    Time Counters Should Agree With The Answers    ${before}    ${after}    ${sent}

Busy Slots Per Decode Is The One Slot
    [Documentation]    One slot and one request at a time: every decode call since the start served that slot.
    Send Counted Completions    ${COLD_HELLO}
    ${metrics} =    Scrape Metrics
    ${busy} =    Metric Value    ${metrics}    llamacpp:n_busy_slots_per_decode
    Should Be Equal As Numbers    ${busy}    ${SETTINGS}[n_slots]


*** Keywords ***
Start Counted Server
    [Documentation]    Starts `tiny` on one slot with `/metrics` and 32-token batches, and keeps what it was
    ...    started with in `${SETTINGS}` (see `Server Settings`).
    Start Server For Suite    tiny-metrics    --batch-size    32
    ${settings} =    Server Settings
    VAR    ${SETTINGS}    ${settings}    scope=SUITE    # robocop: off=no-suite-variable
