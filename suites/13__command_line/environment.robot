*** Settings ***
Documentation       Every `LLAMA_ARG_*` environment variable mirrors a flag: one turns a gate on or names the model
...                 when the command line says nothing, and a flag on the command line beats its variable.
Resource            ../../resources/metrics.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-1-slot    env=${ENVIRONMENT}
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           command-line    needs:managed


*** Variables ***
&{ENVIRONMENT}      LLAMA_ARG_ENDPOINT_METRICS=1    LLAMA_ARG_ALIAS=from-environment    LLAMA_ARG_N_PARALLEL=3


*** Test Cases ***
Environment Variable Turns A Gate On
    ${metrics} =    Scrape Metrics
    Metric Should Be Declared    ${metrics}    llamacpp:requests_processing    gauge
    ${props} =    Get Props
    Json Field Should Be    ${props}    endpoint_metrics    ${True}

Environment Variable Names The Model
    ${props} =    Get Props
    Json Field Should Be    ${props}    model_alias    from-environment
    ${models} =    Get Models
    Json Field Should Be    ${models}    data.0.id    from-environment

Command Line Flag Beats Its Environment Variable
    [Documentation]    The preset passes `--parallel 1`; `LLAMA_ARG_N_PARALLEL=3` loses.
    ${props} =    Get Props
    Json Field Should Be    ${props}    total_slots    ${1}
