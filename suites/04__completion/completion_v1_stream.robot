*** Settings ***
Documentation       OpenAI-compatible `/v1/completions` with `stream: true`: `text_completion` chunks that share one
...                 id, one finish chunk, the `[DONE]` marker, usage on the finish chunk, and the same text and
...                 finish reasons as the non-streamed answer.
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           completion    streaming


*** Variables ***
${PROMPT}           the llama server
${N}                ${8}


*** Test Cases ***
Stream Chunks Share One Id And End With The Done Marker
    ${result} =    Stream V1 Completion    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    Stream Content Type Should Be    ${result}    text/event-stream
    Every Chunk Should Share Id Model And Object    ${result}    text_completion
    No Chunk Before The Last Should Finish    ${result}
    Stream Should End With Done Marker    ${result}

Streamed Text And Finish Reason Equal The Non Streamed Answer
    ${plain} =    Complete V1    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    ${result} =    Stream V1 Completion    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    Streamed Text Should Be    ${result}    ${plain}[choices][0][text]
    Finish Chunk Should Be    ${result}    length

Streamed Usage Arrives On The Finish Chunk
    [Documentation]    This build sends no separate `choices: []` usage chunk on /v1/completions: `usage` rides on
    ...    the finish chunk, right before `[DONE]`.
    [Tags]    build-specific    builds:9905-
    ${plain} =    Complete V1    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    ${result} =    Stream V1 Completion    ${PROMPT}    max_tokens=${N}    ignore_eos=${True}
    ${chunks} =    Stream Json Events    ${result}
    Json Field Should Be    ${chunks}[-1]    choices.0.finish_reason    length
    Json Field Should Be    ${chunks}[-1]    usage.completion_tokens    ${N}
    Json Field Should Be    ${chunks}[-1]    usage.prompt_tokens    ${plain}[usage][prompt_tokens]

Streamed Stop String Finishes With Stop
    ${free} =    Complete V1    ${PROMPT}    max_tokens=${32}    ignore_eos=${True}
    VAR    ${stop}    ${free}[choices][0][text][8:10]
    VAR    @{stops}    ${stop}
    ${plain} =    Complete V1    ${PROMPT}    max_tokens=${32}    stop=${stops}    ignore_eos=${True}
    ${result} =    Stream V1 Completion    ${PROMPT}    max_tokens=${32}    stop=${stops}    ignore_eos=${True}
    Streamed Text Should Be    ${result}    ${plain}[choices][0][text]
    Finish Chunk Should Be    ${result}    stop

Streamed Forced Eos Finishes With Stop
    ${eos} =    End Of Sequence Token
    ${forced} =    Logit Bias In Form    map    ${eos}    ${100}
    ${result} =    Stream V1 Completion    ${PROMPT}    max_tokens=${N}    logit_bias=${forced}
    Finish Chunk Should Be    ${result}    stop
    Stream Should End With Done Marker    ${result}

Streamed Logprobs Come With Each Token Chunk
    ${plain} =    Complete V1    ${PROMPT}    max_tokens=${N}    logprobs=${2}    ignore_eos=${True}
    ${result} =    Stream V1 Completion    ${PROMPT}    max_tokens=${N}    logprobs=${2}    ignore_eos=${True}
    ${streamed} =    Streamed Logprobs    ${result}
    Token Probabilities Should Be Well Formed    ${streamed}    logprob    ${2}
    ${streamed_ids} =    Field Of Each    ${streamed}    id
    ${plain_ids} =    Field Of Each    ${plain}[choices][0][logprobs][content]    id
    Should Be Equal    ${streamed_ids}    ${plain_ids}


*** Keywords ***
Streamed Logprobs
    [Documentation]    The `logprobs.content` entries of an OpenAI completion stream, in order: one per token
    ...    chunk, none on the finish chunk.
    [Arguments]    ${result}
    ${chunks} =    Stream Json Events    ${result}
    ${per_chunk} =    Values Of Each    ${chunks}    choices.0.logprobs.content    missing=@{EMPTY}
    ${entries} =    One Entry Of Each Token Chunk    ${per_chunk}
    RETURN    ${entries}
