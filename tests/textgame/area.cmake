# The fake OpenAI-compatible server of the generation tests (tests/llm/fake_openai_server.h) uses cpp-httplib.
set(area_deps PkgConfig::HTTPLIB)
