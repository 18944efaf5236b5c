*** Settings ***
Documentation       llama-cpp-python's own server against the OpenAI (legacy) completions contract,
...                 https://platform.openai.com/docs/api-reference/completions, and `GET /v1/models`
...                 (https://platform.openai.com/docs/api-reference/models): the `text_completion` object, exact
...                 `max_tokens`, `usage`, `stop`, `echo`, `logprobs`, a list of prompts, stream equals non-stream.
Resource            ../../resources/peers.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Llama Cpp Python Server For Suite    tiny    n_ctx=${1024}
Suite Teardown      Stop Llama Cpp Python Server For Suite
Test Timeout        2 minutes
Test Tags           llama-cpp-python    completion


*** Variables ***
${PROMPT}       hello world


*** Test Cases ***
Completion Is A Text Completion Object
    ${out} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${4}
    Text Completion Should Follow The OpenAI Schema    ${out}

Max Tokens Gives Exactly That Many Tokens And Finish Reason Length
    ${out} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${9}
    Json Field Should Be    ${out}    usage.completion_tokens    ${9}
    Json Field Should Be    ${out}    choices.0.finish_reason    length

Stop Sequence Cuts The Text Before It
    ${full} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${16}
    ${stop} =    Stop String In    ${full}[choices][0][text]
    ${out} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${16}    stop=${stop}
    ${expected} =    Text Before    ${full}[choices][0][text]    ${stop}
    Json Field Should Be    ${out}    choices.0.text    ${expected}
    Json Field Should Be    ${out}    choices.0.finish_reason    stop

Echo Puts The Prompt Before The Completion
    ${plain} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${6}
    ${echoed} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${6}    echo=${True}
    Json Field Should Be    ${echoed}    choices.0.text    ${PROMPT}${plain}[choices][0][text]

Logprobs Give One Entry Per Generated Token
    ${out} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${5}    logprobs=${2}
    ${logprobs} =    Get Json Field    ${out}    choices.0.logprobs
    Length Should Be    ${logprobs}[tokens]    5
    Length Should Be    ${logprobs}[token_logprobs]    5
    Length Should Be    ${logprobs}[top_logprobs]    5
    Length Should Be    ${logprobs}[text_offset]    5
    ${spelled} =    Catenate    SEPARATOR=${EMPTY}    @{logprobs}[tokens]
    Should Be Equal    ${spelled}    ${out}[choices][0][text]

A List Of Prompts Gets One Choice Per Prompt
    [Documentation]    OpenAI: `prompt` is "the prompt(s) to generate completions for, encoded as a string,
    ...    array of strings, array of tokens, or array of token arrays", one choice per prompt.
    ...    llama-cpp-python asserts that the list has at most one prompt: two prompts end in 500
    ...    `internal_server_error` with an empty `message` (a bare `AssertionError`).
    [Tags]    deviation
    VAR    @{prompts}    ${PROMPT}    good morning
    ${out} =    Complete V1    ${prompts}    server=${PEER}    max_tokens=${3}
    Text Completion Should Follow The OpenAI Schema    ${out}    count=${2}

Streamed Completion Equals The Non-Streamed One
    ${out} =    Complete V1    ${PROMPT}    server=${PEER}    max_tokens=${10}    seed=${5}
    ${result} =    Stream V1 Completion    ${PROMPT}    server=${PEER}    max_tokens=${10}    seed=${5}
    Streamed Text Should Be    ${result}    ${out}[choices][0][text]

Stream Is A Sequence Of Text Completion Chunks
    ${result} =    Stream V1 Completion    ${PROMPT}    server=${PEER}    max_tokens=${6}
    Stream Content Type Should Be    ${result}    text/event-stream
    Every Chunk Should Share Id Model And Object    ${result}    object=text_completion
    No Chunk Before The Last Should Finish    ${result}
    Finish Chunk Should Be    ${result}    length
    Stream Should End With Done Marker    ${result}

Models Lists The Served Model As An OpenAI Model Object
    [Documentation]    OpenAI: a model object has exactly `id`, `object` ("model"), `created` (Unix seconds)
    ...    and `owned_by`. llama-cpp-python sends `id`, `object`, `owned_by` and a non-standard
    ...    `permissions`, and no `created`.
    [Tags]    deviation    models
    ${resp} =    GET On Session    ${PEER}    /v1/models    expected_status=200
    Models Should Follow The OpenAI Schema    ${resp}

Unknown Route Answers An OpenAI Error
    [Documentation]    OpenAI answers an unknown route with 404 and its error object (`"type":
    ...    "invalid_request_error"`, `"message": "Invalid URL (POST /v1/...)"`). llama-cpp-python answers
    ...    FastAPI's `{"detail": "Not Found"}`.
    [Tags]    deviation    errors
    ${resp} =    POST On Session    ${PEER}    /v1/no-such-route    json=&{EMPTY}    expected_status=any
    OpenAI Error Should Be    ${resp}    404    invalid_request_error
