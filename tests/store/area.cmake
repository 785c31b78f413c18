# outcome_requests_test.cc writes the batch driver's ItemOutcome (batch/item_outcome.h) into the store.
# The fake OpenAI-compatible server of these tests (tests/llm/fake_openai_server.h) uses cpp-httplib.
set(area_deps PkgConfig::HTTPLIB pcglab_batch)
