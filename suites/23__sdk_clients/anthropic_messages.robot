*** Settings ***
Documentation       `client.messages.create` and `client.messages.count_tokens` of the official Anthropic SDK against
...                 `/v1/messages`: the typed `Message` with its `TextBlock`, `max_tokens` and `stop_reason`,
...                 the system prompt, stop sequences, usage, and the token count of the same request.
...                 This SDK version has no `temperature` argument; the tests send it with `extra_body`.
...                 Reference: https://docs.anthropic.com/en/api/messages
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Suite Server    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    api-formats


*** Variables ***
${QUESTION}     hello llama
&{GREEDY}       temperature=${0}
&{NO_EOS}       ignore_eos=${True}


*** Test Cases ***
Message Is A Typed Message With One Text Block
    ${messages} =    User Messages    ${QUESTION}
    ${message} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${4}
    Should Be Typed    ${message}    Message
    Should Be Equal    ${message.type}    message
    Should Be Equal    ${message.role}    assistant
    Length Should Be    ${message.content}    1
    Should Be Typed    ${message.content[0]}    TextBlock

Max Tokens Gives That Many Tokens And Stop Reason Max Tokens
    ${messages} =    User Messages    ${QUESTION}
    ${message} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${5}    extra_body=${NO_EOS}
    Should Be Equal    ${message.stop_reason}    max_tokens
    Should Be Equal    ${message.stop_sequence}    ${NONE}
    Should Be Equal As Integers    ${message.usage.output_tokens}    5

Same Request At Temperature Zero Gives The Same Message
    ${messages} =    User Messages    ${TEST NAME}
    ${first} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${8}    extra_body=${GREEDY}
    ${second} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${8}    extra_body=${GREEDY}
    Should Be Equal    ${first.content[0].text}    ${second.content[0].text}

System Prompt Counts In The Input Tokens
    [Tags]    needs:tiny
    ${messages} =    User Messages    ${QUESTION}
    ${plain} =    Anthropic Call    messages.count_tokens    messages=${messages}
    ${with_system} =    Anthropic Call    messages.count_tokens    messages=${messages}    system=be brief
    Should Be Typed    ${with_system}    MessageTokensCount
    Should Be True    ${with_system.input_tokens} > ${plain.input_tokens}

Stop Sequence Ends The Message Before It
    ${messages} =    User Messages    ${QUESTION}
    ${free} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${12}    extra_body=${GREEDY}
    VAR    ${text}    ${free.content[0].text}
    VAR    @{stops}    ${text}[4]
    ${cut} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${12}    extra_body=${GREEDY}
    ...    stop_sequences=${stops}
    ${before} =    Text Before    ${text}    ${text}[4]
    Should Be Equal    ${cut.content[0].text}    ${before}
    Should Be Equal    ${cut.stop_sequence}    ${text}[4]

Count Tokens Equals The Input Tokens Of The Message
    [Documentation]    `usage.input_tokens` counts the prompt tokens that were not read from the cache
    ...    (`cache_read_input_tokens`); together they are the prompt that `count_tokens` counts.
    ${messages} =    User Messages    ${TEST NAME}
    ${count} =    Anthropic Call    messages.count_tokens    messages=${messages}    system=be brief
    ${message} =    Anthropic Call    messages.create    messages=${messages}    system=be brief    max_tokens=${1}
    VAR    ${usage}    ${message.usage}
    Should Be Equal As Integers    ${count.input_tokens}    ${{ $usage.input_tokens + $usage.cache_read_input_tokens }}

Model Is The Model The Server Lists
    ${messages} =    User Messages    ${QUESTION}
    ${message} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${1}
    ${served} =    Served Model
    Should Be Equal    ${message.model}    ${served}

Every Message Has Its Own Id
    ${messages} =    User Messages    ${QUESTION}
    ${first} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${1}
    ${second} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${1}
    Should Not Be Equal    ${first.id}    ${second.id}

Strict Validation Accepts The Message
    ${messages} =    User Messages    ${QUESTION}
    ${message} =    Anthropic Call    messages.create    messages=${messages}    max_tokens=${2}    strict=${True}
    Should Be Typed    ${message}    Message
