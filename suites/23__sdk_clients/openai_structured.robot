*** Settings ***
Documentation       Structured outputs through the OpenAI SDK: `response_format` with a JSON schema, and
...                 `client.chat.completions.parse(...)` and `.stream(...)` with a pydantic model, whose parsed
...                 result is the model instance. The schema (`sdk_schemas.py`) has only literal fields, so its
...                 grammar fixes the answer and ends it, on any model: the suite runs on SmolLM2 with default
...                 flags, so an external server runs it too (`tiny` takes grammars only with the legacy renderer,
...                 `--no-jinja`, which cannot be seen from outside; with Jinja this build answers it 400 "Failed to
...                 initialize samplers"). Between the fields the grammar allows whitespace, which a model sampling at
...                 the server's default temperature may repeat until `max_tokens` (Gemma 3 270M did, now and then):
...                 every call is greedy (`temperature` 0).
...                 Reference: https://platform.openai.com/docs/guides/structured-outputs
Resource            ../../resources/clients.resource
Variables           sdk_schemas.py
Suite Setup         Start SDK Suite Server    smollm2
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    chat


*** Variables ***
${QUESTION}     The capital of France, as JSON.
&{PARIS}        name=Paris    country=France


*** Test Cases ***
Parse Returns The Pydantic Model Of The Answer
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.parse    messages=${messages}    response_format=${CITY}
    ...    max_tokens=${64}    temperature=${0}
    Should Be Typed    ${answer}    ParsedChatCompletion
    Should Be Equal    ${answer.choices[0].message.parsed}    ${PARIS_CITY}

Json Schema Response Format Gives Content That Matches The Schema
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${64}
    ...    temperature=${0}    response_format=${CITY_RESPONSE_FORMAT}
    ${content} =    Answer Text    ${answer}
    ${parsed} =    Parsed Json    ${content}
    Should Be Equal    ${parsed}    ${PARIS}

Structured Answer Ends By Itself With Finish Reason Stop
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.parse    messages=${messages}    response_format=${CITY}
    ...    max_tokens=${64}    temperature=${0}
    Should Be Equal    ${answer.choices[0].finish_reason}    stop
    Should Be True    ${answer.usage.completion_tokens} < 64

Stream Helper Parses The Final Completion
    ${messages} =    User Messages    ${QUESTION}
    ${call} =    OpenAI Stream    chat.completions.stream    messages=${messages}    response_format=${CITY}
    ...    max_tokens=${64}    temperature=${0}
    Should Be Equal    ${call.result.choices[0].message.parsed}    ${PARIS_CITY}
    ${streamed} =    Streamed Text    ${call}
    Should Be Equal    ${call.result.choices[0].message.content}    ${streamed}

Async Parse Returns The Same Model
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    Async OpenAI Call    chat.completions.parse    messages=${messages}    response_format=${CITY}
    ...    max_tokens=${64}    temperature=${0}
    Should Be Equal    ${answer.choices[0].message.parsed}    ${PARIS_CITY}
