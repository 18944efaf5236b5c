*** Settings ***
Documentation       `python -m llamatest.load`, run as a user outside Robot would: against the suite's server (ShareGPT
...                 prompts of at most 600 characters: the tiny model's slots hold 1024 tokens) it
...                 writes the files the keywords write and exits 0; a missed `--slo` exits 1; bad input exits 2 with
...                 one line naming the problem and the fix.
Resource            ../../resources/load.resource
Resource            ../../resources/command_line.resource
Library             OperatingSystem
Suite Setup         Start Server For Suite    tiny-load
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           load


*** Variables ***
${CLI_DEADLINE}     90 s


*** Test Cases ***
Run Writes The Same Files As The Keywords
    VAR    ${out}    ${OUTPUT DIR}/load/cli-run
    ${result} =    Run Load Command    run    --profile    rate    --rate    4    --duration    6
    ...    --dataset    sharegpt    --max-prompt-chars    600    --max-tokens    16    --output    ${out}
    ...    --slo    error_rate_max=0
    Should Be Equal As Integers    ${result.rc}    0    msg=${result.stdout}${result.stderr}
    Should Match Regexp    ${result.stdout}    requests: \\d+ ok of \\d+, 0 errors, 0 dropped
    File Should Exist    ${out}/requests.jsonl
    File Should Exist    ${out}/summary.csv
    File Should Exist    ${out}/latency_percentiles.png
    ${summary} =    Evaluate    json.loads(pathlib.Path($out, 'summary.json').read_text())    modules=json,pathlib
    Should Be Equal    ${summary}[profile][rate]    ${4.0}

A Missed SLO Exits 1
    ${result} =    Run Load Command    run    --profile    synchronous    --max-requests    3
    ...    --dataset    sharegpt    --max-prompt-chars    600    --max-tokens    8
    ...    --output    ${OUTPUT DIR}/load/cli-slo
    ...    --slo    ttft_p50_ms=0.001
    Should Be Equal As Integers    ${result.rc}    1    msg=${result.stdout}${result.stderr}
    Should Contain    ${result.stdout}    SLO missed: ttft p50

A Negative Rate Exits 2 With One Line
    ${result} =    Run Load Command    run    --profile    rate    --rate    -1
    Should Be Equal As Integers    ${result.rc}    2
    Should Be Equal    ${result.stderr}    error: --rate: rate must be > 0 for kind 'rate' (requests/s); got -1.0


*** Keywords ***
Run Load Command
    [Documentation]    `python -m llamatest.load` with `args` against the suite's server (history in the output
    ...    folder); killed after ${CLI_DEADLINE} (see `Deadline`), which fails.
    [Arguments]    ${command}    @{args}
    ${url} =    Server Url
    ${python} =    Evaluate    sys.executable    modules=sys
    ${libraries} =    Normalize Path    ${CURDIR}/../../libraries
    ${wait} =    Deadline    ${CLI_DEADLINE}
    ${result} =    Run Process In Own Folder    ${python}    -m    llamatest.load    ${command}    --url    ${url}
    ...    @{args}    --history    ${OUTPUT DIR}/load-history-cli    env:PYTHONPATH=${libraries}    timeout=${wait}
    ...    on_timeout=kill
    Should Not Be Equal    ${result.rc}    ${-9}    msg=the command: no answer within ${wait} (killed)
    RETURN    ${result}
