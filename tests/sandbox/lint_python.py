"""Lints Python files of pcglab: each must compile (as `py_compile` checks, without writing a .pyc),
and, when Debian's pyflakes (python3-pyflakes) is installed, pass pyflakes (undefined and unused
names, shadowed imports). Usage: /usr/bin/python3 -B tests/sandbox/lint_python.py FILE...
Exit 0 when every file is clean, 1 otherwise (each problem printed as FILE:LINE: message).
"""
import sys


def main(files):
    problems = 0
    for name in files:
        with open(name, 'rb') as f:
            source = f.read()
        try:
            compile(source, name, 'exec', dont_inherit=True)
        except SyntaxError as e:
            print('%s:%s: %s' % (name, e.lineno, e.msg))
            problems += 1
    try:
        from pyflakes.api import checkPath
        from pyflakes.reporter import Reporter
    except ImportError:
        print('lint_python: pyflakes is not installed (Debian: python3-pyflakes); compiled only')
        return 1 if problems else 0
    reporter = Reporter(sys.stdout, sys.stdout)
    for name in files:
        problems += checkPath(name, reporter)
    print('lint_python: %d file(s), %d problem(s)' % (len(files), problems))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
