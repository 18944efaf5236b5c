*** Settings ***
Documentation       What an answer says about itself: `usage` against `timings`, the native token counts against
...                 `timings`, the rates in `timings` against the times and counts beside them, and `/slots`
...                 against the answer the slot gave, on every route and on streams, with and without a prompt
...                 from the cache. The request's own `n_predict` is the count the figures must start from.
Resource            ../../resources/self_reports.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           self-report


*** Variables ***
${PROMPT}       the llama server
${QUESTION}     hello world
${N}            ${6}


*** Test Cases ***
Native Counts Agree With Timings
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    Json Field Should Be    ${out}    timings.predicted_n    ${N}
    Native Counts Should Agree With Timings    ${out}

Native Counts Agree With Timings When The Prompt Comes From The Cache
    Complete    ${PROMPT}    n_predict=${N}    id_slot=${0}
    ${again} =    Complete    ${PROMPT}    n_predict=${N}    id_slot=${0}
    Should Be True    $again["timings"]["cache_n"] > 0    the prompt should have come from the cache
    Native Counts Should Agree With Timings    ${again}

Prompt Rates Agree With Prompt Time And Count
    ${out} =    Complete    ${PROMPT}    n_predict=${N}    cache_prompt=${False}
    Prompt Rates Should Agree With Prompt Time    ${out}[timings]

Generation Rates Count The Decode Steps After The First Token
    [Documentation]    `predicted_per_token_ms` is `predicted_ms / (predicted_n - 1)` and `predicted_per_second`
    ...    its inverse: `predicted_ms` runs from the last prompt batch, which yields the first token, to the
    ...    last token, so it spans `predicted_n - 1` decode steps (`server_slot_stats` in server-common.h).
    ...    The example in the server's README ("Timings and context usage") divides by `predicted_n`
    ...    (661.064 ms / 35 = 18.8875 ms), as builds did whose `predicted_ms` included the first token.
    [Tags]    build-specific    builds:10825-
    ${out} =    Complete    ${PROMPT}    n_predict=${N}
    Generation Rates Should Agree With Decode Steps    ${out}[timings]

V1 Usage Agrees With Its Timings
    ${out} =    Complete V1    ${PROMPT}    max_tokens=${N}    cache_prompt=${False}
    Json Field Should Be    ${out}    usage.completion_tokens    ${N}
    Usage Should Agree With Timings    ${out}
    Prompt Rates Should Agree With Prompt Time    ${out}[timings]

Chat Usage Agrees With Its Timings When The Prompt Comes From The Cache
    Chat    ${QUESTION}    max_tokens=${N}    id_slot=${1}
    ${again} =    Chat    ${QUESTION}    max_tokens=${N}    id_slot=${1}
    Should Be True    $again.json()["timings"]["cache_n"] > 0    the prompt should have come from the cache
    Usage Should Agree With Timings    ${again}

Streamed Chat Usage Agrees With The Timings Beside It
    VAR    &{with_usage}    include_usage=${True}
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${N}    stream_options=${with_usage}
    ${chunks} =    Stream Json Objects    ${result}
    Json Field Should Be    ${chunks}[-1]    usage.completion_tokens    ${N}
    Usage Should Agree With Timings    ${chunks}[-1]

Final Stream Chunk Counts Agree With Its Timings
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}
    ${chunks} =    Stream Json Objects    ${result}
    Json Field Should Be    ${chunks}[-1]    tokens_predicted    ${N}
    Native Counts Should Agree With Timings    ${chunks}[-1]
    Prompt Rates Should Agree With Prompt Time    ${chunks}[-1][timings]

Idle Slot Reports What The Last Request Left In It
    [Tags]    needs:slots
    ${out} =    Complete    ${QUESTION}    n_predict=${N}    id_slot=${1}
    ${slots} =    Get Slots
    Slot Should Report The Answer    ${slots}    ${out}
