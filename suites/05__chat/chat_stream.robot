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
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}
    Stream Status Should Be    ${result}    200
    Stream Content Type Should Be    ${result}    text/event-stream
    Stream Should End With Done Marker    ${result}
    Stream Should Have No Error    ${result}

First Chunk Carries The Assistant Role And No Content
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}
    ${events} =    Stream Json Events    ${result}
    Json Field Should Be    ${events}[0]    choices.0.delta.role    assistant
    Json Field Should Be    ${events}[0]    choices.0.delta.content    ${None}
    Should Be Equal    ${{ [e["choices"][0]["delta"].get("role") for e in $events[1:]] }}    ${{ [None] * 5 }}

Last Chunk Is A Finish Chunk With Empty Delta
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}
    ${events} =    Stream Json Events    ${result}
    Json Field Should Be    ${events}[-1]    choices.0.finish_reason    length
    Json Field Should Be    ${events}[-1]    choices.0.delta    ${{ {} }}
    Should Be Equal    ${{ [e["choices"][0]["finish_reason"] for e in $events[:-1]] }}    ${{ [None] * 5 }}

Every Chunk Shares Id Model And Object
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}
    ${events} =    Stream Json Events    ${result}
    Should Be Equal    ${{ len({(e["id"], e["model"], e["object"]) for e in $events}) }}    ${1}
    Json Field Should Be    ${events}[0]    object    chat.completion.chunk

Usage Chunk Follows The Finish Chunk When Requested
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}    stream_options=${{ {"include_usage": True} }}
    ${events} =    Stream Json Events    ${result}
    Json Field Should Be    ${events}[-1]    choices    ${{ [] }}
    Json Field Should Be    ${events}[-1]    usage.completion_tokens    ${4}
    Json Field Should Be    ${events}[-2]    choices.0.finish_reason    length
    Stream Should End With Done Marker    ${result}

Usage Chunk Is Absent Unless Requested
    [Documentation]    OpenAI sends usage only with `stream_options.include_usage`; this build follows that
    ...    (older llama.cpp builds sent it by default), hence `build-specific`.
    [Tags]    build-specific
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${4}
    ${events} =    Stream Json Events    ${result}
    Should Be Equal    ${{ [e for e in $events if "usage" in e] }}    ${{ [] }}

Streamed Text Equals Non Streamed Content
    ${plain} =    Chat Answer    ${QUESTION}    max_tokens=${24}
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${24}
    Streamed Text Should Be    ${result}    ${plain}
