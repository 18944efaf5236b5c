*** Settings ***
Documentation       What llama-server makes of Anthropic Messages requests beyond plain text: `tool_use` and
...                 `tool_result` blocks become the assistant's tool calls and tool messages, `thinking` blocks of
...                 earlier turns become reasoning, and the sampling fields reach the sampler. Every expectation
...                 comes from the same conversation sent to the chat route in OpenAI form.
...
...                 The suite's server renders tools in the Hermes style (`../05__chat/tool_template.jinja`);
...                 `thinking` renders reasoning in think blocks (`../05__chat/thinking_template.jinja`).
Resource            ../../resources/api_formats.resource
Suite Setup         Start Tool And Thinking Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           api-formats    needs:managed    needs:tiny


*** Variables ***
${SCHEMA}           ${{ {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]} }}
${A_TOOL}           ${{ {"name": "get_weather", "description": "Weather of a city", "input_schema": $SCHEMA} }}
${O_TOOL}
...                 ${{ {"type": "function", "function": {"name": "get_weather", "description": "Weather of a city", "parameters": $SCHEMA}} }}
${ASK}              ${{ {"role": "user", "content": "Weather in Rome?"} }}
${A_CALL}
...                 ${{ {"role": "assistant", "content": [{"type": "tool_use", "id": "call-1", "name": "get_weather", "input": {"city": "Rome"}}]} }}
${O_CALL}
...                 ${{ {"role": "assistant", "content": "", "tool_calls": [{"id": "call-1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]} }}
${A_RESULT}
...                 ${{ {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call-1", "content": "sunny"}]} }}
${O_RESULT}         ${{ {"role": "tool", "tool_call_id": "call-1", "content": "sunny"} }}
${PNG}              iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==
${N}                ${8}


*** Test Cases ***
Tool Result Round Trip Answers Like The Chat Tool Messages
    ${resp} =    Anthropic Answer To    ${{ [$ASK, $A_CALL, $A_RESULT] }}    tools=${{ [$A_TOOL] }}
    ${chat} =    Chat With Messages    ${{ [$ASK, $O_CALL, $O_RESULT] }}    tools=${{ [$O_TOOL] }}
    ...    max_tokens=${N}    ignore_eos=${True}
    Json Field Should Be    ${resp}    content    ${{ [{"type": "text", "text": $chat.json()["choices"][0]["message"]["content"]}] }}
    ${input} =    Evaluate    $resp.json()["usage"]["input_tokens"] + $resp.json()["usage"]["cache_read_input_tokens"]
    Should Be Equal    ${input}    ${chat.json()}[usage][prompt_tokens]

Tool Result Round Trip Counts Like The Chat Tool Messages
    ${counted} =    Count Anthropic Tokens    ${{ [$ASK, $A_CALL, $A_RESULT] }}    tools=${{ [$A_TOOL] }}
    ${chat} =    Chat Input Tokens    ${{ [$ASK, $O_CALL, $O_RESULT] }}    tools=${{ [$O_TOOL] }}
    Should Be Equal    ${counted}[input_tokens]    ${chat}[input_tokens]

Text Beside A Tool Result Counts Like A Tool Message And A User Message
    [Documentation]    Anthropic puts the user's next words in the message that carries the tool result.
    ${both} =    Evaluate    {"role": "user", "content": [*$A_RESULT["content"], {"type": "text", "text": "and Paris?"}]}
    ${counted} =    Count Anthropic Tokens    ${{ [$ASK, $A_CALL, $both] }}    tools=${{ [$A_TOOL] }}
    ${next} =    Message    user    and Paris?
    ${chat} =    Chat Input Tokens    ${{ [$ASK, $O_CALL, $O_RESULT, $next] }}    tools=${{ [$O_TOOL] }}
    Should Be Equal    ${counted}[input_tokens]    ${chat}[input_tokens]

Tool Result Given As Text Blocks Counts Like The String
    ${blocks} =    Text Parts    sun    ny
    ${result} =    Evaluate    {"role": "user", "content": [{**$A_RESULT["content"][0], "content": $blocks}]}
    ${as_blocks} =    Count Anthropic Tokens    ${{ [$ASK, $A_CALL, $result] }}
    ${as_string} =    Count Anthropic Tokens    ${{ [$ASK, $A_CALL, $A_RESULT] }}
    Should Be Equal    ${as_blocks}[input_tokens]    ${as_string}[input_tokens]

Image In A Tool Result Is Refused By A Model Without A Projector
    ${image} =    Evaluate    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": $PNG}}
    ${result} =    Evaluate    {"role": "user", "content": [{**$A_RESULT["content"][0], "content": [$image]}]}
    ${resp} =    Anthropic Answer To    ${{ [$ASK, $A_CALL, $result] }}    expected_status=500
    Error Response Should Be    ${resp}    500    server_error
    ...    message=image input is not supported - hint: if this is unexpected, you may need to provide the mmproj

Thinking Block Of An Earlier Turn Counts Like Reasoning Content
    ${answer} =    Evaluate    {"role": "assistant", "content": [{"type": "thinking", "thinking": "add them", "signature": ""}, {"type": "text", "text": "4"}]}
    ${counted} =    Count Anthropic Tokens    ${{ [$ASK, $answer, $ASK] }}    server=thinking
    ${reasoned} =    Message    assistant    4    reasoning_content=add them
    ${chat} =    Chat Input Tokens    ${{ [$ASK, $reasoned, $ASK] }}    server=thinking
    Should Be Equal    ${counted}[input_tokens]    ${chat}[input_tokens]
    ${plain} =    Message    assistant    4
    ${without} =    Chat Input Tokens    ${{ [$ASK, $plain, $ASK] }}    server=thinking
    Should Be True    ${counted}[input_tokens] > ${without}[input_tokens]

Generated Reasoning Comes Back As A Thinking Block
    [Documentation]    The template opens a think block, so all the model writes is reasoning; Anthropic's form of
    ...    it is a `thinking` block (with an empty `signature`: a local model signs nothing).
    ${resp} =    Anthropic Answer To    ${{ [$ASK] }}    server=thinking
    ${chat} =    Chat With Messages    ${{ [$ASK] }}    server=thinking    max_tokens=${N}    ignore_eos=${True}
    VAR    ${reasoning}    ${chat.json()}[choices][0][message][reasoning_content]
    Json Field Should Be    ${resp}    content    ${{ [{"type": "thinking", "thinking": $reasoning, "signature": ""}] }}

Metadata Changes Nothing In The Answer
    ${plain} =    Anthropic Answer To    ${{ [$ASK] }}
    ${tagged} =    Anthropic Answer To    ${{ [$ASK] }}    metadata=${{ {"user_id": "user-1"} }}
    Json Field Should Be    ${tagged}    content    ${plain.json()}[content]

Top K Of One Samples The Greedy Answer
    ${greedy} =    Anthropic Answer To    ${{ [$ASK] }}
    ${top_k} =    Anthropic Answer To    ${{ [$ASK] }}    temperature=${1.0}    top_k=${1}
    Json Field Should Be    ${top_k}    content    ${greedy.json()}[content]

Tiny Top P Samples The Greedy Answer
    [Documentation]    The nucleus of a probability mass near 0 is the most likely token alone.
    ${greedy} =    Anthropic Answer To    ${{ [$ASK] }}
    ${top_p} =    Anthropic Answer To    ${{ [$ASK] }}    temperature=${1.0}    top_p=${0.001}
    Json Field Should Be    ${top_p}    content    ${greedy.json()}[content]


*** Keywords ***
Start Tool And Thinking Servers
    [Documentation]    The suite's server with the Hermes tool template (its tool list needs 1024 tokens of
    ...    context); `thinking` with the thinking template.
    Start Server For Suite    tiny-1-slot    --jinja    --chat-template-file    ${CURDIR}/../05__chat/tool_template.jinja
    ...    n_ctx=${1024}
    Start Preset Server    tiny-1-slot    --chat-template-file    ${CURDIR}/../05__chat/thinking_template.jinja
    ...    alias=thinking

Anthropic Answer To
    [Documentation]    POSTs the Anthropic conversation `messages` to /v1/messages with `${N}` tokens at temperature
    ...    0 (the end token ignored), plus `fields`, and returns the response; checks `expected_status`.
    [Arguments]    ${messages}    @{}    ${server}=suite    ${expected_status}=200    &{fields}
    VAR    &{body}    messages=${messages}    max_tokens=${N}    temperature=${0}    ignore_eos=${True}    &{fields}
    ${resp} =    POST On Session    ${server}    /v1/messages    json=${body}    expected_status=${expected_status}
    RETURN    ${resp}
