*** Settings ***
Documentation       The media fetcher: llama-server downloads any `http(s)://` `image_url` a request names
...                 (server-common.cpp `handle_media`: at most 10 MB, a 10-second timeout) and reads `file://` URLs
...                 only under `--media-path`. Every URL here points at a local aiohttp fixture on 127.0.0.1
...                 (`Start Media Fixture`), which records each request it gets, so the log shows exactly what
...                 the server fetched; nothing goes to any other address. That the server fetches a loopback
...                 address at all, for anyone who can send a chat request, is the finding: a server-side
...                 request forgery to whatever its host can reach.
Resource            ../../resources/multimodal.resource
Suite Setup         Start Fetcher Suite
Suite Teardown      Stop Fetcher Suite
Test Setup          Clear Media Fixture Requests
Test Timeout        2 minutes
Test Tags           multimodal    security    needs:image-input    needs:tiny


*** Variables ***
${CANNOT_GET}       error: cannot make GET request
${TRICKLE_STATUS}    400
${TRICKLE_TYPE}      invalid_request_error
${TRICKLE_MESSAGE}    Failed to load image or audio file


*** Test Cases ***
A Remote Image Is Fetched Once With GET
    ${messages} =    Chat About Url    /image.png?seed=1
    Chat With Messages    ${messages}    max_tokens=${2}
    ${requests} =    Media Fixture Requests
    Fetched Paths Should Be    ${requests}    /image.png
    Should Be Equal    ${requests}[0][method]    GET

A Remote Image Costs The Projector's Tokens
    ${messages} =    Chat About Url    /image.png?seed=3
    Chat Usage Should Count The Media    ${messages}

The Fetcher Says Who It Is And Sends No Credentials
    [Documentation]    What the fetcher sends: its headers are logged; no `Authorization` or `Cookie` header of
    ...    the client's request is passed on to the URL's host.
    ${messages} =    Chat About Url    /image.png?seed=2
    VAR    &{credentials}    Authorization=Bearer client-key
    Chat With Messages    ${messages}    max_tokens=${2}    headers=${credentials}
    ${requests} =    Media Fixture Requests
    Log    ${requests}[0][headers]
    Dictionary Should Not Contain Key    ${requests}[0][headers]    Authorization
    Dictionary Should Not Contain Key    ${requests}[0][headers]    Cookie

A Redirect Is Followed To Its Target
    [Documentation]    No written contract says whether the fetcher follows redirects; this build does (to the
    ...    address the `Location` names, here the same fixture), hence `build-specific`.
    [Tags]    build-specific    builds:9905-
    ${messages} =    Chat About Url    /redirect
    Chat With Messages    ${messages}    max_tokens=${2}
    ${requests} =    Media Fixture Requests
    Fetched Paths Should Be    ${requests}    /redirect    /image.png

Fetches That Fail Are Clear Errors And Free The Slot
    [Documentation]    An image over 10 MB, a redirect loop, a missing file, a closed port: each one an error
    ...    object, and the server answers the next request. The messages are those of server-common.cpp
    ...    (`Failed to download image`) and of the download code (`error: cannot make GET request`).
    [Template]    Fetch Should Fail Cleanly
    /big                        500    server_error    ${CANNOT_GET}
    /loop                       500    server_error    ${CANNOT_GET}
    /no-such-image.png          500    server_error    Failed to download image
    http://127.0.0.1:9/x.png    500    server_error    ${CANNOT_GET}

A Redirect Loop Ends After A Bounded Number Of Fetches
    ${messages} =    Chat About Url    /loop
    Chat With Messages    ${messages}    max_tokens=${2}    expected_status=any
    ${requests} =    Media Fixture Requests
    Should Be True    1 < len($requests) <= 32    the fetcher asked /loop ${{ len($requests) }} times

A File URL Is Refused Without A Media Path
    ${messages} =    Chat About Url    file:///etc/hostname
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${2}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error
    ...    message=file:// URLs are not allowed unless --media-path is specified

A Trickling Image Server Ends In An Error Object And The Server Survives
    [Documentation]    The fixture sends a byte a second for 10.5 seconds, just longer than the fetcher's 10 s
    ...    timeout (hard-coded in handle_media): the least that tells a bound on the whole download, which would
    ...    end it in a 500 `cannot make GET request`, from one on each read. This build waits for all of it (the
    ...    timeout bounds each read, not the download: a host that trickles holds the request and an HTTP thread
    ...    as long as it likes; no written contract states the limit, hence no `bug`), then refuses the bytes,
    ...    which are no image, with an error object. The chat began with the run (early_cases.resource), on a
    ...    server and a fixture of its own, so that the other suites run while it trickles.
    [Tags]    build-specific    early:trickle
    ${resp} =    Trickled Chat Answer
    Error Response Should Be    ${resp}    ${TRICKLE_STATUS}    ${TRICKLE_TYPE}    message=${TRICKLE_MESSAGE}
    ${requests} =    Media Fixture Requests    trickle
    Fetched Paths Should Be    ${requests}    /trickle
    Server Should Be Running    trickle
    Chat    hello    max_tokens=${2}    server=trickle
    [Teardown]    End The Trickled Chat


*** Keywords ***
Start Fetcher Suite
    [Documentation]    Starts the local media fixture (`${FIXTURE}`, its base URL) and the suite's server.
    ${url} =    Start Media Fixture
    VAR    ${FIXTURE}    ${url}    scope=SUITE    # robocop: off=no-suite-variable
    Start Projector Server For Suite    tiny-vision    tiny-vision

Stop Fetcher Suite
    [Documentation]    Stops the suite's servers and the media fixture.
    [Timeout]    1 minute
    Stop Servers For Suite
    Stop Media Fixture

Chat About Url
    [Documentation]    Returns a one-message history asking about the image at `url`: a path on the fixture
    ...    (`/image.png`), or a whole URL.
    [Arguments]    ${url}
    VAR    ${full}    ${url}
    IF    "://" not in $url    VAR    ${full}    ${FIXTURE}${url}
    ${image} =    Image Part    ${full}
    ${text} =    Text Part    what is this
    ${messages} =    User Message Of Parts    ${text}    ${image}
    RETURN    ${messages}

Fetched Paths Should Be
    [Documentation]    The fixture must have received exactly the requests for `paths`, in order.
    [Arguments]    ${requests}    @{paths}
    ${fetched} =    Values Of Each    ${requests}    path
    Should Be Equal    ${fetched}    ${paths}

Fetch Should Fail Cleanly
    [Documentation]    A chat naming the image `url` must fail with the whole error object (`status`, `type`,
    ...    `message`), and the server must then answer a text chat.
    [Arguments]    ${url}    ${status}    ${type}    ${message}
    ${messages} =    Chat About Url    ${url}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${2}    expected_status=any
    Error Response Should Be    ${resp}    ${status}    ${type}    message=${message}
    Chat    hello    max_tokens=${2}
