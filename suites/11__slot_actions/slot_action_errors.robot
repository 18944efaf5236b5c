# robocop: off=line-too-long
*** Settings ***
Documentation       The errors of slot actions: a bad slot id, action or file name is a 400 `invalid_request_error`
...                 with its own message, a file that is not a slot save cannot be restored (400), and a save that
...                 cannot be written is a 500. No file name may leave the save path. A negative slot id, or one
...                 with characters after its digits, is not refused on this build (tagged `build-specific`).
Resource            ../../resources/slot_actions.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Error Server
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Slot Request Should Fail With
Test Tags           slot-actions    errors    needs:managed


*** Variables ***
&{NO_FIELDS}            &{EMPTY}
&{SAVE_A}               filename=a.bin
&{UP_ONE}               filename=../escape.bin
&{SUBFOLDER}            filename=sub/a.bin
&{ABSOLUTE}             filename=/tmp/llamatest-escape.bin
&{BACKSLASH}            filename=a\\b.bin
&{DOT_DOT}              filename=..
&{EMPTY_NAME}           filename=${EMPTY}
&{NUMBER_NAME}          filename=${5}
&{MISSING}              filename=missing.bin
&{GARBAGE}              filename=garbage.bin
&{FOLDER}               filename=folder
${NOT_RESTORABLE}       Unable to restore slot: No available space in KV cache or invalid slot save file


*** Test Cases ***                                      METHOD    PATH                         BODY              STATUS    TYPE                     MESSAGE
Non Numeric Slot Id Is Invalid                          POST      /slots/x?action=save         ${SAVE_A}         400       invalid_request_error    Invalid slot ID
Empty Slot Id Is Invalid                                POST      /slots/?action=erase         ${NONE}           400       invalid_request_error    Invalid slot ID
Unknown Action Is Invalid                               POST      /slots/0?action=nope         ${SAVE_A}         400       invalid_request_error    Invalid action
Missing Action Is Invalid                               POST      /slots/0                     ${SAVE_A}         400       invalid_request_error    Invalid action
Parent Folder In The File Name Is Rejected              POST      /slots/0?action=save         ${UP_ONE}         400       invalid_request_error    Invalid filename
Subfolder In The File Name Is Rejected                  POST      /slots/0?action=save         ${SUBFOLDER}      400       invalid_request_error    Invalid filename
Absolute File Name Is Rejected                          POST      /slots/0?action=save         ${ABSOLUTE}       400       invalid_request_error    Invalid filename
Backslash In The File Name Is Rejected                  POST      /slots/0?action=save         ${BACKSLASH}      400       invalid_request_error    Invalid filename
Dot Dot As File Name Is Rejected                        POST      /slots/0?action=save         ${DOT_DOT}        400       invalid_request_error    Invalid filename
Empty File Name Is Rejected                             POST      /slots/0?action=save         ${EMPTY_NAME}     400       invalid_request_error    Invalid filename
Parent Folder Is Rejected On Restore Too                POST      /slots/0?action=restore      ${UP_ONE}         400       invalid_request_error    Invalid filename
Missing File Name Is Rejected                           POST      /slots/0?action=save         ${NO_FIELDS}      400       invalid_request_error    filename
Non String File Name Is Rejected                        POST      /slots/0?action=save         ${NUMBER_NAME}    400       invalid_request_error    must be string
Save Without A Body Is Rejected                         POST      /slots/0?action=save         ${NONE}           400       invalid_request_error    empty input
Restoring A Missing File Fails                          POST      /slots/0?action=restore      ${MISSING}        400       invalid_request_error    ${NOT_RESTORABLE}
Restoring A File That Is No Slot Save Fails             POST      /slots/0?action=restore      ${GARBAGE}        400       invalid_request_error    ${NOT_RESTORABLE}
Saving Over A Folder Is A Server Error                  POST      /slots/0?action=save         ${FOLDER}         500       server_error             Unable to save slot
Slot Actions Are Not Served On Get                      GET       /slots/0?action=erase        ${NONE}           404       not_found_error          File Not Found

Negative Slot Id Acts On A Slot
    [Documentation]    Current, undocumented behaviour of this build: the server's README says nothing of a
    ...    negative slot id on these routes, and `get_slot_by_id` takes every id modulo the slot count (on purpose
    ...    for ids past the count, see `slot_actions.robot`). The divisor is a `size_t`, so -1 becomes 2**64 - 1:
    ...    slot 0 here (one slot), slot 1 on two. The answer echoes -1.
    [Tags]    build-specific    builds:9905-
    [Template]    NONE
    ${out} =    Complete    a prompt erased through slot id -1    n_predict=${4}
    ${erased} =    Erase Slot    -1
    VAR    &{expected}    id_slot=${-1}    n_erased=${out}[tokens_cached]
    Should Be Equal    ${erased}    ${expected}

Slot Id With Trailing Characters Is Read By Its Leading Digits
    [Documentation]    Current, undocumented behaviour of this build: the route reads the id with `std::stoi`,
    ...    which stops at the first character that is not a digit, so `/slots/0x` acts on slot 0 and answers
    ...    `id_slot` 0. Only an id that does not start with a digit (`x`, empty) is `Invalid slot ID` (above).
    [Tags]    build-specific    builds:9905-
    [Template]    NONE
    ${out} =    Complete    a prompt erased through slot id 0x    n_predict=${4}
    ${erased} =    Erase Slot    0x
    VAR    &{expected}    id_slot=${0}    n_erased=${out}[tokens_cached]
    Should Be Equal    ${erased}    ${expected}


*** Keywords ***
Start Error Server
    [Documentation]    Starts a one-slot server with a fresh save path that holds two things no slot save is: a
    ...    text file and a folder.
    Start Server With Slot Save Path    tiny-1-slot    slot-save-errors
    Create File    ${SAVE_DIR}${/}garbage.bin    not a slot save
    Create Directory    ${SAVE_DIR}${/}folder
