*** Settings ***
Documentation       GET /props and the model list (/v1/models, /models): what the server reports about its
...                 slots, context and model must match the flags it was started with and the GGUF file itself.
Resource            ../../resources/api.resource
Suite Setup         Start Props Server
Suite Teardown      Stop Servers For Suite
Test Tags           props


*** Variables ***
${SLOTS: int}    3
${CTX: int}      1536


*** Test Cases ***
Total Slots Equal The Parallel Flag
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be    ${props}    total_slots    ${SLOTS}

Slot Context Is The Context Split Across Slots
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be    ${props}    default_generation_settings.n_ctx    ${{ ${CTX} // ${SLOTS} }}

Model Path Is The File The Server Was Started On
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be    ${props}    model_path    ${MODEL}[path]

Build Info Names A Build
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be Of Type    ${props}    build_info    str
    Should Start With    ${props.json}[build_info]    b

Chat Template Is The One Stored In The Model
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be    ${props}    chat_template    ${MODEL}[chat_template]

Special Tokens Are The Model's Bos And Eos
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be    ${props}    bos_token    <s>
    Json Field Should Be    ${props}    eos_token    </s>

Endpoint Gates Report Their Defaults
    ${props} =    GET From Server    ${BASE_URL}    /props
    Json Field Should Be    ${props}    endpoint_slots    ${True}
    Json Field Should Be    ${props}    endpoint_metrics    ${False}
    Json Field Should Be    ${props}    endpoint_props    ${False}

V1 Models Lists The Loaded Model
    ${models} =    GET From Server    ${BASE_URL}    /v1/models
    Json Field Should Be    ${models}    object    list
    Json Field Should Be    ${models}    data.0.id    ${MODEL}[path]
    Json Field Should Be    ${models}    data.0.object    model
    Json Field Should Be    ${models}    data.0.owned_by    llamacpp

V1 Models Meta Matches The GGUF File
    ${models} =    GET From Server    ${BASE_URL}    /v1/models
    Json Field Should Be    ${models}    data.0.meta.n_ctx_train    ${MODEL}[n_ctx_train]
    Json Field Should Be    ${models}    data.0.meta.n_vocab    ${MODEL}[n_vocab]
    Json Field Should Be    ${models}    data.0.meta.n_params    ${MODEL}[n_params]
    Json Field Should Be    ${models}    data.0.meta.n_embd    ${MODEL}[n_embd]

Models Route Without V1 Gives The Same List
    ${v1} =    GET From Server    ${BASE_URL}    /v1/models
    ${plain} =    GET From Server    ${BASE_URL}    /models
    Json Field Should Be    ${plain}    data.0.meta    ${v1.json}[data][0][meta]
    Json Field Should Be    ${plain}    models.0.name    ${MODEL}[path]


*** Keywords ***
Start Props Server
    [Documentation]    Starts `tiny` with a slot count and context that no default would give, and keeps the
    ...    GGUF file's own metadata in `${MODEL}` to compare the server's reports with.
    Start Server For Suite    tiny    --ctx-size    ${CTX}    --parallel    ${SLOTS}
    ${meta} =    Model Metadata    tiny
    VAR    ${MODEL}    ${meta}    scope=SUITE    # robocop: off=no-suite-variable
