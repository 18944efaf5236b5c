*** Settings ***
Documentation       Chat streams read through the OpenAI SDK: the iterator of `create(stream=True)` (typed
...                 `ChatCompletionChunk`s), the stream helper `client.chat.completions.stream(...)` with its
...                 events and `get_final_completion()`, and `AsyncOpenAI`'s `async for`. A stream must say what
...                 the answer says (same text at temperature 0), carry one `id` and `model` in every chunk, and
...                 end with the finish reason and, when asked, a usage chunk.
...                 Reference: https://platform.openai.com/docs/api-reference/chat/streaming
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Suite Server    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    streaming


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Stream Gives Typed Chunks Ending With Finish Reason Length
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${4}
    ...    extra_body=${IGNORE_EOS}
    Each Should Be Typed    ${call.events}    ChatCompletionChunk
    Should Be Equal    ${call.events[-1].object}    chat.completion.chunk
    Should Be Equal    ${call.events[-1].choices[0].finish_reason}    length
    Should Be Equal    ${call.events[0].choices[0].delta.role}    assistant

Streamed Text Equals The Answer At Temperature Zero
    ${messages} =    User Messages    ${TEST NAME}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${8}    temperature=${0}
    ${call} =    OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${8}    temperature=${0}
    ${text} =    Streamed Text    ${call}
    Should Be Equal    ${text}    ${answer.choices[0].message.content}

Every Chunk Carries The Same Id Model And Creation Time
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${4}
    ${ids} =    Event Field Values    ${call}    id
    One Value Should Repeat    ${ids}    id
    ${models} =    Event Field Values    ${call}    model
    ${served} =    Served Model
    Should Not Be Empty    ${models}
    Every Value Should Be    ${models}    ${served}
    Created Should Be Now    ${call.events[0].created}

Include Usage Ends The Stream With A Usage Chunk
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${5}
    ...    extra_body=${IGNORE_EOS}
    ...    stream_options=${INCLUDE_USAGE}
    Should Be Empty    ${call.events[-1].choices}
    Should Be Equal As Integers    ${call.events[-1].usage.completion_tokens}    5
    Chat Usage Should Add Up    ${call.events[-1].usage}

Stream Helper Final Completion Holds The Streamed Text
    [Documentation]    `client.chat.completions.stream(...)` accumulates the chunks; a `stop` string makes the
    ...    answer end with finish reason `stop`, so `get_final_completion()` returns it.
    ${messages} =    User Messages    ${QUESTION}
    ${free} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${12}    temperature=${0}
    ${text} =    Answer Text    ${free}
    VAR    @{stops}    ${text}[4]
    ${call} =    OpenAI Stream    chat.completions.stream    messages=${messages}    max_tokens=${12}
    ...    temperature=${0}    stop=${stops}
    Should Be Typed    ${call.result}    ParsedChatCompletion
    ${streamed} =    Streamed Text    ${call}
    Should Be Equal    ${call.result.choices[0].message.content}    ${streamed}
    Should Be Equal    ${call.result.choices[0].finish_reason}    stop

Stream Helper Emits Content Events In Order
    ${messages} =    User Messages    ${QUESTION}
    ${free} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${12}    temperature=${0}
    ${text} =    Answer Text    ${free}
    VAR    @{stops}    ${text}[4]
    ${call} =    OpenAI Stream    chat.completions.stream    messages=${messages}    max_tokens=${12}
    ...    temperature=${0}    stop=${stops}
    ${types} =    Event Types    ${call}
    Should Be Equal    ${types}[-1]    content.done
    Should Contain    ${types}    content.delta

Stream Helper Reports The Length Limit As Length Finish Reason Error
    [Documentation]    `get_final_completion()` parses the answer and refuses one cut by the token limit: with
    ...    `ignore_eos` no model stops by itself, so the limit always ends it.
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    OpenAI Stream Should Fail    chat.completions.stream    messages=${messages}    max_tokens=${3}
    ...    extra_body=${IGNORE_EOS}
    Should Be Typed    ${call.error}    LengthFinishReasonError
    Should Be Equal    ${call.error.completion.choices[0].finish_reason}    length

Async Stream Equals The Sync Stream
    ${messages} =    User Messages    ${TEST NAME}
    ${sync} =    OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${6}    temperature=${0}
    ${async} =    Async OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${6}
    ...    temperature=${0}
    ${sync_text} =    Streamed Text    ${sync}
    ${async_text} =    Streamed Text    ${async}
    Should Be Equal    ${async_text}    ${sync_text}

Async Call Equals The Sync Call
    ${messages} =    User Messages    ${TEST NAME}
    ${sync} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${6}    temperature=${0}
    ${async} =    Async OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${6}
    ...    temperature=${0}
    Should Be Typed    ${async}    ChatCompletion
    Should Be Equal    ${async.choices[0].message.content}    ${sync.choices[0].message.content}

Strict Validation Accepts Every Chunk
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${3}    strict=${True}
    ...    stream_options=${INCLUDE_USAGE}
    Each Should Be Typed    ${call.events}    ChatCompletionChunk
