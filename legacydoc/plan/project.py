"""What a legacy project's own files say it needs: the Theano back-end and frameworks it
imports, the pins of requirements.txt / setup.py / environment.yml, Python-2-only syntax
and imports, pickles written by Python 2, and a project-local keras.json.

Read-only and bounded: at most MAX_FILES files of at most MAX_BYTES each (of a pickle, its
first HEAD_BYTES, never loaded); hidden folders, virtual environments and symlinks outside
the folder are skipped. A file that cannot be read is listed in ``unreadable``; it never
stops the scan.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from legacydoc.i18n import N_
from legacydoc.plan import theano_uses
from legacydoc.plan.late_settings import LateSetting, late_settings, module_under
from legacydoc.plan.pickles import HEAD_BYTES, is_candidate, needs_latin1
from legacydoc.safe_io import Refused, read_regular, read_small
from legacydoc.structs import field, struct

MAX_FILES = 5000
MAX_BYTES = 2_000_000
MAX_THEANO_USES = 5000  # distinct uses of Theano's API kept: the comparison stays bounded
MAX_PICKLES_READ = 50  # pickle-like files examined, each at most HEAD_BYTES: the scan stays bounded
LISTED = 10  # how many files of each kind a finding names
SKIP_DIRS = {"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env"}
# Modules whose import decides the plan (matched on the dotted name's start).
OLD_BACKEND = ("theano.sandbox.cuda",)
DOWNSAMPLE = ("theano.tensor.signal.downsample",)
# Lasagne's layer modules that raise ImportError unless Theano has a GPU: Lasagne 0.1 when
# device does not start with "gpu", master when no GPU back-end (for cuda_convnet: the old
# one) is active (LD172).
GPU_ONLY_LAYERS = ("lasagne.layers.cuda_convnet", "lasagne.layers.dnn", "lasagne.layers.corrmm")
# Theano modules and names removed later (LD165; tools/theano_api_added.py reads them at the
# tags): 0.9.0 is the last release with the first, 0.8.2 with the second.
GONE_AFTER_09 = ("theano.compat.six", "theano.tensor.nnet.Conv3D", "theano.tensor.nnet.ConvGrad3D",
                 "theano.tensor.nnet.ConvTransp3D", "theano.tensor.nnet.conv3D", "theano.tensor.nnet.convGrad3D",
                 "theano.tensor.nnet.convTransp3D", "theano.misc.pycuda_init", "theano.misc.pycuda_utils",
                 "theano.misc.pycuda_example")
GONE_AFTER_08 = ("theano.compile.profilemode", "theano.ProfileMode", "theano.compile.ProfileMode",
                 "theano.compat.python2x", "theano.sandbox.neighbourhoods", "theano.printing.pydotprint_variables")
FRAMEWORKS = {"lasagne": "Lasagne", "keras": "Keras", "pymc3": "pymc3", "blocks": "blocks",
              "pylearn2": "pylearn2", "nolearn": "nolearn", "theano": "Theano"}
_IMPORT_RE = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+([\w.*, ()]+)|import\s+([\w., ]+))", re.M)
# Python 2 standard-library modules Python 3 merged or renamed (PEP 3108): importing one
# outside a try block makes the file Python 2 code even when Python 3 parses it.
PY2_MODULES = frozenset({
    "cPickle", "cStringIO", "StringIO", "urllib2", "urlparse", "Queue", "ConfigParser", "HTMLParser", "httplib",
    "cookielib", "__builtin__", "copy_reg", "Tkinter", "tkMessageBox", "tkFileDialog", "SocketServer",
    "BaseHTTPServer", "SimpleHTTPServer", "xmlrpclib", "UserDict", "htmlentitydefs", "dummy_thread",
})
# scipy.misc's image functions: deprecated in SciPy 1.0, removed in 1.3.0, and before that
# only there when Pillow was installed.
SCIPY_MISC_IMAGES = frozenset({"imread", "imresize", "imsave", "imrotate", "imfilter", "imshow", "toimage",
                               "fromimage", "bytescale"})
# Exceptions a try block catches when an import in it may fail on purpose.
IMPORT_FAILURES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
# Names an if block tests when it picks code per Python version.
VERSION_TESTS = frozenset({"version_info", "version", "hexversion", "python_version", "PY2", "PY3", "PY34", "PY2K",
                           "PY3K", "IS_PY2", "IS_PY3", "PYTHON2", "PYTHON3", "PY_2", "PY_3"})
# Folders of vendored code: its Python 2 imports are not the project's.
VENDORED_DIRS = frozenset({"third_party", "thirdparty", "vendor", "vendored", "_vendor", "external", "externals"})
# Python 2 statements no Python 3 parses (checked only when ast.parse fails).
_PY2_RE = re.compile(r"^\s*(print\s+[^\s(=].*|exec\s+[\"'].*|except\s+[\w.]+\s*,\s*\w+\s*:.*|raise\s+\w+\s*,.*)$", re.M)


@struct
class Pin:
    """A version pin found in the project's requirement files."""

    name: str  # the distribution as written
    spec: str  # PEP 440 specifier, '' for "any"
    where: str  # file:line
    url: str = ""  # a direct reference (git+https://..., an archive)


@struct
class ProjectScan:
    """What the project's own files say: imports, pins, and what needs Python 2 or old packages."""

    root: str
    files_scanned: int = 0
    imports: dict[str, str] = field(default_factory=dict)  # dotted module -> first file:line
    pins: list[Pin] = field(default_factory=list)
    py2_only: list[str] = field(default_factory=list)  # file:line of Python-2-only syntax or imports
    keras_json: Optional[dict] = None
    keras_json_path: str = ""
    py2_pickles: list[str] = field(default_factory=list)  # Python 2 pickles Python 3 cannot read as they are
    scipy_misc_images: str = ""  # "scipy.misc.imread (file:line)": its first use of one of them
    gpu_only: str = ""  # "lasagne.layers.dnn (file:line)": its first unconditional import of one
    # THEANO_FLAGS / KERAS_BACKEND set where nothing reads them (legacydoc/plan/late_settings.py)
    late_settings: list[LateSetting] = field(default_factory=list)
    # (module, name, kind) of each use of Theano's API (legacydoc/plan/theano_uses.py) -> first file:line
    theano_uses: dict[tuple[str, str, str], str] = field(default_factory=dict)
    # Scan state: Python 2 imports found so far, kept only if no module of the project's own
    # has that name (decided when every file has been seen); the project's .py files.
    _py2_imports: list[tuple[str, int, str]] = field(default_factory=list, repr=False)
    _py_files: set[str] = field(default_factory=set, repr=False)
    unreadable: list[str] = field(default_factory=list)
    truncated: bool = False  # more than MAX_FILES files: the rest was not read

    def uses(self, prefixes: tuple[str, ...]) -> Optional[str]:
        """file:line of the first import of a module under one of these names, else None."""
        for module, where in sorted(self.imports.items(), key=lambda kv: _place(kv[1])):
            if module_under(module, prefixes):
                return where
        return None

    def theano_api_uses(self) -> list[tuple[str, str, str, str]]:
        """(module, name, kind, file:line), in the order of the files and lines."""
        found = sorted(self.theano_uses.items(), key=lambda kv: _place(kv[1]))
        return [(module, name, kind, where) for (module, name, kind), where in found]

    def frameworks(self) -> dict[str, str]:
        """Distribution name -> where the project imports it."""
        found: dict[str, str] = {}
        for top, dist in FRAMEWORKS.items():
            where = self.uses((top,))
            if where:
                found[dist] = where
        return found

    def pin(self, dist: str) -> Optional[Pin]:
        key = _norm(dist)
        return next((p for p in self.pins if _norm(p.name) == key), None)

    def to_dict(self) -> dict:
        return {
            "root": self.root, "files_scanned": self.files_scanned, "truncated": self.truncated,
            "old_backend": self.uses(OLD_BACKEND) or "", "downsample": self.uses(DOWNSAMPLE) or "",
            "frameworks": self.frameworks(), "python2_only": self.py2_only[:LISTED],
            "pins": [{"name": p.name, "spec": p.spec, "url": p.url, "where": p.where} for p in self.pins],
            "keras_json": self.keras_json or {}, "python2_pickles": self.py2_pickles,
            "scipy_misc_images": self.scipy_misc_images, "gpu_only": self.gpu_only,
            "late_settings": [item.text for item in self.late_settings],
            "unreadable": self.unreadable,
        }


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _place(where: str) -> tuple[str, int]:
    """'net.py:10' sorts after 'net.py:2'."""
    path, _, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, 0)


def _walk(root: Path) -> Iterator[Path]:
    real_root = os.path.realpath(root)
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS
                         and not (Path(folder) / d / "pyvenv.cfg").exists())
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_symlink() and not os.path.realpath(path).startswith(real_root + os.sep):
                continue
            yield path


def _read(path: Path, scan: ProjectScan) -> Optional[str]:
    """The file's text, or None (listed in ``unreadable``): only regular files, opened
    without blocking (a FIFO named requirements.txt must not hang the scan), size-capped."""
    try:
        data = read_regular(path, MAX_BYTES, N_("project file"))
    except Refused as exc:
        scan.unreadable.append(str(exc).replace(" more than the", " larger than the"))
        return None
    return data.decode("utf-8", "replace")


def _imports_ast(tree: ast.AST) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module, node.lineno
            for alias in node.names:  # "from theano.sandbox import cuda"
                yield "%s.%s" % (node.module, alias.name), node.lineno


def _imports_regex(text: str) -> Iterator[tuple[str, int]]:
    lines = _LineCounter(text)
    for match in _IMPORT_RE.finditer(text):
        # ^\s* also takes the blank lines above: count from the keyword
        line = lines.at(match.start() + len(match.group(0)) - len(match.group(0).lstrip()))
        if match.group(1):
            yield match.group(1), line
            for name in re.split(r"[,\s()]+", match.group(2)):
                if name and name != "*":
                    yield "%s.%s" % (match.group(1), name), line
        else:
            for name in match.group(3).split(","):
                name = name.strip().split(" ")[0]
                if name:
                    yield name, line


def _guards_imports(node: ast.AST) -> bool:
    """A block whose imports may fail on purpose: a try that catches ImportError (or
    anything), or an if that tests the Python version (sys.version_info, six.PY2)."""
    if isinstance(node, ast.Try):
        caught = [h.type for h in node.handlers]
        names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
                 for t in caught if t is not None for n in ast.walk(t)}
        return None in caught or bool(names & IMPORT_FAILURES)
    if isinstance(node, ast.If):
        return any(isinstance(n, (ast.Name, ast.Attribute)) and
                   (getattr(n, "id", "") or getattr(n, "attr", "")) in VERSION_TESTS for n in ast.walk(node.test))
    return False


def _py2_module_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, module) of each import of a Python-2-only module outside a guarding block
    (``try: import cPickle as pickle / except ImportError: import pickle`` runs on both)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if _guards_imports(node):
            guarded.update(id(inner) for inner in ast.walk(node) if inner is not node)
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        else:
            continue
        for name in names:
            if name.split(".")[0] in PY2_MODULES:
                yield node.lineno, name.split(".")[0]


def _scipy_misc_image_use(tree: ast.AST) -> Optional[tuple[int, str]]:
    """(line, name) of the first scipy.misc image function the code imports or calls:
    ``from scipy.misc import imread`` (or ``*`` and a call), ``scipy.misc.imresize(...)``,
    and calls through a name bound to scipy.misc (``from scipy import misc``,
    ``import scipy.misc as sm``). A module of the project's own called misc is not it."""
    aliases: set[str] = set()
    star = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "scipy.misc":
            star = star or any(a.name == "*" for a in node.names)
            hit = next((a.name for a in node.names if a.name in SCIPY_MISC_IMAGES), None)
            if hit:
                return node.lineno, hit
        elif isinstance(node, ast.ImportFrom) and node.module == "scipy":
            aliases.update(a.asname or a.name for a in node.names if a.name == "misc")
        elif isinstance(node, ast.Import):
            aliases.update(a.asname for a in node.names if a.name == "scipy.misc" and a.asname)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in SCIPY_MISC_IMAGES:
            owner = node.value
            if (isinstance(owner, ast.Attribute) and owner.attr == "misc"
                    and isinstance(owner.value, ast.Name) and owner.value.id == "scipy") or \
                    (isinstance(owner, ast.Name) and owner.id in aliases):
                return node.lineno, node.attr
        elif star and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in SCIPY_MISC_IMAGES:
            return node.lineno, node.func.id
    return None


def _imports_theano(found: list[tuple[str, int]]) -> bool:
    return any(module == "theano" or module.startswith("theano.") for module, _ in found)


class _LineCounter:
    """Line numbers of increasing offsets in one pass (counting from the start for each
    match is quadratic in a large file with many matches)."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        if offset < self.offset:
            self.offset, self.line = 0, 1
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


# The same for code Python 3 cannot parse (Python 2 projects are the ones that use them most).
_SCIPY_MISC_RE = re.compile(
    r"(?:scipy\.misc\.|from scipy\.misc import [^\n]*?\b)(%s)\b" % "|".join(sorted(SCIPY_MISC_IMAGES)))


def _scan_python(text: str, scan: ProjectScan, rel: str) -> None:
    vendored = bool(set(Path(rel).parts[:-1]) & VENDORED_DIRS)  # someone else's code, not the project's
    images: Optional[tuple[int, str]] = None
    tree: Optional[ast.AST] = None
    try:
        tree = ast.parse(text)
        found = list(_imports_ast(tree))
        if not vendored:
            scan._py2_imports.extend((rel, line, module) for line, module in _py2_module_imports(tree))
        images = _scipy_misc_image_use(tree) if not scan.scipy_misc_images else None
    # Not Python 3 (a Python 2 script), a NUL byte, or nested too deeply for the parser:
    # CPython raises RecursionError, or MemoryError when its own stack overflows
    # ("x = ------...1"); the file is small (MAX_BYTES), the text is read by pattern.
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
        found = list(_imports_regex(text))
        match = _PY2_RE.search(text)
        if match and not vendored:
            scan.py2_only.append("%s:%d" % (rel, text.count("\n", 0, match.start()) + 1))
        hit = _SCIPY_MISC_RE.search(text) if not scan.scipy_misc_images else None
        images = (text.count("\n", 0, hit.start()) + 1, hit.group(1)) if hit else None
    if _imports_theano(found) and not vendored:  # someone else's copy is not the project's code
        for module, name, kind, line in (theano_uses.uses_ast(tree) if tree is not None
                                         else theano_uses.uses_text(text)):
            if len(scan.theano_uses) >= MAX_THEANO_USES:
                break
            scan.theano_uses.setdefault((module, name, kind), "%s:%d" % (rel, line))
    if not scan.gpu_only and not vendored:
        gpu_only = _gpu_only_import(tree if isinstance(tree, ast.Module) else None, text)
        if gpu_only is not None:
            scan.gpu_only = "%s (%s:%d)" % (gpu_only[1], rel, gpu_only[0])
    if isinstance(tree, ast.Module) and not vendored and len(scan.late_settings) < LISTED:
        scan.late_settings.extend(late_settings(tree, rel)[:LISTED - len(scan.late_settings)])
    if images is not None:
        scan.scipy_misc_images = "scipy.misc.%s (%s:%d)" % (images[1], rel, images[0])
    for module, line in found:
        scan.imports.setdefault(module, "%s:%d" % (rel, line))


def _requirement(text: str, where: str) -> Optional[Pin]:
    text = text.split(" #", 1)[0].strip()
    if not text or text.startswith(("#", "-")):
        return None
    egg = re.search(r"#egg=([\w.\-]+)", text)
    if egg and "://" in text:
        return Pin(egg.group(1), "", where, url=text.split("#", 1)[0])
    # Imported here: packaging.requirements brings its markers and tags modules, which only
    # a project's pins need (not every check).
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    return Pin(req.name, str(req.specifier), where, url=req.url or "")


def _scan_requirements(text: str, scan: ProjectScan, rel: str) -> None:
    for number, line in enumerate(text.splitlines(), start=1):
        pin = _requirement(line, "%s:%d" % (rel, number))
        if pin:
            scan.pins.append(pin)


def _scan_setup(text: str, scan: ProjectScan, rel: str) -> None:
    """install_requires=[...] string literals (setup.py is never run)."""
    match = re.search(r"install_requires\s*=\s*\[([^\]]*)\]", text, re.S)
    if not match:
        return
    line = text.count("\n", 0, match.start()) + 1
    for literal in re.findall(r"[\"']([^\"']+)[\"']", match.group(1)):
        pin = _requirement(literal, "%s:%d" % (rel, line))
        if pin:
            scan.pins.append(pin)


def _scan_environment(text: str, scan: ProjectScan, rel: str) -> None:
    """The dependencies list of a conda environment.yml: '- name=1.2' (conda) and the
    entries under '- pip:'. A line-based reading: no YAML anchors or flow lists."""
    in_deps = False
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not raw.startswith((" ", "\t", "-")) and stripped:
            in_deps = stripped.startswith("dependencies:")
            continue
        if not in_deps or not stripped.startswith("- ") or stripped.rstrip(":") == "- pip":
            continue
        item = stripped[2:].strip().strip("\"'")
        where = "%s:%d" % (rel, number)
        if raw.startswith(("    ", "\t\t")) or "==" in item or ">" in item or "<" in item:
            pin = _requirement(item, where)
        else:  # conda's 'name=1.2' / 'name=1.2=build' / 'channel::name'
            name, _, version = item.split("::")[-1].partition("=")
            version = version.split("=")[0]
            pin = _requirement(name + ("==" + version if version and "*" not in version else ""), where)
        if pin:
            scan.pins.append(pin)


def _gpu_only_import(tree: Optional[ast.Module], text: str) -> Optional[tuple[int, str]]:
    """(line, module) of the first import of a GPU-only Lasagne layer module that runs
    whenever the file does: a statement of the module's own body, not one inside a try,
    an if or a function, which may be the project's CPU fallback. Without a syntax tree
    (Python 2 code), an unindented import line."""
    if tree is not None:
        found = [(module, line) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
                 for module, line in _imports_ast(node)]
    else:
        lines = text.split("\n")
        found = [(module, line) for module, line in _imports_regex(text)
                 if line <= len(lines) and lines[line - 1][:1] not in (" ", "\t")]
    hits = sorted((line, module) for module, line in found if module_under(module, GPU_ONLY_LAYERS))
    return hits[0] if hits else None


def scan(root: Path) -> ProjectScan:
    out = ProjectScan(root=str(root))
    count = 0
    pickles_read = 0
    for path in _walk(root):
        count += 1
        if count > MAX_FILES:
            out.truncated = True
            break
        rel = str(path.relative_to(root))
        name = path.name.lower()
        if name.endswith(".py"):
            out._py_files.add(Path(rel).as_posix())
            text = _read(path, out)
            if text is not None:
                _scan_python(text, out, rel)
                if name == "setup.py":
                    _scan_setup(text, out, rel)
        elif re.fullmatch(r"requirements.*\.(txt|in)", name):
            text = _read(path, out)
            if text is not None:
                _scan_requirements(text, out, rel)
        elif name in ("environment.yml", "environment.yaml"):
            text = _read(path, out)
            if text is not None:
                _scan_environment(text, out, rel)
        elif is_candidate(name) and pickles_read < MAX_PICKLES_READ and len(out.py2_pickles) < LISTED:
            pickles_read += 1
            head = read_small(str(path), HEAD_BYTES)
            if head is None:
                out.unreadable.append("%s: cannot read the pickle" % rel)
            elif needs_latin1(name, head):
                out.py2_pickles.append(rel)
        elif name == "keras.json" and out.keras_json is None:
            text = _read(path, out)
            try:
                value = json.loads(text) if text is not None else None
            except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested deeply
                out.unreadable.append("%s: not JSON" % rel)
                value = None
            if isinstance(value, dict):
                out.keras_json, out.keras_json_path = value, rel
    out.files_scanned = min(count, MAX_FILES)
    out.py2_only += ["%s:%d (import %s)" % (rel, line, module) for rel, line, module in out._py2_imports
                     if not _own_module(out._py_files, rel, module)]
    return out


def _own_module(py_files: set[str], importer: str, module: str) -> bool:
    """A module of the project's own by that name, where the import finds it: beside the
    importing file (Python 2's implicit relative import) or at the project's root."""
    here = Path(importer).parent.as_posix()
    prefixes = [""] if here == "." else [here + "/", ""]
    return any(p + module + ".py" in py_files or p + module + "/__init__.py" in py_files for p in prefixes)
