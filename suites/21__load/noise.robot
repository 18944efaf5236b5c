*** Settings ***
Documentation       Hostile clients beside well-behaved ones. Two users run a short closed-loop profile on `tiny`
...                 (three slots of a server with an API key and the `tiny-vision` projector) while the noise
...                 workload sends, twice a second, wrong and missing keys, malformed JSON, a prompt over the
...                 context, a body over the 100 MiB limit, headers at one byte a second, a stream dropped after
...                 its first token and image URLs on a local sink (see `Noise Should Have Got Its Documented
...                 Answers`). The users must keep the SLO calibrated on this machine in this run and their answers,
...                 every hostile request must get its documented answer, the server must answer `/health`, and the
...                 sink must count one fetch per image URL. A second server, without a key or a projector, is sent
...                 the rest, and says which kinds it could not be sent. Tagged `load` and `noise`: `--include noise`
...                 runs it.
Resource            ../../resources/load.resource
Resource            ../../resources/multimodal.resource
Suite Setup         Start Keyed Server And Calibrate
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           load    noise


*** Variables ***
${PROMPT_TOKENS}    ${48}
${MAX_TOKENS}       ${16}
${NOISE}            rate=2 max=20 slowloris=3
${KEY}              noise-suite-key


*** Test Cases ***
Users Keep Their SLO And Answers While Hostile Clients Get Their Documented Errors
    ${run} =    Run Load Profile    ${PROMPTS}    concurrency    users=${2}    duration=${8}    warmup_requests=${2}
    ...    max_tokens=${MAX_TOKENS}    check_answers=${4}    noise=${NOISE}    api_key=${KEY}
    Every Load Request Should Succeed    ${run}
    Noise Should Have Got Its Documented Answers    ${run}
    Answers Should Not Change Under Load    ${run}
    Load Results Should Meet SLO    ${run}    &{SLO}
    Noise Should Have Skipped    ${run}

Noise Leaves Out What A Server Without Key Or Projector Cannot Be Sent
    ${prompts} =    Fixed Length Prompts    count=${40}    tokens=${PROMPT_TOKENS}    server=plain
    ${run} =    Run Load Profile    ${prompts}    concurrency    users=${2}    duration=${4}    max_tokens=${MAX_TOKENS}
    ...    noise=rate=2 slowloris=2    server=plain
    Every Load Request Should Succeed    ${run}
    Noise Should Have Got Its Documented Answers    ${run}
    Noise Should Have Skipped    ${run}    wrong_key    missing_key    media_url    media_missing


*** Keywords ***
Start Keyed Server And Calibrate
    [Documentation]    Starts `tiny` with the image projector, three slots and an API key, makes the prompts and
    ...    derives the SLO from single-user runs (as the smoke suite does); starts `tiny` on two slots, without a key
    ...    or a projector, as `plain`.
    Start Projector Server For Suite    tiny-vision    tiny-vision    n_slots=${3}    api_key=${KEY}
    ${prompts} =    Fixed Length Prompts    count=${200}    tokens=${PROMPT_TOKENS}    api_key=${KEY}
    VAR    ${PROMPTS}    ${prompts}    scope=SUITE    # robocop: off=no-suite-variable
    ${calibration} =    Calibrate Single User Latency    ${PROMPTS}    ${MAX_TOKENS}    api_key=${KEY}
    ${slo} =    SLO From Calibration    ${calibration}    factor=${4}    floor_ms=${25}
    VAR    &{SLO}    &{slo}    scope=SUITE    # robocop: off=no-suite-variable
    Start Preset Server    tiny-2-slots    alias=plain
