*** Settings ***
Documentation       Audio input (`input_audio` parts) on `tiny` with the generated `tiny-audio` projector (Ultravox:
...                 a whisper encoder, frames stacked by 25): the modalities the server reports, and exact prompt
...                 accounting. mtmd cuts audio into 30-second chunks, each `3000 / stack_factor / 2` tokens
...                 (60 for `tiny-audio`, from the projector file's metadata), so a 1-second clip costs one
...                 chunk and a 31-second clip two.
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-audio    tiny-audio
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    needs:tiny


*** Variables ***
${QUESTION}     hello what is this


*** Test Cases ***
Props Report Audio And No Vision
    Modalities Should Be    vision=${False}    audio=${True}

V1 Models Lists Audio Input
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
    ${text} =    Text Part    ${QUESTION}
    VAR    &{input_audio}    data=${uri}    format=wav
    VAR    &{audio}    type=input_audio    input_audio=${input_audio}
    Chat Usage Should Count The Media    ${{ [{"role": "user", "content": [$text, $audio]}] }}

The Same Clip Gives The Same Answer
    ${messages} =    Question With Audio    ${1}    seed=${3}
    ${first} =    Chat With Messages    ${messages}    max_tokens=${12}    seed=${42}    cache_prompt=${False}
    ${second} =    Chat With Messages    ${messages}    max_tokens=${12}    seed=${42}    cache_prompt=${False}
    Json Field Should Be    ${second}    choices.0.message.content    ${first.json()}[choices][0][message][content]

Images Are Refused Without A Vision Projector
    ${image} =    Generated Image Part
    ${resp} =    Chat    ${{ [$image] }}    max_tokens=${4}    expected_status=any
    Error Response Should Be    ${resp}    500    server_error
    ...    message=image input is not supported - hint: if this is unexpected, you may need to provide the mmproj


*** Keywords ***
Question With Audio
    [Documentation]    Returns a one-message chat history: the question, then a generated WAV of `seconds`.
    [Arguments]    ${seconds}    ${seed}=${0}
    ${text} =    Text Part    ${QUESTION}
    ${audio} =    Audio Part    ${seconds}    seed=${seed}
    ${messages} =    User Message    ${{ [$text, $audio] }}
    RETURN    ${messages}
