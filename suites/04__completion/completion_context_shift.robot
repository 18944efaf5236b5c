*** Settings ***
Documentation       `--context-shift`: when the slot context is full the server discards part of it and generation
...                 goes on, so `n_predict` can exceed the slot context (the answer reports `truncated: true`).
...                 `n_keep` decides how many prompt tokens survive each shift: the output is the same up to the
...                 first shift and differs after it. A prompt longer than the context is still rejected. Every
...                 request here caps its generation, since with context shift nothing else would end it.
Resource            ../../resources/completion.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-1-slot    --context-shift    n_ctx=${256}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           completion


*** Variables ***
${PROMPT}           ${{ " the llama server" * 10 }}


*** Test Cases ***
Generation Runs Past The Slot Context
    ${n_ctx} =    Slot Context Size
    ${out} =    Complete    ${PROMPT}    n_predict=${{ $n_ctx + 50 }}
    Json Field Should Be    ${out}    tokens_predicted    ${{ $n_ctx + 50 }}
    Json Field Should Be    ${out}    stop_type    limit
    Json Field Should Be    ${out}    truncated    ${True}

Streamed Generation Runs Past The Slot Context
    ${n_ctx} =    Slot Context Size
    ${result} =    Stream Completion    ${PROMPT}    n_predict=${{ $n_ctx + 50 }}
    Stream Should Have No Error    ${result}
    Final Chunk Should Report    ${result}    tokens_predicted=${{ $n_ctx + 50 }}    stop_type=limit

Generation Within The Slot Context Is Not Truncated
    ${out} =    Complete    ${PROMPT}    n_predict=${16}
    Json Field Should Be    ${out}    tokens_predicted    ${16}
    Json Field Should Be    ${out}    truncated    ${False}

N Keep Decides What Survives A Context Shift
    ${n_ctx} =    Slot Context Size
    ${keep_bos} =    Complete    ${PROMPT}    n_predict=${300}    n_keep=${0}    return_tokens=${True}
    ...    cache_prompt=${False}
    ${keep_all} =    Complete    ${PROMPT}    n_predict=${300}    n_keep=${-1}    return_tokens=${True}
    ...    cache_prompt=${False}
    VAR    ${before_shift}    ${{ $n_ctx - $keep_bos["tokens_evaluated"] }}
    Should Be Equal    ${keep_all}[tokens][:${before_shift}]    ${keep_bos}[tokens][:${before_shift}]
    Should Not Be Equal    ${keep_all}[tokens][${before_shift}:]    ${keep_bos}[tokens][${before_shift}:]
    Json Field Should Be    ${keep_all}    generation_settings.n_keep    ${-1}

Prompt Longer Than The Slot Context Is Still Rejected
    ${n_ctx} =    Slot Context Size
    ${prompt} =    Repeated Token Prompt    ${{ $n_ctx + 10 }}
    ${resp} =    Request Completion    ${prompt}    n_predict=${4}    expected_status=any
    ${message} =    Context Size Error Message    ${{ $n_ctx + 10 }}    ${n_ctx}
    Error Response Should Be    ${resp}    400    exceed_context_size_error    message=${message}
