*** Settings ***
Documentation       The router and downloads. The folder set-up launches the two start-ups of router_downloads.robot
...                 that wait out the downloader (its hard-coded retries, a hub that never answers), from a hub
...                 fixture of its own, so that they go on beside the folder's other suites; their tests take the
...                 outcome, and the suite file begins them itself when this set-up did not run (the file run
...                 alone) or could not begin them.
Resource            ../../resources/downloads.resource
Suite Setup         Begin The Downloader Waits Beside The Folder
Suite Teardown      End The Downloader Waits


*** Keywords ***
Begin The Downloader Waits Beside The Folder
    [Documentation]    Starts the folder's hub (`${HUB}`) with the two repositories, then the start-ups (`Begin
    ...    The Start-Ups That Wait Out The Downloader`). A failure here fails no suite of the folder: what was
    ...    begun is ended, and router_downloads.robot begins the start-ups again and reports what fails.
    ${begun} =    Run Keyword And Return Status    Begin Hub And Start-Ups
    IF    not ${begun}    End The Downloader Waits

Begin Hub And Start-Ups
    [Documentation]    Starts the folder's hub serving `${CUT_REPO}` (cut) and `${SILENT_REPO}` (silent), then
    ...    launches the start-ups from it.
    ${hub} =    Start Hub Fixture
    VAR    ${HUB}    ${hub}    scope=SUITE    # robocop: off=no-suite-variable
    Serve Repo    ${CUT_REPO}    cut    model-Q8_0.gguf=tiny
    Serve Repo    ${SILENT_REPO}    silent    model-Q8_0.gguf=tiny
    Begin The Start-Ups That Wait Out The Downloader

End The Downloader Waits
    [Documentation]    Stops the start-ups still running, then the folder's hub.
    [Timeout]    1 minute
    End The Start-Ups That Wait Out The Downloader
    Stop Hub Fixture
