*** Settings ***
Documentation       Every series llama-server documents for `/metrics` is in a scrape, under the `llamacpp:`
...                 prefix, with its `# HELP` text and the documented `# TYPE`. `n_tokens_max` is typed as a
...                 counter although it is a high-water mark; the table pins what the server declares.
Resource            ../../resources/metrics.resource
Suite Setup         Start Server For Suite    tiny-metrics
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Scraped Metric Should Be Declared
Test Tags           metrics


*** Test Cases ***                                      NAME                                                  TYPE
Prompt Tokens Total Is A Counter                        llamacpp:prompt_tokens_total                          counter
Prompt Tokens Cached Total Is A Counter                 llamacpp:prompt_tokens_cached_total                   counter
    [Tags]    build-specific    builds:10825-
Prompt Seconds Total Is A Counter                       llamacpp:prompt_seconds_total                         counter
Tokens Predicted Total Is A Counter                     llamacpp:tokens_predicted_total                       counter
Tokens Predicted Seconds Total Is A Counter             llamacpp:tokens_predicted_seconds_total               counter
Decode Calls Total Is A Counter                         llamacpp:n_decode_total                               counter
Largest Sequence Is Declared As A Counter               llamacpp:n_tokens_max                                 counter
Speculative Draft Tokens Total Is A Counter             llamacpp:spec_decode_num_draft_tokens_total           counter
    [Tags]    build-specific    builds:10825-
Speculative Accepted Tokens Total Is A Counter          llamacpp:spec_decode_num_accepted_tokens_total        counter
    [Tags]    build-specific    builds:10825-
Speculative Drafts Total Is A Counter                   llamacpp:spec_decode_num_drafts_total                 counter
    [Tags]    build-specific    builds:10825-
Prompt Throughput Is A Gauge                            llamacpp:prompt_tokens_seconds                        gauge
Generation Throughput Is A Gauge                        llamacpp:predicted_tokens_seconds                     gauge
Requests Processing Is A Gauge                          llamacpp:requests_processing                          gauge
Requests Deferred Is A Gauge                            llamacpp:requests_deferred                            gauge
Busy Slots Per Decode Is A Gauge                        llamacpp:n_busy_slots_per_decode                      gauge
