*** Settings ***
Documentation       The load curve of the tiny model on two slots: a sweep from one user to saturation (latency
...                 and throughput against the load, drawn over the previous sweep), and the highest Poisson rate
...                 whose TTFT p95 stays within a few times the single-user TTFT; a stepped ramp of the arrival rate.
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    tiny-load
Suite Teardown      Stop Servers For Suite
Test Timeout        5 minutes
Test Tags           load


*** Variables ***
${MAX_TOKENS}       ${32}


*** Test Cases ***
Sweep From One User To Saturation
    ${prompts} =    Fixed Length Prompts    count=${1000}    tokens=${48}
    ${sweep} =    Run Load Sweep    ${prompts}    points=${4}    users=${4}    duration=${5}
    ...    max_tokens=${MAX_TOKENS}    max_in_flight=${64}
    Sweep Throughput Should Grow With The Load    ${sweep}

Stepped Ramp Is Sent On Schedule
    ${prompts} =    Fixed Length Prompts    count=${1000}    tokens=${48}
    ${run} =    Run Load Profile    ${prompts}    ramp    ramp=0:5 3:10 6:20    duration=${9}
    ...    max_tokens=${MAX_TOKENS}    max_in_flight=${64}
    Every Load Request Should Succeed    ${run}
    Load Results Should Be Valid    ${run}

Capacity Under A Calibrated SLO
    ${prompts} =    Fixed Length Prompts    count=${1000}    tokens=${48}
    ${calibration} =    Calibrate Single User Latency    ${prompts}    ${MAX_TOKENS}
    ${slo} =    SLO From Calibration    ${calibration}    factor=${4}    floor_ms=${25}
    ${capacity} =    Find Capacity Under SLO    ${prompts}    low=${2}    high=${200}    duration=${4}
    ...    max_tokens=${MAX_TOKENS}    max_in_flight=${64}    slo=${slo}
    Capacity Should Have Been Found    ${capacity}
