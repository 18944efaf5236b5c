*** Settings ***
Documentation       My deployment answers within my latency targets: 95 % of the answers start (time to first
...                 token, TTFT) and end (end to end, e2e) within the targets, for one user and for `${USERS}`
...                 users asking at once, and no request fails. The prompts are `${PROMPT_TOKENS}` tokens long
...                 and every answer `${ANSWER_TOKENS}` tokens: set both, and the targets, to what your users
...                 send and expect. See examples/README.md for how to run it against your server.
Resource            ../resources/load.resource
Suite Setup         Use Running Server For Suite    ${BASE_URL}    ${API_KEY}
Suite Teardown      Stop Servers For Suite
Test Timeout        5 minutes
Test Tags           example


*** Variables ***
${BASE_URL}             %{LLAMA_SERVER_URL=http://127.0.0.1:8080}
${API_KEY: Secret}      %{LLAMATEST_API_KEY=}
${PROMPT_TOKENS}        ${64}
${ANSWER_TOKENS}        ${16}
${REQUESTS}             ${10}
${USERS}                ${2}
${TTFT_TARGET_MS}       ${2000}
${E2E_TARGET_MS}        ${8000}


*** Test Cases ***
One User Gets Answers Within The Targets
    ${prompts} =    Fixed Length Prompts    count=${REQUESTS}    tokens=${PROMPT_TOKENS}
    ${run} =    Run Load Profile    ${prompts}    synchronous    max_requests=${REQUESTS}    duration=${240}
    ...    max_tokens=${ANSWER_TOKENS}    history=${False}
    Every Load Request Should Succeed    ${run}
    Load Results Should Meet SLO    ${run}    ttft_p95_ms=${TTFT_TARGET_MS}    e2e_p95_ms=${E2E_TARGET_MS}

Users Asking At Once Get Answers Within The Targets
    ${prompts} =    Fixed Length Prompts    count=${REQUESTS}    tokens=${PROMPT_TOKENS}
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${USERS}    max_requests=${REQUESTS}
    ...    duration=${240}    max_tokens=${ANSWER_TOKENS}    history=${False}
    Every Load Request Should Succeed    ${run}
    Load Results Should Meet SLO    ${run}    ttft_p95_ms=${TTFT_TARGET_MS}    e2e_p95_ms=${E2E_TARGET_MS}
