*** Settings ***
Documentation       The legacy `client.completions.create` against `/v1/completions`: the typed `Completion`,
...                 token limits, one choice per prompt, `logprobs` and `echo`, streams.
...
...                 Note (SDK leniency, no server bug): with `strict=${True}` the SDK refuses every streamed chunk
...                 but the last, because it reads chunks with the non-stream `Completion` model, whose
...                 `finish_reason` may not be null; the API reference's streamed chunks carry `null` until the end.
...                 Reference: https://platform.openai.com/docs/api-reference/completions
Resource            ../../resources/clients.resource
Suite Setup         Start SDK Suite Server    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           sdk    completion


*** Variables ***
${PROMPT}       hello llama


*** Test Cases ***
Completion Is A Typed Text Completion
    ${answer} =    OpenAI Call    completions.create    prompt=${PROMPT}    max_tokens=${3}
    Should Be Typed    ${answer}    Completion
    Should Be Equal    ${answer.object}    text_completion
    Should Be Typed    ${answer.choices[0]}    CompletionChoice
    Created Should Be Now    ${answer.created}

Max Tokens Gives That Many Tokens And Finish Reason Length
    ${answer} =    OpenAI Call    completions.create    prompt=${PROMPT}    max_tokens=${6}    extra_body=${IGNORE_EOS}
    Should Be Equal    ${answer.choices[0].finish_reason}    length
    Should Be Equal As Integers    ${answer.usage.completion_tokens}    6
    Chat Usage Should Add Up    ${answer.usage}

A List Of Prompts Gives One Choice Per Prompt In Order
    VAR    @{prompts}    a b    c d
    ${answer} =    OpenAI Call    completions.create    prompt=${prompts}    max_tokens=${2}
    Length Should Be    ${answer.choices}    2
    Should Be Equal As Integers    ${answer.choices[0].index}    0
    Should Be Equal As Integers    ${answer.choices[1].index}    1

Streamed Text Equals The Completion At Temperature Zero
    ${answer} =    OpenAI Call    completions.create    prompt=${TEST NAME}    max_tokens=${8}    temperature=${0}
    ${call} =    OpenAI Stream    completions.create    prompt=${TEST NAME}    max_tokens=${8}    temperature=${0}
    Each Should Be Typed    ${call.events}    Completion
    ${text} =    Streamed Text    ${call}
    Should Be Equal    ${text}    ${answer.choices[0].text}

Logprobs Give The Legacy Token Lists
    [Documentation]    Contract: the API reference, completions `choices[].logprobs`: an object with `tokens`,
    ...    `token_logprobs`, `top_logprobs` (one dict of the `logprobs` most likely tokens per position) and
    ...    `text_offset`. This build sends the chat format instead (`content`: a list of
    ...    `{id, token, bytes, logprob, top_logprobs}`), so the SDK's `Logprobs` has all four fields `None`.
    [Tags]    bug
    ${answer} =    OpenAI Call    completions.create    prompt=${PROMPT}    max_tokens=${3}    logprobs=${2}
    VAR    ${logprobs}    ${answer.choices[0].logprobs}
    Should Not Be Equal    ${logprobs.tokens}    ${NONE}    logprobs.tokens is None: ${logprobs}
    Length Should Be    ${logprobs.tokens}    3
    Length Should Be    ${logprobs.top_logprobs[0]}    2

Echo Returns The Prompt Before The Completion
    [Documentation]    Contract: the API reference, completions `echo`: "Echo back the prompt in addition to the
    ...    completion". This build ignores `echo` and returns the completion alone.
    [Tags]    bug
    ${answer} =    OpenAI Call    completions.create    prompt=${PROMPT}    max_tokens=${3}    echo=${True}
    Should Start With    ${answer.choices[0].text}    ${PROMPT}

Strict Validation Accepts The Completion
    ${answer} =    OpenAI Call    completions.create    prompt=${PROMPT}    max_tokens=${2}    strict=${True}
    Should Be Typed    ${answer}    Completion
