*** Settings ***
Documentation       My model answers my prompts as it should: each test asks one question of golden_answers.json
...                 and checks the answer against its golden answer. The golden answers there are
...                 SmolLM2-135M-Instruct's: put your own prompts and answers in their place.
...
...                 The tolerance. Every question is asked greedily (temperature 0: the most likely token at each
...                 step) with a fixed seed and without the prompt cache (`cache_prompt: false`: a small model can
...                 answer otherwise when the server reuses part of an earlier prompt), so the same server, model
...                 file and flags give the same answer every time; the first test checks that. Another llama.cpp
...                 build, quantization or batch size may still change a word or the length, so a golden answer
...                 says what the answer must hold, not its whole text: `contain` (that text, case ignored),
...                 `match` (a regular expression found anywhere in the answer) or `equal` (the whole answer,
...                 spaces around it aside: only for answers of a word or two).
Resource            ../resources/chat.resource
Variables           golden_answers.json
Suite Setup         Use Running Server For Suite    ${BASE_URL}    ${API_KEY}
Suite Teardown      Stop Servers For Suite
Test Template       Answer Should Hold Its Golden Answer
Test Timeout        2 minutes
Test Tags           example


*** Variables ***
${BASE_URL}             %{LLAMA_SERVER_URL=http://127.0.0.1:8080}
${API_KEY: Secret}      %{LLAMATEST_API_KEY=}
${MAX_TOKENS}           ${48}
${SEED}                 ${42}


*** Test Cases ***                                      GOLDEN ANSWER
The Same Question Gets The Same Answer Twice
    [Template]    NONE
    ${first} =    Greedy Answer    ${GOLDEN}[capital_of_japan][prompt]
    ${second} =    Greedy Answer    ${GOLDEN}[capital_of_japan][prompt]
    Should Be Equal    ${first}    ${second}

Capital Of Japan                                        capital_of_japan

Days In A Week                                          days_in_a_week

Boiling Point Of Water                                  boiling_point


*** Keywords ***
Answer Should Hold Its Golden Answer
    [Documentation]    Asks the question of the golden answer `name` and checks the answer the way its `check` says.
    [Arguments]    ${name}
    VAR    ${golden}    ${GOLDEN}[${name}]
    ${answer} =    Greedy Answer    ${golden}[prompt]
    Run Keyword    Answer Should ${golden}[check]    ${answer}    ${golden}[expected]

Greedy Answer
    [Documentation]    The model's answer to `prompt` at temperature 0 with the fixed seed, without the prompt cache,
    ...    at most `${MAX_TOKENS}` tokens.
    [Arguments]    ${prompt}
    ${answer} =    Chat Answer    ${prompt}    max_tokens=${MAX_TOKENS}    seed=${SEED}    temperature=${0}
    ...    cache_prompt=${False}
    RETURN    ${answer}

Answer Should Contain
    [Documentation]    `answer` holds `expected`, case ignored.
    [Arguments]    ${answer}    ${expected}
    Should Contain    ${answer}    ${expected}    ignore_case=${True}

Answer Should Match
    [Documentation]    The regular expression `expected` is found somewhere in `answer`.
    [Arguments]    ${answer}    ${expected}
    Should Match Regexp    ${answer}    ${expected}

Answer Should Equal
    [Documentation]    `answer` is exactly `expected`, spaces around it aside.
    [Arguments]    ${answer}    ${expected}
    Should Be Equal    ${answer}    ${expected}    strip_spaces=${True}
