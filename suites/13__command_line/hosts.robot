*** Settings ***
Documentation       `--host` with several addresses (`--help`: "IP addresses to listen on, comma-separated, or UNIX
...                 socket paths ending in .sock"): one server listens on 127.0.0.1, on ::1 and on a Unix
...                 socket, and each address serves the same server. Several TCP addresses need a fixed port.
Library             OperatingSystem
Library             String
Resource            ../../resources/completion.resource
Resource            ../../resources/command_line.resource
Suite Setup         Start Server On Three Addresses
Suite Teardown      Stop Server And Remove The Socket
Test Timeout        2 minutes
Test Tags           command-line    needs:managed    build-specific    builds:11434-


*** Variables ***
${SOCKET_DIR}       ${{ __import__('tempfile').mkdtemp(prefix='llamatest-hosts-') }}
${SOCKET}           ${SOCKET_DIR}${/}server.sock
${PROMPT}           hello world
${N}                ${8}


*** Test Cases ***
IPv4 And IPv6 Loopback Give The Same Answer
    ${v4} =    Complete    ${PROMPT}    n_predict=${N}
    ${v6} =    Complete    ${PROMPT}    server=v6    n_predict=${N}
    Should Be Equal    ${v6}[content]    ${v4}[content]
    Json Field Should Be    ${v6}    tokens_predicted    ${N}

IPv6 Loopback Streams A Completion
    ${result} =    Stream Completion    ${PROMPT}    server=${URL6}    n_predict=${N}
    Stream Should Have No Error    ${result}
    Every Partial Chunk Should Carry One Token    ${result}

Unix Socket Gives The Same Answer
    ${v4} =    Complete    ${PROMPT}    n_predict=${N}
    VAR    &{body}    prompt=${PROMPT}    n_predict=${N}    temperature=${0.0}
    ${resp} =    Request Over Unix Socket    ${SOCKET}    POST    /completion    ${body}
    Media Type Should Be    ${resp}    application/json
    Json Field Should Be    ${resp}    content    ${v4}[content]

Unix Socket Serves Health
    ${resp} =    Request Over Unix Socket    ${SOCKET}    GET    /health
    Json Field Should Be    ${resp}    status    ok

Two TCP Addresses On Port Zero Are Refused
    [Documentation]    Port 0 picks a free port per socket, so two TCP addresses could not share one.
    ${model} =    Model Path    tiny
    ${result} =    Run Server Command    --model    ${model}    --host    127.0.0.1,::1    --port    0
    Command Should Fail With    ${result}    --port 0 is not supported with multiple TCP addresses


*** Keywords ***
Start Server On Three Addresses
    [Documentation]    Starts the suite's server on 127.0.0.1 (the library's own address, with its free port), ::1
    ...    and `${SOCKET}`, and opens the session `v6` on the IPv6 address (`${URL6}` for streams).
    Start Server For Suite    tiny-1-slot    --host    127.0.0.1,::1,${SOCKET}
    ${url} =    Server Url
    ${url6} =    Replace String    ${url}    127.0.0.1    [::1]
    Create Session    v6    ${url6}
    VAR    ${URL6}    ${url6}    scope=SUITE    # robocop: off=no-suite-variable

Stop Server And Remove The Socket
    [Documentation]    Stops the server, then removes the socket's temporary folder.
    [Timeout]    1 minute
    Stop Servers For Suite
    Remove Directory    ${SOCKET_DIR}    recursive=${True}
