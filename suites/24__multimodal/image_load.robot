*** Settings ***
Documentation       Load with images: a short closed-loop profile of image chats (`Image Chats`: one question and
...                 one seeded generated PNG per request, no two requests with the same image, no prompt cache)
...                 on `tiny` with the `tiny-vision` projector, two users on two slots. TTFT then includes
...                 decoding the image and encoding it with the projector, and is reported like any other
...                 profile's (the run's log block, `load/<test name>/` in the output folder). Every request
...                 must cost the question's tokens plus the projector's tokens per image, and produce the
...                 tokens it asked for. Tagged `load`: out of the default run (`--include load`).
Resource            ../../resources/load.resource
Resource            ../../resources/multimodal.resource
Suite Setup         Start Projector Server For Suite    tiny-vision    tiny-vision    --metrics
Suite Teardown      Stop Servers For Suite
Test Timeout        3 minutes
Test Tags           load    multimodal    needs:image-input    needs:tiny


*** Variables ***
${MAX_TOKENS}       ${16}


*** Test Cases ***
Two Users Sending Images Get Answers Costing The Image's Tokens
    ${chats} =    Image Chats    count=${200}    seed=${0}
    ${expected} =    Image Chat Prompt Tokens    ${chats}
    ${run} =    Run Load Profile    ${chats}    concurrency    users=${2}    duration=${8}    warmup_requests=${2}
    ...    max_tokens=${MAX_TOKENS}
    Every Load Request Should Succeed    ${run}
    Every Load Request Should Have Had    ${run}    prompt_tokens=${expected}    output_tokens=${MAX_TOKENS}
    Load Results Should Be Valid    ${run}


*** Keywords ***
Image Chat Prompt Tokens
    [Documentation]    The prompt tokens every request of the image chats `chats` must cost: its question, as
    ...    the chat template renders it, plus one image (`Chat Prompt Tokens With Media`).
    [Arguments]    ${chats}
    ${content} =    Question With Images    ${chats.prompts}[0]    ${0}
    ${messages} =    User Message    ${content}
    ${tokens} =    Chat Prompt Tokens With Media    ${messages}
    RETURN    ${tokens}
