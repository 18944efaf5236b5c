*** Settings ***
Documentation       Answers stay right under load. Four users on four slots of the tiny model: a sample of the
...                 requests is sent again alone after the run, at temperature 0 with the same seed, and must get the
...                 same text; every answer is a valid stream and /metrics moved by the tokens the client counted.
...                 Then the same profile in three trials, twice: the second is judged against the first from the
...                 spread between trials. Last, half of four streams hang up at once mid-answer.
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    tiny-load    n_slots=${4}
Suite Teardown      Stop Servers For Suite
Test Timeout        3 minutes
Test Tags           load


*** Variables ***
${PROMPT_TOKENS}    ${48}
${MAX_TOKENS}       ${32}


*** Test Cases ***
Answers Sent Again Alone Are The Same As Under Load
    [Documentation]    Server correctness, judged on a busy machine too: the answers, the streams and the counters
    ...    do not depend on how fast the machine is.
    ${prompts} =    Fixed Length Prompts    count=${64}    tokens=${PROMPT_TOKENS}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${4}    duration=${8}    warmup_requests=${4}
    ...    max_tokens=${MAX_TOKENS}    check_answers=${8}
    Every Load Request Should Succeed    ${run}
    Answers Should Not Change Under Load    ${run}
    Server Token Counters Should Agree With The Client    ${run}

Rerun In Three Trials Is Judged From The Spread Between Trials
    [Documentation]    Two repeated runs of one server: each figure of the second is judged from the trials'
    ...    spread, and a rerun of the same server is never a regression.
    ${prompts} =    Fixed Length Prompts    count=${64}    tokens=${PROMPT_TOKENS}
    Run Repeated Profile    ${prompts}
    ${second} =    Run Repeated Profile    ${prompts}
    Should Be Equal    ${second.summary}[trials][n]    ${3}
    Should Be Equal    ${second.summary}[trials][server_restarted]    ${False}
    Load Verdict Should Be    ${second}    unchanged    inconclusive    against=previous
    Load Verdict Should Be Judged From Trials    ${second}    against=previous

Server Recovers When Half The Streams Hang Up At Once
    ${prompts} =    Fixed Length Prompts    count=${8}    tokens=${PROMPT_TOKENS}
    ${out} =    Server Should Recover From Mass Disconnects    ${prompts}    streams=${4}
    Should Be Equal    ${out}[hung_up]    ${2}


*** Keywords ***
Run Repeated Profile
    [Documentation]    Two users for 4 s, three times. Not held to the validity flags: a machine busy with other
    ...    work is what the trials' spread is for.
    [Arguments]    ${prompts}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${2}    duration=${4}    warmup_requests=${2}
    ...    max_tokens=${MAX_TOKENS}    repeats=${3}    name=repeated-trials
    Every Load Request Should Succeed    ${run}
    RETURN    ${run}
