# pcglab's loader of a text game's module, the one the game host (host.py) and the validity crawl
# (validity.py) share. pcglab's own code, embedded at build time: pcglab puts this file before each of
# them in the worker's script (textgame/host.cc, textgame/validity.cc); run as files of their own (the
# Python tests) they import it from beside them.
#
#   add_module(name, filename, source, run, added)   runs `source` as the module `name`
#   game_class_of(module, name)                      the game's class in that module, or None
import linecache
import sys
import types


def add_module(name, filename, source, run=None, added=None):
    """Runs `source` as the module `name` (dotted: its missing parent packages are made first, empty),
    registered in sys.modules (so its classes pickle) with `filename`'s lines in linecache (so its
    tracebacks show them). The source is compiled here (a SyntaxError names the file), then run by
    `run(exec, code, namespace)` (default: exec). Each name registered is appended to `added`."""
    parent, _, leaf = name.rpartition('.')
    if parent and parent not in sys.modules:
        package = add_module(parent, '<package %s>' % parent, '', added=added)
        package.__path__ = []  # lets `import parent.leaf` find the submodules added later
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, 'exec')
    m = types.ModuleType(name)
    m.__file__ = filename
    sys.modules[name] = m
    if added is not None:
        added.append(name)
    if parent:
        setattr(sys.modules[parent], leaf, m)
    if run is None:
        exec(code, m.__dict__)
    else:
        run(exec, code, m.__dict__)
    return m


def game_class_of(module, name):
    """The class TextGame when the module `name` defines one; else, as the refactored corpus's
    evaluators find it (inspect.getmembers, which sorts by name), the first class defined in the
    module whose name ends in "Game", by name; else None."""
    own = module.__dict__.get('TextGame')
    if isinstance(own, type) and own.__module__ == name:
        return own
    for key in sorted(module.__dict__):
        obj = module.__dict__[key]
        if isinstance(obj, type) and obj.__module__ == name and key.endswith('Game'):
            return obj
    return None
