# The fake OpenAI-compatible server of the evaluation's tests (tests/llm/fake_openai_server.h) uses cpp-httplib.
set(area_deps PkgConfig::HTTPLIB)
# The poker track's Python (src/poker/python/GameBase.py) is tested as Python with Debian's
# /usr/bin/python3 (the sandbox's interpreter), with the native extension _pcglab_poker from this
# build: the golden states on both showdown paths, a differential of the native showdown against the
# Python one on random hands, the module surface and the official engine's edge cases.
add_test(NAME PokerPython.GameBase COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/poker/gamebase_test.py -v)
set_tests_properties(PokerPython.GameBase PROPERTIES LABELS unit
                     ENVIRONMENT PCGLAB_POKER_PYTHON_DIR=${PROJECT_BINARY_DIR}/poker_python)
add_test(NAME PokerPython.Lint
         COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/sandbox/lint_python.py
                 ${PROJECT_SOURCE_DIR}/src/poker/python/GameBase.py ${PROJECT_SOURCE_DIR}/src/poker/python/runner.py
                 ${CMAKE_CURRENT_SOURCE_DIR}/poker/gamebase_test.py)
set_tests_properties(PokerPython.Lint PROPERTIES LABELS unit)
# The fake OpenAI-compatible server of the synthesis tests (tests/llm/fake_openai_server.h) uses cpp-httplib.
set(area_deps PkgConfig::HTTPLIB)
