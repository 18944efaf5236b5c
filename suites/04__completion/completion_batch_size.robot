*** Settings ***
Documentation       At temperature 0 the answer does not depend on how the prompt is split into batches: a server
...                 with `--batch-size 16 --ubatch-size 4` and one with the default sizes generate the same tokens
...                 for prompts shorter than a micro-batch, longer than a batch, and several batches long, streamed
...                 or not. (Probabilities may differ in their last digits; the chosen tokens may not.)
Resource            ../../resources/completion.resource
Suite Setup         Start Servers With Different Batch Sizes
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Answers Should Not Depend On The Batch Size
Test Tags           completion    needs:managed


*** Variables ***
${WORDS}            ${SPACE}the llama server


*** Test Cases ***                                              REPEATS    STREAM
Prompt Shorter Than A Micro Batch Gets The Same Answer          ${1}       ${False}
Prompt Longer Than A Batch Gets The Same Answer                 ${12}      ${False}
Prompt Of Several Batches Gets The Same Answer                  ${20}      ${False}
Prompt Of Several Batches Gets The Same Streamed Answer         ${20}      ${True}


*** Keywords ***
Start Servers With Different Batch Sizes
    [Documentation]    The suite's server with small logical and physical batches, and `wide` with the defaults.
    Start Server For Suite    tiny-1-slot    --batch-size    16    --ubatch-size    4
    Start Preset Server    tiny-1-slot    alias=wide
    ${command} =    Server Command Line    wide
    Set Suite Metadata    Default Batch Server Command Line    ${command}

Answers Should Not Depend On The Batch Size
    [Documentation]    Sends `WORDS` repeated `repeats` times to both servers and compares the generated tokens
    ...    (and, with `stream`, the streamed text against the other server's plain text).
    [Arguments]    ${repeats}    ${stream}
    VAR    ${prompt}    ${{ $WORDS * $repeats }}
    ${small} =    Complete    ${prompt}    n_predict=${16}    return_tokens=${True}    cache_prompt=${False}
    ${wide} =    Complete    ${prompt}    server=wide    n_predict=${16}    return_tokens=${True}
    Json Field Should Be    ${small}    tokens    ${wide}[tokens]
    Json Field Should Be    ${small}    tokens_evaluated    ${wide}[tokens_evaluated]
    IF    ${stream}
        ${result} =    Stream Completion    ${prompt}    n_predict=${16}    cache_prompt=${False}
        Streamed Text Should Be    ${result}    ${wide}[content]
    END
