*** Settings ***
Documentation       Router semantics beyond loading: with `--models-max 2` the least recently used idle model is
...                 the one unloaded for a new one (README: "maximum number of models to load simultaneously"),
...                 requests for a model that is loading wait for it and share one load, a `--models-preset`
...                 section serves a model under its own name and its aliases, and `GET /models?reload=1`
...                 re-reads the folder and the preset file (upstream test_router.py).
Resource            ../../resources/router.resource
Suite Setup         Start Lru Router
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           router    needs:managed


*** Variables ***
@{MODELS}           tiny    tiny-draft    tiny-raw
${PROMPT}           hello world
${N}                ${8}


*** Test Cases ***
The Least Recently Used Model Is Unloaded For A New One
    Only These Models Are Loaded    tiny    tiny-draft
    Routed Completion Text    tiny    ${PROMPT}    ${N}
    Load Model    tiny-raw
    Wait Until Model Status Is    tiny-raw    loaded
    Model Status Should Be    tiny-draft    unloaded
    Model Status Should Be    tiny    loaded

Requests For A Loading Model Wait And Share One Load
    Only These Models Are Loaded    tiny    tiny-draft
    Routed Completion Text    tiny    ${PROMPT}    ${N}
    VAR    @{bodies}    ${BODY_RAW}    ${BODY_RAW}    ${BODY_RAW}
    ${results} =    Stream Requests Concurrently    /completion    ${bodies}
    Every Stream Should Give The Same Text    ${results}
    Model Status Should Be    tiny-raw    loaded
    Model Status Should Be    tiny    loaded
    Model Status Should Be    tiny-draft    unloaded

A Preset Serves Its Model Under Its Name And Every Alias
    ${direct} =    Routed Completion Text    tiny    ${PROMPT}    ${N}
    ${named} =    Routed Completion Text    preset-tiny    ${PROMPT}    ${N}
    ${alias} =    Aliased Completion Text    fast    ${PROMPT}    ${N}
    Should Be Equal    ${named}    ${direct}
    Should Be Equal    ${alias}    ${direct}
    ${aliases} =    Listed Aliases    preset-tiny
    VAR    @{expected}    fast    quick
    Lists Should Be Equal    ${aliases}    ${expected}    ignore_order=${True}

Reload Lists A Model Added To The Folder
    Copy File    ${MODELS_DIR}${/}tiny.gguf    ${MODELS_DIR}${/}tiny-late.gguf
    ${before} =    Router Model Ids
    Should Not Contain    ${before}    tiny-late
    ${after} =    Reloaded Model Ids
    Should Contain    ${after}    tiny-late
    Routed Completion Text    tiny-late    ${PROMPT}    ${N}
    [Teardown]    Remove The Late Model

Reload Drops A Preset Section That Was Removed
    Append To File    ${PRESET_FILE}    \n[preset-extra]\nmodel = ${MODELS_DIR}${/}tiny.gguf\n
    ${added} =    Reloaded Model Ids
    Should Contain    ${added}    preset-extra
    Write Preset File
    ${removed} =    Reloaded Model Ids
    Should Not Contain    ${removed}    preset-extra
    Should Contain    ${removed}    preset-tiny


*** Keywords ***
Remove The Late Model
    [Documentation]    Teardown: removes the copy the test adds to the folder, when the suite got as far as
    ...    making the folder (on an external target it is skipped before).
    ${folder} =    Get Variable Value    ${MODELS_DIR}
    IF    $folder is not None    Remove File    ${folder}${/}tiny-late.gguf

Start Lru Router
    [Documentation]    Writes the preset file (`preset-tiny`, aliases `fast` and `quick`) and starts the router on
    ...    the folder of `${MODELS}` with it and `--models-max 2`.
    ${folder} =    Models Folder    ${MODELS}
    VAR    ${PRESET_FILE}    ${OUTPUT DIR}${/}models-preset${/}${SUITE NAME}.ini    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${PRESET_MODEL}    ${folder}${/}tiny.gguf    scope=SUITE    # robocop: off=no-suite-variable
    Write Preset File
    Start Router For Suite    ${MODELS}    --models-max    2    --models-preset    ${PRESET_FILE}
    VAR    &{body}    model=tiny-raw    prompt=${PROMPT}    n_predict=${N}    temperature=${0}    stream=${True}
    VAR    ${BODY_RAW}    ${body}    scope=SUITE    # robocop: off=no-suite-variable

Write Preset File
    [Documentation]    (Re)writes the preset file with its one section, `preset-tiny`.
    Create File    ${PRESET_FILE}    [preset-tiny]\nmodel = ${PRESET_MODEL}\nalias = fast,quick\n

Only These Models Are Loaded
    [Documentation]    Unloads every model, then loads `first` and `second` in that order (so `first` is the least
    ...    recently used).
    [Arguments]    ${first}    ${second}
    ${ids} =    Router Model Ids
    FOR    ${name}    IN    @{ids}
        Model Is Unloaded    ${name}
    END
    Model Is Loaded    ${first}
    Model Is Loaded    ${second}

Every Stream Should Give The Same Text
    [Documentation]    Every streamed result answered 200 without error, and all gave the same text.
    [Arguments]    ${results}
    FOR    ${result}    IN    @{results}
        Stream Status Should Be    ${result}    200
        Stream Should Have No Error    ${result}
    END
    ${all_texts} =    Values Of Each    ${results}    text
    ${texts} =    Evaluate    set($all_texts)
    Length Should Be    ${texts}    1    the streams gave different texts: ${texts}

Aliased Completion Text
    [Documentation]    Like `Routed Completion Text` for a model named by an alias: checks 200 and the token count
    ...    (not the echoed `model`) and returns the text.
    [Arguments]    ${alias}    ${prompt}    ${n_predict}
    VAR    &{body}    model=${alias}    prompt=${prompt}    n_predict=${n_predict}    temperature=${0}
    ...    cache_prompt=${False}
    ${resp} =    POST On Session    suite    /completion    json=${body}    expected_status=200
    Json Field Should Be    ${resp}    tokens_predicted    ${n_predict}
    RETURN    ${resp.json()}[content]

Listed Aliases
    [Documentation]    The `aliases` /models gives the model `name`.
    [Arguments]    ${name}
    ${resp} =    Get Router Models
    ${ids} =    Values Of Each    ${resp.json()}[data]    id
    ${aliases} =    Values Of Each    ${resp.json()}[data]    aliases    missing=${None}
    ${by_id} =    Evaluate    dict(zip($ids, $aliases))
    RETURN    ${by_id}[${name}]

Reloaded Model Ids
    [Documentation]    The model ids `GET /models?reload=1` lists after re-reading its sources.
    ${resp} =    GET On Session    suite    /models    params=reload=1    expected_status=200
    ${ids} =    Values Of Each    ${resp.json()}[data]    id
    RETURN    ${ids}
