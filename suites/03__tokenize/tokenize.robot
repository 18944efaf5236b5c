*** Settings ***
Documentation       /tokenize and /detokenize on `tiny`'s SentencePiece vocabulary with byte fallback:
...                 round trips, pieces, raw byte pieces, BOS and special-token parsing. Round trips and pieces
...                 hold on any model whose file is readable here: the space prefix comes from the file.
Resource            ../../resources/tokenize.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           tokenize


*** Variables ***
${TEXT}         hello world of llama tokens
${UNICODE}      héllo wörld ✓ 日本


*** Test Cases ***
Round Trip Restores The Text With The Model's Space Prefix
    [Documentation]    A vocabulary that adds a space prefix (SentencePiece `▁`: tiny) gets it back from detokenize.
    [Tags]    needs:model-file
    ${prefix} =    Space Prefix Of The Model
    Round Trip Should Restore    ${TEXT}    ${prefix}

Round Trip Restores Non Ascii Text
    [Documentation]    On tiny through byte tokens.
    [Tags]    needs:model-file
    ${prefix} =    Space Prefix Of The Model
    Round Trip Should Restore    ${UNICODE}    ${prefix}

Pieces Concatenate To The Text
    [Tags]    needs:model-file
    ${prefix} =    Space Prefix Of The Model
    ${tokens} =    Tokenize    ${TEXT}    with_pieces=${True}
    ${ids} =    Tokenize    ${TEXT}
    Token Pieces Should Concatenate To    ${tokens}    ${prefix}${TEXT}
    Token Ids Should Be    ${tokens}    ${ids}

Pieces That Are Not Valid Utf8 Come Back As Byte Arrays
    [Tags]    needs:tiny
    ${tokens} =    Tokenize    é    with_pieces=${True}
    ${bytes} =    Evaluate    list("é".encode())
    Json Field Should Be    ${tokens}    0.piece    ${SPACE}
    Json Field Should Be    ${tokens}    1.piece    ${bytes}[0:1]
    Json Field Should Be    ${tokens}    2.piece    ${bytes}[1:2]

Add Special Prepends The Bos Token When The Model Adds One
    [Documentation]    tiny adds one; SmolLM2 does not.
    [Tags]    needs:model-file
    ${bos} =    Bos Tokens Added By The Model
    ${plain} =    Tokenize    ${TEXT}
    ${special} =    Tokenize    ${TEXT}    add_special=${True}
    VAR    @{expected}    @{bos}    @{plain}
    Should Be Equal    ${special}    ${expected}

Special Token Text Is One Token Only When Parsed As Special
    [Documentation]    The text of the model's own end-of-sequence token (`eos_token` in /props): a text such as
    ...    `<|im_start|>` is one special token only in the vocabularies that have it (Gemma 3's has not).
    ${props} =    Get Props
    ${parsed} =    Tokenize    ${props.json()}[eos_token]    parse_special=${True}
    ${literal} =    Tokenize    ${props.json()}[eos_token]    parse_special=${False}
    Length Should Be    ${parsed}    1
    Should Be True    len($literal) > 1

Empty Text Has No Tokens
    ${tokens} =    Tokenize    ${EMPTY}
    Should Be Empty    ${tokens}

Empty Token List Detokenizes To Empty Text
    ${restored} =    Detokenize    tokens=@{EMPTY}
    Should Be Equal    ${restored}    ${EMPTY}

Token Id Outside The Vocabulary Is Refused As A Client Error
    [Documentation]    Contract: RFC 9110 §15.5.1, 400 is for "something that is perceived to be a client error",
    ...    and §15.6.1, 500 for "an unexpected condition" of the server; an id that is no token of the model is
    ...    the client's mistake, and the completion routes refuse the same id with 400 `invalid_request_error`
    ...    "Prompt contains invalid tokens" (see `hostile_input.robot`). This build answers /detokenize with
    ...    500 `server_error` and the C++ exception text (`vector::_M_range_check: __n (which is 397) >=
    ...    this->size() (which is 397)`): `tokens_to_str` looks the id up without a check.
    [Tags]    bug    errors    needs:tiny
    ${meta} =    Model Metadata    tiny
    VAR    @{ids}    ${1}    ${meta}[n_vocab]
    ${resp} =    Request Detokenize    ${ids}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error
    Media Type Should Be    ${resp}    application/json


*** Keywords ***
Bos Tokens Added By The Model
    [Documentation]    `[BOS id]` when the model's file says `add_special` prepends BOS, else `[]`; a skip when the
    ...    file does not say.
    ${meta} =    Suite Model Metadata
    Skip If    $meta["add_bos_token"] is None    the model file does not say whether it adds BOS
    VAR    @{bos}    @{EMPTY}
    IF    $meta["add_bos_token"]    VAR    @{bos}    ${meta}[bos_token_id]
    RETURN    ${bos}
