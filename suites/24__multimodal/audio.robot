*** Settings ***
Documentation       Audio input (`input_audio` parts) on `tiny` with the generated `tiny-audio` projector (Ultravox:
...                 a whisper encoder, frames stacked by 25): the modalities the server reports, and exact prompt
...                 accounting. mtmd cuts audio into 30-second chunks, each `3000 / stack_factor / 2` tokens
...                 (60 for `tiny-audio`, from the projector file's metadata), so a 1-second clip costs one
...                 chunk and a 31-second clip two. Hostile audio: WAVs whose headers lie (`Lying Wav Bytes`)
...                 are refused with an error object or cost the samples the decoder reads, and the server
...                 answers the next request.
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-audio    tiny-audio
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    needs:audio-input    needs:tiny


*** Variables ***
${QUESTION}     hello what is this


*** Test Cases ***
Props Report Audio And No Vision
    Modalities Should Be    vision=${False}    audio=${True}

V1 Models Lists Audio Input
    [Tags]    build-specific    builds:11434-
    Input Modalities Should Contain    audio

A WAV Clip Costs One Chunk Of The Projector's Tokens
    ${messages} =    Question With Audio    ${1}
    ${tokens} =    Projector Tokens    tiny-audio    seconds=${1}
    Chat Usage Should Count The Media    ${messages}    media_tokens=${tokens}

A Clip Longer Than 30 Seconds Costs Two Chunks
    ${messages} =    Question With Audio    ${31}
    ${tokens} =    Projector Tokens    tiny-audio    seconds=${31}
    Chat Usage Should Count The Media    ${messages}    media_tokens=${tokens}

A WAV Data URI Is Taken As Audio
    ${uri} =    Wav Data Uri    ${1}    seed=${2}
    ${messages} =    Question With WAV    ${uri}
    Chat Usage Should Count The Media    ${messages}

The Same Clip Gives The Same Answer
    ${messages} =    Question With Audio    ${1}    seed=${3}
    ${first} =    Chat With Messages    ${messages}    max_tokens=${12}    seed=${42}    cache_prompt=${False}
    ${second} =    Chat With Messages    ${messages}    max_tokens=${12}    seed=${42}    cache_prompt=${False}
    Json Field Should Be    ${second}    choices.0.message.content    ${first.json()}[choices][0][message][content]

A WAV Header Claiming 2 GB Of Data Costs The Samples It Holds
    [Documentation]    31 seconds of samples under a `data` chunk that claims 2 GB: the decoder (miniaudio's
    ...    dr_wav) clamps the size to the bytes present, so the clip costs two 30-second chunks; a reader that
    ...    trusted the header would allocate gigabytes or count over 2,000 chunks. A 400 would be as right (no
    ...    contract chooses), hence `build-specific`.
    [Tags]    build-specific    robustness
    Lying WAV Should Cost    data-size    ${31}    read_seconds=${31}

A WAV Header With A Zero Sample Rate Is Refused
    [Tags]    robustness
    Lying WAV Should Be Refused    sample-rate-zero

A WAV Header With Zero Channels Is Refused
    [Tags]    robustness
    Lying WAV Should Be Refused    channels-zero

A WAV Header Claiming Six Channels Is Read As Six
    [Documentation]    31 seconds of mono samples whose header says six channels (its block align and byte
    ...    rate still say one): the decoder trusts the channel count, reads 31/6 seconds and mixes them down,
    ...    one chunk. Which field wins is the decoder's choice, hence `build-specific`.
    [Tags]    build-specific    robustness
    Lying WAV Should Cost    channels    ${31}    read_seconds=${31 / 6}

A WAV Header Claiming Half Its Byte Rate Is Read At The Header's Rate
    [Documentation]    20 seconds of 16 kHz samples whose header says 8 kHz (its byte rate still says 16 kHz):
    ...    the decoder trusts the sample rate, so the clip lasts 40 seconds once resampled, two chunks.
    [Tags]    build-specific    robustness
    Lying WAV Should Cost    sample-rate    ${20}    read_seconds=${40}

Images Are Refused Without A Vision Projector
    ${image} =    Generated Image Part
    VAR    @{content}    ${image}
    ${resp} =    Chat    ${content}    max_tokens=${4}    expected_status=any
    Error Response Should Be    ${resp}    500    server_error
    ...    message=image input is not supported - hint: if this is unexpected, you may need to provide the mmproj


*** Keywords ***
Question With WAV
    [Documentation]    Returns a one-message chat history: the question, then an `input_audio` part with the
    ...    base64 WAV `data`.
    [Arguments]    ${data}
    ${text} =    Text Part    ${QUESTION}
    VAR    &{input_audio}    data=${data}    format=wav
    VAR    &{audio}    type=input_audio    input_audio=${input_audio}
    ${messages} =    User Message Of Parts    ${text}    ${audio}
    RETURN    ${messages}

Lying WAV Should Cost
    [Documentation]    `seconds` of samples under a header that lies (`lie`, see `Lying Wav Bytes`) must cost
    ...    the prompt tokens of a clip of `read_seconds`, and the server must then answer a text chat.
    [Arguments]    ${lie}    ${seconds}    ${read_seconds}
    ${data} =    Lying Wav Base64    ${lie}    ${seconds}
    ${messages} =    Question With WAV    ${data}
    ${tokens} =    Projector Tokens    tiny-audio    seconds=${read_seconds}
    Chat Usage Should Count The Media    ${messages}    media_tokens=${tokens}
    Chat    hello    max_tokens=${2}

Lying WAV Should Be Refused
    [Documentation]    A one-second clip under a header that lies (`lie`) must fail with 400
    ...    `invalid_request_error` ("Failed to load image or audio file", server-common.cpp), and the server
    ...    must then answer a text chat.
    [Arguments]    ${lie}
    ${data} =    Lying Wav Base64    ${lie}    ${1}
    ${messages} =    Question With WAV    ${data}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${2}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=Failed to load image or audio file
    Chat    hello    max_tokens=${2}

Question With Audio
    [Documentation]    Returns a one-message chat history: the question, then a generated WAV of `seconds`.
    [Arguments]    ${seconds}    ${seed}=${0}
    ${data} =    Wav Base64    ${seconds}    seed=${seed}
    ${messages} =    Question With WAV    ${data}
    RETURN    ${messages}
