*** Settings ***
Documentation       The built-in tools, all enabled (`--tools all`): each tool's contract and its refusals, in a
...                 folder of the output directory given by `x-tool-cwd`. Expectations come from the files the
...                 tests write, `--help` and README-dev; what the tools can reach outside that folder is in
...                 builtin_tools_reach.robot.
...
...                 A call stopped at its timeout lasts a second, the least `timeout` takes (whole seconds): the
...                 set-up sends it in the background, and its test comes last and takes the answer, so that the
...                 second runs while the other tests do.
Resource            ../../resources/builtin_tools.resource
Suite Setup         Start Server And Begin A Command That Times Out
Suite Teardown      Stop Server And The Command That Timed Out
Test Timeout        2 minutes
Test Tags           builtin-tools    needs:managed    build-specific    builds:10825-


*** Variables ***
@{WRITE_TOOLS}      exec_shell_command    write_file    edit_file
${LINES}            one\ntwo\nthree\nfour\nfive\n


*** Test Cases ***
Every Tool The Help Names Is Listed As A Server Tool
    ${help} =    Help Tool Names
    ${listed} =    Listed Tool Names    server
    Lists Should Be Equal    ${listed}    ${help}    ignore_order=${True}
    ${all} =    Listed Tool Names
    Lists Should Be Equal    ${all}    ${listed}

Only The Tools That Change Something Ask For The Write Permission
    ${tools} =    Listed Tools    server
    ${writable} =    Items Where    ${tools}    permissions.write    ${True}
    ${writers} =    Values Of Each    ${writable}    tool
    Lists Should Be Equal    ${writers}    ${WRITE_TOOLS}    ignore_order=${True}

Read File Returns The Lines Asked For
    ${dir} =    Fresh Folder    read
    Create File    ${dir}${/}lines.txt    ${LINES}
    ${all} =    Tool Text In    ${dir}    read_file    path=lines.txt
    Should Be Equal    ${all}    ${LINES}
    ${part} =    Tool Text In    ${dir}    read_file    path=lines.txt    start_line=${2}    end_line=${3}
    Should Be Equal    ${part}    two\nthree\n
    ${numbered} =    Tool Text In    ${dir}    read_file    path=lines.txt    start_line=${4}    append_loc=${True}
    Should Be Equal    ${numbered}    4\u2192four\n5\u2192five\n

Read File Refuses A File It Cannot Stat
    ${dir} =    Fresh Folder    missing
    Tool Should Refuse In    ${dir}    read_file    cannot stat file: nope.txt    path=nope.txt

Read File Refuses A File Over Sixteen KiB Without A Line Range
    [Tags]    builds:11434-
    ${dir} =    Fresh Folder    big
    ${content} =    Evaluate    "x" * 20000
    Create File    ${dir}${/}big.txt    ${content}
    Tool Should Refuse In    ${dir}    read_file
    ...    file too large (20000 bytes, max 16384). Use start_line/end_line to read a portion.    path=big.txt

Write File Creates The File And Its Folders
    ${dir} =    Fresh Folder    write
    VAR    ${content}    héllo ✓\nsecond line\n
    ${answer} =    Tool Answer In    ${dir}    write_file    path=a/b/out.txt    content=${content}
    ${bytes} =    Evaluate    len($content.encode("utf-8"))
    VAR    &{expected}    result=file written successfully    path=a/b/out.txt    bytes=${bytes}
    Should Be Equal    ${answer}    ${expected}
    ${written} =    Get File    ${dir}${/}a${/}b${/}out.txt
    Should Be Equal    ${written}    ${content}

Edit File Replaces Each Unique Text Once
    ${dir} =    Fresh Folder    edit
    Create File    ${dir}${/}f.txt    ${LINES}
    ${edits} =    Edits Replacing    two    2    five\n    5\n6\n
    ${answer} =    Tool Answer In    ${dir}    edit_file    path=f.txt    edits=${edits}
    VAR    &{expected}    result=file edited successfully    path=f.txt    edits_applied=${2}
    Should Be Equal    ${answer}    ${expected}
    ${edited} =    Get File    ${dir}${/}f.txt
    Should Be Equal    ${edited}    one\n2\nthree\nfour\n5\n6\n

Edit File Refuses Text That Is Not Unique And Leaves The File Alone
    ${dir} =    Fresh Folder    edit-dup
    Create File    ${dir}${/}dup.txt    dup\ndup\n
    ${edits} =    Edits Replacing    dup    x
    Tool Should Refuse In    ${dir}    edit_file
    ...    found 2 occurrences of edits[0].old_text in dup.txt, it must be unique    path=dup.txt    edits=${edits}
    ${after} =    Get File    ${dir}${/}dup.txt
    Should Be Equal    ${after}    dup\ndup\n

Edit File Refuses Text It Cannot Find
    ${dir} =    Fresh Folder    edit-absent
    Create File    ${dir}${/}f.txt    ${LINES}
    ${edits} =    Edits Replacing    seven    7
    Tool Should Refuse In    ${dir}    edit_file
    ...    could not find edits[0].old_text in f.txt, it must match the file's current content exactly
    ...    path=f.txt    edits=${edits}
    ${after} =    Get File    ${dir}${/}f.txt
    Should Be Equal    ${after}    ${LINES}

Edit File Refuses Overlapping Edits And Leaves The File Alone
    ${dir} =    Fresh Folder    edit-overlap
    Create File    ${dir}${/}f.txt    line1\nline2\n
    ${edits} =    Edits Replacing    line1\nline2    a    line2    b
    Tool Should Refuse In    ${dir}    edit_file
    ...    edits[0] and edits[1] overlap in f.txt; merge them into one edit or target disjoint regions
    ...    path=f.txt    edits=${edits}
    ${after} =    Get File    ${dir}${/}f.txt
    Should Be Equal    ${after}    line1\nline2\n

Exec Shell Command Returns Its Output And Exit Code
    ${dir} =    Fresh Folder    exec
    ${text} =    Tool Text In    ${dir}    exec_shell_command    command=printf 'a\\nb' ; pwd ; exit 3
    Should Be Equal    ${text}    a\nb${dir}\n\n[exit code: 3]

A Command That Forks Is Stopped At Its Timeout Too
    [Documentation]    Contract: the tool's own definition, which the server publishes in `GET /tools` (its README:
    ...    tools "show up … in `GET /tools`"): "timeout: Timeout in seconds (default 10, max 60)".
    ...    On timeout the server kills only the shell (server-tools.cpp, `run_subprocess`: `proc.terminate()`),
    ...    then reads the output until EOF: a child of the shell (`sleep 30; true`) keeps the pipe open, so
    ...    the call lasts 30 s instead of 1, and the child runs on after the answer.
    [Tags]    bug
    Command Should Be Stopped At Its Timeout    sleep 30; true

Exec Shell Command Streams Its Output Then A Done Event
    ${events} =    Streamed Tool Events    exec_shell_command    command=echo hello
    ${output} =    Values Of Each    ${events}[:-1]    chunk
    ${chunks} =    Evaluate    "".join($output)
    Should Be Equal    ${chunks}    hello\n\n[exit code: 0]
    VAR    &{done}    done=${True}
    Should Be Equal    ${events}[-1]    ${done}

A Tool That Cannot Stream Refuses Stream With 404
    [Documentation]    README-dev: streaming "returns 404 if tool doesn't support it".
    VAR    &{params}    path=x
    VAR    &{body}    tool=read_file    params=${params}    stream=${True}
    ${resp} =    POST On Session    suite    /tools    json=${body}    expected_status=any
    Error Response Should Be    ${resp}    404    not_found_error

Grep Search Reports Each Matching Line And The Total
    ${dir} =    Fresh Folder    grep
    Create File    ${dir}${/}a.txt    alpha\nneedle one\nbeta\n
    Create File    ${dir}${/}b.log    needle two\n
    ${text} =    Tool Text In    ${dir}    grep_search
    ...    path=.    pattern=needle    include=*.txt    return_line_numbers=${True}
    Should Be Equal    ${text}    a.txt:2:needle one\n\n---\nTotal matches: 1\n

File Glob Search Lists The Entries Under The Folder
    ${dir} =    Fresh Folder    glob
    Create File    ${dir}${/}top.txt    top
    Create File    ${dir}${/}sub${/}deep.txt    deep
    ${answer} =    Tool Answer In    ${dir}    file_glob_search    path=.    type=all
    ${paths} =    Entry Paths Marking Folders    ${answer}
    VAR    @{expected}    sub/    sub/deep.txt    top.txt
    Lists Should Be Equal    ${paths}    ${expected}
    Should Be Equal    ${answer}[base]    ${dir}

File Glob Search Descends No Deeper Than Max Depth
    ${dir} =    Nested Folder    glob-depth
    Glob Paths Should Be    ${dir}    top.txt    max_depth=${1}
    Glob Paths Should Be    ${dir}    a/mid.txt    top.txt    max_depth=${2}

File Glob Search Returns At Most Limit Entries And Counts Them All
    ${dir} =    Nested Folder    glob-limit
    ${answer} =    Tool Answer In    ${dir}    file_glob_search    path=.    limit=${1}
    Length Should Be    ${answer}[entries]    1
    Should Contain    ${answer}[plain_text_response]    Total matches: 3

File Glob Search Lists A Junk Folder But Never Walks It
    [Documentation]    The tool's definition: the search skips "common junk directories (.git, node_modules, build,
    ...    dist, etc.)"; the folder itself stays listed, as a possible working folder.
    ${dir} =    Fresh Folder    glob-junk
    Create File    ${dir}${/}build${/}artifact.txt    built
    Create Directory    ${dir}${/}build${/}nested
    Create File    ${dir}${/}src${/}main.cpp    int main() {}
    Glob Paths Should Be    ${dir}    build    src    src/main.cpp    type=all

File Glob Search Refuses An Unknown Type
    ${dir} =    Fresh Folder    glob-type
    Tool Should Refuse In    ${dir}    file_glob_search
    ...    invalid type: bogus (expected "file", "dir" or "all")    path=.    type=bogus

Get Info Reports The Working Folder Of The Header
    ${dir} =    Fresh Folder    info
    ${answer} =    Tool Answer In    ${dir}    get_info
    Should Be Equal    ${answer}[cwd]    ${dir}
    Should Start With    ${answer}[os]    Linux

An Unknown Tool Is Not Found
    ${resp} =    Call Tool    no_such_tool    expected_status=any
    Error Response Should Be    ${resp}    404    not_found_error

Exec Shell Command Is Stopped At Its Timeout
    [Documentation]    Takes the answer to `exec sleep 30` with a timeout of 1 s, the call the suite's set-up sent.
    ${resp} =    Background Answer    exec-timeout
    Command Should Have Been Stopped At Its Timeout    ${resp}


*** Keywords ***
Command Should Be Stopped At Its Timeout
    [Documentation]    Runs `command` with a timeout of 1 s: see `Command Should Have Been Stopped At Its Timeout`.
    [Arguments]    ${command}
    ${params}    ${headers} =    Command Stopped After A Second    ${command}    exec-timeout
    ${resp} =    Call Tool    exec_shell_command    ${params}    headers=${headers}
    Command Should Have Been Stopped At Its Timeout    ${resp}

Command Should Have Been Stopped At Its Timeout
    [Documentation]    The answer `resp` to a command with a timeout of 1 s: 200, it ends with
    ...    `[exit due to timed out]` and came between 1 and 15 s after the call.
    [Arguments]    ${resp}
    Should Be Equal As Integers    ${resp.status_code}    200
    Should Be True    1 <= $resp.elapsed.total_seconds() < 15    the call took ${resp.elapsed}
    Should End With    ${resp.json()}[plain_text_response]    [exit due to timed out]

Start Server And Begin A Command That Times Out
    [Documentation]    Starts the suite's server with every tool, then sends `exec sleep 30` with a timeout of 1 s in
    ...    the background (`exec-timeout`), in a folder of its own.
    Start Server With Playground    --tools    all
    ${params}    ${headers} =    Command Stopped After A Second    exec sleep 30    exec-timeout-begun
    Call Tool In Background    exec-timeout    exec_shell_command    ${params}    headers=${headers}

Command Stopped After A Second
    [Documentation]    The `exec_shell_command` params and headers that run `command` with a timeout of 1 s (the
    ...    least `timeout` takes: whole seconds) in the fresh folder `folder`.
    [Arguments]    ${command}    ${folder}
    ${dir} =    Fresh Folder    ${folder}
    VAR    &{headers}    x-tool-cwd=${dir}
    VAR    &{params}    command=${command}    timeout=${1}    # provoked
    RETURN    ${params}    ${headers}

Stop Server And The Command That Timed Out
    [Documentation]    Stops the server, deletes the playground, and ends the set-up's background call.
    [Timeout]    1 minute
    Stop Server And Remove Playground
    Stop Background Post    exec-timeout

Nested Folder
    [Documentation]    Creates the folder `name` with `top.txt`, `a/mid.txt` and `a/b/deep.txt`; returns its path.
    [Arguments]    ${name}
    ${dir} =    Fresh Folder    ${name}
    Create File    ${dir}${/}top.txt    top
    Create File    ${dir}${/}a${/}mid.txt    mid
    Create File    ${dir}${/}a${/}b${/}deep.txt    deep
    RETURN    ${dir}

Entry Paths Marking Folders
    [Documentation]    Returns the sorted `path`s of the `entries` of a `file_glob_search` answer, each entry of
    ...    `type` `dir` with a `/` after it.
    [Arguments]    ${answer}
    VAR    @{paths}    @{EMPTY}
    FOR    ${entry}    IN    @{answer}[entries]
        VAR    ${path}    ${entry}[path]
        IF    $entry["type"] == "dir"    VAR    ${path}    ${path}/
        VAR    @{paths}    @{paths}    ${path}
    END
    Sort List    ${paths}
    RETURN    ${paths}

Glob Paths Should Be
    [Documentation]    `file_glob_search` of `.` in `folder` with the `options` lists exactly the `expected` paths
    ...    (given sorted).
    [Arguments]    ${folder}    @{expected}    &{options}
    ${answer} =    Tool Answer In    ${folder}    file_glob_search    path=.    &{options}
    ${paths} =    Values Of Each    ${answer}[entries]    path
    Sort List    ${paths}
    Lists Should Be Equal    ${paths}    ${expected}
