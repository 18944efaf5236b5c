*** Settings ***
Documentation       Vertex AI mode (`AIP_MODE=PREDICTION`): POST /predict takes `{"instances": [...]}`, runs each
...                 instance on the route its `@requestFormat` names, and answers `{"predictions": [...]}`, one per
...                 instance and in order. An instance that fails gets its error object as its prediction while
...                 the request itself succeeds; only a malformed request as a whole gets an HTTP error.
Resource            ../../resources/api_formats.resource
Suite Setup         Start Vertex Server For Suite
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           api-formats    needs:managed


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Chat Instance Is Predicted Like A Chat Completion
    ${messages} =    User Message    ${QUESTION}
    ${instance} =    Vertex Instance    chatCompletions    messages=${messages}    max_tokens=${4}
    ${resp} =    Predict    ${instance}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    predictions.0.object    chat.completion
    ${chat_answer} =    Chat Answer    ${QUESTION}    max_tokens=${4}    ignore_eos=${True}
    Json Field Should Be    ${resp}    predictions.0.choices.0.message.content    ${chat_answer}

Each Instance Gets One Prediction In Order
    ${messages} =    User Message    ${QUESTION}
    ${chat} =    Vertex Instance    chatCompletions    messages=${messages}    max_tokens=${2}
    ${completion} =    Vertex Instance    completions    prompt=${QUESTION}    max_tokens=${2}
    ${anthropic} =    Vertex Instance    messages    messages=${messages}    max_tokens=${2}
    ${resp} =    Predict    ${chat}    ${completion}    ${anthropic}
    Length Should Be    ${resp.json()}[predictions]    3
    Json Field Should Be    ${resp}    predictions.0.object    chat.completion
    Json Field Should Be    ${resp}    predictions.1.object    text_completion
    Json Field Should Be    ${resp}    predictions.2.type    message

Empty Instances Give Empty Predictions
    ${resp} =    Predict
    Json Keys Should Be    ${resp}    predictions
    Json Field Should Be    ${resp}    predictions    expected=@{EMPTY}

Stream Flag Of An Instance Is Ignored
    ${messages} =    User Message    ${QUESTION}
    ${instance} =    Vertex Instance    chatCompletions    messages=${messages}    max_tokens=${3}    stream=${True}
    ${resp} =    Predict    ${instance}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    predictions.0.object    chat.completion
    Json Field Should Be    ${resp}    predictions.0.usage.completion_tokens    ${3}

Failing Instance Leaves The Others Answered
    ${messages} =    User Message    ${QUESTION}
    ${unknown} =    Vertex Instance    chat    messages=${messages}
    ${chat} =    Vertex Instance    chatCompletions    messages=${messages}    max_tokens=${2}
    ${resp} =    Predict    ${unknown}    ${chat}
    Json Field Should Be    ${resp}    predictions.0.error.code    ${400}
    Json Field Should Be    ${resp}    predictions.1.object    chat.completion

Instances The Server Cannot Run Get Error Predictions
    [Tags]    errors
    [Template]    Instance Should Get An Error Prediction
    {"messages": [{"role": "user", "content": "hi"}]}    400    invalid_request_error
    ...    each instance must include a string @requestFormat
    {"@requestFormat": "chat"}    400    invalid_request_error
    ...    no handler registered for @requestFormat: chat
    "hello"    400    invalid_request_error    each instance must be a JSON object
    {"@requestFormat": "embeddings", "input": "hi"}    501    not_supported_error
    ...    This server does not support embeddings. Start it with `--embeddings`

Malformed Requests Are Rejected
    [Tags]    errors
    [Template]    Predict Request Should Fail With
    request body must include an array field named instances
    request body must include an array field named instances    instances=hi
    instances array exceeds maximum size of 128    instances=${{ [{}] * 129 }}


*** Keywords ***
Instance Should Get An Error Prediction
    [Documentation]    POSTs one `instance` (JSON text) to /predict: the request succeeds (200) and its one
    ...    prediction is the error object `{"code": code, "type": type, "message": message}`.
    [Arguments]    ${instance}    ${code: int}    ${type}    ${message}
    ${instance} =    Parsed Json    ${instance}
    ${resp} =    Predict    ${instance}
    VAR    &{error}    code=${code}    type=${type}    message=${message}
    VAR    &{prediction}    error=${error}
    VAR    @{predictions}    ${prediction}
    Json Field Should Be    ${resp}    predictions    ${predictions}

Predict Request Should Fail With
    [Documentation]    POSTs the fields `body` (named arguments) to /predict and checks 400 `invalid_request_error`
    ...    with `message`.
    [Arguments]    ${message}    &{body}
    ${resp} =    POST On Session    suite    /predict    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${message}
    Media Type Should Be    ${resp}    application/json
