*** Settings ***
Documentation       `--api-key` with two keys: protected routes answer only with a valid key, sent as
...                 `Authorization: Bearer KEY`, as a bare `Authorization: KEY`, or as `X-Api-Key: KEY`; a missing,
...                 wrong, empty or differently cased key gets 401 with the exact `authentication_error` object;
...                 `/health` stays public; the keys never show in the command line or the server log.
...                 On an external server that wants a key, `LLAMATEST_API_KEY` takes the place of the first key;
...                 the tests of the second key and of the command line and log need a managed
...                 server.
Resource            ../../resources/security.resource
Suite Setup         Start Server With Two Keys
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           security


*** Variables ***
# Test keys. Robot takes a Secret only from the environment or the command line, hence the %{…=default} form.
${API_KEY: Secret}          %{LLAMATEST_TEST_KEY=sk-llamatest-first-0123456789}
${SECOND_KEY: Secret}       %{LLAMATEST_TEST_SECOND_KEY=sk-llamatest-second-9876543210}
${WRONG_KEY: Secret}        %{LLAMATEST_TEST_WRONG_KEY=sk-llamatest-wrong}


*** Test Cases ***
Bearer Key Is Accepted
    Open Session With Key    bearer    ${API_KEY}
    GET On Session    bearer    /props    expected_status=200

Second Key Of The List Is Accepted
    [Tags]    needs:managed
    Open Session With Key    second    ${SECOND_KEY}
    GET On Session    second    /props    expected_status=200

Bare Key Without Bearer Is Accepted
    Open Session With Key    bare    ${API_KEY}    scheme=${EMPTY}
    GET On Session    bare    /props    expected_status=200

X Api Key Header Is Accepted
    Open Session With Key    x-api-key    ${API_KEY}    header=X-Api-Key    scheme=${EMPTY}
    GET On Session    x-api-key    /props    expected_status=200

Wrong Key Is Refused
    Key Should Be Refused    ${WRONG_KEY}

Empty Bearer Is Refused
    Key Should Be Refused    ${EMPTY}

Lower Case Scheme Is Refused
    Key Should Be Refused    ${API_KEY}    scheme=bearer

Key In Another Case Is Refused
    ${other_case} =    Key In Another Case    ${API_KEY}
    Key Should Be Refused    ${other_case}

Wrong Bearer Is Not Rescued By A Right X Api Key
    [Documentation]    `X-Api-Key` is read only when `Authorization` is empty.
    Open Session With Key    both    ${API_KEY}    header=X-Api-Key    scheme=${EMPTY}
    VAR    &{wrong}    Authorization=Bearer not-a-key
    ${resp} =    GET On Session    both    /props    headers=${wrong}    expected_status=any
    Error Response Should Be    ${resp}    401    authentication_error    message=Invalid API Key

Keys Are Masked In The Command Line
    [Tags]    needs:managed
    ${command} =    Server Command Line
    Should Contain    ${command}    --api-key '*****'

Keys Never Reach The Server Log
    [Tags]    needs:managed
    Open Session With Key    logged    ${API_KEY}
    GET On Session    logged    /props    expected_status=200
    Server Log Should Not Contain    ${API_KEY}
    Server Log Should Not Contain    ${SECOND_KEY}


*** Keywords ***
Start Server With Two Keys
    [Documentation]    Starts the keyed server with `${API_KEY}` and `${SECOND_KEY}`; on an external server `${API_KEY}`
    ...    becomes the key that server accepts.
    Start Keyed Server    ${API_KEY}    ${SECOND_KEY}
    ${accepted} =    Server Api Key    ${API_KEY}
    VAR    ${API_KEY}    ${accepted}    scope=SUITE    # robocop: off=no-suite-variable
