*** Settings ***
Documentation       `embd_normalize` on the native route scales the pooled vector as documented: 0 to a largest
...                 absolute element of 32760 (the int16 range), 1 to unit taxicab length, 2 (the default) to unit
...                 Euclidean length, and any p above 2 to unit p-norm.
Resource            ../../resources/embeddings.resource
Suite Setup         Start Server For Suite    minilm-embeddings
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Normalised Vector Should Have Norm
Test Tags           embeddings


*** Test Cases ***                                      EMBD_NORMALIZE    NORM    EXPECTED
Max Absolute Scales The Largest Element To 32760        0                 max     32760
Taxicab Gives Unit Sum Of Absolute Values               1                 1       1
Euclidean Gives Unit Length                             2                 2       1
Three Gives Unit Three Norm                             3                 3       1
Five Gives Unit Five Norm                               5                 5       1


*** Keywords ***
Normalised Vector Should Have Norm
    [Documentation]    Embeds a sentence with `embd_normalize` and checks the vector's `norm` (see `Vector Norm`).
    [Arguments]    ${embd_normalize: int}    ${norm}    ${expected}
    ${vectors} =    Native Vectors Of    The quick brown fox jumps over the lazy dog.
    ...    route=/embeddings    embd_normalize=${embd_normalize}
    Vector Norm Should Be    ${vectors}[0]    ${norm}    ${expected}
