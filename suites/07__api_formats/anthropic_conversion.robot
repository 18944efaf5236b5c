*** Settings ***
Documentation       What llama-server makes of Anthropic Messages requests beyond plain text: `tool_use` and
...                 `tool_result` blocks become the assistant's tool calls and tool messages, `thinking` blocks of
...                 earlier turns become reasoning, and the sampling fields reach the sampler. Every expectation
...                 comes from the same conversation sent to the chat route in OpenAI form.
...
...                 The suite's server renders tools in the Hermes style (`../05__chat/tool_template.jinja`);
...                 `thinking` renders reasoning in think blocks (`../05__chat/thinking_template.jinja`). The
...                 conversation, in both forms, is in `tool_conversation.py`.
Resource            ../../resources/api_formats.resource
Variables           tool_conversation.py
Suite Setup         Start Tool And Thinking Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           api-formats    needs:managed    needs:tiny


*** Variables ***
${N}                            ${8}
# The conversations of the tests, each in Anthropic (A_) and in OpenAI (O_) form.
@{A_TOOLS}                      ${A_TOOL}
@{O_TOOLS}                      ${O_TOOL}
@{JUST_ASKED}                   ${ASK}
@{A_ROUND_TRIP}                 ${ASK}    ${A_CALL}    ${A_RESULT}
@{O_ROUND_TRIP}                 ${ASK}    ${O_CALL}    ${O_RESULT}
@{A_ROUND_TRIP_AND_NEXT}        ${ASK}    ${A_CALL}    ${A_RESULT_AND_TEXT}
@{O_ROUND_TRIP_AND_NEXT}        ${ASK}    ${O_CALL}    ${O_RESULT}    ${O_NEXT}
@{A_ROUND_TRIP_AS_BLOCKS}       ${ASK}    ${A_CALL}    ${A_RESULT_AS_BLOCKS}
@{A_ROUND_TRIP_WITH_IMAGE}      ${ASK}    ${A_CALL}    ${A_RESULT_WITH_IMAGE}
@{A_REASONED_TURN}              ${ASK}    ${A_REASONED}    ${ASK}
@{O_REASONED_TURN}              ${ASK}    ${O_REASONED}    ${ASK}
@{O_UNREASONED_TURN}            ${ASK}    ${O_UNREASONED}    ${ASK}


*** Test Cases ***
Tool Result Round Trip Answers Like The Chat Tool Messages
    ${resp} =    Anthropic Answer To    ${A_ROUND_TRIP}    tools=${A_TOOLS}
    ${chat} =    Chat With Messages    ${O_ROUND_TRIP}    tools=${O_TOOLS}    max_tokens=${N}    ignore_eos=${True}
    VAR    ${text}    ${chat.json()}[choices][0][message][content]
    Anthropic Content Should Be One Block    ${resp}    type=text    text=${text}
    ${prompt_tokens} =    Anthropic Prompt Tokens    ${resp}
    Should Be Equal    ${prompt_tokens}    ${chat.json()}[usage][prompt_tokens]

Tool Result Round Trip Counts Like The Chat Tool Messages
    ${counted} =    Count Anthropic Tokens    ${A_ROUND_TRIP}    tools=${A_TOOLS}
    ${chat} =    Chat Input Tokens    ${O_ROUND_TRIP}    tools=${O_TOOLS}
    Should Be Equal    ${counted}[input_tokens]    ${chat}[input_tokens]

Text Beside A Tool Result Counts Like A Tool Message And A User Message
    [Documentation]    Anthropic puts the user's next words in the message that carries the tool result.
    ${counted} =    Count Anthropic Tokens    ${A_ROUND_TRIP_AND_NEXT}    tools=${A_TOOLS}
    ${chat} =    Chat Input Tokens    ${O_ROUND_TRIP_AND_NEXT}    tools=${O_TOOLS}
    Should Be Equal    ${counted}[input_tokens]    ${chat}[input_tokens]

Tool Result Given As Text Blocks Counts Like The String
    ${as_blocks} =    Count Anthropic Tokens    ${A_ROUND_TRIP_AS_BLOCKS}
    ${as_string} =    Count Anthropic Tokens    ${A_ROUND_TRIP}
    Should Be Equal    ${as_blocks}[input_tokens]    ${as_string}[input_tokens]

Image In A Tool Result Is Refused By A Model Without A Projector
    ${resp} =    Anthropic Answer To    ${A_ROUND_TRIP_WITH_IMAGE}    expected_status=500
    Error Response Should Be    ${resp}    500    server_error
    ...    message=image input is not supported - hint: if this is unexpected, you may need to provide the mmproj

Thinking Block Of An Earlier Turn Counts Like Reasoning Content
    ${counted} =    Count Anthropic Tokens    ${A_REASONED_TURN}    server=thinking
    ${chat} =    Chat Input Tokens    ${O_REASONED_TURN}    server=thinking
    Should Be Equal    ${counted}[input_tokens]    ${chat}[input_tokens]
    ${without} =    Chat Input Tokens    ${O_UNREASONED_TURN}    server=thinking
    Should Be True    ${counted}[input_tokens] > ${without}[input_tokens]

Generated Reasoning Comes Back As A Thinking Block
    [Documentation]    The template opens a think block, so all the model writes is reasoning; Anthropic's form of
    ...    it is a `thinking` block (with an empty `signature`: a local model signs nothing).
    ${resp} =    Anthropic Answer To    ${JUST_ASKED}    server=thinking
    ${chat} =    Chat With Messages    ${JUST_ASKED}    server=thinking    max_tokens=${N}    ignore_eos=${True}
    VAR    ${reasoning}    ${chat.json()}[choices][0][message][reasoning_content]
    Anthropic Content Should Be One Block    ${resp}    type=thinking    thinking=${reasoning}    signature=${EMPTY}

Metadata Changes Nothing In The Answer
    ${plain} =    Anthropic Answer To    ${JUST_ASKED}
    VAR    &{metadata}    user_id=user-1
    ${tagged} =    Anthropic Answer To    ${JUST_ASKED}    metadata=${metadata}
    Json Field Should Be    ${tagged}    content    ${plain.json()}[content]

Top K Of One Samples The Greedy Answer
    ${greedy} =    Anthropic Answer To    ${JUST_ASKED}
    ${top_k} =    Anthropic Answer To    ${JUST_ASKED}    temperature=${1.0}    top_k=${1}
    Json Field Should Be    ${top_k}    content    ${greedy.json()}[content]

Tiny Top P Samples The Greedy Answer
    [Documentation]    The nucleus of a probability mass near 0 is the most likely token alone.
    ${greedy} =    Anthropic Answer To    ${JUST_ASKED}
    ${top_p} =    Anthropic Answer To    ${JUST_ASKED}    temperature=${1.0}    top_p=${0.001}
    Json Field Should Be    ${top_p}    content    ${greedy.json()}[content]


*** Keywords ***
Start Tool And Thinking Servers
    [Documentation]    The suite's server with the Hermes tool template (its tool list needs 1024 tokens of
    ...    context); `thinking` with the thinking template.
    Start Server For Suite    tiny-1-slot    --jinja
    ...    --chat-template-file    ${CURDIR}/../05__chat/tool_template.jinja    n_ctx=${1024}
    Start Preset Server    tiny-1-slot    --chat-template-file    ${CURDIR}/../05__chat/thinking_template.jinja
    ...    alias=thinking

Anthropic Answer To
    [Documentation]    POSTs the Anthropic conversation `messages` to /v1/messages with `${N}` tokens at temperature
    ...    0 (the end token ignored), plus `fields`, and returns the response; checks `expected_status`.
    [Arguments]    ${messages}    @{}    ${server}=suite    ${expected_status}=200    &{fields}
    VAR    &{body}    messages=${messages}    max_tokens=${N}    temperature=${0}    ignore_eos=${True}    &{fields}
    ${resp} =    POST On Session    ${server}    /v1/messages    json=${body}    expected_status=${expected_status}
    RETURN    ${resp}
