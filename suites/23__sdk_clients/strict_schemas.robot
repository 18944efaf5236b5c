*** Settings ***
Documentation       Strictness beyond what the SDKs check: the JSON of every answer validated against the SDK's own
...                 pydantic models in pydantic's strict mode (no coercion, every required field; `Schema
...                 Deviations`), and the fields the SDK keeps without knowing them (`Unknown Fields`).
...
...                 Notes, where the SDK is merely lenient (no written contract is broken): llama-server adds
...                 `timings` to chat and completion answers and to the usage chunk; the OpenAI SDK accepts them as
...                 extra fields. The OpenAI SDK reads streamed legacy completion chunks with the non-stream
...                 `Completion` model, whose `finish_reason` may not be null, so only its lenient mode reads
...                 them (see `openai_completions.robot`). Deviations from a documented schema are `bug` tests
...                 here and in `openai_responses.robot` (`Strict Validation Accepts The Response`).
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Suite Server    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Chat Completion Conforms In Strict Mode
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${2}
    ...    logprobs=${True}    top_logprobs=${1}
    ${deviations} =    Schema Deviations    ${answer}
    Should Be Empty    ${deviations}

Chat Chunks Conform In Strict Mode
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    OpenAI Stream    chat.completions.create    messages=${messages}    max_tokens=${2}
    ...    stream_options=${INCLUDE_USAGE}
    ${deviations} =    Schema Deviations    ${call.events}
    Should Be Empty    ${deviations}

Legacy Completion Conforms In Strict Mode
    ${answer} =    OpenAI Call    completions.create    prompt=${QUESTION}    max_tokens=${2}
    ${deviations} =    Schema Deviations    ${answer}
    Should Be Empty    ${deviations}

Models Conform In Strict Mode
    ${page} =    OpenAI Call    models.list
    ${deviations} =    Schema Deviations    ${page.data}
    Should Be Empty    ${deviations}

Anthropic Message Conforms In Strict Mode
    ${messages} =    User Messages    ${QUESTION}
    ${message} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${2}
    ${deviations} =    Schema Deviations    ${message}
    Should Be Empty    ${deviations}

Anthropic Stream Events Conform In Strict Mode
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    Anthropic Stream    messages.create    messages=${messages}    max_tokens=${2}
    ${deviations} =    Schema Deviations    ${call.events}
    Should Be Empty    ${deviations}

Count Tokens Conforms In Strict Mode
    ${messages} =    User Messages    ${QUESTION}
    ${count} =    Anthropic Call    messages.count_tokens    messages=${messages}
    ${deviations} =    Schema Deviations    ${count}
    Should Be Empty    ${deviations}

Chat Completion Fields Beyond The Schema Are The Server's Timings
    [Documentation]    llama-server's extension, which the SDK keeps as an extra field (see the suite notes).
    [Tags]    build-specific    builds:9905-
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${1}
    ${unknown} =    Unknown Fields    ${answer}
    VAR    @{expected}    timings
    Should Be Equal    ${unknown}    ${expected}

Error Object Code Is A String Or Null
    [Documentation]    Contract: the OpenAI API's error object (the OpenAPI `Error` schema; the SDK's `ErrorObject`):
    ...    `code` is a string or null (`"invalid_api_key"`, `"context_length_exceeded"`), `message` and `type`
    ...    strings, `param` a string or null. This build sends the HTTP status as an integer `code` (`400`);
    ...    the lenient SDK turns it into the string `"400"`.
    [Tags]    bug    errors
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    messages=${messages}    max_tokens=${-3}
    ${deviations} =    Error Body Deviations    ${error}
    Should Be Empty    ${deviations}

Anthropic Error Conforms To The Error Response Schema
    [Documentation]    Contract: the Anthropic errors page: `{"type": "error", "error": {"type": …, "message":
    ...    …}}` (the SDK's `ErrorResponse`). This build answers the Anthropic routes with OpenAI's error object
    ...    (see `anthropic_errors.robot`, `Error Body Has The Anthropic Shape`).
    [Tags]    bug    errors
    ${error} =    Anthropic Call Should Fail    models.retrieve    model_id=no-such-model
    ${deviations} =    Error Body Deviations    ${error}
    Should Be Empty    ${deviations}
