*** Settings ***
Documentation       `--sleep-idle-seconds 1`: after a second without work the server unloads its model and
...                 `/props` reports `is_sleeping: true`. Monitoring routes answer without waking it; a route that
...                 needs the model wakes it, and a completion after a sleep answers exactly as before it.
...
...                 Every test first waits (with a deadline) until its server sleeps, so none depends on the
...                 order of the tests or on how long the previous one took. One second is the least idle time the
...                 server takes (whole seconds; 0 and below -1 are refused, see `bad_arguments.robot`), so each
...                 sleep lasts about a second. The two tests that need a sleep after a completion of their own come
...                 first: the first one's sleep is the server's first, and the second leaves it asleep for the
...                 monitoring routes. Two servers: `suite` for all but one test, and `woken`, started right after
...                 it, for the second route that wakes the server, which would otherwise wait for `suite` to fall
...                 asleep again after the first woke it.
Resource            ../../resources/metrics.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Servers That Sleep After One Idle Second
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Request Should Leave The Server Asleep
Test Tags           sleep


*** Variables ***
&{TOKENIZE_BODY}        content=hello


*** Test Cases ***                                  METHOD    PATH
Completion Wakes The Server And Answers As Before The Sleep
    [Template]    NONE
    ${before} =    Complete    a prompt across a sleep    n_predict=${8}
    Wait Until Server Sleeps
    ${after} =    Complete    a prompt across a sleep    n_predict=${8}
    Sleeping Should Be    ${False}
    Should Be Equal    ${after}[content]    ${before}[content]
    Json Field Should Be    ${after}    tokens_predicted    ${8}

Metrics Of A Sleeping Server Keep The Counts From Before The Sleep
    [Template]    NONE
    ${before} =    Scrape Metrics
    Complete    counted before the sleep    n_predict=${4}
    Wait Until Server Sleeps
    ${asleep} =    Scrape Metrics
    Counter Should Have Grown By    ${before}    ${asleep}    llamacpp:tokens_predicted_total    ${4}

Health Does Not Wake A Sleeping Server              GET       /health
V1 Health Does Not Wake A Sleeping Server           GET       /v1/health
Props Do Not Wake A Sleeping Server                 GET       /props
Metrics Do Not Wake A Sleeping Server               GET       /metrics
Model List Does Not Wake A Sleeping Server          GET       /v1/models
Ollama Model List Does Not Wake A Sleeping Server   GET       /models

Routes That Need The Model Wake The Server
    [Documentation]    Tokenizing needs the vocabulary, and `/slots` is answered by the task loop, which has
    ...    to wake to answer.
    [Template]    Request Should Wake The Server
    POST    /tokenize    ${TOKENIZE_BODY}    server=suite
    GET     /slots       server=woken


*** Keywords ***
Start Servers That Sleep After One Idle Second
    [Documentation]    The suite's server and `woken`, both on `tiny-metrics` with `--sleep-idle-seconds 1`. The
    ...    suite's comes first: with `$LLAMA_SERVER_URL` set, it skips the suite before `woken` starts.
    Start Server For Suite    tiny-metrics    --sleep-idle-seconds    1
    Start Preset Server    tiny-metrics    --sleep-idle-seconds    1    alias=woken
