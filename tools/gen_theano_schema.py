#!/usr/bin/env python3
"""Generate rules/theano_schema/<release>.toml from a REAL installed Theano.

Usage (each PYTHON is a virtual environment's interpreter with the release installed):

    python3 tools/gen_theano_schema.py --python /path/to/venv/bin/python [--python ...]
    python3 tools/gen_theano_schema.py --build      # build the four venvs with
                                                     # tests/legacy_envs.py, then generate

For each interpreter the generator runs a small dump script *inside* it (isolated HOME,
empty THEANORC, no THEANO_FLAGS), which imports theano and walks its option registry
(``theano.configparser._config_var_list`` in Theano, ``theano.config._config_var_dict``
in Theano-PyMC >= 1.0.12): name, parameter class, default, enum values, whether the
option can change after import, and its doc. It also feeds every option's own filter a
fixed battery of strings and records what the real package accepts, converts or
rejects. From that the generator writes:

* ``rules/theano_schema/<flavour>-<version>.toml``: the schema legacydoc validates with;
* ``tests/data/theanorc/filters/<flavour>-<version>.json``: the battery's truth table, so
  the tests can check legacydoc's validator against the real filters without a venv.

What the registry cannot say (the bounds hidden in ``is_valid`` lambdas, which generic
ConfigParam is which custom filter) is annotated by hand below from the release's
``theano/configdefaults.py``, and every annotation is checked against the battery before
anything is written: a wrong annotation stops the generator.

No Theano code is copied here; the real package is only imported and asked.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO / "rules" / "theano_schema"
TRUTH_DIR = REPO / "tests" / "data" / "theanorc" / "filters"

# The venvs --build makes (tests/legacy_envs.py caches them under .legacy-venvs/).
BUILD_SPECS = (
    ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano==1.0.5"]),
    ("3.8", ["numpy==1.21.6", "scipy==1.7.3", "Theano-PyMC==1.1.2"]),
    ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.9.0"]),
    ("3.6", ["numpy==1.13.3", "scipy==1.0.1", "Theano==0.8.2"]),
)

# Strings every filter is asked about; enum values and their case variants are added
# per option. Chosen to hit each filter's edges (bool spellings, ints, floats, device
# prefixes, the mode names of every release, context maps, inline comments, quotes).
BATTERY = [
    "", " ", "True", "true", "TRUE", "1", "False", "false", "0", "no", "yes", "on", "None", "none",
    "-1", "2", "3", "10", " 5", "5 ", "0.5", "1e3", "-0.5", "inf", "nan", "abc",
    "cpu", "cpu0", "CPU", "cuda", "cuda0", "cuda1", "CUDA", "gpu", "gpu0", "GPU", "opencl0:0",
    "Mode", "DebugMode", "FAST_RUN", "fast_run", "NanGuardMode", "FAST_COMPILE", "DEBUG_MODE",
    "JAX", "FAST_RUN_NOGC", "ProfileMode", "PROFILE_MODE", "DebugMode ",
    "16", "32", "64", "float32", "float32  # comment", "float32 ; comment", "'float32'", '"float32"',
    "auto", "no_check", "random", "initial", "initial:previous", "ALL", "bogus", "initial:bogus",
    "dev0->cuda0", "dev0->cuda0;dev1->cuda1", "cuda0->x", "dev0", "a->b->c",
]
# Defaults Theano computes at import and stores as plain values (so the registry shows
# the generating machine's answer): recorded as computed, never as a default.
IMPORT_COMPUTED = {"cxx", "base_compiledir", "linker"}
# Options whose filter touches the disk (creates directories): never called.
NO_PROBE = {"compiledir"}

# --- hand annotations, from each release's theano/configdefaults.py ----------------
# Keyed by the dotted name (Theano-PyMC's "a__b" is looked up as "a.b").
# kind for ConfigParam subclasses whose filter is a bespoke function:
CUSTOM_KIND = {
    "mode": "mode",  # filter_mode: a fixed list of mode names (or a Mode instance)
    "vm.lazy": "vm_lazy",  # filter_vm_lazy: None/True/False as text
    "gpuarray.sync": "removed",  # deprecated_gpuarray_sync: any truthy value raises
    "dnn.conv.workmem": "removed",  # safe_no_dnn_workmem: non-empty raises
    "dnn.conv.workmem_bwd": "removed",
    "dnn.conv.algo_bwd": "removed",
    "base_compiledir": "path",  # filter_base_compiledir: expanduser
    "compiledir": "path",  # filter_compiledir: expanduser, realpath, makedirs, perms
    "gpuarray.cache_path": "path",
    "nvcc.flags": "nvcc_flags",  # 0.9: every token must start with '-'
    "home": "removed",  # 0.8/0.9: safe_no_home, removed in 0.5, non-empty raises
}
# Bounds from the is_valid lambdas / validate functions.
CONSTRAINTS: dict[str, dict[str, Any]] = {
    "tensor.cmp_sloppy": {"int_in": [0, 1, 2]},
    "DebugMode.check_strides": {"int_in": [0, 1, 2]},
    "DebugMode.patience": {"min_exclusive": 0},
    "DebugMode.check_preallocated_output_ndim": {"min_exclusive": 0},
    "profiling.n_apply": {"min_exclusive": 0},
    "profiling.n_ops": {"min_exclusive": 0},
    "profiling.output_line_width": {"min_exclusive": 0},
    "profiling.min_memory_size": {"min": 0},
    "compile.wait": {"min_exclusive": 0},
    "compile.timeout": {"min": 0},
    "unittests.rseed": {"check": "int_or_random"},
    "DebugMode.check_preallocated_output": {
        "check": "colon_list",
        "list_values": ["initial", "previous", "c_contiguous", "f_contiguous", "strided", "wrong_size", "ALL", ""],
    },
    # when no C++ compiler is found the linker option is registered with other values
    "linker": {"values_without_cxx": ["vm", "py", "vm_nogc"]},
    "ProfileMode.n_apply_to_print": {"min_exclusive": 0},  # 0.8 only
    "ProfileMode.n_ops_to_print": {"min_exclusive": 0},
    "ProfileMode.min_memory_size": {"min": 0},
    "lib.cnmem": {"min": 0},  # 0.8/0.9: FloatParam(0, lambda i: i >= 0)
    # "name@version": only for that release
    "gpuarray.preallocate@0.8.2": {"min": 0},
}
COMPUTED_NOTES = {
    "cxx": "full path of the g++ found on PATH at import (clang++ on macOS; conda's mingw-w64 g++ on Windows); "
           "'' if none",
    "linker": "cvm when a C++ compiler was found at import, else vm (and then only vm, py, vm_nogc are valid)",
    "cuda.root": "$CUDA_ROOT, else $CUDA_PATH, else the parent of the first PATH folder holding a file named nvcc, "
                 "else ''",
    "cuda.include_path": "<cuda.root>/include",
    "dnn.base_path": "cuda.root when <cuda.root>/include/cudnn.h exists, else ''",
    "dnn.include_path": "<dnn.base_path>/include",
    "dnn.library_path": "<dnn.base_path>/lib64 (Linux), /lib (macOS), \\lib\\x64 (Windows)",
    "dnn.bin_path": "<dnn.base_path>\\bin on Windows, else dnn.library_path",
    "blas.ldflags": "from numpy's BLAS build info, each candidate test-compiled with g++; '' when none works",
    "base_compiledir": "%LOCALAPPDATA%\\Theano on Windows when LOCALAPPDATA is set, else $HOME/.theano",
    "compiledir": "<base_compiledir>/<compiledir_format expanded>",
    "gpuarray.cache_path": "<compiledir>/gpuarray_kernels",
    "compile.timeout": "compile.wait * 24",
    "DebugMode.check_c": "bool(cxx)",
    "home": "$HOME",
}


# --- the script run inside the target interpreter (Python 3.6+ syntax) --------------
DUMP_SCRIPT = r'''
import json, os, sys, warnings
warnings.simplefilter("ignore")
import logging
logging.disable(logging.CRITICAL)
battery = json.loads(sys.stdin.read())
import theano
cp = theano.configparser
if hasattr(cp, "_config_var_list"):
    params = list(cp._config_var_list)
    style = "registry-list"
else:
    params = list(theano.config._config_var_dict.values())
    style = "registry-dict"
import numpy
out = {"theano_version": theano.__version__, "python": sys.version.split()[0],
       "numpy": numpy.__version__, "style": style, "options": []}

def name_of(p):
    return getattr(p, "fullname", None) or getattr(p, "name")

def default_of(p):
    if hasattr(p, "_default"):
        return p._default
    return p.default

def mutable_of(p):
    if hasattr(p, "allow_override"):
        return bool(p.allow_override)
    return bool(p.mutable)

def filter_fn(p):
    if hasattr(p, "apply") and hasattr(p, "validate"):
        def run(v):
            applied = p.apply(v)
            p.validate(applied)
            return applied
        return run
    f = getattr(p, "filter", None)
    return f if f is not None else (lambda v: v)

for p in params:
    name = name_of(p)
    d = default_of(p)
    e = {"name": name, "class": type(p).__name__, "mutable": mutable_of(p),
         "doc": (getattr(p, "doc", "") or "")}
    if callable(d):
        e["computed"] = getattr(d, "__name__", "callable")
    else:
        e["default_str"] = str(d)
        e["default_repr"] = repr(d)
    values = getattr(p, "all", None)
    if values is not None:
        vals = list(values)
        if isinstance(values, (set, frozenset)):
            first = str(d)
            vals = [first] + sorted(v for v in vals if v != first)
        seen = []
        for v in vals:
            if v not in seen:
                seen.append(v)
        e["values"] = seen
    mytype = getattr(p, "mytype", None)
    if mytype is not None:
        e["mytype"] = getattr(mytype, "__name__", str(mytype))
    trials = list(battery)
    for v in e.get("values", []):
        for w in (v, v.lower(), v.upper(), v.capitalize(), v + " ", " " + v):
            if w not in trials:
                trials.append(w)
    if "default_str" in e and e["default_str"] not in trials:
        trials.append(e["default_str"])
    results = []
    if name not in NO_PROBE:
        fn = filter_fn(p)
        for v in trials:
            try:
                r = fn(v)
                results.append([v, "ok", repr(r)])
            except BaseException as exc:
                results.append([v, "error", type(exc).__name__, str(exc)[:300]])
    e["trials"] = results
    out["options"].append(e)
sys.stdout.write("\nLEGACYDOC_SCHEMA_DUMP " + json.dumps(out) + "\n")
'''


def run_dump(python: str, timeout: float = 600.0) -> dict[str, Any]:
    """Import theano in ``python`` with a throw-away HOME and return the dump."""
    python = os.path.abspath(python)  # it runs from the temporary HOME
    with tempfile.TemporaryDirectory(prefix="legacydoc-schema-") as home:
        rc_file = os.path.join(home, "empty.theanorc")
        Path(rc_file).write_text("", encoding="ascii")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("THEANO", "PYTHON"))}
        env.update({"HOME": home, "THEANORC": rc_file, "USER": "legacydoc"})
        script = "NO_PROBE = %r\n" % sorted(NO_PROBE) + DUMP_SCRIPT
        proc = subprocess.run(
            [python, "-c", script],
            input=json.dumps(BATTERY).encode(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=home,
            timeout=timeout,
        )
    text = proc.stdout.decode("utf-8", "replace")
    for line in text.splitlines():
        if line.startswith("LEGACYDOC_SCHEMA_DUMP "):
            return json.loads(line.split(" ", 1)[1])
    raise SystemExit("%s: no dump (rc %s):\n%s" % (
        python, proc.returncode, proc.stderr.decode("utf-8", "replace")[-3000:]))


# --- turning a dump into schema data ---------------------------------------------------


def dotted(name: str) -> str:
    return name.replace("__", ".")


def section_option(name: str, dunder: bool) -> tuple[str, str]:
    """Where a config file holds ``name``: the text after the LAST separator is the option."""
    sep = "__" if dunder else "."
    if sep in name:
        section, option = name.rsplit(sep, 1)
        return section, option
    return "global", name


def _ok(trials: list, value: str) -> Optional[bool]:
    for t in trials:
        if t[0] == value:
            return t[1] == "ok"
    return None


def warn_since_from_source(source: str) -> dict[str, str]:
    """{option name: version} for options whose default is warn_default('<version>'),
    read with ast from the release's configdefaults.py (never executed)."""
    found: dict[str, str] = {}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if called not in ("AddConfigVar", "add"):
            continue
        first = node.args[0]
        name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        if name is None:
            continue
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Name)
                and sub.func.id in ("warn_default", "_warn_default")
                and sub.args
                and isinstance(sub.args[0], ast.Constant)
            ):
                found[name] = str(sub.args[0].value)
    return found


def find_configdefaults(python: str) -> Optional[str]:
    """The text of configdefaults.py of the theano installed for ``python`` (found on disk,
    next to the package's __init__.py, without importing it)."""
    proc = subprocess.run(
        [python, "-c", "import importlib.util as u; s = u.find_spec('theano'); print(s.submodule_search_locations[0])"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        timeout=120,
    )
    folder = proc.stdout.decode().strip()
    path = Path(folder) / "configdefaults.py"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def kind_of(entry: dict[str, Any]) -> str:
    cls = entry["class"]
    name = dotted(entry["name"])
    if cls == "EnumStr":
        return "enum"
    if cls in ("BoolParam",) or entry.get("mytype") == "booltype":
        return "bool"
    if cls == "IntParam" or entry.get("mytype") == "int":
        return "int"
    if cls == "FloatParam" or entry.get("mytype") == "float":
        return "float"
    if cls == "StrParam" or entry.get("mytype") == "str":
        return "str"
    if cls == "DeviceParam":
        return "device"
    if cls == "ContextsParam":
        return "contexts"
    if name in CUSTOM_KIND:
        return CUSTOM_KIND[name]
    if name == "contexts":
        return "contexts"
    raise SystemExit("no kind known for option %s (class %s): annotate CUSTOM_KIND" % (entry["name"], cls))


def option_record(entry: dict[str, Any], dunder: bool, warn_since: dict[str, str], version: str) -> dict[str, Any]:
    name = entry["name"]
    canonical = dotted(name)
    section, option = section_option(name, dunder)
    kind = kind_of(entry)
    rec: dict[str, Any] = {"name": name}
    if canonical != name:
        rec["canonical"] = canonical
    rec["section"] = section
    rec["option"] = option
    rec["kind"] = kind
    trials = entry.get("trials", [])
    if "computed" in entry or canonical in IMPORT_COMPUTED:
        rec["computed"] = COMPUTED_NOTES.get(canonical, "computed at import by %s()" % entry.get("computed", "Theano"))
    else:
        default = entry["default_str"]
        if kind == "bool" and entry["default_repr"] in ("True", "False"):
            default = entry["default_repr"]
        rec["default"] = default
    if kind == "enum":
        rec["values"] = list(entry["values"])
        aliases = {}
        for t in trials:
            if t[1] == "ok":
                result = ast.literal_eval(t[2]) if t[2][:1] in "'\"" else None
                if isinstance(result, str) and result != t[0]:
                    aliases[t[0]] = result
        if aliases:
            rec["aliases"] = aliases
    if kind in ("mode", "vm_lazy"):
        rec["values"] = [t[0] for t in trials if t[1] == "ok"]
    if kind == "device":
        rec["prefixes"] = [p for p in ("gpu", "cuda", "opencl") if _ok(trials, p + "0") or _ok(trials, p + "0:0")]
    if kind == "bool" and _ok(trials, "True") and _ok(trials, "False") is False:
        rec["must_be_true"] = True  # is_valid=lambda x: x (deprecated, must stay True)
    rec.update(CONSTRAINTS.get(canonical, {}))
    rec.update(CONSTRAINTS.get("%s@%s" % (canonical, version), {}))
    if canonical in warn_since:
        rec["warn_since"] = warn_since[canonical]
    rec["import_time_only"] = not entry["mutable"]
    doc = entry.get("doc") or ""
    if isinstance(doc, list):  # a few docs are tuples of strings in the source
        doc = " ".join(str(d) for d in doc)
    doc = " ".join(str(doc).split())
    if doc:
        rec["doc"] = doc[:400]
    return rec


def check_annotations(records: list[dict[str, Any]], dump: dict[str, Any]) -> list[str]:
    """Every battery answer must be predicted by legacydoc's validator from the record."""
    sys.path.insert(0, str(REPO))
    from legacydoc.theanorc.validate import check_value

    problems = []
    by_name = {e["name"]: e for e in dump["options"]}
    for rec in records:
        for trial in by_name[rec["name"]].get("trials", []):
            value, status = trial[0], trial[1]
            result = check_value(rec, value)
            if (status == "ok") != result.ok:
                problems.append("%s = %r: real %s, legacydoc %s" % (
                    rec["name"], value, status, "ok" if result.ok else "error"))
    return problems


def header(dump: dict[str, Any], flavour: str, dunder: bool, python: str) -> dict[str, Any]:
    package = "Theano-PyMC" if flavour == "theano-pymc" else "Theano"
    version = dump["theano_version"]
    return {
        "source": (
            "generated by tools/gen_theano_schema.py from the real %s %s (PyPI) imported in CPython %s with "
            "numpy %s: every option of its registry (%s), each option's own filter asked about a battery of "
            "values; hand annotations (is_valid bounds, custom filters) from theano/configdefaults.py of the "
            "same release, checked against that battery" % (
                package, version, dump["python"], dump["numpy"], dump["style"])
        ),
        "package": package,
        "flavour": flavour,
        "version": version,
        "name_style": "dunder" if dunder else "dot",
        "generated_with": {"python": dump["python"], "numpy": dump["numpy"]},
    }


def generate(python: str) -> tuple[Path, Path, list[str]]:
    dump = run_dump(python)
    names = [e["name"] for e in dump["options"]]
    dunder = any("__" in n for n in names) and not any("." in n for n in names)
    flavour = "theano-pymc" if dunder or dump["theano_version"].startswith("1.1") else "theano"
    source = find_configdefaults(python) or ""
    warn_since = {dotted(k): v for k, v in warn_since_from_source(source).items()} if source else {}
    records = [option_record(e, dunder, warn_since, dump["theano_version"]) for e in dump["options"]]
    problems = check_annotations(records, dump)
    data = header(dump, flavour, dunder, python)
    data["option"] = records
    import tomli_w

    stem = "%s-%s" % (flavour, dump["theano_version"])
    schema_path = SCHEMA_DIR / (stem + ".toml")
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    comment = (
        "# Theano config schema: %s %s, %d options. GENERATED by tools/gen_theano_schema.py;\n"
        "# edit the generator's annotations and regenerate instead of editing this file.\n"
        "# kind: enum | bool | int | float | str | device | contexts | mode | vm_lazy | removed | path\n"
        "# | nvcc_flags. default: the text Theano uses when nothing is set (absent when computed).\n\n"
        % (data["package"], data["version"], len(records))
    )
    schema_path.write_text(comment + tomli_w.dumps(data), encoding="utf-8")
    TRUTH_DIR.mkdir(parents=True, exist_ok=True)
    truth = {e["name"]: compact_trials(e["trials"]) for e in dump["options"] if e.get("trials")}
    truth_path = TRUTH_DIR / (stem + ".json")
    lines = ['  %s: %s' % (json.dumps(k), json.dumps(v, sort_keys=True)) for k, v in sorted(truth.items())]
    truth_path.write_text(
        '{"release": %s,\n "battery": %s,\n "options": {\n%s\n}}\n'
        % (json.dumps(stem), json.dumps(BATTERY), ",\n".join(lines)),
        encoding="utf-8",
    )
    return schema_path, truth_path, problems


def compact_trials(trials: list) -> dict[str, Any]:
    """{"extra": [values beyond BATTERY], "ok": "1101...", "result": {value: repr}}: the
    trials are BATTERY then "extra", "ok" has one 1/0 per trial, "result" lists only the
    accepted values the filter changed (an alias, a cast)."""
    values = [trial[0] for trial in trials]
    out: dict[str, Any] = {
        "extra": values[len(BATTERY):] if values[: len(BATTERY)] == BATTERY else values,
        "ok": "".join("1" if trial[1] == "ok" else "0" for trial in trials),
    }
    if out["extra"] is values:
        out["no_battery"] = True
    result = {trial[0]: trial[2] for trial in trials if trial[1] == "ok" and trial[2] != repr(trial[0])}
    if result:
        out["result"] = result
    return out


def build_venvs() -> list[str]:
    sys.path.insert(0, str(REPO / "tests"))
    from legacy_envs import legacy_venv  # noqa: E402

    pythons = []
    for version, packages in BUILD_SPECS:
        try:
            pythons.append(str(legacy_venv(version, packages)))
        except BaseException as exc:  # pytest.skip raises a BaseException subclass
            print("could not build %s %s: %s" % (version, packages, exc), file=sys.stderr)
    return pythons


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", default=[], help="an interpreter with theano installed")
    parser.add_argument("--build", action="store_true", help="build the release venvs with tests/legacy_envs.py")
    args = parser.parse_args(argv)
    pythons = list(args.python)
    if args.build:
        pythons += build_venvs()
    if not pythons:
        parser.error("give --python PATH or --build")
    failed = False
    for python in pythons:
        schema_path, truth_path, problems = generate(python)
        print("%s: wrote %s and %s" % (python, schema_path.relative_to(REPO), truth_path.relative_to(REPO)))
        for problem in problems:
            failed = True
            print("  annotation mismatch: " + problem, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
