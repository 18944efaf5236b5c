*** Settings ***
Documentation       What a loaded projector changes in the server: asked for context shift and cache reuse, the
...                 server turns both off at start and says so (an image chunk spans several positions, so
...                 neither can move or reuse part of it), and a slot whose prompt holds an image is saved and
...                 restored whole.
Resource            ../../resources/multimodal.resource
Resource            ../../resources/slot_actions.resource
Suite Setup         Start Projector Server With Everything Asked
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    slot-actions    needs:image-input    needs:tiny


*** Test Cases ***
Context Shift Is Turned Off At Start With A Projector
    Server Log Should Contain    ctx_shift is not supported by multimodal, it will be disabled

Cache Reuse Is Turned Off At Start With A Projector
    Server Log Should Contain    cache_reuse is not supported by multimodal, it will be disabled

A Slot With An Image In Its Prompt Is Saved And Restored Whole
    [Tags]    build-specific    builds:10825-
    ${content} =    Question With Images    what is this    ${1}
    ${messages} =    User Message    ${content}
    ${first} =    Chat Usage Should Count The Media    ${messages}    id_slot=${0}
    ${saved} =    Save Slot    0    image-slot.bin
    Erase Slot    0
    ${restored} =    Restore Slot    0    image-slot.bin
    Should Be Equal    ${restored}[n_restored]    ${saved}[n_saved]
    ${again} =    Chat Usage Should Count The Media    ${messages}    id_slot=${0}
    Prompt Should Have Come From The Cache    ${again}    ${first}[usage][prompt_tokens]
    Json Field Should Be    ${again}    choices.0.message.content    ${first}[choices][0][message][content]


*** Keywords ***
Start Projector Server With Everything Asked
    [Documentation]    Starts the suite's server (`tiny-vision` and its projector) with `--context-shift`,
    ...    `--cache-reuse 64` and `--slot-save-path` on a new folder of the output directory (`${SAVE_DIR}`).
    VAR    ${SAVE_DIR}    ${OUTPUT DIR}${/}image-slot-saves    scope=SUITE    # robocop: off=no-suite-variable
    Remove Directory    ${SAVE_DIR}    recursive=${True}
    Create Directory    ${SAVE_DIR}
    Start Projector Server For Suite    tiny-vision    tiny-vision    --context-shift    --cache-reuse    64
    ...    --slot-save-path    ${SAVE_DIR}    n_slots=${1}    n_ctx=${1024}
