*** Settings ***
Documentation       The two-node Ray cluster of the load suites (RayClusterLibrary, `suites/21__load/ray_cluster.robot`)
...                 leaves nothing behind: a node lost on purpose is gone while the head runs on, and once the
...                 cluster is stopped no process names its folder or works in it (a psutil scan of every process),
...                 without `ray stop`, which would end every Ray process of the user.
Library             RayClusterLibrary
Test Timeout        3 minutes
Test Tags           harness    ray


*** Test Cases ***
Stopped Ray Cluster Leaves No Process Behind
    Start Ray Cluster    nodes=${2}
    Ray Cluster Should Run Nodes    ${2}
    Lose Ray Node    ${1}
    Ray Cluster Should Run Nodes    ${1}
    Stop Ray Cluster
    No Ray Process Should Be Left
    [Teardown]    Stop Ray Cluster
