*** Settings ***
Documentation       A soak: 200 mixed requests at once on one four-slot server: native, OpenAI completion and chat
...                 routes, streamed and not; every 10th valid stream's client hangs up after two chunks and every
...                 15th request is invalid. Afterwards each request got what it asked for, the slots are idle, the
...                 `/metrics` token counter matches what the requests got, every native answer names a real slot,
...                 and the server answers as it did before the soak.
Resource            ../../resources/slots.resource
Suite Setup         Start Server For Suite    tiny-4-slots    --metrics
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multi-user    soak


*** Variables ***
${PROMPT}       a question asked before and after the soak


*** Test Cases ***
Two Hundred Mixed Requests Leave The Server As It Was
    ${before} =    Send Concurrent Completions    ${PROMPT}    n_predict=${32}    watch=${False}
    ${soak} =    Send Mixed Requests    ${200}    n_predict=${16}    cancel_every=${10}    invalid_every=${15}
    ...    metrics=${True}
    Every Request Should Get What It Asked For    ${soak}
    No Request Should Be Lost Or Duplicated    ${soak}
    Every Answer Should Name A Real Slot    ${soak}
    Metrics Should Count Every Predicted Token    ${soak}
    Slots Should Have Gone Back To Idle    ${soak}
    ${after} =    Send Concurrent Completions    ${PROMPT}    n_predict=${32}    watch=${False}
    Batch Texts Should Be Equal    ${after}    ${before}
