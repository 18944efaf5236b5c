*** Settings ***
Documentation       `--chat-template llama2` (a built-in template name) with `--no-jinja`: the prompt is rendered in
...                 the llama2 format instead of the model's ChatML, `/props` names the template, and the prompt
...                 tokens follow the new rendering. With Jinja on, the same flag value is taken as template text.
Resource            ../../resources/chat.resource
Resource            ../../resources/tokenize.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-no-jinja    --chat-template    llama2
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           chat    needs:managed


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Llama2 Template Wraps The User Turn In Inst Tags
    ${prompt} =    Rendered Chat Prompt    ${QUESTION}
    Should Be Equal    ${prompt}    [INST] ${QUESTION} [/INST]

Llama2 Template Puts The System Message Into The First Turn
    ${messages} =    Conversation    system    be brief    user    ${QUESTION}
    ${prompt} =    Rendered Prompt Of    ${messages}
    Should Be Equal    ${prompt}    [INST] be brief\n${QUESTION} [/INST]

Llama2 Template Closes An Assistant Turn With The End Token
    ${messages} =    Conversation    user    ${QUESTION}    assistant    Sure
    ${prompt} =    Rendered Prompt Of    ${messages}
    Should Be Equal    ${prompt}    [INST] ${QUESTION} [/INST]Sure</s>

Props Name The Built In Template
    ${props} =    Get Props
    Json Field Should Be    ${props}    chat_template    llama2
    Json Field Should Be    ${props}    chat_template_caps.supports_system_role    ${False}

Prompt Tokens Count The Llama2 Rendering
    ${rendered} =    Rendered Chat Prompt    ${QUESTION}
    ${tokens} =    Tokenize    ${rendered}    add_special=${True}    parse_special=${True}
    ${resp} =    Chat    ${QUESTION}    max_tokens=${1}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${{ len($tokens) }}

With Jinja A Built In Name Is Rendered As Template Text
    [Documentation]    Jinja is on by default, and then `--chat-template` takes a Jinja template, so the name
    ...    `llama2` is a template whose output is the text `llama2`, whatever the messages (only `chatml` is
    ...    mapped to a real template). Builds before Jinja became the default rendered the llama2 format,
    ...    hence `build-specific`.
    [Tags]    build-specific    builds:9905-
    Start Preset Server    tiny-1-slot    --chat-template    llama2    alias=jinja
    ${prompt} =    Rendered Chat Prompt    ${QUESTION}    server=jinja
    Should Be Equal    ${prompt}    llama2
