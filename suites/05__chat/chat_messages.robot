*** Settings ***
Documentation       How a chat history becomes a prompt on the model's own ChatML template (Jinja, the default):
...                 system turns, multipart `content`, a trailing assistant message (prefill),
...                 `continue_final_message` and `add_generation_prompt`, the route without `/v1`, and the
...                 `input_tokens` route. The rendered prompt (`/apply-template`) is the reference: prompt token
...                 counts and answers are checked against it and against native `/completion`.
Resource            ../../resources/chat.resource
Resource            ../../resources/completion.resource
Resource            ../../resources/tokenize.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           chat


*** Variables ***
${QUESTION}         hello llama
${SYSTEM}           be brief
${PREFILL}          Sure


*** Test Cases ***
System Message Is Rendered Before The User Turn
    [Documentation]    The turns of `tiny`'s ChatML template: another model's template marks them otherwise.
    [Tags]    needs:tiny
    ${messages} =    System And User Messages
    ${prompt} =    Rendered Prompt Of    ${messages}
    Should Be Equal    ${prompt}
    ...    <|im_start|>system\n${SYSTEM}<|im_end|>\n<|im_start|>user\n${QUESTION}<|im_end|>\n<|im_start|>assistant\n

Prompt Tokens Count The System Turn Too
    ${messages} =    System And User Messages
    ${rendered} =    Rendered Prompt Of    ${messages}
    ${tokens} =    Tokenize    ${rendered}    add_special=${True}    parse_special=${True}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${1}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${{ len($tokens) }}

Text Parts Are Joined With A Newline
    ${parts} =    Text Parts    hello    llama
    ${message} =    Message    user    ${parts}
    VAR    @{messages}    ${message}
    ${multipart} =    Rendered Prompt Of    ${messages}
    ${joined} =    Rendered Chat Prompt    hello\nllama
    Should Be Equal    ${multipart}    ${joined}

Text Parts Are Answered Like The Joined Text
    ${parts} =    Text Parts    hello    llama
    ${message} =    Message    user    ${parts}
    VAR    @{messages}    ${message}
    ${multipart} =    Chat With Messages    ${messages}    max_tokens=${6}
    ${joined} =    Chat    hello\nllama    max_tokens=${6}    ignore_eos=${True}
    Json Field Should Be    ${multipart}    usage.prompt_tokens    ${joined.json()}[usage][prompt_tokens]
    Json Field Should Be    ${multipart}    choices.0.message.content    ${joined.json()}[choices][0][message][content]

Chat Route Without The V1 Prefix Gives The Same Answer
    ${messages} =    User Message    ${QUESTION}
    VAR    &{body}    messages=${messages}    temperature=${0}    max_tokens=${6}
    ${resp} =    POST On Session    suite    /chat/completions    json=${body}    expected_status=200
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    object    chat.completion
    ${v1_answer} =    Chat Answer    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    Json Field Should Be    ${resp}    choices.0.message.content    ${v1_answer}

Trailing Assistant Message Is Rendered As An Open Turn
    ${messages} =    Prefilled Messages
    ${prompt} =    Rendered Prompt Of    ${messages}
    ${open_turn} =    Rendered Chat Prompt    ${QUESTION}
    Should Be Equal    ${prompt}    ${open_turn}${PREFILL}

Prefilled Answer Is The Prefill Followed By Its Continuation
    [Documentation]    The answer's `content` repeats the prefill, then the tokens generated after it (OpenAI has
    ...    no prefill; other llama.cpp builds return the continuation alone), hence `build-specific`.
    [Tags]    build-specific    builds:9905-
    ${messages} =    Prefilled Messages
    ${rendered} =    Rendered Prompt Of    ${messages}
    ${continuation} =    Complete    ${rendered}    n_predict=${4}    ignore_eos=${True}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${4}
    Json Field Should Be    ${resp}    choices.0.message.content    ${PREFILL}${continuation}[content]
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${continuation}[tokens_evaluated]

Continue Final Message Renders The Same Open Turn
    ${messages} =    Prefilled Messages
    ${continued} =    Rendered Prompt Of    ${messages}    continue_final_message=${True}
    ...    add_generation_prompt=${False}
    ${prefilled} =    Rendered Prompt Of    ${messages}
    Should Be Equal    ${continued}    ${prefilled}

Add Generation Prompt False Leaves The Assistant Turn Unopened
    [Tags]    needs:tiny
    ${messages} =    User Message    ${QUESTION}
    ${prompt} =    Rendered Prompt Of    ${messages}    add_generation_prompt=${False}
    Should Be Equal    ${prompt}    <|im_start|>user\n${QUESTION}<|im_end|>\n

Input Tokens Route Counts The Chat Prompt
    [Documentation]    The count equals `usage.prompt_tokens` of the same chat. The object is named
    ...    `response.input_tokens`, the Responses API's name, on the chat route too (`build-specific`).
    [Tags]    build-specific    builds:9905-
    ${messages} =    System And User Messages
    ${count} =    Chat Input Tokens    ${messages}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${1}
    Json Field Should Be    ${count}    input_tokens    ${resp.json()}[usage][prompt_tokens]
    Json Field Should Be    ${count}    object    response.input_tokens

Input Tokens Route Answers Without The V1 Prefix
    ${messages} =    System And User Messages
    ${v1_count} =    Chat Input Tokens    ${messages}
    ${count} =    Chat Input Tokens    ${messages}    route=/chat/completions/input_tokens
    Should Be Equal    ${count}    ${v1_count}

Tools Are Left Out By A Template Without Tool Support
    [Documentation]    Both without the prompt cache: `cached_tokens` in `usage` says what the slot held before,
    ...    not what the template rendered (with a sliding window it differs between two equal requests).
    [Tags]    needs:no-tools
    ${props} =    Get Props
    Json Field Should Be    ${props}    chat_template_caps.supports_tools    ${False}
    ${tool} =    Function Tool    get_weather    Get the current weather in a city    city
    ${messages} =    User Message    ${QUESTION}
    VAR    @{tools}    ${tool}
    ${with_tools} =    Chat With Messages    ${messages}    max_tokens=${4}    tools=${tools}
    ...    cache_prompt=${False}
    ${without} =    Chat With Messages    ${messages}    max_tokens=${4}    cache_prompt=${False}
    Should Be Equal    ${with_tools.json()}[usage]    ${without.json()}[usage]
    Should Be Equal    ${with_tools.json()}[choices]    ${without.json()}[choices]


*** Keywords ***
System And User Messages
    [Documentation]    A system turn (`${SYSTEM}`), then the user's `${QUESTION}`.
    ${messages} =    Conversation    system    ${SYSTEM}    user    ${QUESTION}
    RETURN    ${messages}

Prefilled Messages
    [Documentation]    The user's `${QUESTION}`, then an assistant message `${PREFILL}` that the answer continues.
    ${messages} =    Conversation    user    ${QUESTION}    assistant    ${PREFILL}
    RETURN    ${messages}
