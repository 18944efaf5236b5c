*** Settings ***
Documentation       llama-server as a command: `--version` and `--help` exit 0 with their text, and a command line
...                 the server cannot use exits 1 with a message that names the problem, before it serves anything.
...                 No server is started: each test runs the binary itself, with a deadline.
Resource            ../../resources/command_line.resource
Test Timeout        2 minutes
Test Tags           command-line    needs:managed


*** Variables ***
${MISSING_MODEL}        ${TEMPDIR}${/}llamatest-no-such-model.gguf
${MISSING_FOLDER}       ${TEMPDIR}${/}llamatest-no-such-folder


*** Test Cases ***
Version Prints The Version And The Build To Stderr
    ${result} =    Run Server Command    --version
    Should Be Equal As Integers    ${result.rc}    0
    Should Be Empty    ${result.stdout}
    Should Match Regexp    ${result.stderr}    ^version: \\S+ \\(.+\\)\\nbuilt with \\S

Help Prints The Usage To Stdout
    ${result} =    Run Server Command    --help
    Should Be Equal As Integers    ${result.rc}    0
    Should Be Empty    ${result.stderr}
    Should Start With    ${result.stdout}    ----- common params -----
    Help Should Describe    ${result.stdout}    -m    --metrics    --props    --slots    --slot-save-path
    ...    --sleep-idle-seconds    --api-prefix    --ui    -a    --tags    --tools    --spm-infill

Short Help And Usage Print The Same Text As Help
    ${help} =    Run Server Command    --help
    ${short} =    Run Server Command    -h
    ${usage} =    Run Server Command    --usage
    Should Be Equal    ${short.stdout}    ${help.stdout}
    Should Be Equal    ${usage.stdout}    ${help.stdout}

Help Names The Environment Variable Of Each Gate
    ${result} =    Run Server Command    --help
    Should Contain    ${result.stdout}    (env: LLAMA_ARG_ENDPOINT_METRICS)
    Should Contain    ${result.stdout}    (env: LLAMA_ARG_ENDPOINT_PROPS)
    Should Contain    ${result.stdout}    (env: LLAMA_ARG_ENDPOINT_SLOTS)
    Should Contain    ${result.stdout}    (env: LLAMA_ARG_API_PREFIX)

Unknown Flag Is Rejected
    ${result} =    Run Server Command    --no-such-flag
    Command Should Fail With    ${result}    error: invalid argument: --no-such-flag

Missing Model File Exits With A Model Loading Error
    File Should Not Exist    ${MISSING_MODEL}
    ${result} =    Run Server Command    --model    ${MISSING_MODEL}    --host    127.0.0.1    --port    0
    Command Should Fail With    ${result}    failed to load model '${MISSING_MODEL}'

File That Is No Model Exits With A Model Loading Error
    VAR    ${not_a_model}    ${OUTPUT DIR}${/}not-a-model.gguf
    Create File    ${not_a_model}    this is not a GGUF file
    ${result} =    Run Server Command    --model    ${not_a_model}    --host    127.0.0.1    --port    0
    Command Should Fail With    ${result}    failed to load model '${not_a_model}'
    ...    exiting due to model loading error

Slot Save Path That Is No Folder Is Rejected
    Directory Should Not Exist    ${MISSING_FOLDER}
    ${result} =    Run Server Command    --slot-save-path    ${MISSING_FOLDER}
    Command Should Fail With    ${result}
    ...    error while handling argument "--slot-save-path": not a directory: ${MISSING_FOLDER}    ${USAGE_HINT}

Invalid Environment Value Is Rejected
    ${result} =    Run Server Command    --model    ${MISSING_MODEL}    env:LLAMA_ARG_CTX_SIZE=abc
    Command Should Fail With    ${result}    error while handling environment variable "LLAMA_ARG_CTX_SIZE"
    Should Not Contain    ${result.stderr}    load_model
