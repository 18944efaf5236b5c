# robocop: off=line-too-long
*** Settings ***
Documentation       Invalid /v1/chat/completions requests that this build rejects as the client's fault: 400
...                 `invalid_request_error` with a message that names the problem. The requests it rejects as 500
...                 `server_error` are in `chat_server_errors.robot`.
Resource            ../../resources/chat.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite With Its Slot Count    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Chat Request Should Fail With
Test Tags           chat    errors


*** Variables ***
${TOOL}     {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


*** Test Cases ***                                                   BODY                                                                                                                  STATUS    TYPE                     MESSAGE
Messages That Are A String Are Rejected                              {"messages": "hi"}                                                                                                    400       invalid_request_error    Expected 'messages' to be an array
Messages That Are An Object Are Rejected                             {"messages": {}}                                                                                                      400       invalid_request_error    Expected 'messages' to be an array
Message Without Content Is Rejected                                  {"messages": [{"role": "user"}]}                                                                                      400       invalid_request_error    All non-assistant messages must contain 'content'
Message That Is A Bare String Is Rejected                            {"messages": ["hi"]}                                                                                                  400       invalid_request_error    All non-assistant messages must contain 'content'
Content That Is A Number Is Rejected                                 {"messages": [{"role": "user", "content": 5}]}                                                                        400       invalid_request_error    Expected 'content' to be a string or an array
Content Part Of Unknown Type Is Rejected                             {"messages": [{"role": "user", "content": [{"type": "audio", "text": "hi"}]}]}                                        400       invalid_request_error    unsupported content[].type
Content Part Without Type Is Rejected                                {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}                                                         400       invalid_request_error    unsupported content[].type
Top Logprobs Without Logprobs Is Rejected                            {"messages": [{"role": "user", "content": "hi"}], "top_logprobs": 2}                                                  400       invalid_request_error    top_logprobs requires logprobs to be set to true
Zero Choices Are Rejected                                            {"messages": [{"role": "user", "content": "hi"}], "n": 0}                                                             400       invalid_request_error    Field 'n': Value must be between 1 <= value <= ${SLOTS}, but got 0
More Choices Than Slots Are Rejected                                 {"messages": [{"role": "user", "content": "hi"}], "n": ${ONE_TOO_MANY}}                                               400       invalid_request_error    Field 'n': Value must be between 1 <= value <= ${SLOTS}, but got ${ONE_TOO_MANY}
Max Tokens Given As Text Is Rejected                                 {"messages": [{"role": "user", "content": "hi"}], "max_tokens": "ten"}                                                400       invalid_request_error    Field 'max_tokens': [json.exception.type_error.302] type must be number, but is string
Unknown Response Format Type Is Rejected                             {"messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "xml"}}                                 400       invalid_request_error    response_format type must be one of "text" or "json_object", but got: xml
Unknown Tool Choice Is Rejected                                      {"messages": [{"role": "user", "content": "hi"}], "tools": [${TOOL}], "tool_choice": "always"}                        400       invalid_request_error    Invalid tool_choice: always
Continuing The Final Message With A Generation Prompt Is Rejected    {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}], "continue_final_message": true}    400    invalid_request_error    Cannot set both add_generation_prompt and continue_final_message to true.
