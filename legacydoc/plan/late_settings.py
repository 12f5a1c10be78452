"""Settings a project's code makes where Theano or Keras never reads them.

Theano reads THEANO_FLAGS once, when ``theano`` is first imported (rel-1.0.5
theano/configparser.py parses the variable at import), and Keras picks its back-end from
KERAS_BACKEND once, in ``keras.backend``'s own import. Setting either through os.environ
after that import, in the same file, changes nothing and raises nothing. os.putenv never
changes os.environ, which is what both read. A plain variable named THEANO_FLAGS, never
put into os.environ, is not read at all.

Only what one file shows is judged, and only where the order is certain: an import counts
for a setting when it sits in the same block or a block around it (not in the other branch
of an if, nor in the try whose except handler holds the setting). An import of the
project's own module that imports theano is not followed, so none found is not none there.
A file that starts processes (subprocess, multiprocessing, os.system ...) is left alone: its
children read the variable anew, and so is KERAS_BACKEND in a file that reloads modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from legacydoc.structs import struct

# Modules whose import imports theano. Keras does so only when its back-end is Theano, which
# the file does not show: those findings are marked, and the caller keeps them only where
# the record says Keras runs on Theano.
IMPORTS_THEANO = ("theano", "lasagne", "pymc3", "blocks", "pylearn2", "nolearn.lasagne")
KERAS = ("keras",)
# Modules whose use means the file starts other processes, which read the environment anew.
PROCESS_MODULES = frozenset({"subprocess", "multiprocessing", "concurrent", "joblib", "pathos", "billiard",
                             "mpi4py"})
OS_STARTS = frozenset({"system", "popen", "startfile", "fork", "forkpty", "posix_spawn", "posix_spawnp"})
MAX_IMPORTS = 50  # relevant imports kept per scope: the comparison stays bounded on odd files
_Path = tuple[tuple[int, str], ...]


@struct
class LateSetting:
    line: int
    text: str
    # THEANO_FLAGS after import keras only: true only if Keras runs on Theano
    needs_keras_on_theano: bool = False


def _blocks(node: ast.stmt) -> Iterator[tuple[str, list[ast.stmt]]]:
    """The blocks of a compound statement, each with the name of its branch; "" for a block
    that continues the one around it (a with's body always runs). A try's body and else are
    "try": what follows the try, or its finally, comes after them (an import there ran, or
    failed, and then theano cannot be imported later either), but its handlers do not. The
    branches of an if and a loop's body may not run at all."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(node, field, None)
        if isinstance(inner, list) and inner:
            if isinstance(node, (ast.With, ast.AsyncWith)):
                yield "", inner
            else:
                yield ("try" if isinstance(node, ast.Try) and field != "finalbody" else field), inner
    for index, handler in enumerate(getattr(node, "handlers", []) or []):
        yield "handler%d" % index, handler.body
    for index, case in enumerate(getattr(node, "cases", []) or []):
        yield "case%d" % index, case.body


def _statements(body: list[ast.stmt]) -> Iterator[tuple[ast.stmt, _Path]]:
    """Each statement of one scope in source order with its branch path, into compound
    statements but not into functions or classes (their bodies run later, if at all).
    Iterative: a chain of a thousand elifs must not exhaust the stack."""
    stack: list[tuple[list[ast.stmt], int, _Path]] = [(body, 0, ())]
    while stack:
        statements, index, path = stack.pop()
        if index >= len(statements):
            continue
        node = statements[index]
        stack.append((statements, index + 1, path))
        yield node, path
        for branch, inner in reversed(list(_blocks(node))):
            stack.append((inner, 0, path + ((id(node), branch),) if branch else path))


def _imported(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module]
    return []


def module_under(module: str, prefixes: tuple[str, ...]) -> bool:
    """The dotted module is one of these or inside one of them (project.py's scan uses it too)."""
    return any(module == p or module.startswith(p + ".") for p in prefixes)


class _Names:
    """How this file reaches os and os.environ: ``import os as o``, ``from os import environ``."""

    def __init__(self, tree: ast.AST) -> None:
        self.os: set[str] = set()
        self.environ: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                self.os.update(a.asname or a.name for a in node.names if a.name == "os")
            elif isinstance(node, ast.ImportFrom) and node.module == "os":
                self.environ.update(a.asname or a.name for a in node.names if a.name == "environ")

    def is_os(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in self.os

    def is_environ(self, node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "environ" and self.is_os(node.value)) or \
            (isinstance(node, ast.Name) and node.id in self.environ)


def _text(node: Optional[ast.AST]) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _set_variable(node: ast.stmt, names: _Names) -> tuple[Optional[str], bool]:
    """(the variable this statement puts into os.environ, whether through os.putenv)."""
    found: list[Optional[str]] = []
    putenv = False
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        found = [_text(t.slice) for t in targets if isinstance(t, ast.Subscript) and names.is_environ(t.value)]
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call, func = node.value, node.value.func
        if isinstance(func, ast.Attribute) and names.is_environ(func.value):
            if func.attr == "setdefault" and call.args:
                found = [_text(call.args[0])]
            elif func.attr == "update":
                found = [_text(k) for arg in call.args if isinstance(arg, ast.Dict) for k in arg.keys]
                found += [kw.arg for kw in call.keywords]
        elif isinstance(func, ast.Attribute) and func.attr == "putenv" and names.is_os(func.value) and call.args:
            found, putenv = [_text(call.args[0])], True
    variable = next((name for name in found if name in ("THEANO_FLAGS", "KERAS_BACKEND")), None)
    return variable, putenv


def _starts_processes(tree: ast.AST, names: _Names) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                m.split(".")[0] in PROCESS_MODULES for m in _imported(node)):
            return True
        if isinstance(node, ast.Attribute) and names.is_os(node.value) and (
                node.attr in OS_STARTS or node.attr.startswith(("exec", "spawn"))):
            return True
    return False


def _reloads(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and ((isinstance(n.func, ast.Name) and n.func.id == "reload")
                                            or (isinstance(n.func, ast.Attribute) and n.func.attr == "reload"))
               for n in ast.walk(tree))


def _encloses(outer: _Path, inner: _Path) -> bool:
    """Did a statement at ``outer`` surely run before one at ``inner`` (given it comes first)?
    Its block is ``inner``'s or one around it; a try's body counts everywhere after it except
    in that try's own handlers."""
    handled = {node for node, branch in inner if branch.startswith("handler")}
    outer = tuple(step for step in outer if step[1] != "try" or step[0] in handled)
    inner = tuple(step for step in inner if step[1] != "try")
    return inner[:len(outer)] == outer


class _Scope:
    """The imports of one scope that can make theano or Keras read the environment."""

    def __init__(self, statements: list[tuple[ast.stmt, _Path]]) -> None:
        self.imports: list[tuple[int, _Path, str]] = []
        for node, path in statements:
            for module in _imported(node):
                if len(self.imports) < MAX_IMPORTS and module_under(module, IMPORTS_THEANO + KERAS):
                    self.imports.append((node.lineno, path, module))

    def first(self, line: int, path: _Path, modules: tuple[str, ...]) -> Optional[tuple[int, str]]:
        """The first import of one of these modules that surely ran before ``line``."""
        for import_line, import_path, module in self.imports:
            if import_line >= line:
                break
            if module_under(module, modules) and _encloses(import_path, path):
                return import_line, module
        return None


def _theano_flags_variable(tree: ast.Module, rel: str, module: _Scope) -> Iterator[LateSetting]:
    """``THEANO_FLAGS = 'device=gpu'`` at module level, above an import of theano, in a file
    that never uses the name again (nor rebinds it as a global elsewhere)."""
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    declared = {name for n in ast.walk(tree) if isinstance(n, ast.Global) for name in n.names}
    if "THEANO_FLAGS" in used | declared:
        return
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.JoinedStr))
                and any(isinstance(t, ast.Name) and t.id == "THEANO_FLAGS" for t in node.targets)):
            continue
        later = [(line, m) for line, path, m in module.imports if line > node.lineno and not path]
        theano = next((m for _, m in later if module_under(m, IMPORTS_THEANO)), None)
        keras = next((m for _, m in later if module_under(m, KERAS)), None)
        if theano or keras:
            yield LateSetting(node.lineno, "THEANO_FLAGS = ... (%s:%d) only a Python variable that Theano never reads"
                              % (rel, node.lineno), needs_keras_on_theano=theano is None)


def late_settings(tree: ast.Module, rel: str) -> list[LateSetting]:
    """Each setting of THEANO_FLAGS or KERAS_BACKEND that comes after the import that reads
    it (in the same function, or in the module above the function), each os.putenv of them,
    and each module-level THEANO_FLAGS variable the file never uses:
    "os.environ['THEANO_FLAGS'] (a.py:5) after import lasagne (a.py:2)"."""
    names = _Names(tree)
    if _starts_processes(tree, names):
        return []
    reloads = _reloads(tree)
    module_statements = list(_statements(tree.body))
    module = _Scope(module_statements)
    defined_at = {id(node): path for node, path in module_statements}
    found: list[LateSetting] = list(_theano_flags_variable(tree, rel, module))
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope_node, statements in [(None, module_statements)] + [(f, list(_statements(f.body))) for f in functions]:
        scope = module if scope_node is None else _Scope(statements)
        for node, path in statements:
            variable, putenv = _set_variable(node, names)
            if variable is None or (variable == "KERAS_BACKEND" and reloads):
                continue
            where = "%s:%d" % (rel, node.lineno)
            if putenv:
                found.append(LateSetting(node.lineno, "os.putenv('%s') (%s) bypasses the os.environ that %s reads"
                                         % (variable, where, "Theano" if variable == "THEANO_FLAGS" else "Keras")))
                continue
            for modules, keras_only in (((IMPORTS_THEANO, False), (KERAS, True)) if variable == "THEANO_FLAGS"
                                        else ((KERAS, False),)):
                imported = scope.first(node.lineno, path, modules)
                if imported is None and scope_node is not None and id(scope_node) in defined_at:
                    imported = module.first(scope_node.lineno, defined_at[id(scope_node)], modules)
                if imported is not None:
                    found.append(LateSetting(node.lineno, "os.environ['%s'] (%s) after import %s (%s:%d)" % (
                        variable, where, imported[1], rel, imported[0]), needs_keras_on_theano=keras_only))
                    break
    return sorted(found, key=lambda item: item.line)
