*** Settings ***
Documentation       Load that looks like real traffic, on the tiny model: conversations arriving as sessions on an
...                 open loop, a bursty trace replayed on its own schedule with exact token counts, and the chat,
...                 Responses, Messages and infill streams mixed in one run, and a Mooncake-style trace file given
...                 by path (a bad row is refused with its file and line; see docs/load.md).
Resource            ../../resources/load.resource
Library             OperatingSystem
Suite Setup         Start Server For Suite    tiny-load
Suite Teardown      Stop Servers For Suite
Test Timeout        3 minutes
Test Tags           load    needs:tiny


*** Test Cases ***
Conversations Arriving On An Open Loop Reuse Their History
    ${talks} =    Load Dataset    generated-multiturn    count=${60}    turns=${3}    words=${20}
    ${run} =    Run Load Profile    ${talks}    rate    rate=${1}    duration=${12}    think_time=${0.2}
    ...    max_tokens=${16}
    Every Load Request Should Succeed    ${run}
    Later Turns Should Reuse The Conversation So Far    ${run}
    Load Results Should Be Valid    ${run}

A Bursty Trace Replays On Its Schedule With Exact Token Counts
    ${trace} =    Load Dataset    bursty-trace    requests=${40}    rate=${4}    seed=${1}
    ${run} =    Run Load Profile    ${trace}    rate    rate=${4}    duration=${60}
    Every Load Request Should Match Its Trace Row    ${run}
    Load Results Should Be Valid    ${run}

Chat Responses Messages And Infill Streams Share The Load
    [Documentation]    Warm (cold=False): /v1/messages passes on only temperature, top_p, top_k and stream of
    ...    llama-server's own fields (server README, "POST /v1/messages"), so it cannot be sent `cache_prompt: false`.
    ...    `tiny` never stops by itself, so every route still gives its 16 tokens without `ignore_eos`.
    [Tags]    needs:infill
    ${mix} =    Load Dataset    route-mix    count=${100}    max_chars=${300}
    ...    weights=/v1/chat/completions=2 /v1/responses=1 /v1/messages=1 /infill=1
    ${run} =    Run Load Profile    ${mix}    concurrency    users=${2}    duration=${10}    max_tokens=${16}
    ...    cold=${False}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    output_tokens=${16}
    Load Results Should Be Valid    ${run}

A Mooncake Trace File Replays With Its Token Counts
    ${path} =    Write Trace File    mooncake.jsonl
    ...    {"timestamp": 0, "input_length": 60, "output_length": 8, "hash_ids": [1]}
    ...    {"timestamp": 400, "input_length": 90, "output_length": 4, "hash_ids": [1, 2]}
    ...    {"timestamp": 900, "input_length": 45, "output_length": 12, "hash_ids": [3]}
    ${trace} =    Load Dataset    trace    path=${path}
    ${run} =    Run Load Profile    ${trace}    rate    rate=${2}    duration=${10}
    Every Load Request Should Match Its Trace Row    ${run}

A Trace File With A Bad Row Is Refused With Its Line
    ${path} =    Write Trace File    burst.csv    Timestamp,Request tokens,Response tokens    0.5,40,8
    ...    1.5,forty,8
    Run Keyword And Expect Error    *burst.csv:3: Request tokens is not a number: 'forty'
    ...    Load Dataset    trace    path=${path}


*** Keywords ***
Write Trace File
    [Documentation]    Writes `lines` as the file `name` in the output directory and returns its path.
    [Arguments]    ${name}    @{lines}
    ${text} =    Catenate    SEPARATOR=\n    @{lines}
    Create File    ${OUTPUT DIR}/${name}    ${text}\n
    RETURN    ${OUTPUT DIR}/${name}
