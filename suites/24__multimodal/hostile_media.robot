*** Settings ***
Documentation       Hostile images on `tiny-vision`: truncated and corrupt files, a PNG whose header claims
...                 50,000 × 50,000 pixels, zero bytes, text labelled as an image, the wrong media type in the data
...                 URI, invalid base64. Each one is a 400 with the whole error object, and the server answers the
...                 next request. The messages are those of server-common.cpp (`handle_media`, and "Failed to
...                 load image or audio file" when mtmd cannot decode the bytes).
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision
Suite Teardown      Stop Servers For Suite
Test Template       Hostile Image Should Be Refused
Test Timeout        2 minutes
Test Tags           multimodal    robustness    needs:tiny


*** Variables ***
${UNDECODABLE}      Failed to load image or audio file


*** Test Cases ***                      IMAGE                                 MESSAGE
Truncated PNG                           truncated-png                         ${UNDECODABLE}
Corrupt JPEG                            corrupt-jpeg                          ${UNDECODABLE}
PNG Header Claiming 50000 Squared       huge-png                              ${UNDECODABLE}
Zero Byte Image                         empty                                 ${UNDECODABLE}
Text Labelled As A PNG                  text                                  ${UNDECODABLE}
Wrong Media Type In The Data URI        data:text/plain;base64,aGVsbG8=       Invalid uri format: data:text/plain;base64
Data URI Without Base64                 data:image/png,rawbytes               uri must be base64 encoded
Invalid Base64                          data:image/png;base64,!!!not-base64   ${UNDECODABLE}


*** Keywords ***
Hostile Image Should Be Refused
    [Documentation]    A chat with the image `image` (a kind of `Hostile Image Data Uri`, or a whole data URI) must
    ...    fail with 400 `invalid_request_error` and `message`, and the server must then answer a text chat.
    [Arguments]    ${image}    ${message}
    ${url} =    Hostile Image Data Uri    ${image}
    ${part} =    Image Part    ${url}
    ${text} =    Text Part    what is this
    ${resp} =    Chat    ${{ [$text, $part] }}    max_tokens=${2}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${message}
    Chat    hello    max_tokens=${2}
