*** Settings ***
Documentation       A short load on the tiny model in every run. Single-user latency is calibrated first, on this
...                 machine in this run; the loaded runs must then keep TTFT and TPOT within a few times of it and
...                 answer every request with the tokens it asked for. A server whose first token becomes slow, or
...                 that fails or dies after a few dozen requests, fails the default run.
Resource            ../../resources/load.resource
Suite Setup         Start Server And Calibrate
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           load-smoke


*** Variables ***
${PROMPT_TOKENS}    ${48}
${MAX_TOKENS}       ${32}


*** Test Cases ***
Two Users On Two Slots Keep The Calibrated Latency
    [Documentation]    100 measured requests: the fewest that define every percentile the verdicts read (p99 needs
    ...    100 samples), about 1 s for two users on a quiet machine; `duration` only bounds a slow one.
    ${run} =    Run Load Profile    ${PROMPTS}    concurrency    users=${2}    duration=${6}    max_requests=${100}
    ...    warmup_requests=${2}    max_tokens=${MAX_TOKENS}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    prompt_tokens=${PROMPT_TOKENS}    output_tokens=${MAX_TOKENS}
    Load Results Should Be Valid    ${run}
    Load Results Should Meet SLO    ${run}    &{SMOKE_SLO}
    Server Series Should Agree With The Client    ${run}

The Server Adds No Latency Outside Its Own Timings
    [Documentation]    The calibration's requests, one at a time: the client's TTFT minus the server's own
    ...    `timings.prompt_ms`, and its TPOT minus `predicted_per_token_ms`, is time spent outside the server's
    ...    accounting (HTTP, queueing, streaming). A server that holds its answers, on any machine and however fast
    ...    its model, fails here, even though the SLOs above are calibrated on the same slow server.
    Server Should Add No Latency Outside Its Own Timings    ${CALIBRATION}

Poisson Arrivals Are All Sent On Time And Served
    [Documentation]    40 seeded arrivals in 2.5 s: a light load on two slots (a request takes about 20 ms, so some
    ...    arrivals still meet one in flight), and enough for a p95 of the client's queueing above its median.
    ${run} =    Run Load Profile    ${PROMPTS}    rate    rate=${16}    arrival=poisson    seed=${7}    duration=${2.5}
    ...    max_tokens=${MAX_TOKENS}    max_in_flight=${16}
    Every Load Request Should Succeed    ${run}
    Load Results Should Be Valid    ${run}
    Load Results Should Meet SLO    ${run}    error_rate_max=${0}    client_queue_p95_ms=${10}


*** Keywords ***
Start Server And Calibrate
    [Documentation]    Starts the tiny server, makes the prompts and derives the SLO from single-user runs.
    ...    40 prompts, one per Poisson arrival: every request sends `cache_prompt: false`, so a prompt sent again
    ...    costs the same (the closed loop cycles through them). Eight calibration requests: the SLO scales their
    ...    median (4 × p50 + 25 ms), and the 2nd and 7th of eight bracket the true median with 93 % confidence
    ...    (binomial), on `tiny` within 2 ms, so the limit is known to within 8 ms, a third of its 25 ms floor; six
    ...    would need their extremes for that confidence, where one slow request (15 ms seen) spoils the bracket.
    Start Server For Suite    tiny-load
    ${prompts} =    Fixed Length Prompts    count=${40}    tokens=${PROMPT_TOKENS}
    VAR    ${PROMPTS}    ${prompts}    scope=SUITE    # robocop: off=no-suite-variable
    ${run} =    Calibrate Single User Latency    ${PROMPTS}    ${MAX_TOKENS}
    VAR    ${CALIBRATION}    ${run}    scope=SUITE    # robocop: off=no-suite-variable
    ${slo} =    SLO From Calibration    ${CALIBRATION}    factor=${4}    floor_ms=${25}
    VAR    &{SMOKE_SLO}    &{slo}    scope=SUITE    # robocop: off=no-suite-variable
