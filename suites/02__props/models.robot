*** Settings ***
Documentation       The model list (`/v1/models`, `/models`), `/props` and the build: what the server reports about
...                 the loaded model must match the GGUF file itself (read here: an external server's file too, when
...                 it runs on this machine).
Resource            ../../resources/props.resource
Suite Setup         Start Models Server
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           props    needs:model-file


*** Test Cases ***
Build Info Names A Build
    ${props} =    Get Props
    Json Field Should Be Of Type    ${props}    build_info    str
    Should Start With    ${props.json()}[build_info]    b

V1 Models Lists The Loaded Model
    ${models} =    Get Models    /v1/models
    Json Field Should Be    ${models}    object    list
    Json Field Should Be    ${models}    data.0.id    ${MODEL}[path]
    Json Field Should Be    ${models}    data.0.object    model
    Json Field Should Be    ${models}    data.0.owned_by    llamacpp

V1 Models Meta Matches The GGUF File
    ${models} =    Get Models    /v1/models
    Json Field Should Be    ${models}    data.0.meta.n_ctx_train    ${MODEL}[n_ctx_train]
    Json Field Should Be    ${models}    data.0.meta.n_vocab    ${MODEL}[n_vocab]
    Json Field Should Be    ${models}    data.0.meta.n_params    ${MODEL}[n_params]
    Json Field Should Be    ${models}    data.0.meta.n_embd    ${MODEL}[n_embd]

Props Model Path Is The File The Server Was Started On
    ${props} =    Get Props
    Json Field Should Be    ${props}    model_path    ${MODEL}[path]

Props Chat Template Is The One Stored In The Model
    [Tags]    needs:stored-template
    ${props} =    Get Props
    Json Field Should Be    ${props}    chat_template    ${MODEL}[chat_template]

Props Bos Token Is The Model's Bos
    ${props} =    Get Props
    ${tokens} =    Tokenize    ${props.json()}[bos_token]    parse_special=${True}
    VAR    @{bos}    ${MODEL}[bos_token_id]
    Should Be Equal    ${tokens}    ${bos}

Props Eos Token Is The Model's Eos
    ${eos} =    End Of Sequence Token
    Should Be Equal    ${eos}    ${MODEL}[eos_token_id]

Models Route Without V1 Gives The Same List
    ${v1} =    Get Models    /v1/models
    ${plain} =    Get Models    /models
    Json Field Should Be    ${plain}    data.0.meta    ${v1.json()}[data][0][meta]
    Json Field Should Be    ${plain}    models.0.name    ${MODEL}[path]


*** Keywords ***
Start Models Server
    [Documentation]    Starts the suite's server and keeps the GGUF file's own metadata in `${MODEL}`.
    Start Server For Suite    tiny-1-slot
    ${meta} =    Suite Model Metadata
    VAR    ${MODEL}    ${meta}    scope=SUITE    # robocop: off=no-suite-variable
