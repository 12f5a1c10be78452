"""The typed schema of the facts record (legacydoc.factschema): real and hand-written records
fit it, rule names resolve through it, typos do not, and validate() reports wrong kinds at
their exact path without ever raising."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, make_ctx
from legacydoc import areas, facts, factschema
from legacydoc.derive import DERIVED, enrich
from legacydoc.factschema import is_item_field, is_known, is_list, undeclared_keys, validate

FIXTURES = sorted((REPO / "fixtures").glob("*/facts.toml")) + sorted((REPO / "fixtures").glob("plan-starts/*/facts.toml"))
TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.\-]*)\}")  # a rule text's {fact.name}


def nested(example: Mapping[str, Any]) -> dict[str, Any]:
    """A rule example ({"gpu.nvidia_smi.rc": 0, ...}) as the partial record it stands for."""
    record: dict[str, Any] = {}
    for dotted, value in example.items():
        node = record
        *parents, last = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return record


def header_only() -> dict[str, Any]:
    return {"schema": 1, "legacydoc_version": "0.1.0", "collected_at": "2026-12-01T00:00:00+00:00", "redacted": False}


def with_table(table: str, **values: Any) -> dict[str, Any]:
    record = header_only()
    record[table] = values
    return record


# --- real and hand-written records ------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=[p.parent.name for p in FIXTURES])
def test_every_fixture_fits_the_schema_raw_and_enriched(path: Path) -> None:
    record = facts.load(path)
    assert validate(record) == []
    enriched = enrich(record)  # adds the computed derived and config tables
    assert validate(enriched) == []
    assert [k for k in undeclared_keys(enriched) if k.startswith(("derived.", "config."))] == []


def test_a_real_probe_record_fits_and_every_key_it_holds_is_declared(tmp_path: Path) -> None:
    from legacydoc.probes import collect_all

    ctx = make_ctx(tmp_path, [], python=sys.executable, import_check=True, timeout=20.0)
    record = facts.new_record(collect_all(ctx))
    assert validate(record) == []
    assert undeclared_keys(record) == []
    assert validate(facts.loads(facts.dumps(record))) == []  # the saved form too
    assert validate(enrich(record)) == []


def test_a_failed_or_overrun_probe_is_part_of_the_shape() -> None:
    record = header_only()
    record["python"] = {"probe_error": "TypeError: boom (target.py:12)", "probe_duration_s": 0.5}
    record["gpu"] = {"probe_error": "probe did not finish within 11.0 s", "probe_timed_out": True}
    assert validate(record) == []
    record["gpu"]["probe_timed_out"] = "yes"
    assert validate(record) == ["gpu.probe_timed_out: expected bool, found str"]


def test_an_empty_record_with_only_the_header_has_no_problem() -> None:
    assert validate(header_only()) == []
    assert validate(facts.new_record({})) == []
    assert validate({}) == []


def _rule_examples() -> Iterator[tuple[str, dict[str, Any]]]:
    from legacydoc.engine import load_rules

    for rule in load_rules():
        for kind in ("fires", "quiet"):
            for n, example in enumerate(getattr(rule, kind)):
                yield f"{rule.id} {kind}[{n}]", example


def test_every_rule_example_fits_the_schema() -> None:
    problems = []
    for where, example in _rule_examples():
        problems += [f"{where}: unknown name {name}" for name in example if not is_known(name)]
        problems += [f"{where}: {p}" for p in validate(nested(example))]
    assert problems == []


def _condition_names(cond: Any, scope: str, out: list[tuple[str, str]]) -> None:
    """(scope, name) for every fact a condition reads; scope is the list item.x refers to."""
    if isinstance(cond, list):
        for sub in cond:
            _condition_names(sub, scope, out)
    elif isinstance(cond, Mapping):
        if "fact" in cond:
            out.append((scope, cond["fact"]))
        for key in ("all", "any", "not"):
            if key in cond:
                _condition_names(cond[key], scope, out)
        for key in ("some", "none"):
            if key in cond:
                out.append(("", cond[key]))
                _condition_names(cond.get("where", []), cond[key], out)


def test_every_name_the_shipped_rules_use_resolves() -> None:
    from legacydoc.engine import load_rules

    bad = []
    for rule in load_rules():
        names: list[tuple[str, str]] = []
        _condition_names(rule.when, rule.for_each, names)
        texts = [rule.title, rule.why, *(line for step in rule.fix
                                          for line in ([step] if isinstance(step, str) else step.values()))]
        names += [(rule.for_each, n) for text in texts for n in TEMPLATE.findall(text)]
        names += [(rule.for_each, n) for n in rule.evidence]
        for scope, name in names:
            if name.startswith("item."):
                ok = is_item_field(scope, name[5:])
            else:
                ok = is_known(name)
            if not ok:
                bad.append((rule.id, name))
        if rule.for_each and not is_list(rule.for_each):
            bad.append((rule.id, "for_each " + rule.for_each))
    assert bad == []


def test_a_bench_table_fits() -> None:
    from legacydoc.bench.facts import build
    from legacydoc.bench.gemm import Side
    from legacydoc.bench.peak import Peak

    table = build(Side(label="machine"), Side(label="target", error="no numpy"), Peak(cores=4), seconds=5.0)
    assert validate({"bench": table}) == []


# --- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [
    "schema", "redacted", "system", "system.os", "gpu.nvidia_smi", "gpu.nvidia_smi.query.rc",
    "packages.pygpu", "packages.pygpu.version", "packages.theano-pymc.version", "packages.numpy.copies",
    "python.command.output", "cuda.nvcc.version", "cuda.toolkits", "theano_config.compiledir.subdirs",
    "derived.theano.runs_on", "derived.gpus", "config.effective.device.value", "config.effective.blas.ldflags",
    "config.findings", "bench.peak.gflops_float32", "gpu.probe_error", "env.probe_duration_s",
    # new facts, declared before the probes write them
    "system.glibc", "system.sip_enabled", "gpu.driver_cuda_api_version", "packages.conda.cudnn.channel",
    "compilers.msvc.visual_studio", "compilers.xcode.version", "libraries.libcuda_version",
    "libraries.driver_libs", "gpu.mps_pipe_dir_exists", "gpu.mps_server_listed", "gpu.mps_process_running",
    "derived.gpu.compute_modes",
])
def test_known_names(name: str) -> None:
    assert is_known(name)


@pytest.mark.parametrize("name", [
    "cuda.nvcc.verison", "gpu.nvidia_smi.rcc", "packages.numpy_blas_verison", "derived.theano.run_on",
    "config.effective.devcie.value", "config.effective.device.valeu", "bench.peak.gflops_float16",
    "system.os.name",  # through a leaf
    "gpu.devices.name",  # through a list: its items are read with for_each / item.x
    "nosuch", "nosuch.table", "", ".", "gpu..count", "gpu.count.", ".gpu", "unknown",
    "derived.no_such_thing", "libraries.winner.cudart.libcudart.so.10.2.pth", "libraries.winner.cudrt",
    "env.variables.PAHT", "theano_config.flags.THEANO_FLAG", "packages.Theano.version",
    "packages.conda.numpy.verison", "packages.import_check.numpy.comand", "cuda.env.CUDA_PTH",
    "a." * 5000 + "b",
])
def test_typos_and_impossible_names_are_unknown(name: str) -> None:
    assert not is_known(name)


@pytest.mark.parametrize("name", [None, 5, b"gpu.count", ["gpu"]])
def test_non_string_names_are_unknown(name: Any) -> None:
    assert not is_known(name)
    assert not is_list(name)
    assert not is_item_field(name, "x")
    assert not is_item_field("gpu.devices", name)


@pytest.mark.parametrize("name", [
    "env.variables.PATH", "env.variables.Path", "env.variables.CUDA_VISIBLE_DEVICES", "env.variables.MKL_NUM_THREADS",
    "packages.theano-pymc", "packages.mkl-service.installer", "packages.conda.numpy-base.build",
    "packages.conda.gxx_linux-64.version", "packages.import_check.theano.command.rc",
    "libraries.winner.cudart", "libraries.winner.cudart.libcudart.so.10.2",
    "libraries.winner.cudart.libcudart.so.10.2.path", "libraries.winner.cudart.libcudart.so.path",
    "libraries.winner.nvrtc.nvrtc64_102_0.dll.cuda", "libraries.winner.libcuda.nvcuda.dll.copies",
    "libraries.winner.libcuda.libcuda.so.535.104.05.driver_version",
    "libraries.winner.cudart.libcudart.10.2.dylib.order", "libraries.libgpuarray_names.nvrtc.found",
    "cuda.env.CUDA_PATH", "cuda.env.CUDA_PATH_V10_2", "cuda.env.cuda_path", "cudnn.env.CUDNN_PATH",
    "theano_config.flags.THEANO_FLAGS", "theano_config.flags.PYTENSOR_FLAGS", "compilers.nvcc_host.env.NVCC_CCBIN",
    "bench.env.OMP_NUM_THREADS",
])
def test_every_map_resolves_its_keys(name: str) -> None:
    assert is_known(name)


def test_map_values_are_checked_and_odd_keys_are_undeclared_not_errors() -> None:
    record = header_only()
    record["env"] = {"variables": {"PATH": 5, "SOMETHING_ELSE": "x"}}
    record["packages"] = {"numpy": {"version": 1}, "numpy_new_fact": True}
    record["libraries"] = {"winner": {"cudart": {"libcudart.so.10.2": {"copies": "1"}}}}
    record["cuda"] = {"toolkits": [{"version_files": {"version.json": 11}}]}
    assert validate(record) == [  # in record order
        "env.variables.PATH: expected str, found int",
        "packages.numpy.version: expected str, found int",
        'libraries.winner.cudart."libcudart.so.10.2".copies: expected int, found str',
        'cuda.toolkits[0].version_files."version.json": expected str, found int',
    ]
    assert undeclared_keys(record) == ["env.variables.SOMETHING_ELSE", "packages.numpy_new_fact"]


def test_lists_of_tables_and_their_item_fields() -> None:
    lists = {
        "gpu.devices": ["index", "compute_capability"],
        "cuda.toolkits": ["root", "nvcc_command.rc", "version_files.version.json", "source"],
        "theano_config.compiledir.subdirs": ["lock_dir.age_s", "lock_dir", "python_version"],
        "theano_config.files": ["text", "from"],
        "config.findings": ["kind", "fix_line", "line"],
        "derived.gpus": ["in_nvcc_range", "nvcc_highest_sm"],
        "path.entries": ["cuda_versions", "duplicate_of"],
        "path.ld_library_path": ["provides"],
        "libraries.found": ["so_version", "link_to"],
        "compilers.gxx_all": ["command.output", "exception_model"],
        "packages.numpy.copies": ["version"],
        "libraries.driver_libs": ["version"],
    }
    for name, fields in lists.items():
        assert is_list(name), name
        for field in fields:
            assert is_item_field(name, field), (name, field)
        assert not is_item_field(name, "no_such_field"), name
    assert not is_item_field("theano_config.compiledir.subdirs", "lock_dir.agee_s")
    assert not is_item_field("gpu.devices", "lock_dir.age_s")
    assert not is_item_field("cuda.toolkits", "nvcc_command.rcc")
    assert not is_item_field("gpu.devices", "")
    for name in ("gpu.count", "path.empty_entries", "env.variables", "packages.import_check", "gpu", "nosuch"):
        assert not is_list(name), name
        assert not is_item_field(name, "index"), name


# --- validate ---------------------------------------------------------------------------------


@pytest.mark.parametrize("table, values, expected", [
    ("path", {"entries": 5}, "path.entries: expected a list of tables, found int"),
    ("gpu", {"devices": 5}, "gpu.devices: expected a list of tables, found int"),
    ("compilers", {"gxx_count": "x"}, "compilers.gxx_count: expected int, found str"),
    ("theano_config", {"files": [{"path": 5}]}, "theano_config.files[0].path: expected str, found int"),
    ("gpu", {"count": True}, "gpu.count: expected int, found bool"),
    ("gpu", {"devices": [{"index": 0}, 7]}, "gpu.devices[1]: expected a table, found int"),
    ("gpu", {"nvidia_smi": "yes"}, "gpu.nvidia_smi: expected a table, found str"),
    ("gpu", {"nvidia_smi": {"query": {"argv": ["nvidia-smi", 3]}}}, "gpu.nvidia_smi.query.argv[1]: expected str, found int"),
    ("path", {"empty_entries": [0, "1"]}, "path.empty_entries[1]: expected int, found str"),
    ("system", {"cpu_flags": "avx"}, "system.cpu_flags: expected a list of str, found str"),
    ("system", {"probe_duration_s": False}, "system.probe_duration_s: expected number, found bool"),
    ("theano_config", {"compiledir": {"subdirs": [{"lock_dir": {"age_s": "old"}}]}},
     "theano_config.compiledir.subdirs[0].lock_dir.age_s: expected number, found str"),
    ("env", {"variables": []}, "env.variables: expected a table, found a list"),
    ("system", [], "system: expected a table, found a list"),
])
def test_wrong_kinds_are_reported_at_their_exact_path(table: str, values: Any, expected: str) -> None:
    record = header_only()
    record[table] = values
    assert validate(record) == [expected]


def test_numbers_take_ints_and_floats_and_tuples_are_lists() -> None:
    record = with_table("system", probe_duration_s=1, cpu_flags=("avx", "avx2"))
    record["bench"] = {"seconds": 5, "elapsed_s": 4.25}
    assert validate(record) == []


def test_header_kinds_and_unknown_top_level_tables() -> None:
    record = header_only()
    record["schema"] = "1"
    record["redacted"] = 1
    record["unknown"] = {}
    record["gpus"] = 5
    assert validate(record) == [
        "schema: expected int, found str",
        "redacted: expected bool, found int",
        "unknown: not a table of the facts record",
        "gpus: not a table of the facts record",
    ]


def _deep(levels: int, leaf: Any = "x") -> Any:
    value = leaf
    for n in range(levels):
        value = {"k": value} if n % 2 else [value]
    return value


@pytest.mark.parametrize("where", ["undeclared key", "top level", "declared list", "map value"])
def test_ten_thousand_levels_of_nesting_are_reported_without_raising(where: str) -> None:
    deep = _deep(10_000)
    record = header_only()
    if where == "undeclared key":
        record["system"] = {"x": deep}
    elif where == "top level":
        record["deep"] = deep
    elif where == "declared list":
        record["gpu"] = {"devices": [{"nested": deep}]}
    else:
        record["env"] = {"variables": {"PATHS": deep}}
    problems = validate(record)
    assert len(problems) <= 2
    assert any("nested deeper than 32 levels" in p for p in problems), problems
    assert all(len(p) < 400 for p in problems)
    undeclared_keys(record)  # must not raise either


def test_max_depth_is_a_parameter() -> None:
    record = with_table("system", x={"a": {"b": {}}})
    assert validate(record) == []
    assert validate(record, max_depth=2) == ["system.x.a: nested deeper than 2 levels"]


def test_huge_lists_give_a_bounded_answer() -> None:
    record = with_table("path", empty_entries=["bad"] * 200_000)
    problems = validate(record)
    assert len(problems) == factschema.walk.MAX_PROBLEMS + 1
    assert problems[-1].startswith("record: more problems not listed")
    assert validate(with_table("path", empty_entries=list(range(200_000)))) == []


class Hostile(Mapping):
    """A mapping that fails when walked."""

    def __getitem__(self, key: Any) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[Any]:
        raise RuntimeError("no")

    def __len__(self) -> int:
        return 1


class BadKey:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __hash__(self) -> int:
        return 1


@pytest.mark.parametrize("record", [
    None, 5, "text", [], [1, 2], b"bytes",
    {1: 2}, {None: {}}, {("a",): 1}, {BadKey(): 1}, Hostile(),
    {"system": Hostile()}, {"gpu": {"devices": [Hostile()]}}, {"env": {"variables": {5: "x"}}},
    {"system": {"cpu_flags": [None, float("nan"), {}, []]}},
    {"path": {"entries": [[], None, {"index": "0"}]}},
])
def test_validate_never_raises(record: Any) -> None:
    problems = validate(record)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)
    undeclared_keys(record)


def test_garbage_gets_one_line_answers() -> None:
    assert validate(None) == ["record: expected a table, found NoneType"]  # type: ignore[arg-type]
    assert validate([]) == ["record: expected a table, found a list"]  # type: ignore[arg-type]
    assert validate({1: 2}) == ["record: key 1 is not a string"]  # type: ignore[dict-item]
    assert validate({"system": Hostile()}) == ["system: cannot be read (RuntimeError)"]


def test_cycles_and_shared_tables_end() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    items: list[Any] = []
    items.append(items)
    record = header_only()
    record["system"] = {"loop": loop, "items": items}
    record["python"] = record  # the whole record again, below a declared table
    shared = {"found": True, "version": 5}
    record["compilers"] = {"gxx": shared, "gxx_all": [shared, shared]}
    problems = validate(record)
    assert "compilers.gxx.version: expected str, found int" in problems
    assert all("compilers.gxx_all" not in p for p in problems)  # the same table is checked once


# --- the schema against the code it describes ---------------------------------------------------------


def test_fact_tables_are_declared_in_the_order_areas_gives() -> None:
    assert tuple(factschema.FACT_TABLES) == areas.TABLE_NAMES


def test_derived_declares_exactly_what_derive_documents() -> None:
    declared = {
        path[len("derived."):]
        for path, kind in factschema.declared_names()
        # tables and maps hold the facts; a map's entries are documented as <name>
        if path.startswith("derived.") and "[]" not in path and not isinstance(kind, (factschema.Table, factschema.MapOf))
    }
    assert declared == set(DERIVED)  # derived.gpus is both in DERIVED and a ListOf here
    assert is_list("derived.gpus")


def test_config_effective_declares_exactly_the_key_options() -> None:
    from legacydoc.theanorc.findings import KEY_OPTIONS

    declared = {
        path[len("config.effective."):]
        for path, kind in factschema.declared_names()
        if path.startswith("config.effective.") and kind is factschema.computed.SETTING
    }
    assert declared == set(KEY_OPTIONS)


def test_key_patterns_agree_with_the_probes() -> None:
    from legacydoc.probes import compilers, cudnn, env, libnames, target_script, theano_config

    def keys(name: str) -> Any:
        kind: Any = factschema.names._kinds_of(name)[0]
        return kind if isinstance(kind, factschema.MapOf) else kind.extra

    assert set(factschema.tables.LIBRARY_KINDS.split("|")) == set(libnames.KINDS)
    assert all(keys("packages").matches(name) for name in target_script.MATTERS)
    assert all(keys("packages.conda").matches(name) for name in target_script.CONDA_MATTERS)
    assert all(keys("theano_config.flags").matches(name) for name in theano_config.FLAG_VARIABLES)
    assert all(keys("compilers.nvcc_host.env").matches(name) for name in compilers.NVCC_HOST_ENV)
    assert all(keys("cudnn.env").matches(name) for name in cudnn.ENV_NAMES)
    variables = keys("env.variables")
    for name in ("PATH", "Path", "CUDA_HOME", "THEANO_FLAGS", "THEANORC", "GPUARRAY_X", "HOME", "USER", "LANG"):
        assert variables.matches(name) == env.is_allowed(name), name
    assert keys("packages").matches("numpy") and not keys("packages").matches("numpy_blas")


def test_leaf_names_are_unique_and_cover_the_new_facts() -> None:
    leaves = factschema.leaf_names()
    assert len(leaves) == len(set(leaves)) > 500
    for name in ("system.distro", "cuda.toolkits[].source", "cudnn.libraries[].version",
                 "libraries.driver_libs[].version", "packages.conda.<name>.channel", "compilers.xcode.found",
                 "gpu.devices[].compute_mode"):
        assert name in leaves, name


def test_list_of_refuses_tables() -> None:
    with pytest.raises(ValueError, match="scalar kind"):
        factschema.list_of(factschema.Table({}))  # type: ignore[arg-type]
