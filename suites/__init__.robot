*** Settings ***
Documentation       Acceptance tests of llama.cpp's llama-server, run against real server processes.
...
...                 Each suite starts the server it needs (model and flags) in its own Suite Setup.
...                 Tests tagged `bug` document server defects and are excluded by default.
...                 Each suite file sets its own `Test Timeout`, so that it also holds when the file runs alone.
Metadata            Project    llamatest
