*** Settings ***
Documentation       Comparisons that mean something: the same profile run twice on the same server is `unchanged`
...                 or `inconclusive` (never a regression from noise), against the previous run and against a
...                 saved baseline; the same profile on the same server restarted with one thread instead of two
...                 is `regressed`. Single-user runs on SmolLM2, so that threads decide the speed.
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    smollm2-load    --threads    2
Suite Teardown      Stop Servers For Suite
Test Timeout        5 minutes
Test Tags           load    needs-smollm2


*** Variables ***
${DURATION}         ${15}
${MAX_TOKENS}       ${32}


*** Test Cases ***
Rerun Of The Same Server Is Not A Regression
    ${prompts} =    Fixed Length Prompts    count=${200}    tokens=${128}
    ${first} =    Run Single User    ${prompts}    same-server
    Save Load Baseline    ${first}    same-server
    ${second} =    Run Single User    ${prompts}    same-server    baseline=same-server
    Load Verdict Should Be    ${second}    unchanged    inconclusive    against=previous
    Load Verdict Should Be    ${second}    unchanged    inconclusive    against=baseline

Server With Fewer Threads Is Reported As Regressed
    ${prompts} =    Fixed Length Prompts    count=${200}    tokens=${128}
    ${two_threads} =    Run Single User    ${prompts}    two-threads
    Restart Suite Server    smollm2-load    --threads    1
    ${one_thread} =    Run Single User    ${prompts}    one-thread    history=${False}
    Compare Load Results    ${one_thread}    ${two_threads}
    Load Verdict Should Be    ${one_thread}    regressed    against=reference


*** Keywords ***
Run Single User
    [Documentation]    One user, request after request, for ${DURATION} s: TPOT is the server's own speed.
    [Arguments]    ${prompts}    ${name}    ${baseline}=${None}    ${history}=${True}
    ${run} =    Run Load Profile    ${prompts}    synchronous    duration=${DURATION}    warmup_requests=${2}
    ...    max_tokens=${MAX_TOKENS}    name=${name}    baseline=${baseline}    history=${history}
    Every Load Request Should Succeed    ${run}
    Load Results Should Be Valid    ${run}
    RETURN    ${run}
