*** Settings ***
Documentation       A server made slow on purpose: a proxy in front of the tiny server holds the first chunk of
...                 every answer for 300 ms. The load smoke calibrates its SLO on the server it tests, so a server
...                 that is slow all the time would meet it; the overhead check compares what the client saw with
...                 the server's own `timings` and must catch the proxy, while the same check passes on the server
...                 itself.
Library             SlowProxyLibrary.py
Resource            ../../resources/load.resource
Suite Setup         Start Server And Proxy
Suite Teardown      Stop Server And Proxy
Test Timeout        2 minutes
Test Tags           harness


*** Test Cases ***
The Server Itself Adds No Latency Outside Its Timings
    ${run} =    Calibrate Single User Latency    ${PROMPTS}    ${16}
    Server Should Add No Latency Outside Its Own Timings    ${run}

A Proxy Holding The First Chunk Is Caught By The Overhead Check
    ${run} =    Calibrate Single User Latency    ${PROMPTS}    ${16}    server=${PROXY}
    Run Keyword And Expect Error    *misses its SLO: overhead_ttft p95 3??.? ms > limit 50 ms*
    ...    Server Should Add No Latency Outside Its Own Timings    ${run}

A Loaded Run Through The Proxy Is Flagged For Its Overhead
    [Documentation]    The same check on every load run (the `server_overhead` validity flag): two users on two
    ...    slots through the proxy, whose held first chunks are outside the server's timings at any load, and
    ...    whose late tokens must not pass for steps of the server that a request waited for.
    ${run} =    Run Load Profile    ${PROMPTS}    concurrency    users=${2}    max_requests=${8}    max_tokens=${16}
    ...    server=${PROXY}    history=${False}
    Run Keyword And Expect Error    *server_overhead (TTFT - prompt_ms - the step under way p95 ???.?? ms (limit 50*
    ...    Load Results Should Be Valid    ${run}

The Proxy Still Meets An SLO Calibrated On Itself
    [Documentation]    Why the overhead check is needed: an SLO calibrated on the slow server passes it.
    ${calibration} =    Calibrate Single User Latency    ${PROMPTS}    ${16}    server=${PROXY}
    ${slo} =    SLO From Calibration    ${calibration}    factor=${4}    floor_ms=${25}
    ${run} =    Run Load Profile    ${PROMPTS}    concurrency    users=${2}    max_requests=${8}    max_tokens=${16}
    ...    server=${PROXY}    history=${False}
    Load Results Should Meet SLO    ${run}    &{slo}


*** Keywords ***
Start Server And Proxy
    [Documentation]    The tiny server, the proxy in front of it (`${PROXY}`) and 40 prompts of 32 tokens.
    Start Server For Suite    tiny-load
    ${url} =    Server Url
    ${proxy} =    Start Slow Proxy    ${url}    first_chunk_delay_ms=${300}
    VAR    ${PROXY}    ${proxy}    scope=SUITE    # robocop: off=no-suite-variable
    ${prompts} =    Fixed Length Prompts    count=${40}    tokens=${32}
    VAR    ${PROMPTS}    ${prompts}    scope=SUITE    # robocop: off=no-suite-variable

Stop Server And Proxy
    [Documentation]    Stops the proxy, then the server.
    [Timeout]    1 minute
    Stop Slow Proxy
    Stop Servers For Suite
