*** Settings ***
Documentation       A llama-server that dies in the middle of a suite: the next request fails at once and names
...                 the problem, the crash is reported with its signal and the server's log tail, and the suites
...                 after this one (`server_lifecycle.robot`) still run, each on a fresh server of its own.
Resource            ../../resources/server.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           harness


*** Test Cases ***
Request To A Killed Server Fails At Once Naming The Refused Connection
    Kill Llama Server
    Run Keyword And Expect Error    GET /health: connection refused (*): is the server running?
    ...    GET On Session    suite    /health

Killed Server Is Reported With Its Signal And Log Tail
    Run Keyword And Expect Error    llama-server 'suite' exited with code -9:*listening on http://127.0.0.1:*
    ...    Server Should Be Running
