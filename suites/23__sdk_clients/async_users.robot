*** Settings ***
Documentation       Many users through `AsyncOpenAI`, the way an application serves them: one shared async client,
...                 one streamed `chat.completions.create` per user, all at once with `asyncio.gather`, as many
...                 users as the server has slots. Every stream must be complete and correct on its own: its own
...                 prompt's answer (the text that prompt gets alone at temperature 0), one `id` of its own, its
...                 usage, and no event of another stream.
Resource            ../../resources/clients.resource
Library             Collections
Suite Setup         Start SDK Suite Server    tiny-4-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           sdk    multi-user    streaming


*** Variables ***
${USERS}        ${4}
${TOKENS}       ${16}


*** Test Cases ***
Every User Gets A Complete Stream With Its Usage
    ${arguments} =    Requests Of Users    ${USERS}
    ${calls} =    Concurrent OpenAI Streams    ${arguments}
    Every Stream Should Have Ended With Its Usage    ${calls}    ${TOKENS}

Every Stream Has One Id Of Its Own
    ${arguments} =    Requests Of Users    ${USERS}
    ${calls} =    Concurrent OpenAI Streams    ${arguments}
    Every Stream Should Have One Id Of Its Own    ${calls}

Every User Gets The Answer Their Prompt Gets Alone
    [Documentation]    Needs `tiny`, whose answer is the same in any batch: a real model's greedy answer may change
    ...    with what shares its batch (SmolLM2 does), which is no fault of the server.
    [Tags]    needs:tiny
    ${arguments} =    Requests Of Users    ${USERS}
    ${calls} =    Concurrent OpenAI Streams    ${arguments}
    ${alone} =    Texts Streamed One At A Time    ${arguments}
    ${together} =    Streamed Texts    ${calls}
    Should Be Equal    ${together}    ${alone}

Users With One Prompt Get One Text
    [Tags]    needs:tiny
    ${arguments} =    Requests Of Users    ${USERS}    same_prompt=${True}
    ${calls} =    Concurrent OpenAI Streams    ${arguments}
    ${texts} =    Streamed Texts    ${calls}
    ${distinct} =    Distinct Values    ${texts}
    Length Should Be    ${distinct}    1    the users got ${texts}


*** Keywords ***
Requests Of Users
    [Documentation]    The arguments of one streamed chat request per user: each its own prompt (unless
    ...    `same_prompt`), `${TOKENS}` tokens at temperature 0 (`ignore_eos`: any model), with a usage chunk.
    [Arguments]    ${count}    ${same_prompt}=${False}
    VAR    @{requests}    @{EMPTY}
    FOR    ${user}    IN RANGE    ${count}
        ${name} =    Set Variable If    ${same_prompt}    everyone    user ${user}
        ${messages} =    User Messages    hello from ${name}
        VAR    &{request}    messages=${messages}    max_tokens=${TOKENS}    temperature=${0}
        ...    stream_options=${INCLUDE_USAGE}    extra_body=${IGNORE_EOS}
        Append To List    ${requests}    ${request}
    END
    RETURN    ${requests}

Every Stream Should Have Ended With Its Usage
    [Documentation]    Every call succeeded, and its stream ended with finish reason `length` and a usage chunk of
    ...    `tokens` completion tokens that adds up.
    [Arguments]    ${calls}    ${tokens}
    FOR    ${call}    IN    @{calls}
        Should Be Equal    ${call.error}    ${NONE}    a stream failed: ${call.error}
        Should Be Equal    ${call.events[-2].choices[0].finish_reason}    length
        Should Be Equal As Integers    ${call.events[-1].usage.completion_tokens}    ${tokens}
        Chat Usage Should Add Up    ${call.events[-1].usage}
    END

Every Stream Should Have One Id Of Its Own
    [Documentation]    Within each stream every chunk has the same `id`, and no two streams share one.
    [Arguments]    ${calls}
    VAR    @{ids}    @{EMPTY}
    FOR    ${call}    IN    @{calls}
        ${values} =    Event Field Values    ${call}    id
        One Value Should Repeat    ${values}    id
        Append To List    ${ids}    ${values}[0]
    END
    List Should Not Contain Duplicates    ${ids}    two streams share an id: ${ids}

Streamed Texts
    [Documentation]    The streamed text of each call, in order.
    [Arguments]    ${calls}
    VAR    @{texts}    @{EMPTY}
    FOR    ${call}    IN    @{calls}
        ${text} =    Streamed Text    ${call}
        Append To List    ${texts}    ${text}
    END
    RETURN    ${texts}

Texts Streamed One At A Time
    [Documentation]    The text of each request streamed alone, one after the other, through `AsyncOpenAI`.
    [Arguments]    ${requests}
    VAR    @{texts}    @{EMPTY}
    FOR    ${request}    IN    @{requests}
        ${call} =    Async OpenAI Stream    chat.completions.create    &{request}
        ${text} =    Streamed Text    ${call}
        Append To List    ${texts}    ${text}
    END
    RETURN    ${texts}
