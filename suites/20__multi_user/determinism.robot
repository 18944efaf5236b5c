*** Settings ***
Documentation       Determinism under concurrency: at temperature 0 a prompt gives the same 128 tokens whether it is
...                 sent alone or four times at once, on servers with one, two or four slots; at temperature 1 the
...                 seed decides: different seeds give different texts, one seed gives one text. The server does
...                 not promise more: logits depend a little on which requests share a decode step, and over
...                 hundreds of tokens two runs of one prompt have been seen to part ways (once in about 50 runs of
...                 600 tokens on a loaded machine).
Resource            ../../resources/slots.resource
Suite Setup         Start Servers With One Two And Four Slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    needs:managed


*** Variables ***
${PROMPT}       the same question from every user
${N}            ${128}
@{SEEDS}        ${1}    ${2}    ${3}    ${4}


*** Test Cases ***
Four Users With One Prompt Get The Text It Gets Alone
    ${alone} =    Send Concurrent Completions    ${PROMPT}    n_predict=${N}    server=one
    ${texts} =    Request Texts    ${alone}
    ${four} =    Send Concurrent Completions    ${PROMPT}    times=${4}    n_predict=${N}
    Every Request Should Succeed    ${four}
    Every Request Should Give The Text    ${four}    ${texts}[0]

One Prompt Gives One Text Whatever The Slot Count
    [Template]    Four Users On The Server Should Get The Text Of One User Alone
    one
    two
    suite

Different Seeds At Temperature One Give Different Texts
    ${batch} =    Send Concurrent Completions    ${PROMPT}    times=${4}    seeds=${SEEDS}    temperature=${1}
    ...    n_predict=${N}
    Every Request Should Succeed    ${batch}
    Every Request Should Give Another Text    ${batch}

One Seed At Temperature One Gives One Text To Every User
    ${batch} =    Send Concurrent Completions    ${PROMPT}    times=${4}    seeds=${SEEDS}[0:1]    temperature=${1}
    ...    n_predict=${N}
    Every Request Should Succeed    ${batch}
    Every Request Should Give The Same Text    ${batch}


*** Keywords ***
Start Servers With One Two And Four Slots
    [Documentation]    The suite's server has four slots; `one` and `two` have one and two, with the same
    ...    512-token context per slot. `one` and `two` are launched first and waited for last, so that the three
    ...    start side by side.
    Launch Preset Server    tiny-1-slot    alias=one
    Launch Preset Server    tiny-2-slots    alias=two
    Start Server For Suite    tiny-4-slots
    Wait Until Server Is Ready    one
    Wait Until Server Is Ready    two

Four Users On The Server Should Get The Text Of One User Alone
    [Documentation]    The prompt sent alone to the one-slot server, then four times at once to `server`.
    [Arguments]    ${server}
    ${alone} =    Send Concurrent Completions    ${PROMPT}    n_predict=${N}    server=one
    ${texts} =    Request Texts    ${alone}
    ${four} =    Send Concurrent Completions    ${PROMPT}    times=${4}    n_predict=${N}    server=${server}
    Every Request Should Succeed    ${four}
    Every Request Should Give The Text    ${four}    ${texts}[0]
