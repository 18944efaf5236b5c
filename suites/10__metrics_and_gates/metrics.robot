*** Settings ***
Documentation       GET /metrics with `--metrics`: Prometheus text 0.0.4 in which every series is declared and
...                 prefixed, and whose counters grow by exactly what each request reports in its `timings`.
...
...                 Each counter test takes its own before/after scrapes around one request, so the tests do
...                 not depend on each other's traffic.
Resource            ../../resources/metrics.resource
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Suite Setup         Start Metrics Server
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           metrics


*** Test Cases ***
Metrics Are Prometheus Text Format Version 0 0 4
    ${resp} =    GET On Session    suite    /metrics    expected_status=200
    Header Should Be    ${resp}    Content-Type    ${METRICS_CONTENT_TYPE}
    Header Should Be    ${resp}    Server    llama.cpp
    ${metrics} =    Parse Metrics    ${resp}
    Metric Should Be Declared    ${metrics}    llamacpp:prompt_tokens_total    counter

Every Metric Has Help And Type
    ${metrics} =    Scrape Metrics
    Every Metric Should Be Declared    ${metrics}

Every Metric Carries The Llamacpp Prefix
    ${metrics} =    Scrape Metrics
    Every Metric Name Should Start With    ${metrics}    llamacpp:

Kv Cache Metrics Of Older Builds Are Gone
    [Documentation]    Builds of 2024 exported `kv_cache_usage_ratio` and `kv_cache_tokens`; this one does not.
    [Tags]    build-specific    builds:9905-
    ${metrics} =    Scrape Metrics
    Should Not Contain    ${metrics.names}    llamacpp:kv_cache_usage_ratio
    Should Not Contain    ${metrics.names}    llamacpp:kv_cache_tokens

Props Report The Metrics Endpoint On
    ${props} =    Get Props
    Json Field Should Be    ${props}    endpoint_metrics    ${True}

Prompt Tokens Total Grows By The Prompt Tokens Processed
    [Tags]    build-specific    builds:10825-
    ${before} =    Scrape Metrics
    ${out} =    Complete    counting prompt tokens    n_predict=${4}    cache_prompt=${False}
    ${after} =    Scrape Metrics
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:prompt_tokens_total    ${out}[timings][prompt_n]
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:prompt_tokens_cached_total    ${0}

Tokens Predicted Total Grows By The Tokens Predicted
    ${before} =    Scrape Metrics
    ${out} =    Complete    counting predicted tokens    n_predict=${8}
    ${after} =    Scrape Metrics
    Json Field Should Be    ${out}    timings.predicted_n    ${8}
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:tokens_predicted_total    ${8}

Cached Prompt Tokens Total Grows By What The Cache Served
    [Tags]    build-specific    builds:10825-
    Complete    the same prompt twice over    n_predict=${4}
    ${before} =    Scrape Metrics
    ${out} =    Complete    the same prompt twice over    n_predict=${4}
    ${after} =    Scrape Metrics
    Should Be True    $out["timings"]["cache_n"] > 0
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:prompt_tokens_cached_total
    ...    ${out}[timings][cache_n]
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:prompt_tokens_total    ${out}[timings][prompt_n]

Decode Calls Grow By One Per Predicted Token
    [Documentation]    The prompt fits one batch: one `llama_decode` call for it (which yields the first token),
    ...    then one per further token.
    ${before} =    Scrape Metrics
    ${out} =    Complete    counting decode calls    n_predict=${6}    cache_prompt=${False}
    ${after} =    Scrape Metrics
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:n_decode_total    ${out}[timings][predicted_n]

Largest Sequence Counter Equals The Longest Request
    [Documentation]    This is the suite's longest request, so the high-water mark is its sequence length: the
    ...    tokens in the slot when it ended (`tokens_cached`).
    ${out} =    Complete    the longest request of this suite    n_predict=${64}
    ${metrics} =    Scrape Metrics
    ${largest} =    Metric Value    ${metrics}    llamacpp:n_tokens_max
    Should Be Equal As Numbers    ${largest}    ${out}[tokens_cached]

A Scrape Changes No Counter
    Complete    before two scrapes    n_predict=${2}
    ${first} =    Scrape Metrics
    ${second} =    Scrape Metrics
    Counters Should Be Unchanged    ${first}    ${second}

Throughput Gauges Cover Only The Time Since The Previous Scrape
    Scrape Metrics
    Complete    throughput window    n_predict=${8}
    ${busy} =    Scrape Metrics
    ${quiet} =    Scrape Metrics
    ${rate} =    Metric Value    ${busy}    llamacpp:predicted_tokens_seconds
    Should Be True    ${rate} > 0
    ${rate} =    Metric Value    ${quiet}    llamacpp:predicted_tokens_seconds
    Should Be Equal As Numbers    ${rate}    0

Idle Server Has No Request Processing Or Deferred
    Complete    then idle    n_predict=${2}
    ${metrics} =    Scrape Metrics
    ${processing} =    Metric Value    ${metrics}    llamacpp:requests_processing
    ${deferred} =    Metric Value    ${metrics}    llamacpp:requests_deferred
    Should Be Equal As Numbers    ${processing}    0
    Should Be Equal As Numbers    ${deferred}    0

Process Start Time Header Is A Unix Time
    [Documentation]    Contract: the header's own name, and Unix time as the POSIX specification defines it
    ...    (IEEE Std 1003.1, Base Definitions, "Seconds Since the Epoch"); Prometheus, whose format /metrics
    ...    serves, names the same value `process_start_time_seconds`, "Start time of the process since unix
    ...    epoch in seconds". So the value lies between the moment the suite started the server and now. This
    ...    build sends a monotonic clock in microseconds (`server_metrics::init` in server-common.h stores
    ...    `ggml_time_us()`, e.g. 1378376081 on a machine up for 23 minutes).
    [Tags]    bug
    ${resp} =    GET On Session    suite    /metrics    expected_status=200
    ${now} =    Get Time    epoch
    ${started} =    Convert To Integer    ${resp.headers}[Process-Start-Time-Unix]
    Should Be True    ${STARTED_AFTER} - 1 <= ${started} <= ${now}


*** Keywords ***
Start Metrics Server
    [Documentation]    Notes the time (`${STARTED_AFTER}`, Unix seconds), then starts `tiny` with `--metrics`.
    ${now} =    Get Time    epoch
    VAR    ${STARTED_AFTER}    ${now}    scope=SUITE    # robocop: off=no-suite-variable
    Start Server For Suite    tiny-metrics
