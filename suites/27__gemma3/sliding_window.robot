*** Settings ***
Documentation       Gemma 3 270M, a model of another family whose layers mostly see a sliding window of 512 tokens:
...                 what the window changes in llama-server and what `--swa-full` gives back. The server's README
...                 says of `cache_prompt` that only "the suffix that differs between the requests" is evaluated, "if
...                 possible"; with the window (the default) the server keeps only the window of a slot's memory, so a
...                 prompt is reused only from the context checkpoints it made and context shift is turned off, while
...                 `--swa-full` ("use full-size SWA cache"; the server sets its window to 0 "to simulate a non-SWA
...                 model", server-context.cpp) reuses a prompt whole but for its last token, also after a slot
...                 restore, as llama.cpp's own tests/unit/test_slot_save.py expects with `swa_full`.
...
...                 The suite's server keeps the window; `full` runs the same preset with `--swa-full`. Both ask for
...                 context shift and save slots to a folder of their own. Each test uses a prompt of its own.
Resource            ../../resources/completion.resource
Resource            ../../resources/chat.resource
Resource            ../../resources/slot_actions.resource
Suite Setup         Start Windowed And Full Size Servers
Suite Teardown      Stop Servers For Suite
Test Timeout        1 minute
Test Tags           needs-gemma3    completion    needs:gemma3


*** Test Cases ***
Full Size Window Cache Reuses A Repeated Prompt But Its Last Token
    Complete    the full size cache keeps it all    n_predict=${4}    id_slot=${0}    server=full
    ${again} =    Complete    the full size cache keeps it all    n_predict=${4}    id_slot=${0}    server=full
    Json Field Should Be    ${again}    timings.cache_n    ${{ $again["tokens_evaluated"] - 1 }}
    Json Field Should Be    ${again}    timings.prompt_n    ${1}

Sliding Window Cache Evaluates More Of A Repeated Prompt Than Its Last Token
    [Documentation]    What `--swa-full` is for: without it the prompt is reused only up to a context checkpoint.
    Complete    the sliding window keeps a part    n_predict=${4}    id_slot=${0}
    ${again} =    Complete    the sliding window keeps a part    n_predict=${4}    id_slot=${0}
    More Than The Last Prompt Token Should Have Been Evaluated    ${again}

Restored Slot Reuses The Prompt With The Same Answer With A Full Size Window Cache
    [Tags]    slot-actions
    ${original} =    Complete    a full size cache moved to the other slot    n_predict=${8}    id_slot=${1}
    ...    server=full
    Save Slot    1    moved.bin    server=full
    Restore Slot    0    moved.bin    server=full
    ${out} =    Complete    a full size cache moved to the other slot    n_predict=${8}    id_slot=${0}
    ...    server=full
    Json Field Should Be    ${out}    timings.cache_n    ${{ $out["tokens_evaluated"] - 1 }}
    Json Field Should Be    ${out}    timings.prompt_n    ${1}
    Should Be Equal    ${out}[content]    ${original}[content]

Restored Sliding Window Slot Gives The Same Answer
    [Documentation]    The save holds every token, the window's memory included, and reads back whole; reuse of the
    ...    restored prefix is not promised without `--swa-full` (test_slot_save.py: "Prefix reuse is not checked with
    ...    the default SWA cache"), but the answer is the one the saved slot gave.
    [Tags]    slot-actions
    ${original} =    Complete    a sliding window moved to the other slot    n_predict=${8}    id_slot=${1}
    ${saved} =    Save Slot    1    moved.bin
    ${restored} =    Restore Slot    0    moved.bin
    Json Field Should Be    ${restored}    n_restored    ${saved}[n_saved]
    Json Field Should Be    ${restored}    n_read    ${saved}[n_written]
    ${out} =    Complete    a sliding window moved to the other slot    n_predict=${8}    id_slot=${0}
    Should Be Equal    ${out}[content]    ${original}[content]

Context Shift Is Turned Off With The Sliding Window
    [Documentation]    The window's memory cannot be shifted, so `--context-shift` is dropped at start (common.cpp).
    [Tags]    needs:managed
    Server Log Should Contain    KV cache shifting is not supported for this context, disabling KV cache shifting

Context Shift Stays On With A Full Size Window Cache
    [Tags]    needs:managed
    Server Log Should Contain    using full-size SWA cache    full
    Server Log Should Not Contain    KV cache shifting is not supported    full

Chat Prompt Is ChatML When The Model Stores No Template
    [Documentation]    The README, `/v1/chat/completions`: "By default, the ChatML template will be used."
    [Tags]    chat
    ${prompt} =    Rendered Chat Prompt    hello
    Should Be Equal    ${prompt}    <|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n


*** Keywords ***
Start Windowed And Full Size Servers
    [Documentation]    The suite's server on `gemma3-2-slots` as it is (the sliding window), and `full` with
    ...    `--swa-full`; both with `--context-shift` and a save folder of their own. `full` is launched first and
    ...    waited for last, so that the two load Gemma 3 side by side: one start takes about 1.5 s.
    ${windowed} =    Empty Save Folder    gemma3-windowed-saves
    ${full} =    Empty Save Folder    gemma3-full-saves
    Launch Preset Server    gemma3-2-slots    --swa-full    --context-shift    --slot-save-path    ${full}    alias=full
    Start Server For Suite    gemma3-2-slots    --context-shift    --slot-save-path    ${windowed}
    Wait Until Server Is Ready    full

More Than The Last Prompt Token Should Have Been Evaluated
    [Documentation]    The answer's `timings.cache_n` is below its `tokens_evaluated` minus one (the prompt was not
    ...    reused whole), and `timings.prompt_n` counts the rest of the prompt.
    [Arguments]    ${answer}
    VAR    ${cached}    ${answer}[timings][cache_n]
    Should Be True    $cached < $answer["tokens_evaluated"] - 1
    ...    cache_n was ${cached}: the prompt of ${answer}[tokens_evaluated] tokens was reused whole
    Json Field Should Be    ${answer}    timings.prompt_n    ${{ $answer["tokens_evaluated"] - $cached }}
