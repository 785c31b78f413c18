# The validity crawl's Python (src/textgame/python/*.py) is tested and linted as Python with Debian's
# /usr/bin/python3 (the interpreter the sandbox runs): validity_script_test.py (unittest), and every
# file compiled and, where pyflakes is installed, checked (tests/sandbox/lint_python.py).
file(GLOB textgame_python_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/textgame/python/*.py)
add_test(NAME TextgamePython.ValidityScript
         COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/textgame/validity_script_test.py -v)
add_test(NAME TextgamePython.Lint
         COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/sandbox/lint_python.py ${textgame_python_files}
                 ${CMAKE_CURRENT_SOURCE_DIR}/textgame/validity_script_test.py)
set_tests_properties(TextgamePython.ValidityScript TextgamePython.Lint PROPERTIES LABELS unit)
