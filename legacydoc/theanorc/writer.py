"""A ``.theanorc`` for this machine, generated from the facts, each line with the reason
it is there (comments on lines of their own: Python 3 keeps inline comments in values).

Decided from the facts: ``device`` (cuda only when nvidia-smi lists a GPU, pygpu is
usable and a C++ compiler works; else cpu), ``floatX = float32``, ``mode = FAST_RUN``,
``cxx`` (only when g++ is not found by name), ``[cuda] root``, ``[dnn]`` paths (when
cuDNN lives outside the toolkit), ``[gpuarray] preallocate``, ``[blas] ldflags``, and
``[gcc] cxxflags`` gains -Wno-c++11-narrowing when the compiler is a clang that needs it.
Every other valid option set in the file being replaced is kept; invalid or unknown
lines are dropped and reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc import __version__, readiness
from legacydoc.cxxdialect import FLAG, configured_entry, narrowing, narrowing_facts
from legacydoc.facts import effective_setting, get
from legacydoc.structs import field, struct
from legacydoc.theanorc import machine
from legacydoc.theanorc.effective import EffectiveConfig
from legacydoc.theanorc.schema import canonical_name, is_compiledir_format
from legacydoc.theanorc.validate import BOOL_TRUE, check_value

DECIDED = ("device", "floatX", "mode", "cxx", "blas.ldflags", "cuda.root", "dnn.enabled", "dnn.include_path",
           "dnn.library_path", "dnn.bin_path", "dnn.base_path", "gpuarray.preallocate")

# Values a written config never carries over, because a rule warns that they change results
# (each with the reason the dropped line is reported with)
NOT_KEPT = {
    "nvcc.fastmath": (BOOL_TRUE,
                      "asks nvcc for approximate GPU math (--use_fast_math) on the old back-end, NaN-prone (LD546)"),
}


@struct
class Line:
    """One option a written .theanorc sets, with the comment that says why."""

    name: str  # dotted option name
    value: str
    why: str  # the comment above it


@struct
class Generated:
    """A .theanorc to write, with what it sets and what it left out."""

    text: str
    lines: list[Line]  # every option the file sets, generated and kept
    notes: list[str] = field(default_factory=list)  # one-line remarks for the user (not in the file)
    dropped: list[str] = field(default_factory=list)  # lines of the old file left out, with why


def _gpu_decision(record: Mapping[str, Any], config: EffectiveConfig, compiler: Optional[bool]
                  ) -> tuple[str, str]:
    """device for the written config: the GPU only when legacydoc.readiness says it would
    run there (the same answer check gives), with the config's compiler."""
    from legacydoc.derive import all_exclusive, compute_modes, gpu_blockers, visible_gpus

    device = "gpu" if config.schema.id == "theano-0.8.2" else "cuda"
    blockers = gpu_blockers(record, "gpuarray" if device == "cuda" else "old")
    decision = readiness.gpu_decision(record, device, config.schema.version, compiler=compiler, blockers=blockers)
    if decision.runs_on == "gpu":
        names = machine.gpu_names(record)
        _, pygpu_why = readiness.pygpu_status(record)
        uses = pygpu_why + " and " if device == "cuda" else ""
        found = "nvidia-smi lists %s, %sa C++ compiler works" % (names[0] if names else "a GPU", uses)
        visible = visible_gpus(record)
        if visible is not None and visible > 1 and all_exclusive(record):
            return device, "%s: %s; %d GPUs are visible, those that take work in an exclusive compute mode " \
                "(nvidia-smi) and no MPS daemon seen: each process takes a free one, and a process that finds " \
                "none free fails (LD212)" % (device, found, visible)
        if visible is not None and visible > 1:
            # Plain cuda stays: in exclusive-process mode it spreads the processes, while
            # cuda0 would send them all to one GPU; in the default mode they share the first
            # (LD217), and the note says how to give each its own.
            modes = compute_modes(record)
            hedge = "" if modes and all(m == "default" for m in modes) else \
                " unless the GPUs are in exclusive-process mode"
            return device, "%s: %s; %d GPUs are visible: each process takes the first that accepts it, so " \
                "start others with THEANO_FLAGS=device=%s1 (and so on)%s" % (device, found, visible, device, hedge)
        return device, "%s: %s" % (device, found)
    why = decision.reasons + ["not known: %s" % u for u in decision.unknown]
    if decision.reasons:
        return "cpu", "cpu: %s. device = %s needs that fixed first (legacydoc check says how)" % (
            "; ".join(why), device)
    return "cpu", "cpu: %s. device = %s needs those known first (legacydoc check on the machine probes them)" % (
        "; ".join(why), device)


def _cudnn(record: Mapping[str, Any], root: Optional[str], schema_id: str) -> tuple[list[Line], list[str]]:
    """[dnn] lines: paths when cuDNN is outside the toolkit; enabled = False for cuDNN 8+."""
    pm = machine.pathmod(record)
    headers = [h for h in get(record, "cudnn.headers", []) or []
               if isinstance(h, Mapping) and h.get("header") == "cudnn.h" and h.get("exists", True) and h.get("major")]
    notes: list[str] = []
    if not headers:
        if not isinstance(get(record, "cudnn.headers"), list):
            # never searched (a partial record): nothing is claimed about cuDNN
            return [], ["cuDNN is not in the record: dnn.enabled stays auto, so Theano uses cuDNN where it finds it"]
        return [], ["no cudnn.h found: Theano will run without cuDNN (dnn.enabled = auto)"]
    modern = schema_id in ("theano-1.0.5", "theano-pymc-1.1.2")
    usable = [h for h in headers if int(h.get("major", 0)) <= 7 or not modern]
    if not usable:
        version = headers[0].get("version", "%s.x" % headers[0].get("major"))
        return [Line("dnn.enabled", "False",
                     "False: only cuDNN %s is installed, and cuDNN 8 removed functions Theano's "
                     "cuDNN code calls (install cuDNN 7.6 to use cuDNN)" % version)], notes
    header = usable[0]
    major = header.get("major")
    lines: list[Line] = []
    include = pm.dirname(str(header["path"]))
    inside = root and machine.same_path(record, include, pm.join(root, "include"))
    if not inside:
        lines.append(Line("dnn.include_path", include,
                          "cuDNN %s's cudnn.h is here, outside the CUDA toolkit" % header.get("version", major)))
        libs = [lib for lib in get(record, "cudnn.libraries", []) or []
                if isinstance(lib, Mapping) and lib.get("exists", True) and lib.get("major") == major
                and lib.get("path")]
        if machine.is_windows(record):
            dlls = [lib for lib in libs if str(lib.get("name", "")).lower().endswith(".dll")]
            links = [lib for lib in libs if str(lib.get("name", "")).lower().endswith(".lib")]
            if links:
                lines.append(Line("dnn.library_path", pm.dirname(str(links[0]["path"])), "the cuDNN link library"))
            if dlls:
                lines.append(Line("dnn.bin_path", pm.dirname(str(dlls[0]["path"])),
                                  "Theano loads the cuDNN DLL from here"))
        elif libs:
            # dnn.bin_path defaults to dnn.library_path off Windows
            lines.append(Line("dnn.library_path", pm.dirname(str(libs[0]["path"])), "the cuDNN %s library" % major))
    return lines, notes


def _preallocate(config: EffectiveConfig) -> tuple[str, str, str]:
    """(value, why, note for the user). The why depends on the value only, so writing
    twice gives the same file."""
    value, note = "0", ""
    current = config.get("gpuarray.preallocate")
    if current is not None and not current.is_default and current.ok:
        value = current.value or "0"
    else:
        for source in config.files:
            for entry in source.parsed.entries if source.parsed is not None else []:
                option = config.schema.get("gpuarray.preallocate")
                if (entry.section == "lib" and entry.option == "cnmem" and option is not None
                        and check_value(option, entry.value).ok):
                    value = entry.value.strip()
                    note = "[lib] cnmem = %s (%s line %d) becomes [gpuarray] preallocate = %s" % (
                        value, source.path, entry.line, value)
    try:
        amount = float(value)
    except ValueError:
        amount = 0.0
    if amount == 0:
        why = "0: cache GPU allocations without reserving memory up front (0.8 would reserve 80% of it)"
    elif amount < 0:
        why = "%s: no allocation cache at all" % value
    elif amount <= 1:
        why = "%s: reserve %d%% of the GPU memory when Theano starts (0 = reserve nothing)" % (
            value, round(amount * 100))
    else:
        why = "%s: reserve %s MB of GPU memory when Theano starts (0 = reserve nothing)" % (value, value)
    return value, why, note


def _corrected_value(fix_line: str, option: str) -> Optional[str]:
    """The value a finding's fix line gives this option ('[gcc]\ncxxflags = -O3'), or None."""
    for line in fix_line.splitlines():
        name, sep, value = line.partition("=")
        if sep and name.strip() == option:
            return value.strip()
    return None


def _kept(config: EffectiveConfig, target: Optional[str],
          record: Optional[Mapping[str, Any]] = None) -> tuple[list[Line], list[str]]:
    """Valid options the replaced file sets that the generator does not decide."""
    kept: list[Line] = []
    dropped: list[str] = []
    flagged: dict[tuple[Optional[str], Optional[int]], Any] = {}
    if record is not None:
        from legacydoc.theanorc.findings import find_problems

        for finding in find_problems(record, config):
            if finding.severity in ("error", "warning") and finding.line is not None:
                # the last one: later checks correct the value earlier ones corrected
                # (copied.py's fixes have no inline comment or quotes left)
                flagged[(finding.file, finding.line)] = finding
    for source in config.files:
        if source.parsed is None or target is None or not machine_same(source.path, target, source):
            continue
        for entry in source.parsed.entries:
            option = config.schema.file_option(entry.section or "", entry.option) if entry.section else None
            text = entry.text.strip()
            if option is None:
                if entry.section not in (None, "DEFAULT"):
                    dropped.append("%s (line %d): not an option of this Theano" % (text, entry.line))
                continue
            name = canonical_name(option)
            if name in DECIDED:
                continue
            setting = config.settings[name]
            if setting.origin.file != source.path or setting.origin.line != entry.line:
                continue  # overridden: not what Theano uses
            interpolation_failed = setting.note.startswith("interpolation failed") and not is_compiledir_format(
                setting.option, entry.value)
            if not setting.ok or "\n" in entry.value or interpolation_failed:
                why = setting.check.message or ("ConfigParser cannot fill its %(...)s names" if interpolation_failed
                                                else "spans several lines")
                dropped.append("%s (line %d): %s" % (text, entry.line, why))
                continue
            lossy = NOT_KEPT.get(name)
            if lossy is not None and entry.value.strip() in lossy[0]:
                dropped.append("%s (line %d): %s" % (text, entry.line, lossy[1]))
                continue
            problem = flagged.get((source.path, entry.line))
            if problem is not None:
                # check would flag the line as it is (quotes, an inline comment): keep its
                # corrected value, or leave it out, never copy the mistake
                fixed = _corrected_value(problem.fix_line, entry.option)
                if fixed is None:
                    dropped.append("%s (line %d): %s" % (text, entry.line, problem.message))
                    continue
                kept.append(Line(name, fixed, "kept from the previous file, corrected: %s" % problem.kind))
                continue
            kept.append(Line(name, entry.value, "kept from the previous file"))
    return kept, dropped


def machine_same(a: str, b: str, source: Any) -> bool:
    abspath = source.fact.get("abspath") if hasattr(source, "fact") else None
    return a == b or (abspath is not None and abspath == b)


def generate(record: Mapping[str, Any], config: EffectiveConfig, target: Optional[str] = None) -> Generated:
    """The config file for this machine. Its comments are English whatever the reader's
    language: Theano reads .theanorc in the locale's encoding (GBK on a Chinese Windows),
    where UTF-8 Chinese text fails import theano."""
    from legacydoc.i18n import speaking

    with speaking("en"):
        return _generate(record, config, target)


def _generate(record: Mapping[str, Any], config: EffectiveConfig, target: Optional[str] = None) -> Generated:
    schema = config.schema
    lines: list[Line] = []
    notes: list[str] = []
    cxx_default = readiness.theano_cxx(record)
    other_gxx = readiness.usable_gxx(record)
    own_cxx = _working_own_cxx(record, config)
    # None (not probed) is not "no compiler": readiness then lists it as unknown
    compiler = True if (own_cxx or other_gxx) else readiness.compiler_usable(record)
    # Theano 0.8's working backend is the old one (its cuda backend was experimental).
    device, device_why = _gpu_decision(record, config, compiler)
    lines.append(Line("device", device, device_why))
    lines.append(Line("floatX", "float32",
                      "float32: what GPUs compute fast (Theano's default float64 is slow on them)"))
    lines.append(Line("mode", "FAST_RUN", "FAST_RUN: all graph optimisations (mode names are upper-case)"))
    if own_cxx:
        lines.append(Line("cxx", own_cxx[0], "your choice, kept: %s" % own_cxx[1]))
    elif cxx_default:
        notes.append("cxx is not set: Theano finds %s by itself" % cxx_default)
    elif other_gxx:
        value = '"%s"' % other_gxx if machine.is_win32(record) and " " in other_gxx else other_gxx
        lines.append(Line("cxx", value, "g++ is not found by name on PATH, but this one works"))
    elif cxx_default == "":
        lines.append(Line("cxx", "",
                          "empty: no C++ compiler was found; Theano runs its slow Python code (install g++)"))
    flags, flags_why = machine.blas_choice(record)
    lines.append(Line("blas.ldflags", flags, flags_why))
    if device in ("cuda", "gpu"):
        toolkit = machine.toolkit_for_writing(record)
        root = str(toolkit["root"]) if toolkit else None
        if root:
            version = toolkit.get("version") if toolkit else None
            lines.append(Line("cuda.root", root, "the CUDA toolkit%s (Theano takes its headers from <root>/include)" % (
                " " + version if version else "")))
        dnn_lines, dnn_notes = _cudnn(record, root, schema.id)
        lines += dnn_lines
        notes += dnn_notes
        if schema.get("gpuarray.preallocate") is not None:
            value, why, note = _preallocate(config)
            lines.append(Line("gpuarray.preallocate", value, why))
            if note:
                notes.append(note)
    kept, dropped = _kept(config, target, record)
    lines += kept
    lines = _with_narrowing_flag(record, lines, config, target, notes)
    lines = [line for line in lines if schema.get(line.name) is not None]
    return Generated(render(lines, config, target), lines, notes, dropped)


def _working_own_cxx(record: Mapping[str, Any], config: EffectiveConfig) -> Optional[tuple[str, str]]:
    """The cxx the user set, kept (their choice: a clang++, say) when the probe found the
    compiler it names, with what is known of it; None for the default, an empty value, one
    that names nothing (LD426) or was not checked, and a non-clang++ on macOS."""
    setting = config.get("cxx")
    value = setting.value if setting is not None and not setting.is_default else None
    if not value or not value.strip():
        return None
    if machine.family(record) == "darwin" and "clang++" not in value:
        return None  # Theano 1.0.5 warns that only clang++ works on macOS (configdefaults.py warn_cxx)
    probed = configured_entry(record, value)
    if probed is None or probed.get("found") is not True:
        return None  # not checked (an older record, a relative path) or not there (LD426): decided as for none
    path = probed.get("path", value)
    if probed.get("ok") is True:
        return value, "%s runs" % path
    # there, but -v failed or timed out: the user's choice is not undone on that alone
    return value, "%s is there, though it did not answer -v" % path


def _as_written(record: Mapping[str, Any], lines: list[Line], config: EffectiveConfig,
                target: Optional[str]) -> dict[str, Any]:
    """The record as it would be once ``lines`` are written to ``target`` (the rest of
    Theano's config, THEANO_FLAGS included, as it is)."""
    from legacydoc.theanorc.discovery import write_target

    text = render(lines, config, target)
    # what was derived from the old config does not hold for the new one
    record = {k: v for k, v in record.items() if k not in ("config", "derived")}
    if target is None:
        chosen = write_target(record)
        target = chosen.path if chosen else None
    if target is None:
        return record  # where it would go is not known: judged on the record as it is
    files = [dict(f) for f in get(record, "theano_config.files", []) or [] if isinstance(f, Mapping)]
    written = {"path": target, "from": "default", "exists": True, "readable": True, "kind": "file",
               "encoding": "utf-8", "text": text}
    for i, fact in enumerate(files):
        if target is not None and target in (fact.get("path"), fact.get("abspath")):
            files[i] = {**{k: v for k, v in fact.items() if not k.startswith("text")}, **written, "path": fact["path"]}
            break
    else:
        files.append(written)
    theano_config = dict(get(record, "theano_config", {}) or {})
    theano_config["files"] = files
    return {**record, "theano_config": theano_config}


def _with_narrowing_flag(record: Mapping[str, Any], lines: list[Line], config: EffectiveConfig,
                         target: Optional[str], notes: list[str]) -> list[Line]:
    """A clang that compiles C++11 or later rejects Theano's loop code (LD425): give it
    -Wno-c++11-narrowing, keeping the cxxflags Theano would otherwise get. Decided on the
    config as written (its cxx may not be the old file's)."""
    from legacydoc.theanorc.findings import derive_config_facts

    written = _as_written(record, lines, config, target)
    written.update(derive_config_facts(written))  # the config model once, for both questions
    facts = narrowing_facts(written)
    if not facts.get("rejects_narrowing"):
        return lines
    why = ("%s compiles C++11 or later (%s) and then rejects a narrowing in Theano's loop code; "
           "this flag lets it through" % (facts["narrowing_compiler"], facts["narrowing_why"]))
    lines = [line for line in lines if line.name != "gcc.cxxflags"] + [Line("gcc.cxxflags", facts["cxxflags_fix"], why)]
    if narrowing(_as_written(record, lines, config, target)).rejects:
        setting = effective_setting(written, "gcc.cxxflags") or {}
        notes.append("gcc.cxxflags is set in %s, which overrides this file: add %s there too"
                     % (setting.get("file") or setting.get("source") or "another place", FLAG))
    return lines


def render(lines: list[Line], config: EffectiveConfig, target: Optional[str]) -> str:
    schema = config.schema
    out = [
        "# Theano configuration for this machine, written by legacydoc %s (legacydoc theanorc --write)" % __version__,
        "# for %s. The comment above each option says why it is there." % config.release.label.replace(
            " (not installed)", " 1.0.5"),
        "# Comments must stay on lines of their own: on Python 3 a comment after a value is part of it.",
    ]
    sections: dict[str, list[Line]] = {}
    for line in lines:
        # generate() keeps only the lines whose option this schema has
        sections.setdefault(schema.by_canonical[line.name]["section"], []).append(line)
    order = ["global"] + [s for s in sections if s != "global"]
    for section in order:
        if section not in sections:
            continue
        out.append("")
        out.append("[%s]" % section)
        for line in sections[section]:
            option = schema.by_canonical[line.name]["option"]
            for why_line in _wrap(line.why):
                out.append("# " + why_line)
            out.append(("%s = %s" % (option, line.value)).rstrip())
    return "\n".join(out) + "\n"


def _wrap(text: str, width: int = 88) -> list[str]:
    words, lines, current = text.split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = "%s %s" % (current, word) if current else word
    if current:
        lines.append(current)
    return lines or [""]
