*** Settings ***
Documentation       `/metrics` of an embedding server: an embedding samples no token, but its prompt is processed
...                 like any other, so the prompt counters grow by the tokens `usage` reports and the token
...                 counter does not move.
Resource            ../../resources/embeddings.resource
Resource            ../../resources/metrics.resource
Suite Setup         Start Server For Suite    minilm-embeddings    --metrics
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Tags           embeddings    metrics    needs:managed


*** Variables ***
@{TWO_TEXTS}        hello world    goodbye world


*** Test Cases ***
Embedding Prompts Count As Processed Prompt Tokens
    ${before} =    Scrape Metrics
    ${resp} =    Embeddings    ${TWO_TEXTS}
    ${after} =    Scrape Metrics
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:prompt_tokens_total
    ...    ${resp.json()}[usage][prompt_tokens]

Embeddings Predict No Token
    ${before} =    Scrape Metrics
    Embeddings    ${TWO_TEXTS}
    ${after} =    Scrape Metrics
    Counter Should Have Grown By    ${before}    ${after}    llamacpp:tokens_predicted_total    ${0}

Embedding Prompts Cost Decode Calls
    ${before} =    Scrape Metrics
    Embeddings    hello world
    ${after} =    Scrape Metrics
    ${old} =    Metric Value    ${before}    llamacpp:n_decode_total
    ${new} =    Metric Value    ${after}    llamacpp:n_decode_total
    Should Be True    ${new} - ${old} >= 1    the embedding took ${new} - ${old} decode calls
