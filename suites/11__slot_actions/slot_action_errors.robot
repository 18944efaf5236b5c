# robocop: off=line-too-long
*** Settings ***
Documentation       The errors of slot actions: a bad slot id, action or file name is a 400 `invalid_request_error`
...                 with its own message, a file that is not a slot save cannot be restored (400), and a save that
...                 cannot be written is a 500. No file name may leave the save path.
Resource            ../../resources/slot_actions.resource
Suite Setup         Start Error Server
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Slot Request Should Fail With
Test Tags           slot-actions    errors


*** Variables ***
${NO_FIELDS}            ${{ {} }}
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

Out Of Range Slot Id Is Invalid
    [Documentation]    The server has one slot. This build takes the id modulo the slot count: `/slots/5`
    ...    erases slot 0 and answers 200 `{"id_slot": 5, "n_erased": …}`.
    [Tags]    bug
    POST    /slots/5?action=erase    ${NONE}    400    invalid_request_error    Invalid slot ID

Negative Slot Id Is Invalid
    [Documentation]    This build answers 200 `{"id_slot": -1, "n_erased": 0}`.
    [Tags]    bug
    POST    /slots/-1?action=erase    ${NONE}    400    invalid_request_error    Invalid slot ID

Slot Id With Trailing Characters Is Invalid
    [Documentation]    This build reads the leading digits only: `/slots/0x` erases slot 0 and answers 200.
    [Tags]    bug
    POST    /slots/0x?action=erase    ${NONE}    400    invalid_request_error    Invalid slot ID


*** Keywords ***
Start Error Server
    [Documentation]    Starts a one-slot server with a fresh save path that holds two things no slot save is: a
    ...    text file and a folder.
    Start Server With Slot Save Path    tiny-1-slot    slot-save-errors
    Create File    ${SAVE_DIR}${/}garbage.bin    not a slot save
    Create Directory    ${SAVE_DIR}${/}folder
