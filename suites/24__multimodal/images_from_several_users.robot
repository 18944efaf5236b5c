*** Settings ***
Documentation       Several users send images at once on `tiny-vision`'s two slots: every answer is the one the
...                 same request gets alone (temperature 0, a seed, no prompt cache), so no image was mixed up with
...                 another user's, and every prompt costs its own text plus the projector's tokens.
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision
Suite Teardown      Stop Servers For Suite
Test Timeout        3 minutes
Test Tags           multimodal    multi-user    needs:image-input    needs:tiny    needs:multi-slot


*** Variables ***
@{SEEDS}        ${21}    ${22}    ${23}    ${24}    ${25}    ${26}


*** Test Cases ***
Concurrent Image Chats Get The Answers They Get Alone
    ${bodies} =    Image Chat Bodies    @{SEEDS}
    ${alone} =    Streamed Texts One By One    ${bodies}
    ${together} =    Stream Requests Concurrently    /v1/chat/completions    ${bodies}
    Every Stream Should Have Answered    ${together}    ${alone}

Concurrent Image Chats Each Count Their Own Image
    ${bodies} =    Image Chat Bodies    @{SEEDS}
    ${together} =    Stream Requests Concurrently    /v1/chat/completions    ${bodies}
    ${expected} =    Chat Prompt Tokens With Media    ${bodies}[0][messages]
    Every Stream Should Report Prompt Tokens    ${together}    ${expected}


*** Keywords ***
Image Chat Bodies
    [Documentation]    Returns one streamed chat body per seed: the same question with the generated PNG of that
    ...    seed, 12 tokens at temperature 0, seed 42, no prompt cache, usage in the stream.
    [Arguments]    @{seeds}
    VAR    @{bodies}    @{EMPTY}
    VAR    &{with_usage}    include_usage=${True}
    FOR    ${seed}    IN    @{seeds}
        ${content} =    Question With Images    what is in this image    ${seed}
        ${messages} =    User Message    ${content}
        VAR    &{body}    messages=${messages}    max_tokens=${12}    temperature=${0}    seed=${42}
        ...    cache_prompt=${False}    stream=${True}    stream_options=${with_usage}
        VAR    @{bodies}    @{bodies}    ${body}
    END
    RETURN    ${bodies}

Streamed Texts One By One
    [Documentation]    Streams each body alone, one after the other, and returns the streamed texts in order.
    [Arguments]    ${bodies}
    VAR    @{texts}    @{EMPTY}
    FOR    ${body}    IN    @{bodies}
        ${result} =    Stream Request    /v1/chat/completions    ${body}
        VAR    @{texts}    @{texts}    ${result.text}
    END
    RETURN    ${texts}

Every Stream Should Have Answered
    [Documentation]    Every result must be a 200 stream without error whose text is the one at the same position
    ...    of `texts`.
    [Arguments]    ${results}    ${texts}
    FOR    ${result}    ${text}    IN ZIP    ${results}    ${texts}    mode=STRICT
        Stream Status Should Be    ${result}    200
        Stream Should Have No Error    ${result}
        Should Be Equal    ${result.text}    ${text}
    END

Every Stream Should Report Prompt Tokens
    [Documentation]    Every result's usage chunk must report `prompt_tokens`.
    [Arguments]    ${results}    ${prompt_tokens}
    FOR    ${result}    IN    @{results}
        Usage Chunk Should Report    ${result}    prompt_tokens=${prompt_tokens}
    END
