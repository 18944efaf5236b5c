*** Settings ***
Documentation       Soak: three minutes of two users on the tiny model while the server process's RSS, open files
...                 and threads are sampled once a second; none may grow with the requests served (slope per 1,000
...                 requests over the steady part). Tagged `load-soak`:
...                 excluded by default and from `--include load`.
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    tiny-load
Suite Teardown      Stop Servers For Suite
Test Timeout        6 minutes
Test Tags           load-soak


*** Variables ***
${SOAK_SECONDS}     ${180}


*** Test Cases ***
Server Resources Do Not Grow With Requests Served
    ${prompts} =    Fixed Length Prompts    count=${200}    tokens=${48}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${2}    duration=${SOAK_SECONDS}
    ...    warmup_requests=${4}    max_tokens=${32}    sample_server=${True}    name=soak
    Every Load Request Should Succeed    ${run}
    Server Resources Should Not Grow    ${run}
