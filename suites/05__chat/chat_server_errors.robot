# robocop: off=line-too-long
*** Settings ***
Documentation       Invalid /v1/chat/completions requests that this build answers with 500 `server_error`, although
...                 the request is at fault. Whether llama-server answers 400 or 500 depends on the exception its
...                 validation throws (`invalid_argument` or `runtime_error`), not on whose fault it is, and that
...                 split moves between builds: each row pins this build's status and exact message, hence
...                 `build-specific`. The requests rejected with 400 are in `chat_validation.robot`.
Resource            ../../resources/chat.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Chat Request Should Fail With
Test Tags           chat    errors    build-specific    builds:9905-


*** Test Cases ***                                        BODY                                                                                                              STATUS    TYPE            MESSAGE
Message Without Role Fails As A Server Error              {"messages": [{"content": "hi"}]}                                                                                 500       server_error    Failed to parse messages: Missing 'role' in message: {"content":"hi"}
Role That Is A Number Fails As A Server Error             {"messages": [{"role": 5, "content": "hi"}]}                                                                      500       server_error    Failed to parse messages: [json.exception.type_error.302] type must be string, but is number
Text Part Without Text Fails As A Server Error            {"messages": [{"role": "user", "content": [{"type": "text"}]}]}                                                   500       server_error    Failed to parse messages: [json.exception.out_of_range.403] key 'text' not found
Image Part Without A Projector Fails As A Server Error    {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://127.0.0.1:9/x.png"}}]}]}    500    server_error    image input is not supported - hint: if this is unexpected, you may need to provide the mmproj
Grammar Next To A Json Schema Fails As A Server Error     {"messages": [{"role": "user", "content": "hi"}], "json_schema": {"type": "string"}, "grammar": "root ::= [a]"}    500       server_error    Cannot use both json_schema and grammar
Tools That Are Not A List Fail As A Server Error          {"messages": [{"role": "user", "content": "hi"}], "tools": "f"}                                                   500       server_error    Failed to parse tools: Expected 'tools' to be an array, got "f"; tools = "f"
Unknown Reasoning Format Fails As A Server Error          {"messages": [{"role": "user", "content": "hi"}], "reasoning_format": "verbose"}                                  500       server_error    Unknown reasoning format: verbose
