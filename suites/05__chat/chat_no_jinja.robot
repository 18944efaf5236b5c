*** Settings ***
Documentation       Chat with `--no-jinja`: the legacy renderer applies the model's ChatML template, closes a
...                 trailing assistant message instead of continuing it, refuses `tools`, and constrains answers
...                 with `response_format`, `json_schema` and `grammar` (on `tiny` these work only without Jinja,
...                 see `chat_options.robot`). A schema that allows two JSON strings ends the answer by itself.
Resource            ../../resources/chat.resource
Suite Setup         Start Server For Suite    tiny-no-jinja
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           chat


*** Variables ***
${QUESTION}     hello llama
@{YES_NO}       yes    no
&{YES_OR_NO}    type=string    enum=${YES_NO}


*** Test Cases ***
Legacy Renderer Gives The Model's ChatML Prompt
    ${messages} =    Conversation    system    be brief    user    ${QUESTION}
    ${prompt} =    Rendered Prompt Of    ${messages}
    Should Be Equal    ${prompt}
    ...    <|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\n${QUESTION}<|im_end|>\n<|im_start|>assistant\n

Trailing Assistant Message Is Closed Without Jinja
    [Documentation]    The legacy renderer ends the assistant turn and opens no new one, so there is no prefill
    ...    (with Jinja the turn stays open, see `chat_messages.robot`), hence `build-specific`.
    [Tags]    build-specific    builds:9905-
    ${messages} =    Conversation    user    ${QUESTION}    assistant    Sure
    ${prompt} =    Rendered Prompt Of    ${messages}
    Should Be Equal    ${prompt}    <|im_start|>user\n${QUESTION}<|im_end|>\n<|im_start|>assistant\nSure<|im_end|>\n

Tools Need Jinja
    [Documentation]    The refusal is a 500 `server_error` on this build (a `runtime_error` in the server), hence
    ...    `build-specific`.
    [Tags]    build-specific    errors    builds:9905-
    ${tool} =    Function Tool    get_weather    Get the current weather in a city    city
    VAR    @{tools}    ${tool}
    ${resp} =    Chat    ${QUESTION}    max_tokens=${4}    tools=${tools}    expected_status=any
    Error Response Should Be    ${resp}    500    server_error    message=tools param requires --jinja flag

Json Schema Response Format Limits The Answer To The Schema
    ${format} =    Json Schema Response Format    ${YES_OR_NO}
    ${resp} =    Chat    ${QUESTION}    max_tokens=${16}    response_format=${format}
    Json Field Should Be    ${resp}    choices.0.finish_reason    stop
    Answer Should Be A Json Value Among    ${resp}    yes    no

Json Object Response Format With A Schema Limits The Answer To It
    VAR    &{format}    type=json_object    schema=${YES_OR_NO}
    ${resp} =    Chat    ${QUESTION}    max_tokens=${16}    response_format=${format}
    Json Field Should Be    ${resp}    choices.0.finish_reason    stop
    Answer Should Be A Json Value Among    ${resp}    yes    no

Top Level Json Schema Limits The Answer To It
    ${resp} =    Chat    ${QUESTION}    max_tokens=${16}    json_schema=${YES_OR_NO}
    Json Field Should Be    ${resp}    choices.0.finish_reason    stop
    Answer Should Be A Json Value Among    ${resp}    yes    no

Json Object Response Format Opens A Json Object
    VAR    &{format}    type=json_object
    ${resp} =    Chat    ${QUESTION}    max_tokens=${4}    response_format=${format}
    Json Field Should Be    ${resp}    choices.0.finish_reason    length
    Should Start With    ${resp.json()}[choices][0][message][content]    {

Grammar Limits The Answer To Its Words
    ${resp} =    Chat    ${QUESTION}    max_tokens=${16}    grammar=root ::= "yes" | "no"
    Json Field Should Be    ${resp}    choices.0.finish_reason    stop
    Should Contain    ${YES_NO}    ${resp.json()}[choices][0][message][content]

Streamed Schema Answer Equals The Non Streamed One
    ${format} =    Json Schema Response Format    ${YES_OR_NO}
    ${plain} =    Chat Answer    ${QUESTION}    max_tokens=${16}    response_format=${format}
    ${result} =    Stream Chat    ${QUESTION}    max_tokens=${16}    response_format=${format}
    Streamed Text Should Be    ${result}    ${plain}
    Finish Chunk Should Be    ${result}    stop
