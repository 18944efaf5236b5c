*** Settings ***
Documentation       /v1/chat/completions with `stream: true`: role chunk first, one finish chunk, optional
...                 usage chunk, exactly one [DONE] at the end, and the same text as without streaming.
Resource            ../../resources/chat.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           chat    streaming


*** Variables ***
${QUESTION}     stream me a story


*** Test Cases ***
Chat Stream Is An Event Stream Ending With One Done Marker
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Stream Content Type Should Be    ${result}    text/event-stream
    Stream Should End With Done Marker    ${result}
    Stream Should Have No Error    ${result}

First Chunk Carries The Assistant Role And No Content
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Only The First Chunk Should Carry The Role    ${result}    role=assistant

Last Chunk Is A Finish Chunk With Empty Delta
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    No Chunk Before The Last Should Finish    ${result}
    Finish Chunk Should Be    ${result}    length

Every Chunk Shares Id Model And Object
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Every Chunk Should Share Id Model And Object    ${result}    object=chat.completion.chunk

Usage Chunk Follows The Finish Chunk When Requested
    VAR    &{options}    include_usage=${True}
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}    stream_options=${options}
    ...    ignore_eos=${True}
    Finish Chunk Should Be    ${result}    length
    Usage Chunk Should Report    ${result}    completion_tokens=${4}
    Stream Should End With Done Marker    ${result}

Usage Chunk Is Absent Unless Requested
    [Documentation]    OpenAI sends usage only with `stream_options.include_usage`; this build follows that
    ...    (older llama.cpp builds sent it by default), hence `build-specific`.
    [Tags]    build-specific    builds:9905-
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Stream Should Have No Usage Chunk    ${result}

Streamed Text Equals Non Streamed Content
    ${plain} =    Chat Answer    ${QUESTION}    max_tokens=${24}    ignore_eos=${True}
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${24}    ignore_eos=${True}
    Streamed Text Should Be    ${result}    ${plain}
