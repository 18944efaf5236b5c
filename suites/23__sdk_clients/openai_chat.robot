*** Settings ***
Documentation       `client.chat.completions.create` of the official OpenAI SDK against `/v1/chat/completions`:
...                 the typed `ChatCompletion` an application gets, token limits (`max_tokens`,
...                 `max_completion_tokens`), `n`, `stop`, `seed`, `logprobs`/`top_logprobs`, and the rules the
...                 types cannot say (`created` now, unique ids, the served model, usage that adds up). The SDK
...                 is lenient by default (it keeps unknown fields such as `timings` and does not check types);
...                 `strict=${True}` runs its own pydantic validation of the answer.
...                 Reference: https://platform.openai.com/docs/api-reference/chat/object
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Suite Server    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    chat


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Answer Is A Typed Chat Completion
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${4}
    Should Be Typed    ${answer}    ChatCompletion
    Should Be Equal    ${answer.object}    chat.completion
    Should Start With    ${answer.id}    chatcmpl-
    Should Be Typed    ${answer.choices[0].message}    ChatCompletionMessage
    Should Be Equal    ${answer.choices[0].message.role}    assistant

Max Tokens Gives That Many Tokens And Finish Reason Length
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${5}
    ...    extra_body=${IGNORE_EOS}
    Should Be Equal    ${answer.choices[0].finish_reason}    length
    Should Be Equal As Integers    ${answer.usage.completion_tokens}    5

Max Completion Tokens Limits The Answer Like Max Tokens
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_completion_tokens=${3}
    ...    extra_body=${IGNORE_EOS}
    Should Be Equal    ${answer.choices[0].finish_reason}    length
    Should Be Equal As Integers    ${answer.usage.completion_tokens}    3

Usage Adds Up
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${4}
    Should Be Typed    ${answer.usage}    CompletionUsage
    Chat Usage Should Add Up    ${answer.usage}

N Gives N Choices Indexed In Order
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${3}    n=${2}
    Length Should Be    ${answer.choices}    2
    Should Be Equal As Integers    ${answer.choices[0].index}    0
    Should Be Equal As Integers    ${answer.choices[1].index}    1

Same Seed At Temperature Zero Gives The Same Answer
    ${messages} =    User Messages    ${TEST NAME}
    ${first} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${8}    seed=${7}
    ...    temperature=${0}
    ${second} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${8}    seed=${7}
    ...    temperature=${0}
    Should Be Equal    ${first.choices[0].message.content}    ${second.choices[0].message.content}

Stop Ends The Answer Before The Stop String
    ${messages} =    User Messages    ${QUESTION}
    ${free} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${12}    temperature=${0}
    ${text} =    Answer Text    ${free}
    VAR    @{stops}    ${text}[4]
    ${cut} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${12}    temperature=${0}
    ...    stop=${stops}
    ${before} =    Text Before    ${text}    ${text}[4]
    Should Be Equal    ${cut.choices[0].message.content}    ${before}
    Should Be Equal    ${cut.choices[0].finish_reason}    stop

Logprobs Give One Typed Entry Per Token With Its Top Alternatives
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${3}
    ...    logprobs=${True}    top_logprobs=${2}
    VAR    ${entries}    ${answer.choices[0].logprobs.content}
    Length Should Be    ${entries}    ${answer.usage.completion_tokens}
    Each Should Be Typed    ${entries}    ChatCompletionTokenLogprob
    Length Should Be    ${entries[0].top_logprobs}    2
    ${tokens} =    Joined Tokens    ${entries}
    Should Be Equal    ${tokens}    ${answer.choices[0].message.content}

Created Is The Time Of The Answer In Unix Seconds
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${1}
    Created Should Be Now    ${answer.created}

Model Is The Model The Server Lists
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${1}
    ${served} =    Served Model
    Should Be Equal    ${answer.model}    ${served}

Every Answer Has Its Own Id
    ${messages} =    User Messages    ${QUESTION}
    ${first} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${1}
    ${second} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${1}
    Should Not Be Equal    ${first.id}    ${second.id}

Strict Validation Accepts The Answer
    [Documentation]    The SDK's own pydantic validation (`_strict_response_validation`) finds nothing wrong with
    ...    an answer that has logprobs.
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${2}
    ...    logprobs=${True}    top_logprobs=${1}    strict=${True}
    Should Be Typed    ${answer}    ChatCompletion


*** Keywords ***
Joined Tokens
    [Documentation]    The texts of the `token` fields of logprob entries, joined: the text they stand for.
    [Arguments]    ${entries}
    ${tokens} =    Values Of Each    ${entries}    token
    ${text} =    Catenate    SEPARATOR=${EMPTY}    @{tokens}
    RETURN    ${text}
