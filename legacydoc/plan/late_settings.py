"""Settings a project's code makes where Theano or Keras never reads them.

Theano reads THEANO_FLAGS once, when ``theano`` is first imported (rel-1.0.5
theano/configparser.py parses the variable at import), and Keras picks its back-end from
KERAS_BACKEND once, in ``keras.backend``'s own import. Setting either through os.environ
after that import, in the same file, changes nothing and raises nothing. A plain variable
named THEANO_FLAGS, never put into os.environ, is not read at all.

Only what one file shows is judged: an import of the project's own module that imports
theano is not followed, so none found is not none there. A file that starts processes
(subprocess, multiprocessing, os.system, os.exec*) is left alone: its children do read
the variable it sets.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional, Union

# Modules whose import imports theano (Keras: when its back-end is Theano) or reads
# KERAS_BACKEND.
IMPORTS_THEANO = ("theano", "keras", "lasagne", "pymc3", "blocks", "pylearn2", "nolearn")
READS = {"THEANO_FLAGS": IMPORTS_THEANO, "KERAS_BACKEND": ("keras",)}
# Names whose use means the file starts other processes, which read the environment anew.
STARTS_PROCESSES = frozenset({"subprocess", "multiprocessing", "Popen", "system", "execv", "execve", "execvp",
                              "execl", "spawnv", "spawnl", "Process", "Pool", "check_call", "check_output", "call",
                              "run"})
_Scope = Union[ast.Module, ast.FunctionDef, ast.AsyncFunctionDef]


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of one scope in source order, into if/try/with/for blocks but not into
    nested functions or classes (their bodies run later, if at all)."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for handler in getattr(node, "handlers", []) or []:
            yield from _statements(handler.body)


def _imported(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module]
    return []


def _is_environ(node: ast.AST) -> bool:
    """os.environ, or environ imported from os."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os") or (isinstance(node, ast.Name) and node.id == "environ")


def _text(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _set_variable(node: ast.stmt) -> Optional[str]:
    """The variable this statement puts into the process environment, if it is one of READS:
    os.environ['X'] = ..., os.environ.setdefault/update(...), os.putenv('X', ...)."""
    names: list[Optional[str]] = []
    if isinstance(node, ast.Assign):
        names = [_text(t.slice) for t in node.targets if isinstance(t, ast.Subscript) and _is_environ(t.value)]
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        func = call.func
        if isinstance(func, ast.Attribute) and _is_environ(func.value) and func.attr == "setdefault" and call.args:
            names = [_text(call.args[0])]
        elif isinstance(func, ast.Attribute) and _is_environ(func.value) and func.attr == "update":
            names = [_text(k) for arg in call.args if isinstance(arg, ast.Dict) for k in arg.keys if k is not None]
            names += [kw.arg for kw in call.keywords]
        elif isinstance(func, ast.Attribute) and func.attr == "putenv" and call.args:
            names = [_text(call.args[0])]
    return next((name for name in names if name in READS), None)


def _starts_processes(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
        if name in STARTS_PROCESSES and not (name in ("call", "run") and isinstance(node, ast.Name)):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                m.split(".")[0] in ("subprocess", "multiprocessing") for m in _imported(node)):
            return True
    return False


def _first_import(statements: list[ast.stmt], before: int, modules: tuple[str, ...]) -> Optional[tuple[int, str]]:
    for node in statements:
        if node.lineno >= before:
            break
        for name in _imported(node):
            if name.split(".")[0] in modules:
                return node.lineno, name
    return None


def _scopes(tree: ast.Module) -> Iterator[tuple[_Scope, list[ast.stmt]]]:
    yield tree, list(_statements(tree.body))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, list(_statements(node.body))


def late_settings(tree: ast.Module, rel: str) -> list[str]:
    """Each setting of THEANO_FLAGS or KERAS_BACKEND that comes after the import that reads
    it (in the same function, or in the module above the function), and each module-level
    THEANO_FLAGS variable the file never uses again: 'os.environ['THEANO_FLAGS'] (a.py:5)
    after import keras (a.py:2)'."""
    if _starts_processes(tree):
        return []
    module_statements = list(_statements(tree.body))
    found: list[tuple[int, str]] = []
    for scope, statements in _scopes(tree):
        for node in statements:
            variable = _set_variable(node)
            if variable is None:
                continue
            imported = _first_import(statements, node.lineno, READS[variable])
            if imported is None and not isinstance(scope, ast.Module):
                imported = _first_import(module_statements, scope.lineno, READS[variable])
            if imported is not None:
                found.append((node.lineno, "os.environ['%s'] (%s:%d) after import %s (%s:%d)"
                              % (variable, rel, node.lineno, imported[1], rel, imported[0])))
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for node in tree.body:
        if isinstance(node, ast.Assign) and "THEANO_FLAGS" not in used and any(
                isinstance(t, ast.Name) and t.id == "THEANO_FLAGS" for t in node.targets):
            found.append((node.lineno, "THEANO_FLAGS = ... (%s:%d), a Python variable Theano never reads"
                          % (rel, node.lineno)))
    return [text for _, text in sorted(found)]
