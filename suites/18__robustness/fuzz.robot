*** Settings ***
Documentation       Bounded fuzzing: 500 seeded mutations of a valid request body per route (fields dropped, retyped,
...                 repeated, extreme numbers, random unicode and control characters, deep nesting, truncated or
...                 flipped bytes), one at a time with a deadline each. The server must never crash, answer each
...                 within its deadline, and give no 5xx but the ones documented elsewhere; it is healthy afterwards.
...                 `--n-predict 8` bounds a request without `n_predict` (or with -1), the smallest context (256
...                 tokens) any other.
Resource            ../../resources/robustness.resource
Suite Setup         Start Server For Suite    tiny-1-slot    --n-predict    8    n_ctx=${256}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Mutated Requests Should Not Break The Server
Test Tags           robustness    fuzz


*** Variables ***
@{STOPS}                \\n
@{TOKEN_2_LESS_LIKELY}    ${2}    ${-1}
@{LOGIT_BIAS}           ${TOKEN_2_LESS_LIKELY}
&{COMPLETION}           prompt=hello world    n_predict=${4}    temperature=${0}    seed=${42}    n_probs=${2}
...                     stop=${STOPS}    logit_bias=${LOGIT_BIAS}
&{SYSTEM_TURN}          role=system    content=be brief
&{USER_TURN}            role=user    content=hello
@{MESSAGES}             ${SYSTEM_TURN}    ${USER_TURN}
&{CHAT}                 messages=${MESSAGES}    max_tokens=${4}    temperature=${0}    logprobs=${True}
...                     top_logprobs=${2}
@{NONE_DOCUMENTED}      @{EMPTY}
# The 500s this build gives for invalid chat requests, pinned in suites/05__chat/chat_server_errors.robot.
@{CHAT_5XX}             Failed to parse messages:    Failed to parse tools:    Unknown reasoning format:
...                     Cannot use both json_schema and grammar    image input is not supported


*** Test Cases ***                                  ROUTE                   BODY              DOCUMENTED 5XX
Mutated Completion Requests Do Not Break It         /completion             ${COMPLETION}     ${NONE_DOCUMENTED}
Mutated Chat Requests Do Not Break It               /v1/chat/completions    ${CHAT}           ${CHAT_5XX}
