*** Settings ***
Documentation       Choosing a slot, on any server with two slots or more: a request that names a slot is served on
...                 it, and a prompt that repeats a cached prompt goes to the slot that holds it and reuses the cache.
...                 No `/metrics` needed, so an external deployment runs it too (busy slots: slot_assignment.robot).
Resource            ../../resources/completion.resource
Suite Setup         Start Server For Suite    tiny-2-slots
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    needs:multi-slot


*** Variables ***
${STORY}            Once upon a time, in a village at the edge of a great forest, there lived an old clockmaker
${OTHER_STORY}      The committee met on a rainy Tuesday to decide, after years of debate, where the bridge should go


*** Test Cases ***
Requested Slot Serves The Request
    ${on_one} =    Complete    ${STORY}    n_predict=${4}    id_slot=${1}
    ${on_zero} =    Complete    ${STORY}    n_predict=${4}    id_slot=${0}
    Json Field Should Be    ${on_one}    id_slot    ${1}
    Json Field Should Be    ${on_zero}    id_slot    ${0}

Repeated Prompt Goes To The Slot That Has It Cached
    [Tags]    needs:full-prompt-cache
    ${first} =    Complete    ${OTHER_STORY}    n_predict=${4}    id_slot=${1}
    ${again} =    Complete    ${OTHER_STORY}, and who should pay for it    n_predict=${4}
    Json Field Should Be    ${again}    id_slot    ${1}
    Prompt Should Have Come From The Cache    ${again}    ${first}[tokens_evaluated]
