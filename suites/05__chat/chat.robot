*** Settings ***
Documentation       OpenAI-compatible /v1/chat/completions, non-stream: response object, finish reason,
...                 usage accounting against the rendered chat template, determinism.
Resource            ../../resources/chat.resource
Resource            ../../resources/tokenize.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           chat


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Chat Answer Is A Chat Completion Object
    ${resp} =    Chat    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    object    chat.completion
    Json Field Should Be    ${resp}    choices.0.index    ${0}
    Json Field Should Be    ${resp}    choices.0.message.role    assistant
    Should Start With    ${resp.json()}[id]    chatcmpl

Max Tokens Ends The Answer With Finish Reason Length
    ${resp} =    Chat    ${QUESTION}    max_tokens=${6}    ignore_eos=${True}
    Json Field Should Be    ${resp}    choices.0.finish_reason    length
    Json Field Should Be    ${resp}    usage.completion_tokens    ${6}

Usage Total Is Prompt Plus Completion
    ${resp} =    Chat    ${QUESTION}    max_tokens=${5}    ignore_eos=${True}
    ${usage} =    Get Json Field    ${resp}    usage
    VAR    ${sum}    ${{ $usage["prompt_tokens"] + $usage["completion_tokens"] }}
    Json Field Should Be    ${usage}    total_tokens    ${sum}

Apply Template Renders The Model's ChatML Template
    [Tags]    needs:tiny
    ${prompt} =    Rendered Chat Prompt    ${QUESTION}
    Should Be Equal    ${prompt}    <|im_start|>user\n${QUESTION}<|im_end|>\n<|im_start|>assistant\n

Prompt Tokens Count The Rendered Template
    ${rendered} =    Rendered Chat Prompt    ${QUESTION}
    ${tokens} =    Tokenize    ${rendered}    add_special=${True}    parse_special=${True}
    ${resp} =    Chat    ${QUESTION}    max_tokens=${1}    ignore_eos=${True}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${{ len($tokens) }}

Zero Temperature Answers Are Identical
    ${first} =    Chat Answer    ${QUESTION}    max_tokens=${16}    ignore_eos=${True}
    ${second} =    Chat Answer    ${QUESTION}    max_tokens=${16}    ignore_eos=${True}
    Should Be Equal    ${first}    ${second}

Model Field Is Echoed In The Answer
    ${resp} =    Chat    ${QUESTION}    max_tokens=${1}    ignore_eos=${True}
    ${models} =    Get Models
    Json Field Should Be    ${resp}    model    ${models.json()}[data][0][id]

Missing Messages Are Rejected
    VAR    &{body}    max_tokens=${1}
    ${resp} =    POST On Session    suite    /v1/chat/completions    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error
