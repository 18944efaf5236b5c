*** Settings ***
Documentation       The three suites of examples/ run as a QA engineer runs them: against a llama-server started
...                 apart (SmolLM2 with an API key, two slots, `--no-slots` and one CORS origin, the server
...                 `api_contract.robot` was written for), as a child robot run given only `BASE_URL` and
...                 `$LLAMATEST_API_KEY`, exactly as examples/README.md says. Every one of their tests must pass (or be
...                 not judged).
Library             Collections
Library             Process
Library             XML
Resource            ../../resources/server.resource
Suite Setup         Start The Deployment The Examples Were Written For
Suite Teardown      Stop Servers For Suite
Test Timeout        15 minutes
Test Tags           harness    needs-smollm2


*** Variables ***
${ROOT}                 ${{ str(pathlib.Path(r"${CURDIR}").parents[1]) }}
${KEY: Secret}          %{LLAMATEST_HARNESS_KEY=sk-harness-examples-0123456789}
${ORIGIN}               https://app.example.com
${CHILD_DEADLINE}       12 minutes


*** Test Cases ***
Every Example Passes Against A Server Started Apart
    ${output} =    New Working Folder    examples-run
    ${url} =    Server Url    deployment
    Run The Examples Against    ${url}    ${output}
    Every Test Of The Child Run Should Have Passed    ${output}${/}output.xml
    [Teardown]    Remove Working Folder    ${output}


*** Keywords ***
Start The Deployment The Examples Were Written For
    [Documentation]    SmolLM2 on two slots, keyed, with the flags examples/README.md starts it with.
    Start Preset Server    smollm2    --no-slots    --cors-origins    ${ORIGIN}    alias=deployment
    ...    n_slots=${2}    n_ctx=${4096}    api_key=${KEY}

Run The Examples Against
    [Documentation]    Runs examples/ from the checkout as the README says (`-A robot.args`, `BASE_URL`, the key in
    ...    `$LLAMATEST_API_KEY`), output and load history in `output`; killed at `${CHILD_DEADLINE}`.
    [Arguments]    ${url}    ${output}
    ${python} =    Evaluate    sys.executable    modules=sys
    ${wait} =    Deadline    ${CHILD_DEADLINE}
    ${result} =    Run Process    ${python}    -m    robot    -A    robot.args    --outputdir    ${output}
    ...    --variable    BASE_URL:${url}    --console    dotted    examples    cwd=${ROOT}
    ...    env:LLAMATEST_API_KEY=${KEY}    env:LLAMATEST_LOAD_HISTORY=${output}${/}history
    ...    stdout=${output}${/}stdout.txt    stderr=STDOUT    timeout=${wait}    on_timeout=kill
    Log    ${result.stdout}

Every Test Of The Child Run Should Have Passed
    [Documentation]    The child run's `output.xml` counts no failed test and some that passed; a skip is allowed only
    ...    as `not judged` (a latency target missed while other processes kept the machine busy, see docs/verdicts.md).
    [Arguments]    ${output_xml}
    ${total} =    Get Element    ${output_xml}    statistics/total/stat
    Element Attribute Should Be    ${total}    fail    0
    Element Attribute Should Match    ${total}    pass    [1-9]*
    ${skips} =    Get Elements Texts    ${output_xml}    .//test/status[@status='SKIP']
    Should Not Contain Match    ${skips}    regexp=^(?!not judged)
