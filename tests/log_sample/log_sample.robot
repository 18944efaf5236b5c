*** Settings ***
Documentation       Not a test of llama-server: the sample whose log.html `tests/harness/log_in_browser.robot` opens
...                 in a browser. One test fails on purpose on an exchange, one sends a multi-user batch (slot
...                 timeline chart), one runs a short load profile (its charts). Only the harness suite runs it,
...                 in a subprocess with its own output folder, so its failure counts in no closing line.
Resource            ../../resources/slots.resource
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    tiny-load
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           harness


*** Variables ***
&{COMPLETION}       prompt=Once upon a time    n_predict=${4}
${FIRST}            Once upon a time, in a village at the edge of a great forest
${SECOND}           The committee met on a rainy Tuesday to decide where the bridge should go


*** Test Cases ***
Completion Expected To Be Refused Fails On Its Exchange
    [Documentation]    Fails on purpose: a valid completion answers 200, not the 400 this test expects, so the
    ...    failure names the exchange it judged.
    POST On Session    suite    /completion    json=${COMPLETION}    expected_status=400

Two Users On Two Slots Log Their Slot Timeline
    ${batch} =    Send Concurrent Completions    ${FIRST}    ${SECOND}    n_predict=${128}    metrics=${True}
    Every Request Should Succeed    ${batch}
    Every Request Should Predict    ${batch}    ${128}

Short Load Run Logs Its Charts
    ${prompts} =    Fixed Length Prompts    count=${40}    tokens=${32}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${2}    duration=${3}    max_tokens=${16}
    ...    history=${False}
    Every Load Request Should Succeed    ${run}
