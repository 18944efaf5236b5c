*** Settings ***
Documentation       Every speculative decoding type that `--spec-type` lists: the answer at temperature 0 is the
...                 answer without speculation, and the timings count what was drafted (`draft_n` at least 1,
...                 `draft_n_accepted` between 0 and `draft_n`).
...
...                 The n-gram types draft from the tokens already in the slot, no draft model: the prompt repeats
...                 itself, and `tiny` at temperature 0 falls into a loop, which gives them repetitions; the lookup and
...                 draft sizes are made small (4 and 8) so that they find them within the answer. Each type
...                 runs on its own server (`spec`), compared with the suite's server, which has no
...                 speculation. `draft-simple` (a draft model) is in draft_model.robot; the types that need a
...                 draft head or layers our generated models cannot have are named in `${NEEDS_A_MODEL}`.
Library             Collections
Library             String
Resource            ../../resources/adapters.resource
Resource            ../../resources/completion.resource
Resource            ../../resources/command_line.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Teardown       Stop Llama Server    spec
Test Timeout        2 minutes
Test Tags           speculative    needs:managed    needs:tiny


*** Variables ***
${PROMPT}               ${{ 'one two three four five six seven eight nine ten eleven twelve ' * 3 }}
${N}                    ${128}
@{TESTED_HERE}          ngram-simple    ngram-map-k    ngram-map-k4v    ngram-mod    ngram-cache
@{TESTED_ELSEWHERE}     none    draft-simple
# EAGLE-3 heads, multi-token-prediction layers, DFlash and DSpark drafters: trained weights only.
@{NEEDS_A_MODEL}        draft-eagle3    draft-mtp    draft-dflash    draft-dspark


*** Test Cases ***
Ngram Simple Keeps The Output And Counts Its Drafts
    [Template]    Speculative Type Should Keep The Output
    ngram-simple    --spec-ngram-simple-size-n    4    --spec-ngram-simple-size-m    8

Ngram Map K Keeps The Output And Counts Its Drafts
    [Template]    Speculative Type Should Keep The Output
    ngram-map-k    --spec-ngram-map-k-size-n    4    --spec-ngram-map-k-size-m    8

Ngram Map K4v Keeps The Output And Counts Its Drafts
    [Template]    Speculative Type Should Keep The Output
    ngram-map-k4v    --spec-ngram-map-k4v-size-n    4    --spec-ngram-map-k4v-size-m    8

Ngram Mod Keeps The Output And Counts Its Drafts
    [Template]    Speculative Type Should Keep The Output
    ngram-mod

Ngram Cache Keeps The Output And Counts Its Drafts
    [Template]    Speculative Type Should Keep The Output
    ngram-cache

Two Types Together Keep The Output And Count Their Drafts
    [Documentation]    `--spec-type` takes a comma-separated list: the types run side by side.
    [Template]    Speculative Type Should Keep The Output
    ngram-simple,ngram-mod    --spec-ngram-simple-size-n    4    --spec-ngram-simple-size-m    8

Every Listed Speculative Type Is Tested Or Needs A Model We Cannot Build
    [Documentation]    Guards this suite when the pin moves: a new type in `--help` fails here until it is tested.
    ...    The list is the pinned build's: an older build lists another set (9905 does), which says nothing of
    ...    the server.
    [Tags]    build-specific    builds:10825-
    ${help} =    Run Server Command    --help
    ${listed} =    Listed Speculative Types    ${help.stdout}
    VAR    @{known}    @{TESTED_HERE}    @{TESTED_ELSEWHERE}    @{NEEDS_A_MODEL}
    Lists Should Be Equal    ${listed}    ${known}    ignore_order=${True}


*** Keywords ***
Speculative Type Should Keep The Output
    [Documentation]    Starts `spec` with `--spec-type type` and `flags`; its answer to the repetitive prompt at
    ...    temperature 0 equals the suite server's, and its timings count drafted and accepted tokens. The
    ...    request's settings name the types after `none`, as draft_model.robot sees for `draft-simple`.
    [Arguments]    ${type}    @{flags}
    Start Preset Server    tiny-1-slot    --spec-type    ${type}    @{flags}    alias=spec
    ${spec} =    Complete    ${PROMPT}    server=spec    n_predict=${N}    cache_prompt=${False}
    ${plain} =    Completion Text    ${PROMPT}    ${N}
    Json Field Should Be    ${spec}    tokens_predicted    ${N}
    Should Be Equal    ${spec}[content]    ${plain}
    Draft Counts Should Be Consistent    ${spec}
    Should Be Equal    ${spec}[generation_settings][speculative.types]    none,${type}

Listed Speculative Types
    [Documentation]    The types in the `--spec-type` entry of the `--help` text `help`.
    [Arguments]    ${help}
    ${found} =    Get Regexp Matches    ${help}    (?m)^--spec-type (\\S+)    1
    Should Not Be Empty    ${found}    msg=--help has no --spec-type entry
    ${types} =    Split String    ${found}[0]    ,
    RETURN    ${types}
