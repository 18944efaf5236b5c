*** Settings ***
Documentation       Images and audio. The media fetcher's trickle case (a chat that waits out the fetcher's
...                 hard-coded 10 s timeout, on a server and a fixture of its own) is begun by the run's first set-up
...                 (`suites/__init__.robot`), so that it goes on beside the run's other suites; this set-up begins
...                 it when the run starts at this folder, and its test in media_fetcher.robot when that file runs
...                 alone. The test takes the answer.
Resource            ../../resources/early_cases.resource
Suite Setup         Begin The Early Case    trickle
Suite Teardown      End The Early Case    trickle
