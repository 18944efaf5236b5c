*** Settings ***
Documentation       `file://` image URLs under `--media-path`. The server's `--help` promises: "directory for
...                 loading local media files; files can be accessed via file:// URLs using relative paths". The
...                 suite's folder holds `inside.png`, an empty `sub/` and `link.png`, a symlink to `canary.png`,
...                 an image of other pixels next to the folder (`Make Media Folder`). Every refusal below is a
...                 400 whose message names the path, and the server log line `loading image from local file`
...                 shows the path it opened stays in the folder: the canary, which would cost the projector's
...                 tokens and change the answer's log-probabilities, is never read, except through the
...                 symlink (build-specific). Without `--media-path`, `file://` is refused: see
...                 media_fetcher.robot.
Resource            ../../resources/multimodal.resource
Suite Setup         Start Media Path Suite
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           multimodal    security    needs:image-input    needs:tiny    needs:managed


*** Variables ***
${NOT_ALLOWED}      file path is not allowed:
${CANNOT_OPEN}      file does not exist or cannot be opened:
${OPENED}           loading image from local file


*** Test Cases ***
A File In The Media Folder Costs The Projector's Tokens
    ${messages} =    Question About File    file://inside.png
    Chat Usage Should Count The Media    ${messages}

A File In The Media Folder Is Read As Its Image
    ${from_file} =    Answer About Image    file://inside.png
    ${from_data} =    Answer About Image    ${MEDIA}[inside_uri]
    Should Be Equal    ${from_file}    ${from_data}

An Absolute Path Is Taken Inside The Media Folder
    [Documentation]    The leading `/` of `file:///inside.png` does not leave the folder: the server appends the
    ...    path to the folder (llama.cpp's own test_security.py reads `file:////mtmd//test-1.jpeg` this way).
    ${from_file} =    Answer About Image    file:///inside.png
    ${from_data} =    Answer About Image    ${MEDIA}[inside_uri]
    Should Be Equal    ${from_file}    ${from_data}

Parent Directory Traversal Is Refused Before Any File Is Opened
    [Template]    File Url Should Be Refused
    ../canary.png                 ${NOT_ALLOWED} ../canary.png
    sub/../../canary.png          ${NOT_ALLOWED} sub/../../canary.png
    sub/../inside.png             ${NOT_ALLOWED} sub/../inside.png

An Absolute Path Outside The Folder Is Looked For Inside It
    File Url Should Be Refused    ${MEDIA}[canary]    ${CANNOT_OPEN} ${MEDIA}[canary]
    Server Log Should Contain    ${OPENED} '${MEDIA}[folder]/${MEDIA}[canary]'

URL Encoded Traversal Is Taken As A Literal Name Inside The Folder
    File Url Should Be Refused    %2e%2e/canary.png    ${CANNOT_OPEN} %2e%2e/canary.png
    Server Log Should Contain    ${OPENED} '${MEDIA}[folder]/%2e%2e/canary.png'
    File Url Should Be Refused    sub/%2E%2E/%2E%2E/canary.png    ${CANNOT_OPEN} sub/%2E%2E/%2E%2E/canary.png

A Symlink Out Of The Folder Is Followed
    [Documentation]    `link.png` in the folder points at the canary outside it, and the server reads the canary
    ...    through it: whoever can place a symlink in the media folder exposes its target to every client.
    ...    The `--help` line promises relative paths in the folder, and says nothing of links; the server
    ...    follows them (`std::ifstream` on the joined path, no `realpath` check), hence `build-specific`.
    ...    The open PR llama.cpp#26755 proposes resolving the full path and checking it stays in the folder.
    [Tags]    build-specific
    ${through_link} =    Answer About Image    file://link.png
    ${canary} =    Answer About Image    ${MEDIA}[canary_uri]
    ${inside} =    Answer About Image    ${MEDIA}[inside_uri]
    Should Not Be Equal    ${canary}    ${inside}    the two images must give two answers for this test to show anything
    Should Be Equal    ${through_link}    ${canary}

A Folder Named As An Image Is A Server Error And The Server Survives
    [Documentation]    `file://sub` opens the folder `sub/` and the read fails: this build answers 500 with the
    ...    C++ library's message (a client's mistake reported as the server's, but no written contract
    ...    gives the status), hence `build-specific`.
    [Tags]    build-specific
    ${messages} =    Question About File    file://sub
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${2}    expected_status=any
    Error Response Should Be    ${resp}    500    server_error
    ...    message=basic_filebuf::underflow error reading the file: Is a directory
    Chat    hello    max_tokens=${2}


*** Keywords ***
Start Media Path Suite
    [Documentation]    Makes the media folder and its canary (`${MEDIA}`: `folder`, `canary`, `inside_uri`,
    ...    `canary_uri`) and starts the suite's server with the folder as `--media-path`.
    ${folder} =    Make Media Folder    ${OUTPUT DIR}${/}media-path
    VAR    ${MEDIA}    ${folder}    scope=SUITE    # robocop: off=no-suite-variable
    Start Projector Server For Suite    tiny-vision    tiny-vision    --media-path    ${folder}[folder]

Question About File
    [Documentation]    Returns a one-message chat history: a question, then the image at `url`.
    [Arguments]    ${url}
    ${text} =    Text Part    what is this
    ${image} =    Image Part    ${url}
    ${messages} =    User Message Of Parts    ${text}    ${image}
    RETURN    ${messages}

Answer About Image
    [Documentation]    Returns what the model makes of the image at `url`: the top five tokens and their
    ...    log-probabilities at the first position of the answer (temperature 0, no prompt cache). `tiny`'s text
    ...    is the same gibberish whatever the image, but these numbers come from the image's embeddings:
    ...    the same image gives the same ones, the two images of the folder different ones.
    [Arguments]    ${url}
    ${messages} =    Question About File    ${url}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${1}    logprobs=${True}    top_logprobs=${5}
    ...    cache_prompt=${False}
    RETURN    ${resp.json()}[choices][0][logprobs][content][0][top_logprobs]

File Url Should Be Refused
    [Documentation]    A chat naming `file://` + `path` must fail with 400 `invalid_request_error` and `message`
    ...    (no answer: the image was not read), and the server must then answer a text chat.
    [Arguments]    ${path}    ${message}
    ${messages} =    Question About File    file://${path}
    ${resp} =    Chat With Messages    ${messages}    max_tokens=${2}    expected_status=any
    Error Response Should Be    ${resp}    400    invalid_request_error    message=${message}
    Chat    hello    max_tokens=${2}
