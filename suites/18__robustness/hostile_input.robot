# robocop: off=line-too-long
*** Settings ***
Documentation       Hostile and broken request bodies: malformed, truncated or empty JSON, bodies that are not objects,
...                 wrong field types, numbers beyond int32, int64 or a double, out-of-vocabulary token ids, words longer
...                 than the context, 10000 levels of nesting, 8 MB, a huge `n_probs` or `logit_bias` map, binary
...                 garbage and invalid UTF-8. Each gets its exact answer (400 with the error type and message, or the
...                 200 this build gives, pinned with the field that shows what it made of the body), and after each
...                 the server still runs, answers `/health` and completes a normal request.
Resource            ../../resources/robustness.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server With Words Longer Than Its Context
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Hostile Request Should Get
Test Tags           robustness    errors


*** Variables ***
${JSON}                 application/json
${CHAT}                 /v1/chat/completions
${N_PREDICT_RANGE}      Field 'n_predict': Value must be between -1 <= value <= 2147483647, but got
${PROMPT_ELEMENTS}      "prompt" elements must be a string, a list of tokens
${ILL_FORMED_UTF8}      invalid string: ill-formed UTF-8 byte
${DEEP_PROMPT}          ${{ b'{"prompt": ' + b"[" * 10000 + b"]" * 10000 + b"}" }}
${DEEP_FIELD}           ${{ b'{"prompt": "x", "n_predict": 1, "deep": ' + b"[" * 10000 + b"]" * 10000 + b"}" }}
${EIGHT_MEGABYTES}      ${{ b'{"prompt": "x", "n_predict": 1, "padding": "' + b"a" * 8_000_000 + b'"}' }}
${LOGIT_BIAS_MAP}       ${{ {"prompt": "x", "n_predict": 1, "logit_bias": dict.fromkeys(map(str, range(10000)), 1.0)} }}
${GARBAGE}              ${{ random.Random(8).randbytes(4096) }}


*** Test Cases ***                                  ROUTE              BODY                                                                      CONTENT TYPE                         STATUS    TYPE OR PATH                     MESSAGE OR VALUE
Truncated Body Is Refused                           /completion        {"prompt": "hello wor                                                     ${JSON}                              400       invalid_request_error            invalid string: missing closing quote
Truncated Chat Body Is Refused                      ${CHAT}            {"messages": [{"role": "user", "content": "hel                            ${JSON}                              400       invalid_request_error            invalid string: missing closing quote
Body Cut After A Comma Is Refused                   /v1/completions    {"prompt": "x",                                                           ${JSON}                              400       invalid_request_error            unexpected end of input
Trailing Garbage After The Object Is Refused        /completion        {"prompt": "x", "n_predict": 1} xyz                                       ${JSON}                              400       invalid_request_error            expected end of input
Empty Body Is Refused                               /completion        ${EMPTY}                                                                  ${JSON}                              400       invalid_request_error            attempting to parse an empty input
Empty Chat Body Is Refused                          ${CHAT}            ${EMPTY}                                                                  ${JSON}                              400       invalid_request_error            attempting to parse an empty input
Array Instead Of An Object Is Refused
    [Documentation]    The message is the JSON library's own, not one about the request.
    /completion    [{"prompt": "x"}]    ${JSON}    400    invalid_request_error    [json.exception.type_error.304] cannot use at() with array
Array Instead Of A Chat Object Is Refused           ${CHAT}            [{"messages": []}]                                                        ${JSON}                              400       invalid_request_error            'messages' is required
String Instead Of An Object Is Refused              /completion        "hello"                                                                   ${JSON}                              400       invalid_request_error            cannot use at() with string
Null Instead Of An Object Is Refused                /completion        null                                                                      ${JSON}                              400       invalid_request_error            cannot use at() with null
List As N Predict Is Refused                        /completion        {"prompt": "x", "n_predict": [1]}                                         ${JSON}                              400       invalid_request_error            Field 'n_predict': [json.exception.type_error.302] type must be number, but is array
Object As Temperature Is Refused                    /completion        {"prompt": "x", "temperature": {}}                                        ${JSON}                              400       invalid_request_error            Field 'temperature': [json.exception.type_error.302] type must be number, but is object
String As Messages Is Refused                       ${CHAT}            {"messages": "hi"}                                                        ${JSON}                              400       invalid_request_error            Expected 'messages' to be an array
String As The Stream Flag Is Refused                ${CHAT}            {"messages": [{"role": "user", "content": "hi"}], "stream": "yes"}        ${JSON}                              400       invalid_request_error            Field 'stream': [json.exception.type_error.302] type must be boolean, but is string
Number Beyond A Double Is Refused                   /completion        {"prompt": "x", "n_predict": 1e309}                                       ${JSON}                              400       invalid_request_error            number overflow parsing '1e309'
Negative Number Beyond A Double Is Refused          /completion        {"prompt": "x", "temperature": -1e309}                                    ${JSON}                              400       invalid_request_error            number overflow parsing '-1e309'
Nan Literal Is Refused                              /completion        {"prompt": "x", "temperature": NaN}                                       ${JSON}                              400       invalid_request_error            invalid literal
N Predict Of Two To The 31 Is Refused               /completion        {"prompt": "x", "n_predict": 2147483648}                                  ${JSON}                              400       invalid_request_error            ${N_PREDICT_RANGE}
N Predict Of Two To The 64 Is Refused               /completion        {"prompt": "x", "n_predict": 18446744073709551616}                        ${JSON}                              400       invalid_request_error            ${N_PREDICT_RANGE}
N Predict Below The Int64 Range Is Refused          /completion        {"prompt": "x", "n_predict": -9223372036854775809}                        ${JSON}                              400       invalid_request_error            ${N_PREDICT_RANGE}
Negative Max Tokens On Chat Is Refused              ${CHAT}            {"messages": [{"role": "user", "content": "hi"}], "max_tokens": -5}       ${JSON}                              400       invalid_request_error            Field 'max_tokens': Value must be between -1 <= value <= 2147483647, but got -5
Negative Token Id Is Refused                        /completion        {"prompt": [1, -1]}                                                       ${JSON}                              400       invalid_request_error            Prompt contains invalid tokens
Token Id Outside The Vocabulary On V1 Is Refused    /v1/completions    {"prompt": [1, 999999], "max_tokens": 1}                                  ${JSON}                              400       invalid_request_error            Prompt contains invalid tokens
Token Id Beyond 64 Bits Is Refused                  /completion        {"prompt": [1, 18446744073709551616]}                                     ${JSON}                              400       invalid_request_error            ${PROMPT_ELEMENTS}
Fractional Token Id Is Refused                      /completion        {"prompt": [1, 5.5]}                                                      ${JSON}                              400       invalid_request_error            ${PROMPT_ELEMENTS}
Very Long Word Is Refused                           /completion        ${LONG_WORD}                                                              ${JSON}                              400       exceed_context_size_error        ${CONTEXT_EXCEEDED}
Very Long Word In A Chat Message Is Refused         ${CHAT}            ${LONG_CHAT_WORD}                                                         ${JSON}                              400       exceed_context_size_error        ${CONTEXT_EXCEEDED}
Prompt Nested 10000 Levels Deep Is Refused          /completion        ${DEEP_PROMPT}                                                            ${JSON}                              400       invalid_request_error            ${PROMPT_ELEMENTS}
Binary Garbage Is Refused                           /completion        ${GARBAGE}                                                                ${JSON}                              400       invalid_request_error            parse error at line 1, column 3
Binary Garbage As An Octet Stream Is Refused        /completion        ${GARBAGE}                                                                application/octet-stream             400       invalid_request_error            parse error at line 1, column 3
Invalid Utf8 In The Prompt Is Refused               /completion        ${{ b'{"prompt": "ab\xff\xfe", "n_predict": 1}' }}                        ${JSON}                              400       invalid_request_error            ${ILL_FORMED_UTF8}
Invalid Utf8 In A Chat Message Is Refused           ${CHAT}            ${{ b'{"messages": [{"role": "user", "content": "ab\xff"}]}' }}           ${JSON}                              400       invalid_request_error            ${ILL_FORMED_UTF8}
Overlong Utf8 Encoding Is Refused                   /completion        ${{ b'{"prompt": "\xc0\xaf"}' }}                                          ${JSON}                              400       invalid_request_error            ${ILL_FORMED_UTF8}
Utf8 Encoded Surrogate Is Refused                   /completion        ${{ b'{"prompt": "\xed\xa0\x80"}' }}                                      ${JSON}                              400       invalid_request_error            ${ILL_FORMED_UTF8}
Lone Surrogate Escape Is Refused                    /completion        {"prompt": "\\ud800"}                                                     ${JSON}                              400       invalid_request_error            surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF
Raw Nul Byte In A String Is Refused                 /completion        ${{ b'{"prompt": "a\x00b"}' }}                                            ${JSON}                              400       invalid_request_error            control character U+0000 (NUL) must be escaped
Json Sent As Text Plain Is Read As Json
    [Documentation]    The server ignores the Content-Type of a request: a JSON body declared as text is read as JSON.
    /completion    {"prompt": "x", "n_predict": 1}    text/plain    200    tokens_predicted    ${1}
Json Sent As A Form Is Read As Json
    [Documentation]    The same for a form: the body is not form-decoded.
    /completion    {"prompt": "x", "n_predict": 1}    application/x-www-form-urlencoded    200    tokens_predicted    ${1}
Leading Byte Order Mark Is Skipped
    [Documentation]    A UTF-8 byte order mark before the JSON is skipped, not refused.
    /completion    ${{ b'\xef\xbb\xbf{"prompt": "x", "n_predict": 1}' }}    ${JSON}    200    tokens_predicted    ${1}
Repeated Key Takes Its Last Value
    [Documentation]    A key given twice is not refused: the last value wins.
    /completion    {"prompt": "x", "n_predict": 1, "n_predict": 3}    ${JSON}    200    tokens_predicted    ${3}
Fractional N Predict Is Cut To An Integer
    [Documentation]    A number with a fraction is accepted where an integer is expected, and cut towards zero.
    /completion    {"prompt": "x", "n_predict": 2.9}    ${JSON}    200    generation_settings.n_predict    ${2}
Boolean N Predict Counts As One
    [Documentation]    `true` is accepted where a number is expected, as 1.
    /completion    {"prompt": "x", "n_predict": true}    ${JSON}    200    generation_settings.n_predict    ${1}
Number As Stop Is Ignored
    [Documentation]    A `stop` that is neither a string nor a list is ignored, not refused.
    /completion    {"prompt": "x", "n_predict": 1, "stop": 5}    ${JSON}    200    generation_settings.stop    ${{ [] }}
Negative N Probs Is Accepted
    [Documentation]    Unlike the other count fields, `n_probs` has no lower limit: -1 is accepted and echoed.
    /completion    {"prompt": "x", "n_predict": 1, "n_probs": -1}    ${JSON}    200    generation_settings.n_probs    ${-1}
Huge N Probs Is Accepted                            /completion        {"prompt": "x", "n_predict": 1, "n_probs": 1000000}                       ${JSON}                              200       generation_settings.n_probs      ${1000000}
Seed Beyond 64 Bits Becomes Zero
    [Documentation]    A seed too large for any integer type is accepted and becomes 0.
    /completion    {"prompt": "x", "n_predict": 1, "seed": 18446744073709551616}    ${JSON}    200    generation_settings.seed    ${0}
Logit Bias Map Of 10000 Ids Is Accepted             /completion        ${LOGIT_BIAS_MAP}                                                         ${JSON}                              200       tokens_predicted                 ${1}
Unknown Field Nested 10000 Levels Deep Is Ignored
    [Documentation]    The server parses the whole body and then ignores the field it does not know.
    /completion    ${DEEP_FIELD}    ${JSON}    200    tokens_predicted    ${1}
Eight Megabyte Body Is Accepted
    [Documentation]    8 MB of padding in an unknown field are read: the body limit is that of the server's HTTP library,
    ...    cpp-httplib's `CPPHTTPLIB_PAYLOAD_MAX_LENGTH` (100 MiB; beyond it 413, as the load suites' noise workload checks).
    /completion    ${EIGHT_MEGABYTES}    ${JSON}    200    tokens_predicted    ${1}
Escaped Nul In The Prompt Is Accepted               /completion        {"prompt": "a\\u0000b", "n_predict": 1}                                   ${JSON}                              200       tokens_predicted                 ${1}
N Predict Beyond 32 Bits Is Refused
    [Documentation]    Contract: the server's README, `n_predict`: "Set the maximum number of tokens to predict"; 2**32 asks for at most
    ...    4294967296 tokens, which is outside the range the server declares for the field ("Value must be between -1 <= value <=
    ...    2147483647"), like 2**31 and 2**64, which it refuses. This build keeps its low 32 bits (0) and answers 200 with one
    ...    generated token; -10**18 likewise becomes 1486618624 and runs to the end of the context (`field_num::eval` in
    ...    server-schema.cpp narrows to int32 before the range check).
    [Tags]    bug
    /completion    {"prompt": "x", "n_predict": 4294967296}    ${JSON}    400    invalid_request_error    ${N_PREDICT_RANGE}
Out Of Range N Predict Is Reported As Sent
    [Documentation]    Contract: RFC 9110 §15.5: with a 4xx "the server SHOULD send a representation containing an explanation of the
    ...    error situation"; a range error that misstates the value sent explains another request. This build names the value's
    ...    low 32 bits: "but got -2147483648" for 2147483648 (and for 2**64), from the same int32 narrowing in server-schema.cpp.
    [Tags]    bug
    /completion    {"prompt": "x", "n_predict": 2147483648}    ${JSON}    400    invalid_request_error    ${N_PREDICT_RANGE} 2147483648
Token Id Beyond 32 Bits Is Refused
    [Documentation]    Contract: the server's README, `prompt`: "an array of strings or numbers representing tokens";
    ...    4294967301 is no token of a 397-token vocabulary, and the server refuses ids outside it with 400 "Prompt contains invalid
    ...    tokens" (see the rows above), as RFC 9110 §15.5.1 wants for "something that is perceived to be a client error". This build
    ...    keeps its low 32 bits, evaluates token 5 and answers 200 (`tokenize_input_subprompt` in server-common.cpp narrows with
    ...    `get<llama_tokens>()`).
    [Tags]    bug
    /completion    {"prompt": [1, 4294967301], "n_predict": 1}    ${JSON}    400    invalid_request_error    Prompt contains invalid tokens


*** Keywords ***
Start Server With Words Longer Than Its Context
    [Documentation]    Starts the suite's server and makes the one-word prompts `${LONG_WORD}` and `${LONG_CHAT_WORD}`
    ...    of 40 characters per token of its slot context (no vocabulary has a token of 40 letters x), and the
    ...    message `${CONTEXT_EXCEEDED}` that names that context.
    Start Server For Suite    tiny-1-slot
    ${n_ctx} =    Slot Context Size
    VAR    ${CONTEXT_EXCEEDED}    exceeds the available context size (${n_ctx} tokens)    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${LONG_WORD}    ${{ {"prompt": "x" * (40 * $n_ctx), "n_predict": 1} }}    scope=SUITE    # robocop: off=no-suite-variable
    VAR    ${LONG_CHAT_WORD}    ${{ {"messages": [{"role": "user", "content": "x" * (40 * $n_ctx)}], "max_tokens": 1} }}
    ...    scope=SUITE    # robocop: off=no-suite-variable
