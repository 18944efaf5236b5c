*** Settings ***
Documentation       GET /props: what the server reports about its slots, context, model and endpoint gates must
...                 match the preset it was started from (the model file's own reports are in `models.robot`).
Resource            ../../resources/props.resource
Suite Setup         Start Props Server
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Props Field Should Be
Test Tags           props


*** Test Cases ***                                      FIELD                                EXPECTED
Total Slots Equal The Preset's Slots                    total_slots                          ${PRESET.n_slots}
    [Tags]    needs:managed
Slot Context Splits The Context Across Slots            default_generation_settings.n_ctx    ${PRESET.n_ctx_per_slot}
    [Tags]    needs:managed
Slots Endpoint Is On By Default                         endpoint_slots                       ${True}
    [Tags]    needs:default-routes
Metrics Endpoint Is Off By Default                      endpoint_metrics                     ${False}
    [Tags]    needs:default-routes
Props Endpoint Is Read Only By Default                  endpoint_props                       ${False}
    [Tags]    needs:default-routes


*** Keywords ***
Start Props Server
    [Documentation]    Starts `tiny` with a slot count and context that no default would give, and keeps the
    ...    preset in `${PRESET}` to compare the reports with.
    Start Server For Suite    tiny-3-slots
    ${preset} =    Server Preset
    VAR    ${PRESET}    ${preset}    scope=SUITE    # robocop: off=no-suite-variable

Props Field Should Be
    [Documentation]    GETs /props and compares one field exactly.
    [Arguments]    ${field}    ${expected}
    ${props} =    Get Props
    Json Field Should Be    ${props}    ${field}    ${expected}
