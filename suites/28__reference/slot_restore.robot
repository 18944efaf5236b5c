*** Settings ***
Documentation       Log-probabilities of an answer served from a slot restored from a file (`--slot-save-path`),
...                 against the numpy reference (ReferenceLibrary; docs/reference.md): the cells read back are the
...                 cells that were saved, so the answer must be the fresh reference's.
Resource            ../../resources/reference.resource
Resource            ../../resources/slot_actions.resource
Suite Setup         Start Server With Slot Save Path    tiny-2-slots    reference-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           reference    slot-actions    needs:generated-model    needs:managed


*** Variables ***
${PROMPT}       a slot saved and restored into the other slot


*** Test Cases ***
A Restored Slot Gives The Reference's Logprobs
    ${ids} =    Prompt Tokens    ${PROMPT}
    Complete    ${PROMPT}    n_predict=${8}    id_slot=${1}
    Save Slot    1    reference.bin
    Restore Slot    0    reference.bin
    ${out} =    Complete    ${PROMPT}    n_predict=${16}    n_probs=${3}    id_slot=${0}
    Prompt Should Have Come From The Cache    ${out}    ${{ len($ids) }}
    Log Probabilities Should Match Reference    ${out}[completion_probabilities]    ${ids}
