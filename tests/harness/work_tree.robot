*** Settings ***
Documentation       A run leaves the checkout as it found it (issue 25): the suites whose servers and helpers write
...                 files (the built-in tools, MCP servers, slot save, `--media-path`, model downloads from the hub
...                 fixture) run as a child robot run from the checkout, with its output in a temporary folder, and
...                 afterwards `git status --porcelain` says what it said before and no file has appeared outside
...                 `results/`. Skipped when the checkout is not a git work tree.
Library             OperatingSystem
Library             Process
Library             DeadlineLibrary
Library             LlamaServerLibrary
Library             WorkTreeLibrary.py
Suite Setup         Checkout Should Be A Git Work Tree    ${ROOT}
Test Timeout        20 minutes
Test Tags           harness


*** Variables ***
${ROOT}                 ${{ str(pathlib.Path(r"${CURDIR}").parents[1]) }}
@{WRITING_SUITES}       suites/26__builtin_tools    suites/25__mcp    suites/11__slot_actions/slot_actions.robot
...                     suites/24__multimodal/media_path.robot    suites/16__router/router_downloads.robot
${CHILD_DEADLINE}       15 minutes


*** Test Cases ***
The Suites That Write Files Leave The Work Tree As It Was
    ${output} =    New Working Folder    work-tree-run
    ${before} =    Work Tree State    ${ROOT}
    Run The Writing Suites Into    ${output}
    ${after} =    Work Tree State    ${ROOT}
    Work Tree Should Be As Before    ${before}    ${after}
    Child Run Should Have Run Tests    ${output}${/}output.xml
    [Teardown]    Remove Working Folder    ${output}


*** Keywords ***
Run The Writing Suites Into
    [Documentation]    Runs `${WRITING_SUITES}` with the default selection as a child robot run from the checkout
    ...    (as run.py does), its output in the folder `output`; killed at `${CHILD_DEADLINE}`.
    [Arguments]    ${output}
    ${python} =    Evaluate    sys.executable    modules=sys
    ${wait} =    Deadline    ${CHILD_DEADLINE}
    ${result} =    Run Process    ${python}    -m    robot    -A    robot.args    -A    selection.args
    ...    --outputdir    ${output}    --console    dotted    --log    NONE    --report    NONE    --xunit    NONE
    ...    @{WRITING_SUITES}    cwd=${ROOT}    stdout=${output}${/}stdout.txt    stderr=STDOUT    timeout=${wait}
    ...    on_timeout=kill
    Should Be True    0 <= ${result.rc} < 251    the child run did not complete (exit ${result.rc}):\n${result.stdout}
