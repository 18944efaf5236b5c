*** Settings ***
Documentation       Resumable streams: a streamed request sent with `X-Conversation-Id` is kept by the server, and
...                 GET /v1/stream?conv_id=…&from=N replays its bytes from offset N; POST /v1/streams/lookup lists
...                 the kept streams, DELETE /v1/stream forgets one. Replays are compared byte for byte with the
...                 original answer.
Resource            ../../resources/api_formats.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           api-formats    streaming


*** Variables ***
&{HELLO}            role=user    content=hello llama
@{HELLO_CHAT}       ${HELLO}
&{CHAT_BODY}        messages=${HELLO_CHAT}    max_tokens=${4}    temperature=${0}


*** Test Cases ***
Replay Returns The Exact Bytes Of The Original Stream
    [Tags]    build-specific    builds:10825-
    ${original} =    Stream Under Conversation Id    exact    /v1/chat/completions    ${CHAT_BODY}
    ${replay} =    Replay Stream    exact
    Media Type Should Be    ${replay}    text/event-stream
    Should Be Equal    ${replay.content}    ${original.content}

Replay From An Offset Returns The Rest Of The Stream
    [Tags]    build-specific    builds:10825-
    ${original} =    Stream Under Conversation Id    offset    /v1/chat/completions    ${CHAT_BODY}
    ${replay} =    Replay Stream    offset    from=10
    Should Be Equal    ${replay.content}    ${original.content[10:]}

Replay From The End Is Empty
    [Tags]    build-specific    builds:10825-
    ${original} =    Stream Under Conversation Id    end    /v1/chat/completions    ${CHAT_BODY}
    ${replay} =    Replay Stream    end    from=${{ len($original.content) }}
    Should Be Empty    ${replay.content}

Streams Of Every Streaming Route Are Kept
    [Tags]    build-specific    builds:10825-
    [Template]    Replay Should Equal The Original Stream
    /completion    prompt=hello llama    n_predict=${4}    temperature=${0}
    /v1/completions    prompt=hello llama    max_tokens=${4}    temperature=${0}
    /v1/messages    &{CHAT_BODY}
    /v1/responses    input=hello llama    max_output_tokens=${4}    temperature=${0}

Lookup Lists A Finished Stream
    ${original} =    Stream Under Conversation Id    listed    /v1/chat/completions    ${CHAT_BODY}
    ${streams} =    Look Up Streams    listed    never-streamed
    Length Should Be    ${streams}    1
    Json Field Should Be    ${streams}    0.conversation_id    listed
    Json Field Should Be    ${streams}    0.is_done    ${True}
    Json Field Should Be    ${streams}    0.total_bytes    ${{ len($original.content) }}
    Should Be True    0 < ${streams}[0][started_at] <= ${streams}[0][completed_at]

Lookup Of Unknown Ids Is Empty
    ${streams} =    Look Up Streams    never-streamed
    Json Field Should Be    ${streams}    ${EMPTY}    expected=@{EMPTY}

Forgotten Stream Can No Longer Be Replayed
    [Tags]    build-specific    builds:10825-
    Stream Under Conversation Id    forgotten    /v1/chat/completions    ${CHAT_BODY}
    ${resp} =    Forget Stream    forgotten
    Should Be Empty    ${resp.content}
    ${replay} =    Replay Stream    forgotten    expected_status=any
    Error Response Should Be    ${replay}    404    not_found_error

Forgetting An Unknown Stream Succeeds
    [Tags]    build-specific    builds:10825-
    ${resp} =    Forget Stream    never-streamed
    Should Be Empty    ${resp.content}

Unknown Stream Cannot Be Replayed
    [Tags]    errors
    ${replay} =    Replay Stream    never-streamed    expected_status=any
    Error Response Should Be    ${replay}    404    not_found_error
    Media Type Should Be    ${replay}    application/json

Unknown Stream Is Reported As Not Found Or Expired
    [Documentation]    Contract: RFC 9110 §15.5: with a 4xx "the server SHOULD send a representation containing
    ...    an explanation of the error situation". The /v1/stream handler (server-stream.cpp) answers 404
    ...    `Stream not found or expired`, but the server's generic 404 handler (`set_error_handler` in
    ...    server-http.cpp) replaces every 404 body with `File Not Found`, as for an unknown path, so the
    ...    explanation is of another situation.
    [Tags]    bug    errors
    ${replay} =    Replay Stream    never-streamed    expected_status=any
    Error Response Should Be    ${replay}    404    not_found_error    message=Stream not found or expired

Requests Without A Conversation Id Are Rejected
    [Tags]    errors    build-specific    builds:10825-
    ${replay} =    GET On Session    suite    /v1/stream    expected_status=any
    Error Response Should Be    ${replay}    400    invalid_request_error    message=Missing conversation id in path
    ${forget} =    DELETE On Session    suite    /v1/stream    expected_status=any
    Error Response Should Be    ${forget}    400    invalid_request_error    message=Missing conversation id in path

Non Numeric Offset Is Rejected
    [Tags]    errors    build-specific    builds:10825-
    Stream Under Conversation Id    offset-text    /v1/chat/completions    ${CHAT_BODY}
    ${replay} =    Replay Stream    offset-text    from=ten    expected_status=any
    Error Response Should Be    ${replay}    400    invalid_request_error    message=Invalid 'from' offset

Non Streamed Answer Is Not Kept
    VAR    &{headers}    X-Conversation-Id=unstreamed
    POST On Session    suite    /v1/chat/completions    json=${CHAT_BODY}    headers=${headers}    expected_status=200
    ${replay} =    Replay Stream    unstreamed    expected_status=any
    Error Response Should Be    ${replay}    404    not_found_error

Malformed Lookup Body Gets A Complete Error Object
    [Documentation]    Contract: the server's README, "API errors": "`llama-server` returns errors in the same
    ...    format as OAI", with the example `{"error": {"code": 401, "message": …, "type": …}}`; every other
    ...    error of the server carries `code`. The lookup route answers a body that is not JSON with
    ...    `{"error": {"message": "invalid body: …", "type": "invalid_request_error"}}`, without `code`
    ...    (built by hand in server-stream.cpp instead of `format_error_response`).
    [Tags]    bug    errors
    ${resp} =    POST On Session    suite    /v1/streams/lookup    data={    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message_contains=invalid body


*** Keywords ***
Replay Should Equal The Original Stream
    [Documentation]    Streams the fields `body` (named arguments) to `route` under a conversation id named after
    ...    the route, then replays it: the replay must be the same bytes.
    [Arguments]    ${route}    &{body}
    ${original} =    Stream Under Conversation Id    replay${route}    ${route}    ${body}
    ${replay} =    Replay Stream    replay${route}
    Should Be Equal    ${replay.content}    ${original.content}
