*** Settings ***
Documentation       `--spm-infill` switches /infill to the suffix-prefix-middle order that some code models are
...                 trained on: BOS, `<|fim_suffix|>` suffix, `<|fim_prefix|>` prefix, `<|fim_middle|>`.
Resource            ../../resources/infill.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Server For Suite    tiny-infill    --spm-infill
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           infill


*** Variables ***
${PREFIX}       def area(w, h):\n${SPACE * 4}return
${SUFFIX}       \nprint(w)


*** Test Cases ***
Spm Infill Puts The Suffix Before The Prefix
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}
    Should Start With    ${out}[prompt]    <s><|fim_suffix|>
    Should End With    ${out}[prompt]    <|fim_middle|>
    Infill Prompt Should Be In Order    ${out}    <|fim_suffix|>    print(w)    <|fim_prefix|>    def area
    ...    <|fim_middle|>

Spm Infill Answers Like A Completion Of The Spm Sequence
    ${sequence} =    Fim Sequence    ${PREFIX}    ${SUFFIX}    order=spm
    ${completion} =    Complete    ${sequence}    n_predict=${12}
    ${infill} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${12}
    Should Be Equal    ${infill}[content]    ${completion}[content]
    Json Field Should Be    ${infill}    tokens_evaluated    ${completion}[tokens_evaluated]
