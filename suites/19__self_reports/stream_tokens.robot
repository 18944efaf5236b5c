*** Settings ***
Documentation       The token ids of a native stream against `/tokenize` and `/detokenize`: each chunk's `tokens`
...                 spell its `content` (the server's README: `tokens` is "Same as `content` but represented as
...                 raw token ids"), all of them spell the streamed text and are the ids of the same answer
...                 without streaming, the running counts of the chunks add up, and the probabilities of each
...                 chunk name its tokens. On `tiny`, whose readable output never holds a lone UTF-8 byte, so
...                 that every chunk carries whole characters.
Resource            ../../resources/self_reports.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           self-report    streaming


*** Variables ***
${PROMPT}       the llama server
${N}            ${16}


*** Test Cases ***
Each Chunk's Tokens Spell That Chunk's Content
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}
    ${chunks} =    Stream Json Objects    ${result}
    ${texts} =    Detokenize Each Chunk    ${chunks}
    Chunk Contents Should Be    ${chunks}    ${texts}

All Streamed Tokens Spell The Streamed Text
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}
    ${chunks} =    Stream Json Objects    ${result}
    ${tokens} =    Streamed Tokens    ${chunks}
    Length Should Be    ${tokens}    ${N}
    Streamed Text Should Be Its Tokens    ${result}

Streamed Tokens Are The Tokens Of The Answer Without Streaming
    ${plain} =    Generated Tokens    ${PROMPT}    n_predict=${N}
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}
    ${chunks} =    Stream Json Objects    ${result}
    ${streamed} =    Streamed Tokens    ${chunks}
    Should Be Equal    ${streamed}    ${plain}

Running Counts Of The Chunks Add Up
    ${counted} =    Counted Prompt Tokens    ${PROMPT}
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}
    ${chunks} =    Stream Json Objects    ${result}
    Running Counts Should Add Up    ${chunks}    ${{ len($counted) }}

Streamed Probabilities Name The Streamed Tokens
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}    n_probs=${2}
    ${chunks} =    Stream Json Objects    ${result}
    Chunk Probabilities Should Name The Chunk Tokens    ${chunks}

Streamed Text Survives A Tokenize Round Trip
    [Documentation]    The streamed text tokenized and detokenized again comes back, with the space prefix that
    ...    tokenizing adds when the model's file says so (SentencePiece: tiny; see the tokenize suite).
    [Tags]    needs:model-file
    ${prefix} =    Space Prefix Of The Model
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${N}
    ${tokens} =    Tokenize    ${result.text}
    ${text} =    Detokenize    ${tokens}
    Should Be Equal    ${text}    ${prefix}${result.text}
