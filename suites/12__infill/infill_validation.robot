# robocop: off=line-too-long
*** Settings ***
Documentation       /infill request validation: a missing or non-string prefix or suffix, malformed `input_extra`
...                 and out-of-range fields are 400 `invalid_request_error` with a message that says what is wrong.
Resource            ../../resources/infill.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Infill Body Should Be Rejected
Test Tags           infill    errors    needs:infill


*** Test Cases ***                          BODY                                                                    MESSAGE
Missing Input Prefix Is Rejected            {"input_suffix": "b"}                                                   input_prefix
Missing Input Suffix Is Rejected            {"input_prefix": "a"}                                                   input_suffix
Number As Input Prefix Is Rejected          {"input_prefix": 1, "input_suffix": "b"}                                type must be string, but is number
Null Input Suffix Is Rejected               {"input_prefix": "a", "input_suffix": null}                             type must be string, but is null
Input Extra That Is No List Is Rejected     {"input_prefix": "a", "input_suffix": "b", "input_extra": "x"}          "input_extra" must be an array of {"filename": string, "text": string}
Extra File Without Text Is Rejected         {"input_prefix": "a", "input_suffix": "b", "input_extra": [{"filename": "a.py"}]}    extra_context chunk must contain a "text" field with a string value
Extra Entry That Is No Object Is Rejected   {"input_prefix": "a", "input_suffix": "b", "input_extra": [1]}          extra_context chunk must contain a "text" field with a string value
Extra File With A Number As Name Is Rejected    {"input_prefix": "a", "input_suffix": "b", "input_extra": [{"filename": 1, "text": "x"}]}    extra_context chunk's "filename" field must be a string
Negative N Predict Is Rejected              {"input_prefix": "a", "input_suffix": "b", "n_predict": -5}             Field 'n_predict': Value must be between -1 <= value <= 2147483647, but got -5
Malformed Json Is Rejected                  {"input_prefix": "a",                                                   parse error


*** Keywords ***
Infill Body Should Be Rejected
    [Documentation]    POSTs `body` exactly as given (declared as JSON) to /infill and checks a 400
    ...    `invalid_request_error` whose message contains `message`.
    [Arguments]    ${body}    ${message}
    VAR    &{json}    Content-Type=application/json
    ${resp} =    POST On Session    suite    /infill    data=${body}    headers=${json}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message_contains=${message}
    Media Type Should Be    ${resp}    application/json
