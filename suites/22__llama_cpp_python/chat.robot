*** Settings ***
Documentation       llama-cpp-python's own server (FastAPI over llama.cpp) against the OpenAI chat contract,
...                 https://platform.openai.com/docs/api-reference/chat: the `chat.completion` and
...                 `chat.completion.chunk` objects, `usage`, `finish_reason`, `max_tokens`, `stop`, `n`, `seed`,
...                 stream equals non-stream. Where it deviates from the reference the test stays strict and is
...                 tagged `deviation`. Opt-in: `python3 run.py --include llama-cpp-python` builds the server once.
Resource            ../../resources/peers.resource
Resource            ../../resources/chat.resource
Suite Setup         Start Llama Cpp Python Server For Suite    tiny    n_ctx=${1024}
Suite Teardown      Stop Llama Cpp Python Server For Suite
Test Timeout        2 minutes
Test Tags           llama-cpp-python    chat


*** Variables ***
${QUESTION}     hello llama


*** Test Cases ***
Chat Answer Is A Chat Completion Object
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${4}
    Chat Completion Should Follow The OpenAI Schema    ${resp}

Max Tokens Gives Exactly That Many Tokens And Finish Reason Length
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${6}
    Json Field Should Be    ${resp}    choices.0.finish_reason    length
    Json Field Should Be    ${resp}    usage.completion_tokens    ${6}

Usage Total Is Prompt Plus Completion
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${5}
    Usage Should Add Up    ${resp.json()}[usage]

A Longer Question Counts More Prompt Tokens
    ${short} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${1}
    ${long} =    Chat    ${QUESTION} ${QUESTION} ${QUESTION}    server=${PEER}    max_tokens=${1}
    Should Be True    $long.json()["usage"]["prompt_tokens"] > $short.json()["usage"]["prompt_tokens"]

Stop Sequence Cuts The Answer Before It
    ${full} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${16}
    ${stop} =    Stop String In    ${full}
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${16}    stop=${stop}
    ${expected} =    Text Before    ${full}    ${stop}
    Json Field Should Be    ${resp}    choices.0.message.content    ${expected}
    Json Field Should Be    ${resp}    choices.0.finish_reason    stop

A List Of Stop Sequences Cuts At The One Found
    ${full} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${16}
    ${stop} =    Stop String In    ${full}
    VAR    @{stops}    no such stop sequence    ${stop}
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${16}    stop=${stops}
    ${expected} =    Text Before    ${full}    ${stop}
    Json Field Should Be    ${resp}    choices.0.message.content    ${expected}

A Streamed Answer Ends Before The Stop Sequence
    ${full} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${16}
    ${stop} =    Stop String In    ${full}
    ${result} =    Stream Chat    ${QUESTION}    server=${PEER}    max_tokens=${16}    stop=${stop}
    ${expected} =    Text Before    ${full}    ${stop}
    Streamed Text Should Be    ${result}    ${expected}
    Finish Chunk Should Be    ${result}    stop

A Logit Bias Of 100 On The End Token Ends The Answer At Once
    [Documentation]    OpenAI: `logit_bias` values "like -100 or 100 should result in a ban or exclusive
    ...    selection of the relevant token". With 100 on the end-of-text token the answer is empty and
    ...    `finish_reason` is `stop`. llama-cpp-python still generates a few other tokens first (`hej`, 3
    ...    tokens, at temperature 0 on tiny; `/v1/completions` one token) and only then stops.
    [Tags]    deviation
    ${meta} =    Model Metadata    tiny
    VAR    ${eos: str}    ${meta}[eos_token_id]
    VAR    &{forced}    ${eos}=${100}
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${8}    logit_bias=${forced}
    Json Field Should Be    ${resp}    choices.0.finish_reason    stop
    Json Field Should Be    ${resp}    choices.0.message.content    ${EMPTY}

Seed And Zero Temperature Give The Same Answer Twice
    ${first} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${12}    seed=${42}
    ${second} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${12}    seed=${42}
    Should Be Equal    ${first}    ${second}

Seeded Sampling Is Reproducible
    ${first} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${12}    seed=${7}    temperature=${1.0}
    ${second} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${12}    seed=${7}    temperature=${1.0}
    Should Be Equal    ${first}    ${second}

N Asks For That Many Choices
    [Documentation]    OpenAI: `n` is "how many chat completion choices to generate for each input message".
    ...    llama-cpp-python drops `n` from the request (its route excludes it) and answers one choice.
    [Tags]    deviation
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${4}    n=${2}
    Chat Completion Should Follow The OpenAI Schema    ${resp}    count=${2}

Logprobs Give One Entry Per Token With Its Alternatives
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${5}    logprobs=${True}    top_logprobs=${3}
    ${entries} =    Get Json Field    ${resp}    choices.0.logprobs.content
    Length Should Be    ${entries}    5
    Chat Logprobs Should Follow The OpenAI Schema    ${entries}    ${3}    ${resp.json()}[choices][0][message][content]

Answer Names The Listed Model
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${1}
    ${models} =    GET On Session    ${PEER}    /v1/models    expected_status=200
    Json Field Should Be    ${resp}    model    ${models.json()}[data][0][id]

Streamed Answer Equals The Non-Streamed One
    ${answer} =    Chat Answer    ${QUESTION}    server=${PEER}    max_tokens=${12}    seed=${3}
    ${result} =    Stream Chat    ${QUESTION}    server=${PEER}    max_tokens=${12}    seed=${3}
    Streamed Text Should Be    ${result}    ${answer}

Stream Is A Sequence Of Chat Completion Chunks
    ${result} =    Stream Chat    ${QUESTION}    server=${PEER}    max_tokens=${6}
    Stream Content Type Should Be    ${result}    text/event-stream
    Every Chunk Should Follow The OpenAI Chunk Schema    ${result}
    Every Chunk Should Share Id Model And Object    ${result}
    Only The First Chunk Should Carry The Role    ${result}
    No Chunk Before The Last Should Finish    ${result}
    Finish Chunk Should Be    ${result}    length
    Stream Should End With Done Marker    ${result}

Stream Without Stream Options Has No Usage
    ${result} =    Stream Chat    ${QUESTION}    server=${PEER}    max_tokens=${4}
    Stream Should Have No Usage Chunk    ${result}

Stream Options Include Usage Adds A Usage Chunk
    [Documentation]    OpenAI: with `stream_options: {"include_usage": true}` "an additional chunk will be
    ...    streamed before the data: [DONE] message. The usage field on this chunk shows the token usage
    ...    statistics for the entire request, and the choices field will always be an empty array".
    ...    llama-cpp-python's request model has no `stream_options` and ignores it: no usage chunk.
    [Tags]    deviation
    VAR    &{options}    include_usage=${True}
    ${result} =    Stream Chat    ${QUESTION}    server=${PEER}    max_tokens=${5}    stream_options=${options}
    Usage Chunk Should Report    ${result}    completion_tokens=${5}
    Stream Should End With Done Marker    ${result}

Prompt Longer Than The Context Is Rejected
    ${question} =    Evaluate    " ".join(["hello"] * 1200)
    ${resp} =    Chat    ${question}    server=${PEER}    max_tokens=${4}    expected_status=any
    OpenAI Error Should Be    ${resp}    400    invalid_request_error    param=messages
    ...    code=context_length_exceeded

Unknown Model Is Rejected
    [Documentation]    OpenAI answers a `model` it does not serve with 404 and `{"error": {"message": "The
    ...    model ... does not exist or you do not have access to it.", "type": "invalid_request_error",
    ...    "param": null, "code": "model_not_found"}}`. llama-cpp-python (one model) serves its own model
    ...    under any name and answers 200.
    [Tags]    deviation
    ${resp} =    Chat    ${QUESTION}    server=${PEER}    max_tokens=${1}    model=no-such-model
    ...    expected_status=any
    OpenAI Error Should Be    ${resp}    404    invalid_request_error    code=model_not_found
