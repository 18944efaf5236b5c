*** Settings ***
Documentation       The OpenAI SDK's error classes for what the server answers: `BadRequestError` (400),
...                 `AuthenticationError` (401, on a second server started with `--api-key`), `NotFoundError`
...                 (404), `InternalServerError` (500), and `APIConnectionError` / `APITimeoutError` when there is
...                 no answer. The SDK parses status, type and message out of the server's error object; the
...                 clients never retry (`max_retries=0`), so each test sees the first answer.
...                 Reference: https://platform.openai.com/docs/guides/error-codes
Resource            ../../resources/clients.resource
Resource            ../../resources/props.resource
Suite Setup         Start SDK Servers With And Without A Key    ${KEY}
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    errors


*** Variables ***
${KEY}          sdk-suite-key
${QUESTION}     hello llama
&{PNG_URL}      url=data:image/png;base64,iVBORw0KGgo=
&{IMAGE_PART}    type=image_url    image_url=${PNG_URL}
@{IMAGE}        ${IMAGE_PART}


*** Test Cases ***
Negative Max Tokens Raises Bad Request Error
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    messages=${messages}    max_tokens=${-3}
    SDK Error Should Be    ${error}    BadRequestError    400    invalid_request_error
    ...    message=Field 'max_tokens': Value must be between -1 <= value <= 2147483647, but got -3

Messages That Are Not A List Raise Bad Request Error
    VAR    &{messages_as_text}    messages=hello
    ${error} =    OpenAI Call Should Fail    chat.completions.create    messages=@{EMPTY}    max_tokens=${1}
    ...    extra_body=${messages_as_text}
    SDK Error Should Be    ${error}    BadRequestError    400    invalid_request_error
    ...    message=Expected 'messages' to be an array

Prompt Beyond The Context Raises Bad Request Error
    [Documentation]    The type is llama-server's own (`exceed_context_size_error`); OpenAI's reference names none.
    ...    The prompt has one word more than the slot has tokens, so it exceeds any model's context.
    [Tags]    build-specific    builds:9905-
    ${n_ctx} =    Slot Context Size
    ${messages} =    User Messages    ${{ "hello " * ($n_ctx + 1) }}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    messages=${messages}    max_tokens=${1}
    SDK Error Should Be    ${error}    BadRequestError    400    exceed_context_size_error
    ...    message_contains=exceeds the available context size

Route The Server Lacks Raises Not Found Error
    ${error} =    OpenAI Call Should Fail    files.list
    SDK Error Should Be    ${error}    NotFoundError    404    not_found_error    message=File Not Found

Wrong Key Raises Authentication Error
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    server=${KEYED}    api_key=not-${KEY}
    ...    model=any    messages=${messages}    max_tokens=${1}
    SDK Error Should Be    ${error}    AuthenticationError    401    authentication_error    message=Invalid API Key

Right Key Is Accepted
    ${messages} =    User Messages    ${QUESTION}
    ${answer} =    OpenAI Call    chat.completions.create    server=${KEYED}    api_key=${RIGHT_KEY}
    ...    messages=${messages}    max_tokens=${1}
    Should Be Typed    ${answer}    ChatCompletion

Image Input On A Text Model Raises Internal Server Error
    [Documentation]    How the SDK reads a 500: `InternalServerError` with the server's type and message. This build
    ...    answers 500 for an image sent to a model without a vision projector (see the next test).
    [Tags]    build-specific    builds:9905-
    ${messages} =    User Messages    ${IMAGE}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    messages=${messages}    max_tokens=${1}
    SDK Error Should Be    ${error}    InternalServerError    500    server_error
    ...    message_contains=image input is not supported

Image Input On A Text Model Is A Client Error
    [Documentation]    Contract: RFC 9110 §15.5.1 (400: "something that is perceived to be a client error") against
    ...    §15.6.1 (500: "an unexpected condition"); the API reference's error codes give 400 for a request the
    ...    model cannot take. This build answers 500 `server_error` "image input is not supported - hint: if
    ...    this is unexpected, you may need to provide the mmproj", so the SDK raises `InternalServerError`.
    [Tags]    bug
    ${messages} =    User Messages    ${IMAGE}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    messages=${messages}    max_tokens=${1}
    SDK Error Should Be    ${error}    BadRequestError    400    invalid_request_error

No Server Raises API Connection Error
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    server=http://127.0.0.1:1    model=any
    ...    messages=${messages}    max_tokens=${1}
    Should Be Typed    ${error}    APIConnectionError

Answer Slower Than The Timeout Raises API Timeout Error
    [Documentation]    400 tokens (`ignore_eos`: on any model) take far longer than 5 ms. The server generates them
    ...    for nobody: a request that is not streamed notices that its client left only at its next check, once a
    ...    second. The next call is answered once they are done (on the suite's one slot), so the suite's teardown
    ...    finds the server idle instead of waiting that second for the check. Tagged `serial`: beside another
    ...    process on 2 cores, the client once went unscheduled for the 120 ms the answer took, between sending
    ...    and starting its 5 ms wait, and read the whole answer in time. Beside CPU hogs that can still happen:
    ...    an answer within the timeout is then a timing failure, not judged on a busy machine.
    [Tags]    serial
    ${messages} =    User Messages    ${QUESTION}
    ${error} =    OpenAI Call Should Fail    chat.completions.create    messages=${messages}    max_tokens=${400}
    ...    timeout=${0.005}    extra_body=${IGNORE_EOS}
    Should Be Typed    ${error}    APITimeoutError
    ${next} =    OpenAI Call    chat.completions.create    messages=${messages}    max_tokens=${1}
    Should Be Typed    ${next}    ChatCompletion
