*** Settings ***
Documentation       Soft limits of native /completion sampling fields: an out-of-range value is not an error but is
...                 clamped into its range (`top_p`, `min_p` and `xtc_*` to [0, 1], `temperature` and `top_k` to at
...                 least 0), and `generation_settings` echoes the value actually used.
Resource            ../../resources/completion.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Out Of Range Value Should Be Clamped
Test Tags           completion


*** Test Cases ***                      FIELD              SENT          USED
Top P Above One Is Clamped To One       top_p              ${1.5}        ${1.0}
Negative Top P Is Clamped To Zero       top_p              ${-0.5}       ${0.0}
Min P Above One Is Clamped To One       min_p              ${2}          ${1.0}
Negative Min P Is Clamped To Zero       min_p              ${-1}         ${0.0}
Negative Temperature Is Clamped To Zero
...                                     temperature        ${-1}         ${0.0}
Negative Top K Is Clamped To Zero       top_k              ${-5}         ${0}
Xtc Probability Above One Is Clamped To One
...                                     xtc_probability    ${3}          ${1.0}
Negative Xtc Threshold Is Clamped To Zero
...                                     xtc_threshold      ${-2}         ${0.0}


*** Keywords ***
Out Of Range Value Should Be Clamped
    [Documentation]    Sends `field` = `sent` and checks 200 and that `generation_settings` reports `used`.
    [Arguments]    ${field}    ${sent}    ${used}
    VAR    &{fields}    ${field}=${sent}
    ${out} =    Complete    x    n_predict=${1}    &{fields}    ignore_eos=${True}
    Json Field Should Be    ${out}    generation_settings.${field}    ${used}
    Json Field Should Be    ${out}    tokens_predicted    ${1}
