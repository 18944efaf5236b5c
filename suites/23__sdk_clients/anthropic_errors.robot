*** Settings ***
Documentation       The Anthropic SDK's error classes for what the server answers on `/v1/messages`: 400, 401 (on a
...                 second server started with `--api-key`), 404, 500 and no answer, with status, type and
...                 message parsed, and the requests the API reference rules out.
...                 Reference: https://docs.anthropic.com/en/api/errors
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Servers With And Without A Key    ${KEY}
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    errors    api-formats


*** Variables ***
${KEY}          sdk-suite-key
${QUESTION}     hello llama
&{PNG}          type=base64    media_type=image/png    data=iVBORw0KGgo=
&{IMAGE_BLOCK}    type=image    source=${PNG}
@{IMAGE}        ${IMAGE_BLOCK}


*** Test Cases ***
Wrong Key Raises Authentication Error
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    Anthropic Call Should Fail    messages.create    server=${KEYED}    api_key=not-${KEY}    model=any
    ...    messages=${messages}    max_tokens=${1}
    SDK Error Should Be    ${error}    AuthenticationError    401    authentication_error    message=Invalid API Key

Right Key Is Accepted
    ${messages} =    User Messages    ${QUESTION}
    ${message} =    Anthropic Call    messages.create    server=${KEYED}    api_key=${RIGHT_KEY}    messages=${messages}
    ...    max_tokens=${1}
    Should Be Typed    ${message}    Message

Unknown Model Route Raises Not Found Error
    ${error} =    Anthropic Call Should Fail    models.retrieve    model_id=no-such-model
    SDK Error Should Be    ${error}    NotFoundError    404    not_found_error    message=File Not Found

Image Input On A Text Model Raises Internal Server Error
    [Documentation]    How the SDK reads a 500. This build answers 500 for an image sent to a model without a vision
    ...    projector (see `openai_errors.robot` for why that is a defect).
    [Tags]    build-specific    builds:9905-
    ${messages} =    User Messages    ${IMAGE}
    ${error} =    Anthropic Call Should Fail    messages.create    messages=${messages}    max_tokens=${1}
    SDK Error Should Be    ${error}    InternalServerError    500    server_error
    ...    message_contains=image input is not supported

No Server Raises API Connection Error
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    Anthropic Call Should Fail    messages.create    server=http://127.0.0.1:1    model=any
    ...    messages=${messages}    max_tokens=${1}
    Should Be Typed    ${error}    APIConnectionError

Error Body Has The Anthropic Shape
    [Documentation]    Contract: the errors page: "errors are always returned as JSON, with a top-level `error`
    ...    object that always includes a `type` and `message` value", in the shape
    ...    `{"type": "error", "error": {"type": …, "message": …}}`. This build answers the Anthropic routes with
    ...    OpenAI's error object, `{"error": {"code": 401, "message": "Invalid API Key", "type":
    ...    "authentication_error"}}`, without the top-level `"type": "error"`.
    [Tags]    bug
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    Anthropic Call Should Fail    messages.create    server=${KEYED}    api_key=not-${KEY}    model=any
    ...    messages=${messages}    max_tokens=${1}
    Json Field Should Be    ${error.body}    type    error

Max Tokens Below One Is Rejected
    [Documentation]    Contract: the API reference, `max_tokens`: "Required range: `x >= 1`". This build accepts
    ...    `max_tokens: -1` and generates to the end of the context (489 tokens on tiny), answering 200.
    [Tags]    bug
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    Anthropic Call Should Fail    messages.create    messages=${messages}    max_tokens=${-1}
    SDK Error Should Be    ${error}    BadRequestError    400    invalid_request_error

System Role In Messages Is Rejected
    [Documentation]    Contract: the API reference, `messages`: each message's `role` is `user` or `assistant`,
    ...    and "there is no `system` role for input messages in the Messages API" (use the top-level `system`
    ...    parameter). This build renders a `system` message and answers 200.
    [Tags]    bug
    ${messages} =    Evaluate    [{"role": "system", "content": "be brief"}, {"role": "user", "content": $QUESTION}]
    ${error} =    Anthropic Call Should Fail    messages.create    messages=${messages}    max_tokens=${1}
    SDK Error Should Be    ${error}    BadRequestError    400    invalid_request_error
