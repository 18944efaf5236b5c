*** Settings ***
Documentation       Acceptance tests of llama.cpp's llama-server, run against real server processes.
...
...                 Each suite starts the server it needs (model and flags) in its own Suite Setup.
...                 Tests tagged `bug` document server defects and are excluded by default.
...                 Each suite file sets its own `Test Timeout`, so that it also holds when the file runs alone.
...                 The cases that wait out timeouts hard-coded in the server begin here, beside everything else
...                 (early_cases.resource: the tests tagged `early:NAME` watch them).
Metadata            Project    llamatest
Resource            ../resources/early_cases.resource
Suite Setup         Begin The Early Cases Of The Run
Suite Teardown      End The Early Cases Of The Run
