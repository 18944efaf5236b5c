*** Settings ***
Documentation       The same engine sharded over two Ray workers (a local Ray instance, as a user without a cluster
...                 gets): each worker sends its share of an open-loop rate, the driver merges their event logs onto
...                 its own clock and computes every number once, from the union. The run says how many workers
...                 took part and where, with each clock offset and its error bound.
Resource            ../../resources/load.resource
Suite Setup         Start Server For Suite    tiny-load
Suite Teardown      Stop Servers For Suite
Test Timeout        3 minutes
Test Tags           load    ray


*** Test Cases ***
Two Workers Share A Constant Rate
    ${prompts} =    Fixed Length Prompts    count=${400}    tokens=${48}
    ${run} =    Run Load Profile    ${prompts}    rate    rate=${4}    duration=${8}    max_tokens=${16}
    ...    workers=${2}    max_in_flight=${16}
    Every Load Request Should Succeed    ${run}
    Load Results Should Be Valid    ${run}
    Load Run Should Have Used Workers    ${run}    ${2}
