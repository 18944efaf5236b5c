*** Settings ***
Documentation       Downloads from a hub, offline: `-hf` at start-up, the router's `POST /models` and
...                 `DELETE /models`, the cache, and a hub that cuts a download, lies about a checksum or never
...                 answers. The hub is our fixture on 127.0.0.1 serving our generated models (HubLibrary); each
...                 test has its own `LLAMA_CACHE`. The suite's server is a router on its own cache. The three cases
...                 that must wait out the downloader (its retries, a hub that never answers) go on beside the
...                 other suites, on servers and a hub fixture of their own, each watched by its own test tagged
...                 `early:downloader`, last in the file: the run's first set-up begins them
...                 (early_cases.resource), the folder's when the run starts at the folder, this suite's set-up
...                 when this file runs alone.
Resource            ../../resources/downloads.resource
Suite Setup         Start Hub And Router
Suite Teardown      Stop Servers And Hub
Test Timeout        2 minutes
Test Tags           router    downloads    needs:managed


*** Variables ***
${TINY_REPO}        llamatest/tiny-GGUF
${DRAFT_REPO}       llamatest/draft-GGUF
${MISMATCH_REPO}    llamatest/mismatch-GGUF
${PROGRESS_REPO}    llamatest/progress-GGUF
${PROGRESS2_REPO}    llamatest/progress2-GGUF
${FILE}             model-Q8_0.gguf
${PROMPT}           hello world


*** Test Cases ***
Start-Up With An Hf Repo Downloads The Model Into The Cache
    ${cache} =    Fresh Cache    first
    Start Server From Hub    ${TINY_REPO}:Q8_0    ${cache}    alias=hf
    ${out} =    Complete    ${PROMPT}    n_predict=${4}    ignore_eos=${True}    server=hf
    Json Field Should Be    ${out}    tokens_predicted    ${4}
    Cached Model Should Be    ${cache}    ${TINY_REPO}    ${FILE}    tiny
    [Teardown]    Stop Llama Server    hf

A Second Start-Up Takes The Model From The Cache
    ${cache} =    Fresh Cache    second
    Start Server From Hub    ${TINY_REPO}:Q8_0    ${cache}    alias=hf
    Stop Llama Server    hf
    ${downloads} =    Hub Request Count    GET    /${TINY_REPO}/resolve/
    Start Server From Hub    ${TINY_REPO}:Q8_0    ${cache}    alias=hf
    ${again} =    Hub Request Count    GET    /${TINY_REPO}/resolve/
    Should Be Equal    ${again}    ${downloads}    the second start-up downloaded the file again
    [Teardown]    Stop Llama Server    hf

A File Whose Checksum And Size Differ From The Listing Is Kept As It Came
    [Documentation]    The tree gives each file's sha256 (`lfs.oid`) and size; the downloader names the blob after
    ...    that sha256 but checks neither: a file of other content and size is kept and loaded.
    [Tags]    build-specific    builds:11434-
    ${cache} =    Fresh Cache    mismatch
    Start Server From Hub    ${MISMATCH_REPO}:Q8_0    ${cache}    alias=hf
    ${blobs} =    Cached Blobs    ${cache}    ${MISMATCH_REPO}
    Length Should Be    ${blobs}    1
    ${name} =    Evaluate    next(iter($blobs))
    Should Not Be Equal    ${blobs}[${name}]    ${name}    the blob's content matches its name
    [Teardown]    Stop Llama Server    hf

The Router Downloads A Model And Serves It
    Download Model Through Router    ${DRAFT_REPO}:Q8_0
    ${text} =    Routed Completion Text    ${DRAFT_REPO}:Q8_0    ${PROMPT}    ${4}
    Should Not Be Empty    ${text}
    Cached Model Should Be    ${ROUTER_CACHE}    ${DRAFT_REPO}    ${FILE}    tiny-draft

The Router Reports The Progress And Then The End Of A Download
    [Documentation]    README, "POST /models": the progress "can be tracked via SSE endpoint `/models/sse`", and "On
    ...    downloading completed, you will receive either `download_finished` or `download_failed` event".
    ${stream} =    Open Model Events
    Download Model Through Router    ${PROGRESS_REPO}:Q8_0
    ${events} =    Download Events Until    ${stream}    ${PROGRESS_REPO}:Q8_0    download_finished
    Events Should Be Progress Then Finished    ${events}
    [Teardown]    Close Model Events If Opened

Download Progress Gives Each File's Done And Total Bytes
    [Documentation]    README, "GET /models/sse": a `download_progress` event's `data` maps each file's URL to
    ...    `{"done": …, "total": …}`. This build nests that map under `progress` (the model's `loaded_info`:
    ...    `{"progress": {"URL": {…}}}`).
    [Tags]    bug
    ${stream} =    Open Model Events
    Download Model Through Router    ${PROGRESS2_REPO}:Q8_0
    ${events} =    Download Events Until    ${stream}    ${PROGRESS2_REPO}:Q8_0    download_finished
    Progress Should End At The Size Of    ${events}    tiny-draft
    [Teardown]    Close Model Events If Opened

The Router Deletes A Downloaded Model From The List And The Disk
    Download Model Through Router    ${TINY_REPO}:Q8_0
    ${resp} =    DELETE On Session    suite    /models    params=model=${TINY_REPO}:Q8_0    expected_status=200
    VAR    &{success}    success=${True}
    Should Be Equal    ${resp.json()}    ${success}
    ${ids} =    Router Model Ids
    Should Not Contain    ${ids}    ${TINY_REPO}:Q8_0
    Cache Should Hold No Complete Model    ${ROUTER_CACHE}    ${TINY_REPO}

The Router Refuses To Download A Repository The Hub Does Not Have
    [Documentation]    README, "POST /models": "Response (error, cannot start the download)" is a 400
    ...    `invalid_request_error` "model validation failed, unable to download", and the route validates "by
    ...    fetching metadata" (server-models.cpp). For a repository the hub answers 404 for, this build logs
    ...    "failed to resolve commit", answers 200 `{"success": true}` anyway, and spawns a download child
    ...    that finds nothing and exits with status 0.
    [Tags]    bug
    VAR    &{body}    model=llamatest/absent-GGUF:Q8_0
    ${resp} =    POST On Session    suite    /models    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error
    ...    message=model validation failed, unable to download

A Router Download Cut Half-Way Leaves No Model
    [Documentation]    The router `cut-router` was asked for the download when the case began (`POST /models`
    ...    answered 200 there); its downloader tries three times, 2 s and then 4 s apart (common/download.cpp,
    ...    hard-coded), before the router drops the model. The repository is its own, so the hub's count is of
    ...    this download alone.
    [Tags]    early:downloader
    ${wait} =    Deadline    30 s
    Wait Until Keyword Succeeds    ${wait}    200 ms    Hub Should Have Seen Downloads    ${ROUTER_CUT_REPO}    3
    ${wait} =    Deadline    10 s
    Wait Until Keyword Succeeds    ${wait}    200 ms
    ...    Model Should Not Be Listed    ${ROUTER_CUT_REPO}:Q8_0    cut-router
    Cache Should Hold No Complete Model    ${ROUTER_CUT_CACHE}    ${ROUTER_CUT_REPO}
    [Teardown]    Stop Llama Server    cut-router

A Download Cut Half-Way Fails The Start-Up And Leaves No Complete File
    [Documentation]    The start-up `cut-start` began with the case (see the suite's documentation): its downloader
    ...    tries three times, 2 s and then 4 s apart (common/download.cpp, hard-coded), so it fails no sooner
    ...    than 6 s after its start.
    [Tags]    early:downloader
    Launched Start Should Fail    cut-start    failed to download model
    Cache Should Hold No Complete Model    ${CUT_CACHE}    ${CUT_REPO}
    ${partials} =    Partial Download Sizes    ${CUT_CACHE}    ${CUT_REPO}
    Length Should Be    ${partials}    1
    [Teardown]    Stop Llama Server    cut-start

A Hub That Never Answers Holds The Start-Up
    [Documentation]    No timeout is set on the downloader's HTTP client (common/http.h), so a hub that accepts the
    ...    connection and never answers holds the start-up for the library's default (300 s) per request. The
    ...    start-up `silent-start` began with the case (see the suite's documentation); it must hold
    ...    `${SILENT_WAIT}` from then (the resource says why that long).
    [Tags]    build-specific    builds:11434-    early:downloader
    Launched Start Should Still Wait After    silent-start
    Cache Should Hold No Complete Model    ${SILENT_CACHE}    ${SILENT_REPO}
    [Teardown]    Stop Llama Server    silent-start


*** Keywords ***
Hub Should Have Seen Downloads
    [Documentation]    The hub fixture of the early cases (`${WAITS_HUB}`) got at least `count` GET requests for
    ...    files of `repo`.
    [Arguments]    ${repo}    ${count}
    ${seen} =    Hub Request Count    GET    /${repo}/resolve/    hub=${WAITS_HUB}
    Should Be True    ${seen} >= ${count}    the hub got ${seen} downloads of ${repo}

Model Should Not Be Listed
    [Documentation]    GET /models of the router `server` does not list `name`.
    [Arguments]    ${name}    ${server}=suite
    ${ids} =    Router Model Ids    server=${server}
    Should Not Contain    ${ids}    ${name}

Start Hub And Router
    [Documentation]    Begins the cases that wait out the downloader unless a set-up began them, starts the suite's
    ...    hub fixture with one repository per case of its own, then the suite's router on its own cache, with the
    ...    hub as its endpoint.
    Take The Cases That Wait Out The Downloader
    ${hub} =    Start Hub Fixture
    VAR    ${HUB}    ${hub}    scope=SUITE    # robocop: off=no-suite-variable
    Serve Every Repo
    ${cache} =    Fresh Cache    router
    VAR    ${ROUTER_CACHE}    ${cache}    scope=SUITE    # robocop: off=no-suite-variable
    ${env} =    Hub Environment    ${cache}
    Start Llama Server    ${NONE}    --ctx-size    512    --parallel    1    env=${env}

Take The Cases That Wait Out The Downloader
    [Documentation]    Begins the three cases whose outcome takes the downloader's seconds, unless a set-up began
    ...    them (`Begin The Cases That Wait Out The Downloader`), and keeps their caches: `${CUT_CACHE}` of
    ...    `cut-start`, `${SILENT_CACHE}` of `silent-start`, `${ROUTER_CUT_CACHE}` of `cut-router`.
    Begin The Cases That Wait Out The Downloader
    ${cut} =    Cache Folder    cut    downloader-waits
    VAR    ${CUT_CACHE}    ${cut}    scope=SUITE    # robocop: off=no-suite-variable
    ${silent} =    Cache Folder    silent    downloader-waits
    VAR    ${SILENT_CACHE}    ${silent}    scope=SUITE    # robocop: off=no-suite-variable
    ${router} =    Cache Folder    router-cut    downloader-waits
    VAR    ${ROUTER_CUT_CACHE}    ${router}    scope=SUITE    # robocop: off=no-suite-variable

Serve Every Repo
    [Documentation]    Serves the repositories of the suite's own cases, one per case.
    Serve Repo    ${TINY_REPO}    model-Q8_0.gguf=tiny
    Serve Repo    ${DRAFT_REPO}    model-Q8_0.gguf=tiny-draft
    Serve Repo    ${MISMATCH_REPO}    oid-mismatch    model-Q8_0.gguf=tiny
    Serve Repo    ${PROGRESS_REPO}    model-Q8_0.gguf=tiny-draft
    Serve Repo    ${PROGRESS2_REPO}    model-Q8_0.gguf=tiny-draft

Stop Servers And Hub
    [Documentation]    Stops the suite's servers and hub fixture, then what its tests left of the cases that wait
    ...    out the downloader.
    [Timeout]    1 minute
    Stop Servers For Suite
    Stop Hub Fixture
    End The Cases That Wait Out The Downloader
