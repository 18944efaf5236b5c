*** Settings ***
Documentation       What the built-in tools can reach on the server's machine. The server README promises no
...                 confinement: the tools "enable the LLM to access the local file system directly", "do not
...                 enable in untrusted environments" (`--help`), and upstream's own test checks that absolute
...                 paths ignore the working folder. So the tests tagged `build-specific` record today's reach
...                 (absolute paths, `..`, symlinks, any working folder, the server's user and environment); the
...                 others check the guards that are written down: CORS limited to localhost (`--help`), the
...                 API key, `x-tool-cwd` and `x-tool-runtime` set by the client only (README-dev), and only
...                 the tools `--tools` names.
Resource            ../../resources/builtin_tools.resource
Resource            ../../resources/security.resource
Suite Setup         Start Reach Server
Suite Teardown      Stop Server And Remove Playground
Test Timeout        2 minutes
Test Tags           builtin-tools    security    needs:managed


*** Variables ***
${SECRET}               the secret outside the folder
${PROBE_VALUE}          seen by the shell
${FOREIGN_ORIGIN}       http://attacker.example
${LOCAL_ORIGIN}         http://localhost:5173


*** Test Cases ***
Read File Reaches A File Outside Its Folder By An Absolute Path
    [Tags]    build-specific    builds:11434-
    ${text} =    Tool Text In    ${WORK}    read_file    path=${OUTSIDE}/secret.txt
    Should Be Equal    ${text}    ${SECRET}\n

Read File Follows Dot-Dot Out Of Its Folder
    [Tags]    build-specific    builds:11434-
    ${text} =    Tool Text In    ${WORK}    read_file    path=../outside/secret.txt
    Should Be Equal    ${text}    ${SECRET}\n

Read File Follows A Symlink Out Of Its Folder
    [Tags]    build-specific    builds:11434-
    Evaluate    os.symlink($OUTSIDE + "/secret.txt", $WORK + "/link.txt")    modules=os
    ${text} =    Tool Text In    ${WORK}    read_file    path=link.txt
    Should Be Equal    ${text}    ${SECRET}\n

Write File Writes Outside Its Folder
    [Tags]    build-specific    builds:11434-
    Tool Answer In    ${WORK}    write_file    path=../outside/planted.txt    content=planted
    ${planted} =    Get File    ${OUTSIDE}${/}planted.txt
    Should Be Equal    ${planted}    planted

Exec Shell Command Runs As The Server's User With Its Environment
    [Tags]    build-specific    builds:11434-
    ${text} =    Tool Text In    ${WORK}    exec_shell_command
    ...    command=id -u; echo $LLAMATEST_TOOLS_PROBE
    ${uid} =    Evaluate    os.getuid()    modules=os
    Should Be Equal    ${text}    ${uid}\n${PROBE_VALUE}\n\n[exit code: 0]

The Client Chooses Any Working Folder
    [Tags]    build-specific    builds:11434-
    ${answer} =    Tool Answer In    /    file_glob_search    path=.    type=dir    max_depth=${1}
    Should Be Equal    ${answer}[base]    /
    ${dirs} =    Values Of Each    ${answer}[entries]    path
    Should Contain    ${dirs}    etc

A Working Folder In The Params Is Replaced By The Header
    [Documentation]    README-dev: `x-tool-cwd` "is not part of tool's params because it's meant to be set by the
    ...    runtime, not the LLM itself"; a `cwd` the model puts in the params is dropped.
    [Tags]    build-specific    builds:10825-
    ${answer} =    Tool Answer In    ${WORK}    get_info    cwd=${OUTSIDE}
    Should Be Equal    ${answer}[cwd]    ${WORK}

A Runtime In The Params Is Ignored
    [Documentation]    README-dev: `x-tool-runtime` is a header, set by the client; a `runtime` in the params (which
    ...    the model writes) is dropped, so the tool runs on the host.
    [Tags]    build-specific    builds:10825-
    ${answer} =    Tool Answer In    ${WORK}    get_info    runtime=ssh:nobody@127.0.0.1
    Should Start With    ${answer}[os]    Linux
    Should Be Equal    ${answer}[cwd]    ${WORK}

An Unknown Runtime Header Is Refused Rather Than Run On The Host
    [Documentation]    An `x-tool-runtime` of no known scheme is an error; the command is not run on the host instead.
    ...    The header exists from build 10825 on (server-tools.cpp); build 9905 ignores it, and `x-tool-cwd`
    ...    too, so there the command ran in the server's own working folder and the test passed for no reason.
    [Tags]    build-specific    builds:10825-
    Runtime Header Should Be Refused    fake:does-not-exist    unknown tool runtime: fake:does-not-exist
    File Should Not Exist    ${WORK}${/}ran

An Ssh Runtime Target That Looks Like An Option Is Refused
    [Documentation]    ssh reads options from its argv: a target starting with `-` would run its `ProxyCommand`.
    [Tags]    build-specific    builds:10825-
    VAR    ${target}    -oProxyCommand=touch ${WORK}${/}proxied
    Runtime Header Should Be Refused    ssh:${target}    invalid ssh target: ${target}
    File Should Not Exist    ${WORK}${/}proxied

A Container Id That Looks Like An Option Is Refused
    [Documentation]    The container id goes on the `<engine> exec` command line, so an id like `--privileged` is
    ...    refused before any engine is run.
    [Tags]    build-specific    builds:10825-
    [Template]    Runtime Header Should Be Refused
    docker-container:--privileged    invalid container id: --privileged
    podman-container:--privileged    invalid container id: --privileged

A Foreign Origin Gets No CORS Permission For Tools
    [Documentation]    `--help` of `--tools`: "for security reasons, this will limit --cors-origins to localhost by
    ...    default". A page of another origin gets no `Access-Control-Allow-Origin`; a localhost page does.
    ...    Build 9905's `--help` has neither that sentence nor `--cors-origins` (it echoes every origin).
    [Tags]    build-specific    builds:11434-
    ${foreign} =    Preflight From    ${FOREIGN_ORIGIN}    /tools
    Header Should Be Absent    ${foreign}    Access-Control-Allow-Origin
    ${local} =    Preflight From    ${LOCAL_ORIGIN}    /tools
    Allowed Origin Should Be    ${local}    ${LOCAL_ORIGIN}

Tools Need The API Key When One Is Set
    [Documentation]    `--api-key`: "API key to use for authentication"; `/tools` is not a public route.
    [Tags]    build-specific    builds:10825-
    ${key} =    Evaluate    robot.api.types.Secret("tools-key")    modules=robot.api.types
    Start Preset Server    tiny-1-slot    --tools    get_info    alias=keyed    api_key=${key}
    ${list} =    GET On Session    keyed    /tools    expected_status=any
    Error Response Should Be    ${list}    401    authentication_error    message=Invalid API Key
    VAR    &{no_params}    &{EMPTY}
    VAR    &{body}    tool=get_info    params=${no_params}
    ${call} =    POST On Session    keyed    /tools    json=${body}    expected_status=any
    Error Response Should Be    ${call}    401    authentication_error    message=Invalid API Key
    [Teardown]    Stop Llama Server    keyed

Only The Tools Named By The Flag Are Served
    [Tags]    build-specific    builds:10825-
    Start Preset Server    tiny-1-slot    --tools    read_file,get_info    alias=subset
    ${names} =    Listed Tool Names    server=subset
    VAR    @{named}    read_file    get_info
    Lists Should Be Equal    ${names}    ${named}    ignore_order=${True}
    VAR    &{params}    command=true
    ${resp} =    Call Tool    exec_shell_command    ${params}    expected_status=any    server=subset
    Error Response Should Be    ${resp}    404    not_found_error
    [Teardown]    Stop Llama Server    subset

An Unknown Tool Name Stops The Server At Start
    ${model} =    Model Path    tiny
    ${result} =    Run Server Command    --model    ${model}    --port    0    --tools    read_file,nope
    Should Be Equal As Integers    ${result.rc}    1    msg=exit code (stderr: ${result.stderr})
    Should Contain    ${result.stderr}    unknown tool "nope". available tools: read_file, file_glob_search


*** Keywords ***
Start Reach Server
    [Documentation]    Creates the playground with `work/` and `outside/secret.txt`, then starts the suite's server
    ...    with every tool and a probe variable in its environment.
    Create Playground
    ${work} =    Fresh Folder    work
    ${outside} =    Fresh Folder    outside
    Create File    ${outside}${/}secret.txt    ${SECRET}
    VAR    ${WORK}    ${work}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${OUTSIDE}    ${outside}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    &{env}    LLAMATEST_TOOLS_PROBE=${PROBE_VALUE}
    Start Server For Suite    tiny-1-slot    --tools    all    env=${env}

Runtime Header Should Be Refused
    [Documentation]    `exec_shell_command` (`touch ran` in `${WORK}`) with the header `x-tool-runtime: runtime`
    ...    answers 500 and the `server_error` object with exactly `message`. `/tools` sends that object bare,
    ...    without the `{"error": …}` wrapper of the other routes (server-tools.cpp).
    [Arguments]    ${runtime}    ${message}
    VAR    &{headers}    x-tool-runtime=${runtime}    x-tool-cwd=${WORK}
    VAR    &{params}    command=touch ran
    ${resp} =    Call Tool    exec_shell_command    ${params}    expected_status=500    headers=${headers}
    VAR    &{expected}    code=${500}    message=${message}    type=server_error
    Should Be Equal    ${resp.json()}    ${expected}
