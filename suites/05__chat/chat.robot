*** Settings ***
Documentation       OpenAI-compatible /v1/chat/completions, non-stream: response object, finish reason,
...                 usage accounting against the rendered chat template, determinism.
Resource            ../../resources/api.resource
Suite Setup         Start Server For Suite    tiny    --ctx-size    1024    --parallel    2
Suite Teardown      Stop Servers For Suite
Test Tags           chat


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Chat Answer Is A Chat Completion Object
    ${resp} =    Chat    ${QUESTION}    max_tokens=${4}
    Status Should Be    ${resp}    200
    Header Should Start With    ${resp}    Content-Type    application/json
    Json Field Should Be    ${resp}    object    chat.completion
    Json Field Should Be    ${resp}    choices.0.index    ${0}
    Json Field Should Be    ${resp}    choices.0.message.role    assistant
    Should Start With    ${resp.json}[id]    chatcmpl

Max Tokens Ends The Answer With Finish Reason Length
    ${resp} =    Chat    ${QUESTION}    max_tokens=${6}
    Json Field Should Be    ${resp}    choices.0.finish_reason    length
    Json Field Should Be    ${resp}    usage.completion_tokens    ${6}

Usage Total Is Prompt Plus Completion
    ${resp} =    Chat    ${QUESTION}    max_tokens=${5}
    ${usage} =    Get Json Field    ${resp}    usage
    VAR    ${sum}    ${{ $usage["prompt_tokens"] + $usage["completion_tokens"] }}
    Json Field Should Be    ${usage}    total_tokens    ${sum}

Apply Template Renders The Model's ChatML Template
    ${messages} =    User Message    ${QUESTION}
    ${resp} =    POST Json To Server    ${BASE_URL}    /apply-template    ${{ {"messages": $messages} }}
    Json Field Should Be    ${resp}    prompt    <|im_start|>user\n${QUESTION}<|im_end|>\n<|im_start|>assistant\n

Prompt Tokens Count The Rendered Template
    ${messages} =    User Message    ${QUESTION}
    ${rendered} =    POST Json To Server    ${BASE_URL}    /apply-template    ${{ {"messages": $messages} }}
    ${tokens} =    Tokenize    ${rendered.json}[prompt]    add_special=${True}    parse_special=${True}
    ${resp} =    Chat    ${QUESTION}    max_tokens=${1}
    Json Field Should Be    ${resp}    usage.prompt_tokens    ${{ len($tokens) }}

Zero Temperature Answers Are Identical
    ${first} =    Chat    ${QUESTION}    max_tokens=${16}
    ${second} =    Chat    ${QUESTION}    max_tokens=${16}
    Should Be Equal    ${first.json}[choices][0][message][content]    ${second.json}[choices][0][message][content]

Model Field Is Echoed In The Answer
    ${resp} =    Chat    ${QUESTION}    max_tokens=${1}
    ${models} =    GET From Server    ${BASE_URL}    /v1/models
    Json Field Should Be    ${resp}    model    ${models.json}[data][0][id]

Missing Messages Are Rejected
    ${resp} =    POST Json To Server    ${BASE_URL}    /v1/chat/completions    ${{ {"max_tokens": 1} }}
    Error Response Should Be    ${resp}    400    invalid_request_error
