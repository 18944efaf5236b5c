*** Settings ***
Documentation       A sharded profile on a real Ray cluster: two nodes started on this machine the way a user starts
...                 them (`ray start --head`, then `ray start --address` with the head's address), one CPU each, so
...                 the two workers land on different nodes (Ray's SPREAD strategy). The driver merges their raw event
...                 logs and the run names each worker's node and share. Then one node is killed in the middle of a
...                 run: the run still ends within its bound with what the other worker sent, names the lost worker,
...                 what it had sent and how many answers are missing, and carries the machine-side validity flag
...                 `worker_lost` instead of quietly reporting fewer requests. The cluster's processes are stopped by
...                 their own folders, never by `ray stop` (which ends every Ray process of the user).
Resource            ../../resources/load.resource
Library             RayClusterLibrary
Suite Setup         Start Server And Two Node Ray Cluster
Suite Teardown      Stop Ray Cluster And Servers
Test Timeout        3 minutes
Test Tags           load    ray


*** Test Cases ***
Workers On Two Nodes Share A Constant Rate
    [Documentation]    `server_overhead` is allowed: it judges the server by the latency outside its own timings, and
    ...    here the cluster's daemons (GCS, two raylets, their agents) and both workers share the server's cores, which
    ...    `machine_busy` cannot see in a sharded run. Every other flag counts.
    ${prompts} =    Fixed Length Prompts    count=${200}    tokens=${48}
    ${address} =    Ray Cluster Address
    ${run} =    Run Load Profile    ${prompts}    rate    rate=${4}    duration=${8}    max_tokens=${16}
    ...    workers=${2}    ray_address=${address}    max_in_flight=${16}    name=ray-cluster
    Every Load Request Should Succeed    ${run}
    Load Run Should Have Spread Workers Over Nodes    ${run}    ${2}
    Load Results Should Be Valid    ${run}    server_overhead

A Node Lost Mid-Run Leaves A Flagged Partial Run
    ${prompts} =    Fixed Length Prompts    count=${200}    tokens=${48}
    ${address} =    Ray Cluster Address
    Lose Ray Node During The Next Run    ${3}    node=${1}
    ${run} =    Run Load Profile    ${prompts}    rate    rate=${4}    duration=${8}    max_tokens=${16}
    ...    workers=${2}    ray_address=${address}    max_in_flight=${16}    name=ray-node-lost    history=${False}
    Every Load Request Should Succeed    ${run}
    Load Run Should Have Lost The Worker Of Node    ${run}    ${1}


*** Keywords ***
Start Server And Two Node Ray Cluster
    [Documentation]    The suite's `tiny-load` server, and a Ray cluster of a head and one more node on this machine.
    Start Server For Suite    tiny-load
    Start Ray Cluster    nodes=${2}

Stop Ray Cluster And Servers
    [Documentation]    Kills the cluster's processes (never `ray stop`), then stops the suite's server.
    [Timeout]    1 minute
    Stop Ray Cluster
    Stop Servers For Suite
