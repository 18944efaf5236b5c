# robocop: off=line-too-long
*** Settings ***
Documentation       Request validation on /completion and /v1/completions: a field outside its hard limits, a field
...                 of the wrong JSON type, a missing or malformed prompt, an invalid grammar or schema each get 400
...                 with the exact error object, and a message that names the field (`Field 'X': …`). `n` and
...                 `n_cmpl` must lie in 1…`total_slots` (2 on this two-slot server).
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite With Its Slot Count    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Completion Request Should Fail With
Test Tags           completion    errors


*** Test Cases ***                              ROUTE              BODY                                                          STATUS    TYPE                     MESSAGE
N Predict Below Minus One                       /completion        {"prompt": "x", "n_predict": -2}                              400       invalid_request_error    Field 'n_predict': Value must be between -1 <= value <= 2147483647, but got -2
Max Tokens Below Minus One                      /v1/completions    {"prompt": "x", "max_tokens": -2}                             400       invalid_request_error    Field 'max_tokens': Value must be between -1 <= value <= 2147483647, but got -2
N Keep Below Minus One                          /completion        {"prompt": "x", "n_keep": -2}                                 400       invalid_request_error    Field 'n_keep': Value must be between -1 <= value <= 2147483647, but got -2
Negative N Discard                              /completion        {"prompt": "x", "n_discard": -1}                              400       invalid_request_error    Field 'n_discard': Value must be between 0 <= value <= 2147483647, but got -1
Negative Repeat Last N                          /completion        {"prompt": "x", "repeat_last_n": -1}                          400       invalid_request_error    Field 'repeat_last_n': Value must be between 0 <= value <= 2147483647, but got -1
Negative Min Keep                               /completion        {"prompt": "x", "min_keep": -1}                               400       invalid_request_error    Field 'min_keep': Value must be between 0 <= value <= 2147483647, but got -1
Negative N Cache Reuse                          /completion        {"prompt": "x", "n_cache_reuse": -1}                          400       invalid_request_error    Field 'n_cache_reuse': Value must be between 0 <= value <= 2147483647, but got -1
T Max Predict Ms Below Minus One                /completion        {"prompt": "x", "t_max_predict_ms": -2}                       400       invalid_request_error    Field 't_max_predict_ms': Value must be between -1 <= value <=
Negative Dry Allowed Length                     /completion        {"prompt": "x", "dry_allowed_length": -1}                     400       invalid_request_error    Field 'dry_allowed_length': Value must be between 0 <= value <= 2147483647, but got -1
Sse Ping Interval Below Minus One               /completion        {"prompt": "x", "sse_ping_interval": -2}                      400       invalid_request_error    Field 'sse_ping_interval': Value must be between -1 <= value <= 2147483647, but got -2
Negative N Indent                               /completion        {"prompt": "x", "n_indent": -1}                               400       invalid_request_error    Field 'n_indent': Value must be between 0 <= value <= 2147483647, but got -1
Zero N Cmpl                                     /completion        {"prompt": "x", "n_cmpl": 0}                                  400       invalid_request_error    Field 'n_cmpl': Value must be between 1 <= value <= ${SLOTS}, but got 0
N Cmpl Above The Slot Count                     /completion        {"prompt": "x", "n_cmpl": ${ONE_TOO_MANY}}                    400       invalid_request_error    Field 'n_cmpl': Value must be between 1 <= value <= ${SLOTS}, but got ${ONE_TOO_MANY}
N Above The Slot Count                          /completion        {"prompt": "x", "n": ${ONE_TOO_MANY}}                         400       invalid_request_error    Field 'n': Value must be between 1 <= value <= ${SLOTS}, but got ${ONE_TOO_MANY}
Zero N On V1 Completions                        /v1/completions    {"prompt": "x", "n": 0}                                       400       invalid_request_error    Field 'n': Value must be between 1 <= value <= ${SLOTS}, but got 0
N Predict As Text                               /completion        {"prompt": "x", "n_predict": "ten"}                           400       invalid_request_error    Field 'n_predict': [json.exception.type_error.302] type must be number, but is string
Max Tokens As Text                              /v1/completions    {"prompt": "x", "max_tokens": "ten"}                          400       invalid_request_error    Field 'max_tokens': [json.exception.type_error.302] type must be number, but is string
Temperature As Text                             /completion        {"prompt": "x", "temperature": "hot"}                         400       invalid_request_error    Field 'temperature': [json.exception.type_error.302] type must be number, but is string
Seed As Text                                    /completion        {"prompt": "x", "seed": "x"}                                  400       invalid_request_error    Field 'seed': [json.exception.type_error.302] type must be number, but is string
Cache Prompt As Text                            /completion        {"prompt": "x", "cache_prompt": "yes"}                        400       invalid_request_error    Field 'cache_prompt': [json.exception.type_error.302] type must be boolean, but is string
Missing Prompt                                  /completion        {"n_predict": 1}                                              400       invalid_request_error    key 'prompt' not found
Missing Prompt On V1 Completions                /v1/completions    {"max_tokens": 1}                                             400       invalid_request_error    key 'prompt' not found
Empty Prompt List                               /completion        {"prompt": []}                                                400       invalid_request_error    "prompt" must not be empty
Empty Prompt List On V1 Completions             /v1/completions    {"prompt": []}                                                400       invalid_request_error    "prompt" must not be empty
Number As Prompt                                /completion        {"prompt": 123}                                               400       invalid_request_error    "prompt" elements must be a string, a list of tokens, a JSON object containing a prompt string, or a list of mixed strings & tokens.
Null Prompt                                     /completion        {"prompt": null}                                              400       invalid_request_error    "prompt" elements must be a string
Object Prompt Without Prompt String             /completion        {"prompt": {"text": "x"}}                                     400       invalid_request_error    "prompt" elements must be a string
Token Id Outside The Vocabulary                 /completion        {"prompt": [1, 999999]}                                       400       invalid_request_error    Prompt contains invalid tokens
Grammar That Does Not Parse                     /completion        {"prompt": "x", "grammar": "root ::= undefined"}              400       invalid_request_error    Failed to initialize samplers: failed to parse grammar
Json Schema Of An Unknown Type                  /completion        {"prompt": "x", "json_schema": {"type": "nonsense"}}          400       invalid_request_error    Field 'json_schema': "json_schema": JSON schema conversion failed
Non Positive Repeat Penalty                     /completion        {"prompt": "x", "repeat_penalty": -1}                         400       invalid_request_error    Failed to initialize samplers: penalty_repeat must be finite and greater than 0
