"""The parts of Theano's API a project's code uses: the modules it imports, the names it
imports from them and the attributes it reaches through them (``T.nnet.relu`` after
``import theano.tensor as T``). legacydoc/theanoapi.py compares them with what the installed
Theano release has.

Only what the code needs whatever happens is kept: an import in a try that catches
ImportError (or anything) may meet a missing name on purpose, and code under an if (other
than ``if __name__ == "__main__"``) may never run: ``if PROFILE: theano.ProfileMode()``,
``if hasattr(T.nnet, "relu")``. A name the file binds otherwise too (an assignment, a
parameter) is not followed as a module alias.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

# (module, name, kind, line): kind "module" (the module must exist; name is ""), "import"
# (from module import name) or "attribute" (module.name)
Use = tuple[str, str, str, int]

_CAUGHT = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "NameError", "Exception",
                     "BaseException"})


def _is_theano(module: str) -> bool:
    return module == "theano" or module.startswith("theano.")


_TRIES = tuple(getattr(ast, n) for n in ("Try", "TryStar") if hasattr(ast, n))
_MATCH = getattr(ast, "Match", None)


def _guarded(node: ast.AST) -> bool:
    """A block whose Theano uses may fail on purpose, or never run."""
    if isinstance(node, _TRIES):
        caught = [h.type for h in node.handlers]
        names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
                 for t in caught if t is not None for n in ast.walk(t)}
        return None in caught or bool(names & _CAUGHT)
    if isinstance(node, (ast.If, ast.IfExp, ast.While)):
        return not _is_main_test(node.test)
    if isinstance(node, ast.BoolOp):  # hasattr(T.nnet, "relu") and T.nnet.relu(x)
        return True
    return _MATCH is not None and isinstance(node, _MATCH)


def _is_main_test(test: ast.AST) -> bool:
    """``__name__ == "__main__"``: a script's body, run whenever the script is."""
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _unguarded(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node outside a guarded block."""
    pending = [tree]
    while pending:
        node = pending.pop()
        if node is not tree and _guarded(node):
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def _other_bindings(tree: ast.AST) -> set[str]:
    """Names the file binds other than by an import."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.Import):
            out.update(a.asname or a.name.split(".")[0] for a in node.names if not _is_theano(a.name))
        elif isinstance(node, ast.ImportFrom) and not (node.module and not node.level and _is_theano(node.module)):
            out.update(a.asname or a.name for a in node.names)
    return out


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str:
    """theano.tensor.nnet for ``T.nnet`` (T an alias of theano.tensor), else ''."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return ""
    return ".".join([aliases[node.id], *reversed(parts)])


def uses_ast(tree: ast.AST) -> Iterator[Use]:
    nodes = list(_unguarded(tree))
    aliases: dict[str, str] = {}
    ambiguous: set[str] = set()

    def bind(local: str, module: str) -> None:
        if aliases.get(local, module) != module:
            ambiguous.add(local)  # two modules under one name: which one a line means is not known
        aliases[local] = module

    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _is_theano(alias.name):
                    continue
                yield alias.name, "", "module", node.lineno
                if alias.asname:
                    bind(alias.asname, alias.name)
                else:  # "import theano.tensor.nnet" binds theano
                    bind(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and _is_theano(node.module):
            yield node.module, "", "module", node.lineno
            for alias in node.names:
                if alias.name != "*":
                    yield node.module, alias.name, "import", node.lineno
                    # T after "from theano import tensor as T" (a function bound so is never
                    # a module of the table: nothing is claimed about it)
                    bind(alias.asname or alias.name, node.module + "." + alias.name)
    for name in (_other_bindings(tree) | ambiguous) & set(aliases):
        del aliases[name]
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            owner = _dotted(node.value, aliases)
            if owner:
                yield owner, node.attr, "attribute", node.lineno


# The same read from the text of code Python 3 cannot parse (Python 2 scripts), in one pass:
# physical lines are joined into logical ones (inside brackets, after a trailing backslash),
# strings are blanked and comments dropped, tabs count to the next multiple of 8 as Python 2
# counts them. A use counts only outside a block opened by try, except, finally, if, elif,
# else or while (but ``if __name__ == '__main__':``), and not on a one-line if or a line with
# a conditional expression. A logical line longer than MAX_LINE is not read, and then no
# attribute is claimed from the file (a name it rebinds could be on that line).
MAX_LINE = 4000
_QUOTES = ('"""', "'''", '"', "'")
_TOKENS = re.compile(r"\\.|\"\"\"|'''|\"|'|#|[(\[{]|[)\]}]")
_GUARD = re.compile(r"(?:try|except|finally|else|elif|while)\b|if\b(?!\s*__name__\s*==\s*\"__main__\"\s*:)")
_OPENER = re.compile(r"(?:if|elif|else|try|except|finally|while|for|def|class|with)\b")
_IF, _ELSE = re.compile(r"\bif\b"), re.compile(r"\belse\b")
_FROM_LINE = re.compile(r"from\s+([\w.]+)\s+import\s+(.+)")
_IMPORT_LINE = re.compile(r"import\s+(.+)")
_ITEM = re.compile(r"\s*([\w.]+)(?:\s+as\s+(\w+))?\s*")
# names a line binds other than by an import: such a name is not followed as a module alias
_BINDS = (re.compile(r"([\w\s,]+?)=(?!=)"), re.compile(r"for\s+([\w\s,()]+?)\s+in\b"),
          re.compile(r"def\s+\w+\s*\((.*)\)\s*:"), re.compile(r"class\s+(\w+)"))
_AS = re.compile(r"\bas\s+(\w+)")


def _scan_line(line: str, quote: str, depth: int) -> tuple[str, str, int]:
    """The line's code with each string blanked to "" ("__main__" kept) and its comment
    dropped; the string still open at its end (a triple quote), and the bracket depth."""
    out: list[str] = []
    pos = start = 0
    for match in _TOKENS.finditer(line):
        token = match.group()
        if quote:
            if token == quote:
                out.append('"__main__"' if line[start:match.start()] == "__main__" else '""')
                quote, pos = "", match.end()
            continue
        if token == "#":
            out.append(line[pos:match.start()])
            return "".join(out), "", depth
        if token in _QUOTES:
            out.append(line[pos:match.start()])
            quote, start = token, match.end()
        elif token in "([{":
            depth += 1
        elif token in ")]}":
            depth = max(0, depth - 1)
    if not quote:
        out.append(line[pos:])
    elif len(quote) == 1:  # a one-quote string ends with its line
        out.append('""')
        quote = ""
    return "".join(out), quote, depth


def _logical_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(first line number, indent, code) of each logical line; code is "" when the line is
    longer than MAX_LINE or never closed."""
    quote, depth, size, first, indent = "", 0, 0, 0, 0
    parts: list[str] = []
    for number, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        line = raw.expandtabs(8)
        if not parts and not quote and depth == 0 and size == 0:
            stripped = line.lstrip()
            if not stripped or stripped.startswith("#"):
                continue
            first, indent = number, len(line) - len(stripped)
        code, quote, depth = _scan_line(line, quote, depth)
        size += len(code) + 1
        if size <= MAX_LINE:
            parts.append(code.strip().rstrip("\\"))
        if quote or depth or code.rstrip().endswith("\\"):
            continue
        yield first, indent, " ".join(parts) if size <= MAX_LINE else ""
        parts, size = [], 0
    if size:
        yield first, indent, ""


def _code_lines(text: str) -> list[tuple[int, str, bool]]:
    """(line number, code, guarded) of each logical line."""
    out = []
    stack: list[tuple[int, bool]] = []  # the open blocks: (their opener's indent, guarding)
    for number, indent, code in _logical_lines(text):
        while stack and stack[-1][0] >= indent:
            stack.pop()
        guard = bool(_GUARD.match(code))
        one_line = guard and ":" in code and not code.endswith(":")  # "if X: theano.ProfileMode()"
        hit = _IF.search(code)
        conditional = bool(hit and _ELSE.search(code, hit.end()))
        out.append((number, code, any(g for _, g in stack) or one_line or conditional))
        if code.endswith(":") and _OPENER.match(code):
            stack.append((indent, guard))
    return out


def _bound(code: str) -> set[str]:
    out: set[str] = set()
    for pattern in _BINDS:
        match = pattern.match(code)
        if match:
            out.update(re.findall(r"\w+", match.group(1)))
    out.update(_AS.findall(code))
    return out


def uses_text(text: str) -> Iterator[Use]:
    lines = _code_lines(text)
    aliases: dict[str, str] = {}
    rebound: set[str] = set()
    found: list[Use] = []

    def bind(local: str, module: str) -> None:
        if aliases.get(local, module) != module:
            rebound.add(local)  # two modules under one name: which one a line means is not known
        aliases[local] = module

    for number, code, guarded in lines:
        from_line, import_line = _FROM_LINE.fullmatch(code), _IMPORT_LINE.fullmatch(code)
        if from_line:
            module = from_line.group(1)
            items = [_ITEM.fullmatch(i) for i in from_line.group(2).strip("() ").split(",")]
            names = [(m.group(1), m.group(2) or m.group(1)) for m in items if m]
            if not _is_theano(module) or guarded:
                rebound.update(local for _, local in names)  # it may bind them: not followed
                continue
            found.append((module, "", "module", number))
            for name, local in names:
                found.append((module, name, "import", number))
                bind(local, module + "." + name)
        elif import_line:
            for item in (_ITEM.fullmatch(i) for i in import_line.group(1).split(",")):
                if item is None:
                    continue
                dotted, local = item.group(1), item.group(2) or item.group(1).split(".")[0]
                if not _is_theano(dotted) or guarded:
                    rebound.add(local)
                    continue
                found.append((dotted, "", "module", number))
                bind(local, dotted if item.group(2) else local)
        else:
            rebound |= _bound(code)
    yield from found
    for name in rebound:
        aliases.pop(name, None)
    if not aliases or not all(code for _, code, _ in lines):
        return
    chain = re.compile(r"(?<![\w.])(%s)((?:\.\w+)+)" % "|".join(re.escape(a) for a in sorted(aliases, key=len,
                                                                                          reverse=True)))
    for number, code, guarded in lines:
        if guarded or _FROM_LINE.fullmatch(code) or _IMPORT_LINE.fullmatch(code):
            continue
        for match in chain.finditer(code):
            parts = [aliases[match.group(1)], *match.group(2)[1:].split(".")]
            for i in range(1, len(parts)):
                yield ".".join(parts[:i]), parts[i], "attribute", number
