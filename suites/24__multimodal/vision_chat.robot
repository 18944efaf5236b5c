*** Settings ***
Documentation       Images on every route that takes them, on `tiny` with the generated `tiny-vision` projector:
...                 the modalities the server reports, `image_url` parts (data URIs, raw base64), several images
...                 per message and across turns, `/completion` with `multimodal_data`, Anthropic image blocks,
...                 Responses `input_image`. Every prompt-token count is exact: the text as `/tokenize` counts
...                 it plus the projector's tokens per image, computed from the projector file's metadata
...                 ((image_size / patch_size)², 16 for `tiny-vision`), never taken from a run.
Resource            ../../resources/multimodal.resource
Resource            ../../resources/api_formats.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    needs:image-input    needs:tiny


*** Variables ***
${QUESTION}     hello what is this


*** Test Cases ***
Props Report Vision And No Audio
    Modalities Should Be    vision=${True}    audio=${False}

V1 Models Lists Image Input
    [Tags]    build-specific    builds:11434-
    Input Modalities Should Contain    image

The Chat Template Renders One Media Marker Per Image
    ${content} =    Question With Images    ${QUESTION}    ${18}    ${19}
    ${messages} =    User Message    ${content}
    ${prompt} =    Rendered Prompt Of    ${messages}
    ${marker} =    Media Marker
    Should Contain X Times    ${prompt}    ${marker}    2

A PNG Data URI Costs The Projector's Tokens
    ${content} =    Question With Images    ${QUESTION}    ${1}
    ${messages} =    User Message    ${content}
    Chat Usage Should Count The Media    ${messages}

A JPEG Data URI Costs The Projector's Tokens
    ${image} =    Generated Image Part    jpeg    ${2}
    ${text} =    Text Part    ${QUESTION}
    ${messages} =    User Message Of Parts    ${text}    ${image}
    Chat Usage Should Count The Media    ${messages}

A WebP Data URI Is Accepted
    [Documentation]    Contract: OpenAI's vision guide, "Image input requirements": supported file types are
    ...    "PNG (.png), JPEG (.jpeg and .jpg), WEBP (.webp), Non-animated GIF (.gif)". This build decodes
    ...    images with stb_image, which has no WebP decoder, and answers 400 "Failed to load image or audio
    ...    file".
    [Tags]    bug
    ${image} =    Generated Image Part    webp    ${3}
    ${text} =    Text Part    ${QUESTION}
    ${messages} =    User Message Of Parts    ${text}    ${image}
    Chat Usage Should Count The Media    ${messages}

Raw Base64 Is Taken As An Image
    [Documentation]    The server's README, chat completions: `image_url.url` "can be a remote URL, base64 (raw
    ...    or URI-encoded via `data:image/...;base64`)".
    ${data} =    Image Base64    png    seed=${4}
    ${image} =    Image Part    ${data}
    ${text} =    Text Part    ${QUESTION}
    ${messages} =    User Message Of Parts    ${text}    ${image}
    Chat Usage Should Count The Media    ${messages}

Several Images In One Message Cost The Projector's Tokens Each
    ${content} =    Question With Images    ${QUESTION}    ${5}    ${6}    ${7}
    ${messages} =    User Message    ${content}
    Chat Usage Should Count The Media    ${messages}

Images Across Turns Cost The Projector's Tokens Each
    ${first} =    Question With Images    what is this    ${8}
    ${second} =    Question With Images    and this    ${9}
    ${user} =    Message    user    ${first}
    ${assistant} =    Message    assistant    a llama
    ${again} =    Message    user    ${second}
    VAR    @{messages}    ${user}    ${assistant}    ${again}
    Chat Usage Should Count The Media    ${messages}

The Same Image Gives The Same Answer On Any Slot
    ${content} =    Question With Images    ${QUESTION}    ${10}
    ${first} =    Chat Answer    ${content}    max_tokens=${12}    seed=${42}    id_slot=${0}    cache_prompt=${False}
    ${second} =    Chat Answer    ${content}    max_tokens=${12}    seed=${42}    id_slot=${1}    cache_prompt=${False}
    Should Be Equal    ${second}    ${first}

Streamed Answer With An Image Equals The Plain One
    ${content} =    Question With Images    ${QUESTION}    ${11}
    ${plain} =    Chat Answer    ${content}    max_tokens=${12}    seed=${42}
    ${result} =    Stream Chat    ${content}    max_tokens=${12}    seed=${42}
    Streamed Text Should Be    ${result}    ${plain}

The Same Image Again Is Served From The Prompt Cache
    ${content} =    Question With Images    ${QUESTION}    ${12}
    ${messages} =    User Message    ${content}
    ${first} =    Chat Usage Should Count The Media    ${messages}    id_slot=${0}
    ${again} =    Chat Usage Should Count The Media    ${messages}    id_slot=${0}
    Prompt Should Have Come From The Cache    ${again}    ${first}[usage][prompt_tokens]
    Json Field Should Be    ${again}    usage.prompt_tokens_details.cached_tokens    ${again}[timings][cache_n]

Completion With Multimodal Data Evaluates The Image
    ${marker} =    Media Marker
    ${data} =    Image Base64    png    seed=${13}
    VAR    ${prompt}    hello ${marker} world
    ${expected} =    Prompt Tokens With Media    ${prompt}
    ${resp} =    Media Completion    ${prompt}    ${data}    n_predict=${4}
    Json Field Should Be    ${resp}    tokens_evaluated    ${expected}

The README's Default Marker Places The Image
    [Documentation]    Contract: the server's README, `/completion`, "Note for `multimodal_data`": "The marker
    ...    string (e.g. `<__media__>`) can be found by calling `mtmd_default_marker()`". This build replaces
    ...    the marker with a random one per process (`media_marker` in `/props`; a fixed one only with
    ...    `$LLAMA_MEDIA_MARKER`) and answers a prompt with `<__media__>` with 400 "Failed to tokenize prompt".
    [Tags]    bug
    ${data} =    Image Base64    png    seed=${15}
    ${resp} =    Media Completion    hello <__media__> world    ${data}    n_predict=${4}
    Json Field Should Be Of Type    ${resp}    tokens_evaluated    int

Anthropic Image Block Costs The Projector's Tokens
    [Documentation]    Anthropic's Messages reference: an `image` block with a `base64` `source`; `usage` splits
    ...    the prompt into `input_tokens` and `cache_read_input_tokens`, which together are the whole prompt.
    ${content} =    Question With Images    ${QUESTION}    ${16}
    ${messages} =    User Message    ${content}
    ${expected} =    Chat Prompt Tokens With Media    ${messages}
    ${data} =    Image Base64    png    seed=${16}
    ${block} =    Anthropic Image Block    ${data}
    ${text} =    Text Part    ${QUESTION}
    VAR    @{content}    ${text}    ${block}
    ${resp} =    Anthropic Message    ${content}    max_tokens=${4}
    Anthropic Input Should Total    ${resp}    ${expected}

Responses Input Image Costs The Projector's Tokens
    ${content} =    Question With Images    ${QUESTION}    ${17}
    ${messages} =    User Message    ${content}
    ${expected} =    Chat Prompt Tokens With Media    ${messages}
    ${uri} =    Image Data Uri    png    seed=${17}
    ${input} =    Responses User Input    ${QUESTION}    ${uri}
    ${resp} =    Respond    ${input}    max_output_tokens=${4}
    Json Field Should Be    ${resp}    usage.input_tokens    ${expected}

More Image Tokens Than The Context Is A Clear 400
    ${preset} =    Server Preset
    ${seeds} =    Evaluate    list(range($preset.n_ctx_per_slot // $MEDIA_TOKENS + 1))
    ${content} =    Question With Images    ${QUESTION}    @{seeds}
    ${messages} =    User Message    ${content}
    ${expected} =    Chat Prompt Tokens With Media    ${messages}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${4}    expected_status=any
    ${message} =    Context Size Error Message    ${expected}    ${preset.n_ctx_per_slot}
    Error Response Should Be    ${resp}    400    exceed_context_size_error    message=${message}
    Server Should Be Running

Audio Is Refused Without An Audio Projector
    ${part} =    Audio Part
    VAR    @{content}    ${part}
    ${resp} =    Chat    ${content}    max_tokens=${4}    expected_status=any
    Error Response Should Be    ${resp}    500    server_error
    ...    message=audio input is not supported - hint: if this is unexpected, you may need to provide the mmproj


*** Keywords ***
Anthropic Image Block
    [Documentation]    Returns an Anthropic `image` content block with base64 PNG `data`.
    [Arguments]    ${data}
    VAR    &{source}    type=base64    media_type=image/png    data=${data}
    VAR    &{block}    type=image    source=${source}
    RETURN    ${block}

Anthropic Input Should Total
    [Documentation]    `input_tokens` + `cache_read_input_tokens` of an Anthropic answer must be `expected`.
    [Arguments]    ${resp}    ${expected}
    ${total} =    Anthropic Prompt Tokens    ${resp}
    Should Be Equal    ${total}    ${expected}    usage was ${resp.json()}[usage]

Responses User Input
    [Documentation]    Returns a Responses `input`: one user message with an `input_text` and an `input_image`.
    [Arguments]    ${text}    ${image_url}
    VAR    &{text_part}    type=input_text    text=${text}
    VAR    &{image_part}    type=input_image    image_url=${image_url}
    VAR    @{content}    ${text_part}    ${image_part}
    VAR    &{message}    role=user    content=${content}
    VAR    @{input}    ${message}
    RETURN    ${input}
