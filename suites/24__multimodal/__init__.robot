*** Settings ***
Documentation       Images and audio. The folder set-up begins the media fetcher's trickle case (a chat that waits out
...                 the fetcher's 10 s timeout, on a server and a fixture of its own), so that it runs beside the
...                 folder's other suites; its test in media_fetcher.robot takes the answer, and begins the case
...                 itself when this set-up did not run (a suite file run alone) or could not begin it.
Resource            ../../resources/multimodal.resource
Suite Setup         Begin The Trickled Chat Beside The Folder
Suite Teardown      End The Trickled Chat


*** Keywords ***
Begin The Trickled Chat Beside The Folder
    [Documentation]    Begins the trickle case (`Begin The Trickled Chat`). A failure here fails no suite of the
    ...    folder: what was begun is ended, and the trickle's test begins the case again and reports what fails.
    ${begun} =    Run Keyword And Return Status    Begin The Trickled Chat
    IF    not ${begun}    End The Trickled Chat
