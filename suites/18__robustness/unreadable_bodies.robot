# robocop: off=line-too-long
*** Settings ***
Documentation       Every JSON route refuses a body it cannot read: malformed JSON and an empty body get 400
...                 `invalid_request_error` with the parser's message on each of them, and a body that is JSON but
...                 not an object (an array, a string, a number, null) gets 400 with a message that names what is
...                 missing or what was sent. After each, the server still runs, answers `/health` and completes a
...                 normal request. `hostile_input.robot` goes deeper on `/completion` and chat; these rows check
...                 that every route shares the contract (the Anthropic routes' 500 for a body without `messages` is
...                 the `bug` test of `anthropic_messages.robot`). They hold for any model and default flags.
Resource            ../../resources/robustness.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Hostile Request Should Get
Test Tags           robustness    errors


*** Variables ***
${JSON}             application/json
${MALFORMED}        {"x": [1,
${PARSE_ERROR}      parse error
${EMPTY_INPUT}      empty input
${NO_MESSAGES}      'messages' is required
${NO_INPUT}         'input' is required


*** Test Cases ***                                      ROUTE                        BODY            CONTENT TYPE    STATUS    TYPE                     MESSAGE
Malformed Json On V1 Completions Is Refused             /v1/completions              ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Malformed Json On Chat Completions Is Refused           /chat/completions            ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Malformed Json On Apply Template Is Refused             /apply-template              ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Malformed Json On Responses Is Refused                  /v1/responses                ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Malformed Json On Messages Is Refused                   /v1/messages                 ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Malformed Json On Count Tokens Is Refused               /v1/messages/count_tokens    ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Malformed Json On Tokenize Is Refused                   /tokenize                    ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Malformed Json On Detokenize Is Refused                 /detokenize                  ${MALFORMED}    ${JSON}         400       invalid_request_error    ${PARSE_ERROR}
Empty Body On V1 Completions Is Refused                 /v1/completions              ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Empty Body On Chat Completions Is Refused               /chat/completions            ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Empty Body On Apply Template Is Refused                 /apply-template              ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Empty Body On Responses Is Refused                      /v1/responses                ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Empty Body On Messages Is Refused                       /v1/messages                 ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Empty Body On Count Tokens Is Refused                   /v1/messages/count_tokens    ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Empty Body On Tokenize Is Refused                       /tokenize                    ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Empty Body On Detokenize Is Refused                     /detokenize                  ${EMPTY}        ${JSON}         400       invalid_request_error    ${EMPTY_INPUT}
Array On V1 Completions Is Refused                      /v1/completions              []              ${JSON}         400       invalid_request_error    array
String On V1 Completions Is Refused                     /v1/completions              "x"             ${JSON}         400       invalid_request_error    string
Number On Completion Is Refused                         /completion                  5               ${JSON}         400       invalid_request_error    number
Number On V1 Completions Is Refused                     /v1/completions              5               ${JSON}         400       invalid_request_error    number
Null On V1 Completions Is Refused                       /v1/completions              null            ${JSON}         400       invalid_request_error    null
Array On Chat Completions Is Refused                    /chat/completions            []              ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
String On Chat Completions Is Refused                   /chat/completions            "x"             ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Number On Chat Completions Is Refused                   /chat/completions            5               ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Null On Chat Completions Is Refused                     /chat/completions            null            ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
String On V1 Chat Completions Is Refused                /v1/chat/completions         "x"             ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Number On V1 Chat Completions Is Refused                /v1/chat/completions         5               ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Null On V1 Chat Completions Is Refused                  /v1/chat/completions         null            ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Array On Apply Template Is Refused                      /apply-template              []              ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
String On Apply Template Is Refused                     /apply-template              "x"             ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Number On Apply Template Is Refused                     /apply-template              5               ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Null On Apply Template Is Refused                       /apply-template              null            ${JSON}         400       invalid_request_error    ${NO_MESSAGES}
Array On Responses Is Refused                           /v1/responses                []              ${JSON}         400       invalid_request_error    ${NO_INPUT}
String On Responses Is Refused                          /v1/responses                "x"             ${JSON}         400       invalid_request_error    ${NO_INPUT}
Number On Responses Is Refused                          /v1/responses                5               ${JSON}         400       invalid_request_error    ${NO_INPUT}
Null On Responses Is Refused                            /v1/responses                null            ${JSON}         400       invalid_request_error    ${NO_INPUT}
