# The fake OpenAI-compatible server of the generation and judge tests (tests/llm/fake_openai_server.h) uses cpp-httplib.
set(area_deps PkgConfig::HTTPLIB)
# The track's Python (src/textgame/python/*.py) is tested and linted as Python, with Debian's
# /usr/bin/python3 (the interpreter the sandbox workers run): host_test.py drives the game host and
# validity_script_test.py the validity crawl on pcglab's own test games (tests/textgame/games/)
# without a sandbox; lint_python.py (the sandbox area's) compiles every file and, where pyflakes is
# installed, checks it, with the tests and the games that are meant to be clean Python.
file(GLOB textgame_python_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/textgame/python/*.py)
list(APPEND textgame_python_files
     ${CMAKE_CURRENT_SOURCE_DIR}/textgame/host_test.py ${CMAKE_CURRENT_SOURCE_DIR}/textgame/validity_script_test.py
     ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_win.py ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_crash_step.py
     ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_loop.py ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_reads_file.py
     ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_socket.py ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_bad_types.py
     ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_many_actions.py ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/host_prints.py
     ${CMAKE_CURRENT_SOURCE_DIR}/textgame/games/corpus/data/library/GameBasic.py)
add_test(NAME TextgamePython.Host COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/textgame/host_test.py -v)
add_test(NAME TextgamePython.ValidityScript
         COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/textgame/validity_script_test.py -v)
add_test(NAME TextgamePython.Lint
         COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/sandbox/lint_python.py ${textgame_python_files})
set_tests_properties(TextgamePython.Host TextgamePython.ValidityScript TextgamePython.Lint PROPERTIES LABELS unit)
