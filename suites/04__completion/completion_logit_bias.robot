*** Settings ***
Documentation       Native /completion `logit_bias` in every form the server accepts: a map `{"id": bias}`, pairs
...                 `[[id, bias]]`, and token text instead of an id (the server tokenizes it and biases each of
...                 its tokens), with `false` (ban) or a large negative bias. Each test first asks without bias
...                 and takes the token the model generates first; with the bias no biased token appears, the
...                 answer still has `n_predict` tokens (`ignore_eos`, so on any model), and
...                 `generation_settings.logit_bias` echoes the bias per token (`null` for a ban), then the
...                 end-of-generation entries of `ignore_eos`.
Resource            ../../resources/completion.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Logit Bias Should Keep The First Token Out
Test Tags           completion


*** Variables ***
${PROMPT}           hello world
${N_PREDICT}        ${12}


*** Test Cases ***                                          FORM     KEY     BIAS
Map From Id To False Bans The Token                         map      id      ${False}
Pairs Of Id And False Ban The Token                         pairs    id      ${False}
Map From Token Text To False Bans Its Tokens                map      text    ${False}
Pairs Of Token Text And False Ban Its Tokens                pairs    text    ${False}
Map From Id To A Large Negative Bias Avoids The Token       map      id      ${-100}
Pairs Of Id And A Large Negative Bias Avoid The Token       pairs    id      ${-100}
Token Text With A Large Negative Bias Avoids Its Tokens     pairs    text    ${-100}


*** Keywords ***
Logit Bias Should Keep The First Token Out
    [Documentation]    Finds the first token of the unbiased answer, biases it in the given `form` (`map` or
    ...    `pairs`) keyed by its `id` or its `text`, and checks that no biased token appears in the biased answer.
    [Arguments]    ${form}    ${key}    ${bias}
    ${free} =    Complete    ${PROMPT}    n_predict=${N_PREDICT}    return_tokens=${True}    ignore_eos=${True}
    VAR    ${banned}    ${free}[tokens][0]
    ${text} =    Token Text    ${banned}
    ${biased_tokens} =    Biased Tokens    ${key}    ${banned}    ${text}
    ${name} =    Bias Key    ${key}    ${banned}    ${text}
    ${logit_bias} =    Logit Bias In Form    ${form}    ${name}    ${bias}
    ${out} =    Complete    ${PROMPT}    n_predict=${N_PREDICT}    return_tokens=${True}    logit_bias=${logit_bias}
    ...    ignore_eos=${True}
    Should Not Contain Any    ${out}[tokens]    @{biased_tokens}
    Length Should Be    ${out}[tokens]    ${N_PREDICT}
    Logit Bias Should Be Echoed    ${out}    ${biased_tokens}    ${bias}
    ...    then=${free}[generation_settings][logit_bias]

Bias Key
    [Documentation]    What a bias keyed by `key` names: the token's `text`, or its id.
    [Arguments]    ${key}    ${token}    ${text}
    IF    $key == "text"    RETURN    ${text}
    RETURN    ${token}

Biased Tokens
    [Documentation]    The token ids a bias keyed by `key` applies to: the id itself, or every token of its text.
    [Arguments]    ${key}    ${token}    ${text}
    VAR    @{alone}    ${token}
    IF    $key == "id"    RETURN    ${alone}
    ${tokens} =    Tokenize    ${text}
    RETURN    ${tokens}
