*** Settings ***
Documentation       Slot save, restore and erase with `--slot-save-path`: a saved slot's tokens land in a file,
...                 restoring that file into another slot lets it serve the same prompt from its cache with the same
...                 answer, and erasing a slot makes it process the prompt in full again.
...
...                 Each test uses a prompt of its own and names the slot it runs on (`id_slot`).
Resource            ../../resources/slot_actions.resource
Resource            ../../resources/completion.resource
Suite Setup         Start Server With Slot Save Path    tiny-2-slots    slot-saves
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           slot-actions    needs:managed


*** Test Cases ***
Saving A Slot Writes All Its Tokens To The Save Path
    ${out} =    Complete    saving a slot to a file    n_predict=${8}    id_slot=${1}
    ${saved} =    Save Slot    1    saved.bin
    Json Field Should Be    ${saved}    id_slot    ${1}
    Json Field Should Be    ${saved}    filename    saved.bin
    Json Field Should Be    ${saved}    n_saved    ${out}[tokens_cached]
    Saved File Size Should Be    saved.bin    ${saved}[n_written]
    Json Field Should Be Of Type    ${saved}    timings.save_ms    number

Restoring Reads Back What Was Saved
    Complete    a round trip through a file    n_predict=${8}    id_slot=${1}
    ${saved} =    Save Slot    1    round-trip.bin
    ${restored} =    Restore Slot    0    round-trip.bin
    Json Field Should Be    ${restored}    id_slot    ${0}
    Json Field Should Be    ${restored}    filename    round-trip.bin
    Json Field Should Be    ${restored}    n_restored    ${saved}[n_saved]
    Json Field Should Be    ${restored}    n_read    ${saved}[n_written]
    Json Field Should Be Of Type    ${restored}    timings.restore_ms    number

Restored Slot Serves The Prompt From Its Cache With The Same Answer
    [Documentation]    Only the last prompt token is evaluated again: the rest comes from the restored cache.
    ${original} =    Complete    a prompt restored into the other slot    n_predict=${8}    id_slot=${1}
    Save Slot    1    moved.bin
    Restore Slot    0    moved.bin
    ${out} =    Complete    a prompt restored into the other slot    n_predict=${8}    id_slot=${0}
    Json Field Should Be    ${out}    id_slot    ${0}
    Json Field Should Be    ${out}    timings.cache_n    ${{ $out["tokens_evaluated"] - 1 }}
    Json Field Should Be    ${out}    timings.prompt_n    ${1}
    Should Be Equal    ${out}[content]    ${original}[content]

Erasing A Slot Makes It Process The Prompt In Full Again
    ${first} =    Complete    a prompt that is erased    n_predict=${8}    id_slot=${0}
    ${erased} =    Erase Slot    0
    Json Field Should Be    ${erased}    id_slot    ${0}
    Json Field Should Be    ${erased}    n_erased    ${first}[tokens_cached]
    ${again} =    Complete    a prompt that is erased    n_predict=${8}    id_slot=${0}
    Json Field Should Be    ${again}    timings.cache_n    ${0}
    Json Field Should Be    ${again}    timings.prompt_n    ${again}[tokens_evaluated]

Erased Slot Saves And Restores No Token
    Erase Slot    1
    ${saved} =    Save Slot    1    empty-slot.bin
    Json Field Should Be    ${saved}    n_saved    ${0}
    ${restored} =    Restore Slot    0    empty-slot.bin
    Json Field Should Be    ${restored}    n_restored    ${0}

Saving Twice To One File Keeps The Second Save
    Complete    the first save    n_predict=${4}    id_slot=${1}
    Save Slot    1    twice.bin
    ${longer} =    Complete    the second save of a longer prompt    n_predict=${16}    id_slot=${1}
    ${saved} =    Save Slot    1    twice.bin
    Json Field Should Be    ${saved}    n_saved    ${longer}[tokens_cached]
    Saved File Size Should Be    twice.bin    ${saved}[n_written]

Slot Id Past The Slot Count Wraps Around
    [Documentation]    Deliberate: `get_slot_by_id` (tools/server/server-context.cpp) takes the id modulo the slot
    ...    count, "allow id_slot to be out of bounds (wrap around)", so that a client can spread tasks without
    ...    knowing how many slots there are (PR llama.cpp#19207). On two slots, id 3 is slot 1: the save holds
    ...    slot 1's tokens, not slot 0's. The answer echoes the id as sent.
    ${wanted} =    Complete    a slot reached past the slot count    n_predict=${8}    id_slot=${1}
    ${other} =    Complete    x    n_predict=${2}    id_slot=${0}
    Should Not Be Equal    ${other}[tokens_cached]    ${wanted}[tokens_cached]
    ${saved} =    Save Slot    3    wrapped.bin
    Json Field Should Be    ${saved}    id_slot    ${3}
    Json Field Should Be    ${saved}    n_saved    ${wanted}[tokens_cached]
    Saved File Size Should Be    wrapped.bin    ${saved}[n_written]
