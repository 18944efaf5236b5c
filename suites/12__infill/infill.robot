*** Settings ***
Documentation       /infill on `tiny`, which has FIM prefix, suffix and middle tokens: the server renders
...                 BOS, `<|fim_prefix|>` prefix, `<|fim_suffix|>` suffix, `<|fim_middle|>` (PSM order) and
...                 answers exactly as a completion of that sequence; extra files go before it; a prefix and a
...                 suffix longer than their share of the batch are cut at the cursor's far side.
...
...                 The server runs 64-token batches (preset `tiny-infill`): a prefix keeps its last 3/4 of a
...                 batch (48 tokens), a suffix its first 1/4 minus 2 (14 tokens), and extra files fit because
...                 the slot context exceeds the batch.
Resource            ../../resources/infill.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Server For Suite    tiny-infill
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           infill


*** Variables ***
${PREFIX}           def area(w, h):\n${SPACE * 4}return
${SUFFIX}           \nprint(w)
${BATCH}            ${64}
${PREFIX_SHARE}     ${{ 3 * ${BATCH} // 4 }}
${SUFFIX_SHARE}     ${{ ${BATCH} // 4 - 2 }}
${LONG_TEXT}        start ${{ "word " * 80 }}end


*** Test Cases ***
Infill Generates N Predict Tokens
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${8}
    Json Field Should Be    ${out}    tokens_predicted    ${8}
    Json Field Should Be    ${out}    stop_type    limit
    Json Field Should Be    ${out}    stop    ${True}
    Json Field Should Be Of Type    ${out}    content    str

Infill Prompt Is Prefix Then Suffix Then Middle
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}
    Should Start With    ${out}[prompt]    <s><|fim_prefix|>
    Should End With    ${out}[prompt]    <|fim_middle|>
    Infill Prompt Should Be In Order    ${out}    <|fim_prefix|>    def area    <|fim_suffix|>    print(w)
    ...    <|fim_middle|>

Infill Evaluates Prefix And Suffix And Four Special Tokens
    ${prefix_tokens} =    Tokenize    ${PREFIX}
    ${suffix_tokens} =    Tokenize    ${SUFFIX}
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}    cache_prompt=${False}
    Json Field Should Be    ${out}    tokens_evaluated    ${{ len($prefix_tokens) + len($suffix_tokens) + 4 }}

Infill Answers Like A Completion Of The Fim Sequence
    ${sequence} =    Fim Sequence    ${PREFIX}    ${SUFFIX}
    ${completion} =    Complete    ${sequence}    n_predict=${12}
    ${infill} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${12}
    Should Be Equal    ${infill}[content]    ${completion}[content]
    Json Field Should Be    ${infill}    tokens_evaluated    ${completion}[tokens_evaluated]

Streamed Infill Equals The Non Stream Answer
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${8}
    ${stream} =    Stream Infill    ${PREFIX}    ${SUFFIX}    n_predict=${8}
    Stream Content Type Should Be    ${stream}    text/event-stream
    Streamed Text Should Be    ${stream}    ${out}[content]
    Final Chunk Should Report    ${stream}    stop_type=limit    tokens_predicted=${8}

Extra Files Come Before The Fim Prefix
    ${plain} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}
    ${file} =    Extra File    util.py    UNIT = 10\n
    VAR    @{files}    ${file}
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}    input_extra=${files}
    Should End With    ${out}[prompt]    ${plain}[prompt]
    Infill Prompt Should Be In Order    ${out}    UNIT = 10    <s><|fim_prefix|>
    Should Be True    $out["tokens_evaluated"] > $plain["tokens_evaluated"]

Extra Files Keep Their Order
    ${first} =    Extra File    a.py    FIRST = 1\n
    ${second} =    Extra File    b.py    SECOND = 2\n
    VAR    @{files}    ${first}    ${second}
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}    input_extra=${files}
    Infill Prompt Should Be In Order    ${out}    FIRST = 1    SECOND = 2    <|fim_prefix|>

Extra Files Are Marked As Snippets Without File Separator Tokens
    [Documentation]    `tiny` has no `<|file_sep|>` token, so each extra text follows a `--- snippet ---` line
    ...    and its file name is left out.
    ${file} =    Extra File    named_file.py    VALUE = 3\n
    VAR    @{files}    ${file}
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}    input_extra=${files}
    Infill Prompt Should Be In Order    ${out}    --- snippet ---    VALUE = 3    <|fim_prefix|>
    Should Not Contain    ${out}[prompt]    named_file.py

Long Prefix Keeps Its Last Three Quarters Of A Batch
    ${suffix_tokens} =    Tokenize    ${SUFFIX}
    ${out} =    Infill    ${LONG_TEXT}    ${SUFFIX}    n_predict=${1}
    Json Field Should Be    ${out}    tokens_evaluated    ${{ ${PREFIX_SHARE} + len($suffix_tokens) + 4 }}
    Should Not Contain    ${out}[prompt]    start
    Infill Prompt Should Be In Order    ${out}    <|fim_prefix|>    end<|fim_suffix|>

Long Suffix Keeps Its First Quarter Of A Batch Minus Two
    ${prefix_tokens} =    Tokenize    ${PREFIX}
    ${out} =    Infill    ${PREFIX}    ${LONG_TEXT}    n_predict=${1}
    Json Field Should Be    ${out}    tokens_evaluated    ${{ len($prefix_tokens) + ${SUFFIX_SHARE} + 4 }}
    Should Not Contain    ${out}[prompt]    end
    Infill Prompt Should Be In Order    ${out}    <|fim_suffix|> start    <|fim_middle|>

Prompt Continues The Prefix Before The Suffix Token
    [Documentation]    llama.cpp's server documentation says `prompt` is added after `<|fim_middle|>`; this build
    ...    appends it to the prefix, before `<|fim_suffix|>`.
    [Tags]    build-specific    builds:9905-
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}    prompt=w
    Infill Prompt Should Be In Order    ${out}    <|fim_prefix|>    def area    return w<|fim_suffix|>
    Should End With    ${out}[prompt]    print(w)<|fim_middle|>

Non String Prompt Is Ignored
    [Documentation]    A `prompt` that is not a string is taken as no prompt (200) instead of a 400.
    [Tags]    build-specific    builds:9905-
    ${plain} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}
    ${out} =    Infill    ${PREFIX}    ${SUFFIX}    n_predict=${1}    prompt=${123}
    Json Field Should Be    ${out}    prompt    ${plain}[prompt]
