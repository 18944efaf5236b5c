*** Settings ***
Documentation       Hostile images on `tiny-vision`: truncated and corrupt files, a PNG whose header claims
...                 50,000 × 50,000 pixels, zero bytes, text labelled as an image, the wrong media type in the data
...                 URI, invalid base64, a thousand images in one message. Each one is a 400 with the whole
...                 error object, and the server answers the next request. The messages are those of
...                 server-common.cpp (`handle_media`, and "Failed to load image or audio file" when mtmd cannot
...                 decode the bytes). Hostile audio (WAV headers that lie) is in audio.robot.
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision
Suite Teardown      Stop Servers For Suite
Test Template       Hostile Image Should Be Refused
Test Timeout        2 minutes
Test Tags           multimodal    robustness    needs:image-input    needs:tiny


*** Variables ***
${UNDECODABLE}      Failed to load image or audio file
${QUESTION}         what is this


*** Test Cases ***                      IMAGE                                 MESSAGE
Truncated PNG                           truncated-png                         ${UNDECODABLE}
Corrupt JPEG                            corrupt-jpeg                          ${UNDECODABLE}
PNG Header Claiming 50000 Squared       huge-png                              ${UNDECODABLE}
Zero Byte Image                         empty                                 ${UNDECODABLE}
Text Labelled As A PNG                  text                                  ${UNDECODABLE}
Wrong Media Type In The Data URI        data:text/plain;base64,aGVsbG8=       Invalid uri format: data:text/plain;base64
Data URI Without Base64                 data:image/png,rawbytes               uri must be base64 encoded
Invalid Base64                          data:image/png;base64,!!!not-base64   ${UNDECODABLE}

A Thousand Images In One Message Are A Clear 400
    [Documentation]    1,000 copies of one PNG in one message: 1,000 times the projector's tokens (16 each on
    ...    `tiny-vision`, from its metadata) cannot fit a slot of the preset's context, so the whole prompt is
    ...    refused with `exceed_context_size_error` and its exact token count, within the test's minute (about
    ...    a second on an idle machine: every image is decoded, none encoded), and the server answers after.
    [Timeout]    1 minute
    [Template]    NONE
    ${content} =    Same Image Parts    ${QUESTION}    ${1000}
    ${messages} =    User Message    ${content}
    ${expected} =    Chat Prompt Tokens With Media    ${messages}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${2}    expected_status=any
    ${preset} =    Server Preset
    ${message} =    Context Size Error Message    ${expected}    ${preset.n_ctx_per_slot}
    Error Response Should Be    ${resp}    400    exceed_context_size_error    message=${message}
    Chat    hello    max_tokens=${2}


*** Keywords ***
Hostile Image Should Be Refused
    [Documentation]    A chat with the image `image` (a kind of `Hostile Image Data Uri`, or a whole data URI) must
    ...    fail with 400 `invalid_request_error` and `message`, and the server must then answer a text chat.
    [Arguments]    ${image}    ${message}
    ${url} =    Hostile Image Data Uri    ${image}
    ${part} =    Image Part    ${url}
    ${text} =    Text Part    what is this
    VAR    @{content}    ${text}    ${part}
    ${resp} =    Chat    ${content}    max_tokens=${2}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${message}
    Chat    hello    max_tokens=${2}
