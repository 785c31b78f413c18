# The sandbox worker's Python (src/sandbox/python/*.py) is tested and linted as Python, with
# Debian's /usr/bin/python3 (the interpreter the workers run, with its numpy): its protocol encoder
# and decoder, request handlers and loop (worker_script_test.py, unittest), and every file
# compiled and, where Debian's pyflakes is installed, checked by it (lint_python.py).
file(GLOB sandbox_python_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/sandbox/python/*.py)
add_test(NAME SandboxPython.WorkerScript
         COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/sandbox/worker_script_test.py -v)
add_test(NAME SandboxPython.Lint
         COMMAND /usr/bin/python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/sandbox/lint_python.py ${sandbox_python_files}
                 ${CMAKE_CURRENT_SOURCE_DIR}/sandbox/worker_script_test.py ${CMAKE_CURRENT_SOURCE_DIR}/sandbox/lint_python.py)
set_tests_properties(SandboxPython.WorkerScript SandboxPython.Lint PROPERTIES LABELS unit)
