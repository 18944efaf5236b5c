# robocop: off=line-too-long
*** Settings ***
Documentation       all-MiniLM-L6-v2 embeds meaning: a sentence's paraphrase has a higher cosine similarity to
...                 it than an unrelated sentence has, on both the OpenAI and the native route.
Resource            ../../resources/embeddings.resource
Suite Setup         Start Server For Suite    minilm-embeddings
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Related Sentence Should Be Closer Than Unrelated One
Test Tags           embeddings


*** Test Cases ***                  SENTENCE                                RELATED                                         UNRELATED
Music                               A man is playing a guitar.              Someone is playing an instrument.               The stock market fell sharply today.
Pets                                The cat sleeps on the sofa.             A kitten is napping on the couch.               Quantum computers use qubits.
Cooking                             How do I bake bread at home?            What is a simple recipe for a loaf of bread?    The train to Berlin leaves at noon.
Weather                             The weather is sunny and warm today.    It is a bright, hot day.                        He repaired the flat tyre of his bicycle.


*** Keywords ***
Related Sentence Should Be Closer Than Unrelated One
    [Documentation]    Embeds the three sentences in one batch and compares the cosine similarities of
    ...    `sentence` to `related` and to `unrelated`.
    [Arguments]    ${sentence}    ${related}    ${unrelated}
    VAR    @{sentences}    ${sentence}    ${related}    ${unrelated}
    ${resp} =    Embeddings    ${sentences}
    ${vectors} =    Embedding Vectors    ${resp}
    ${close} =    Cosine Similarity    ${vectors}[0]    ${vectors}[1]
    ${far} =    Cosine Similarity    ${vectors}[0]    ${vectors}[2]
    Should Be True    ${close} > ${far}    msg=related: ${close}, unrelated: ${far}
