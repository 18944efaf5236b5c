*** Settings ***
Documentation       Anthropic message streams through the SDK: the raw typed events of `messages.create(stream=True)`
...                 in their documented order, the helper `client.messages.stream(...)` with its text events and
...                 `get_final_message()`, and `AsyncAnthropic`. The final message must be the non-streamed one.
...                 Reference: https://docs.anthropic.com/en/api/messages-streaming
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Suite Server    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    api-formats    streaming


*** Variables ***
${QUESTION}     hello llama
&{GREEDY}       temperature=${0}
&{NO_EOS}       ignore_eos=${True}
@{EVENT_ORDER}
...                 message_start    content_block_start    content_block_delta    content_block_stop
...                 message_delta    message_stop


*** Test Cases ***
Stream Events Come In The Documented Order
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    Anthropic Stream    messages.create    messages=${messages}    max_tokens=${3}
    ${order} =    Event Types    ${call}    collapse=${True}
    Should Be Equal    ${order}    ${EVENT_ORDER}
    Should Be Typed    ${call.events[0]}    RawMessageStartEvent

Final Message Equals The Message At Temperature Zero
    ${messages} =    User Messages    ${TEST NAME}
    ${message} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${6}    extra_body=${GREEDY}
    ${call} =    Anthropic Stream    messages.stream    messages=${messages}    max_tokens=${6}    extra_body=${GREEDY}
    Should Be Typed    ${call.result}    ParsedMessage
    Should Be Equal    ${call.result.content[0].text}    ${message.content[0].text}
    Should Be Equal    ${call.result.stop_reason}    ${message.stop_reason}

Streamed Text Deltas Add Up To The Final Message
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    Anthropic Stream    messages.stream    messages=${messages}    max_tokens=${5}
    ${text} =    Streamed Text    ${call}
    Should Be Equal    ${call.result.content[0].text}    ${text}

Final Message Counts The Streamed Tokens
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    Anthropic Stream    messages.stream    messages=${messages}    max_tokens=${4}    extra_body=${NO_EOS}
    Should Be Equal As Integers    ${call.result.usage.output_tokens}    4
    Should Be Equal    ${call.result.stop_reason}    max_tokens

Message Start Carries The Id And Model Of The Final Message
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    Anthropic Stream    messages.stream    messages=${messages}    max_tokens=${2}
    Should Be Equal    ${call.events[0].message.id}    ${call.result.id}
    ${served} =    Served Model
    Should Be Equal    ${call.result.model}    ${served}

Helper Adds Text Events For Every Text Delta
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    Anthropic Stream    messages.stream    messages=${messages}    max_tokens=${3}
    ${types} =    Event Types    ${call}
    Should Be Equal    ${types.count("text")}    ${types.count("content_block_delta")}

Async Stream Equals The Sync Stream
    ${messages} =    User Messages    ${TEST NAME}
    ${sync} =    Anthropic Stream    messages.stream    messages=${messages}    max_tokens=${6}    extra_body=${GREEDY}
    ${async} =    Async Anthropic Stream    messages.stream    messages=${messages}    max_tokens=${6}
    ...    extra_body=${GREEDY}
    Should Be Equal    ${async.result.content[0].text}    ${sync.result.content[0].text}

Strict Validation Accepts Every Event
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    Anthropic Stream    messages.create    messages=${messages}    max_tokens=${3}    strict=${True}
    Should Be Typed    ${call.events[-1]}    RawMessageStopEvent
