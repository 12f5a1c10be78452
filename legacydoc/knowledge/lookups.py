"""Small pure lookups over the loaded knowledge tables, for the derive layer. Lookups never
raise on odd input (``None``, garbage strings, numbers): they answer ``None`` (or an empty
list) instead.

Versions: CUDA / cuDNN / Theano versions are compared with ``packaging``; driver versions
("451.67", "535.104.05") per numeric component. CUDA versions may be given as "10.2", as a
release id ("10.1.243", "11.4.1" = 11.4 Update 1) or as the V-number ``nvcc --version``
prints ("V11.0.221"); cuda_driver.toml maps the last two to a toolkit update.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, Optional, cast

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from legacydoc import locate
from legacydoc.factschema.kinds import is_int
from legacydoc.knowledge.schema import CC_RE, KnowledgeError, Table
from legacydoc.versions import parse_version

# Small parsers (never raise)

_NUMERIC = re.compile(r"^[0-9]{1,9}(?:\.[0-9]{1,9})*$")  # longer numbers are garbage, not versions
_CUDA_TEXT = re.compile(r"^(?:v|release\s+)?([0-9]{1,9})\.([0-9]{1,9})(?:\.([0-9]{1,9}))?$", re.IGNORECASE)


def _text(value: Any) -> Optional[str]:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value.strip()
    return None


def _same_fact(key: str, one: Any, other: Any) -> bool:
    """Two theano_eras rows say the same: equal, or (pygpu) the same version range written
    two ways (">=0.7.0,<0.8" and ">=0.7.0,<0.8.0")."""
    if one == other:
        return True
    if key == "pygpu" and isinstance(one, str) and isinstance(other, str):
        from legacydoc.versions import parse_specifier

        first, second = parse_specifier(one), parse_specifier(other)
        return first is not None and first == second
    return False


def driver_key(value: Any) -> Optional[tuple[int, ...]]:
    """A driver version as a tuple of ints: '535.104.05' -> (535, 104, 5). Also accepts the
    Windows driver-store form '27.21.14.5167' (-> 451.67). None for anything else."""
    text = _text(value)
    if not text or not _NUMERIC.match(text):
        return None
    parts = text.split(".")
    if len(parts) == 4 and 6 <= int(parts[0]) < 100 and len(parts[3]) <= 4:
        digits = (parts[2] + parts[3].zfill(4))[-5:]
        return (int(digits[:3]), int(digits[3:]))
    return tuple(int(p) for p in parts)


def _version(value: Any) -> Optional[Version]:
    """A PEP 440 version (legacydoc.versions has the one tolerant parser)."""
    return parse_version(_text(value) if not isinstance(value, float) else value)


def _spec(value: Any) -> Optional[SpecifierSet]:
    if not isinstance(value, str):
        return None
    try:
        return SpecifierSet(value)
    except InvalidSpecifier:
        return None


def _in_spec(version: Optional[Version], spec: Any) -> bool:
    parsed = _spec(spec)
    return version is not None and parsed is not None and parsed.contains(version, prereleases=True)


# The versions a failure row of theano_releases.toml may be conditioned on.
FAILURE_CONDITIONS = ("python", "numpy", "cudnn_macro")


def _spec_verdict(version: Optional[Version], spec: Any) -> Optional[bool]:
    """Inside the specifier: True or False, None when the version is not known."""
    return None if version is None else _in_spec(version, spec)


def _normalize_dist(name: Any) -> Optional[str]:
    from legacydoc.probes.target_script import normalise

    text = _text(name)
    return normalise(text) if text else None


def _os(value: Any) -> Optional[str]:
    text = _text(value)
    if not text:
        return None
    text = text.lower()
    if text in ("linux", "linux2", "posix"):
        return "linux"
    if text in ("windows", "win32", "win", "nt", "cygwin"):
        return "windows"
    return None


_INF = 10**9


def _bound(text: Any, upper: bool) -> Optional[tuple[int, int, int]]:
    """'11.4' -> (11, 4, 0) as a lower bound, (11, 4, inf) as an upper one; '11.4.1' ->
    (11, 4, 1) (update index)."""
    if not isinstance(text, str):
        return None
    match = _CUDA_TEXT.match(text.strip())
    if not match:
        return None
    major, minor, third = match.groups()
    update = int(third) if third is not None else (_INF if upper else 0)
    return (int(major), int(minor), update)


def _in_bounds(key: tuple[int, int, int], row: Mapping[str, Any]) -> bool:
    low = _bound(row.get("from"), upper=False)
    high = _bound(row.get("to"), upper=True) if row.get("to") is not None else (_INF, _INF, _INF)
    return low is not None and high is not None and low <= key <= high


# --------------------------------------------------------------------------------------
# Lookups


class Knowledge:
    """Lookups over a set of loaded tables. ``default()`` wraps the built-in ones."""

    def __init__(self, loaded: Mapping[str, Table]) -> None:
        self._tables = dict(loaded)
        self._regex_cache: dict[str, dict[int, re.Pattern[str]]] = {}

    def table(self, name: str) -> Table:
        try:
            return self._tables[name]
        except KeyError:
            raise KnowledgeError("%s: no knowledge table '%s.toml'" % (locate.knowledge_dir(), name)) from None

    def _rows(self, table: str, key: str) -> list[dict[str, Any]]:
        return self.table(table).rows(key)

    def _first_match(self, table: str, key: str, text: str) -> Optional[dict[str, Any]]:
        """The first row whose pattern matches ``text``. Patterns are compiled as the search
        reaches them: compiling all 70 GPU-name patterns up front took 4 ms of a check."""
        compiled = self._regex_cache.setdefault(table + "." + key, {})
        for index, row in enumerate(self._rows(table, key)):
            pattern = compiled.get(index)
            if pattern is None:
                pattern = compiled[index] = re.compile(row["pattern"], re.IGNORECASE)
            if pattern.search(text):
                return row
        return None

    # ---- CUDA releases and drivers ----------------------------------------------------

    def _releases(self) -> list[dict[str, Any]]:
        return self._rows("cuda_driver", "release")

    def _resolve_cuda(self, value: Any) -> Optional[tuple[int, int, Optional[dict[str, Any]]]]:
        """(major, minor, release row or None when only major.minor is known)."""
        if is_int(value) and value >= 1000:
            return (value // 1000, (value // 10) % 10, None)  # cuDriverGetVersion encoding
        text = _text(value)
        if not text:
            return None
        match = _CUDA_TEXT.match(text)
        if not match:
            return None
        major, minor = int(match.group(1)), int(match.group(2))
        if match.group(3) is None:
            return (major, minor, None)
        third = int(match.group(3))
        same = [r for r in self._releases() if r.get("cuda") == "%d.%d" % (major, minor)]
        wanted = (major, minor, third)
        for row in same:
            for fname in ("nvcc", "release"):
                key = driver_key(row.get(fname))
                if key == wanted:
                    return (major, minor, row)
        # An nvcc build number we do not list: the latest release whose nvcc is not newer.
        def nvcc_key(r: dict[str, Any]) -> tuple[int, ...]:
            return driver_key(r.get("nvcc")) or ()

        below = [r for r in same if nvcc_key(r) and nvcc_key(r) <= wanted]
        if below:
            return (major, minor, max(below, key=nvcc_key))
        return (major, minor, None)

    def is_prerelease_build(self, value: Any) -> bool:
        """An nvcc build ("8.0.26", "V8.0.26") older than every nvcc listed for its
        major.minor: a pre-release (8.0 RC's nvcc came before 8.0 GA1's 8.0.44) whose
        minimum driver the table does not give, so it is not read as the GA. False for a
        plain major.minor, or when no nvcc of that release is listed."""
        match = _CUDA_TEXT.match(_text(value) or "") if not is_int(value) else None
        if match is None or match.group(3) is None:
            return False
        wanted = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
        listed = [key for key in (driver_key(r.get("nvcc")) for r in self._releases()
                                  if r.get("cuda") == "%d.%d" % wanted[:2]) if key]
        return bool(listed) and all(wanted < key for key in listed)

    def _cuda_key(self, value: Any) -> Optional[tuple[int, int, int]]:
        resolved = self._resolve_cuda(value)
        if resolved is None:
            return None
        major, minor, row = resolved
        update = row.get("update", 0) if row is not None else 0
        return (major, minor, update if isinstance(update, int) else 0)

    def cuda_release(self, cuda: Any) -> Optional[dict[str, Any]]:
        """The cuda_driver.toml row for a CUDA version: the exact release for a release id
        or nvcc V-number, the GA row for plain major.minor."""
        resolved = self._resolve_cuda(cuda)
        if resolved is None:
            return None
        major, minor, row = resolved
        if row is not None:
            return dict(row)
        if self.is_prerelease_build(cuda):
            return None
        same = [
            r for r in self._releases()
            if r.get("cuda") == "%d.%d" % (major, minor) and not r.get("prerelease")
        ]
        if not same:
            return None
        ga = min(same, key=lambda r: r.get("update", 0))
        return dict(ga)

    def min_driver(self, cuda: Any, os: Any) -> Optional[str]:
        """Minimum driver NVIDIA lists for this CUDA release on ``os`` ('linux'/'windows').
        For plain major.minor the GA release's minimum. None if unknown or 'N/A'."""
        os_name = _os(os)
        row = self.cuda_release(cuda)
        if os_name is None or row is None:
            return None
        value = row.get(os_name)
        return value if isinstance(value, str) else None

    def driver_max_cuda(self, driver: Any, os: Any, minor_compat: bool = True) -> Optional[str]:
        """Newest CUDA (major.minor) whose minimum this driver meets. With ``minor_compat``
        (CUDA 11+), every release of a major whose compatibility floor the driver meets
        counts too. ``minor_compat=False`` gives the driver's native level (what
        nvidia-smi's 'CUDA Version' shows)."""
        os_name = _os(os)
        have = driver_key(driver)
        if os_name is None or have is None:
            return None
        best: Optional[tuple[int, int]] = None

        def consider(cuda: Any) -> None:
            nonlocal best
            bound = _bound(cuda, upper=False)
            if bound is not None and (best is None or bound[:2] > best):
                best = bound[:2]

        releases = [r for r in self._releases() if not r.get("prerelease")]
        for row in releases:
            need = driver_key(row.get(os_name))
            if need is not None and have >= need:
                consider(row.get("cuda"))
        if minor_compat:
            for compat in self._rows("cuda_driver", "minor_compat"):
                floor = driver_key(compat.get(os_name))
                if floor is not None and have >= floor:
                    for row in releases:
                        if str(row.get("cuda", "")).split(".")[0] == str(compat.get("major")):
                            consider(row.get("cuda"))
        return "%d.%d" % best if best else None

    # ---- GPUs ---------------------------------------------------------------------------

    def gpu_rule(self, gpu_name: Any) -> Optional[dict[str, Any]]:
        """The first gpu_compute_capability rule matching the name (has 'cc', maybe 'also')."""
        if not isinstance(gpu_name, str) or not gpu_name.strip():
            return None
        row = self._first_match("gpu_compute_capability", "rule", gpu_name)
        return dict(row) if row is not None else None

    def compute_capability(self, gpu_name: Any) -> Optional[str]:
        row = self.gpu_rule(gpu_name)
        return row["cc"] if row else None

    def numpy_series_for_c_api(self, c_api: Any) -> list[str]:
        """The numpy release series ("1.10", "1.11", ...) whose C API version is ``c_api``
        (an int, or the hex numpy prints: "0xa", "a"); [] when unknown."""
        number = c_api if isinstance(c_api, int) and not isinstance(c_api, bool) else None
        text = _text(c_api)
        if number is None and text:
            digits = text.lower()[2:] if text.lower().startswith("0x") else text.lower()
            if 0 < len(digits) <= 8 and all(c in "0123456789abcdef" for c in digits):
                number = int(digits, 16)
        for row in self._rows("numpy_c_api", "series") if number is not None else ():
            if row.get("c_api") == number:
                return [str(s) for s in row.get("numpy", [])]
        return []

    def gpu_peak_tflops(self, gpu_name: Any) -> Optional[float]:
        """Peak FP32 TFLOPS at reference boost clock, per device."""
        if not isinstance(gpu_name, str) or not gpu_name.strip():
            return None
        row = self._first_match("gpu_peak", "gpu", gpu_name)
        return float(row["tflops"]) if row is not None else None

    def nvidia_smi_failure(self, output: Any, rc: Any = None) -> Optional[str]:
        """The failure-catalogue id whose message regex matches nvidia-smi's output; when
        no message matches, the catalogue entry whose exit code is rc (if only one has it)."""
        text = output if isinstance(output, str) else ""
        for row in self._rows("nvidia_smi", "failure"):
            if re.search(row["regex"], text):
                return str(row["id"])
        if is_int(rc):
            # Only exit codes seen with that message (not inferred ones) identify a failure.
            by_rc = [
                row
                for row in self._rows("nvidia_smi", "failure")
                if row.get("rc") == rc and row.get("rc_confidence", "U") != "U"
            ]
            if len(by_rc) == 1:
                return str(by_rc[0]["id"])
        return None

    # ---- Architectures --------------------------------------------------------------------

    def arch_range(self, cuda: Any) -> Optional[tuple[int, int]]:
        """(lowest SM, highest SM) this toolkit can compile for, e.g. 10.2 -> (30, 75)."""
        key = self._cuda_key(cuda)
        if key is None:
            return None
        for row in self._rows("cuda_arch", "toolkit"):
            if _in_bounds(key, row):
                return (int(row["lowest_sm"]), int(row["highest_sm"]))
        return None

    def sm_supported(self, cuda: Any, sm: Any) -> Optional[bool]:
        """Can this toolkit compile for this SM (int 61, or '6.1' / 'sm_61')? None if unknown."""
        key = self._cuda_key(cuda)
        sm_number = _sm_number(sm)
        if key is None or sm_number is None:
            return None
        rows = [r for r in self._rows("cuda_arch", "sm") if r.get("sm") == sm_number and not r.get("variant")]
        if not rows:
            return None
        row = rows[0]
        return _in_bounds(key, {"from": row.get("first"), "to": row.get("last")})

    # ---- Host compilers ---------------------------------------------------------------------

    def _compiler_value(self, key: str, fname: str, cuda: Any) -> Optional[int]:
        ckey = self._cuda_key(cuda)
        if ckey is None:
            return None
        for row in self._rows("host_compilers", key):
            if _in_bounds(ckey, row):
                return int(row[fname])
        return None

    def max_gcc(self, cuda: Any) -> Optional[int]:
        """Newest GCC major nvcc of this CUDA accepts (10.2 -> 8)."""
        return self._compiler_value("gcc_max", "max", cuda)

    def cuda_bounds_for_gcc(self, gcc_major: int) -> tuple[Optional[str], Optional[str]]:
        """(the newest CUDA whose nvcc rejects this GCC major, the oldest that accepts it),
        from the gcc_max rows (oldest first, each accepting at least what the one before
        did); None where the table has no such release."""
        rejecting = accepting = None
        for row in self._rows("host_compilers", "gcc_max"):
            if int(row["max"]) < gcc_major:
                rejecting = str(row.get("to") or row["from"])
            elif accepting is None:
                accepting = str(row["from"])
        return rejecting, accepting

    def min_gcc(self, cuda: Any) -> Optional[int]:
        return self._compiler_value("gcc_min", "min", cuda)

    def max_clang(self, cuda: Any) -> Optional[int]:
        return self._compiler_value("clang_max", "max", cuda)

    def msvc_row(self, cuda: Any) -> Optional[dict[str, Any]]:
        ckey = self._cuda_key(cuda)
        if ckey is None:
            return None
        for row in self._rows("host_compilers", "msvc"):
            if _in_bounds(ckey, row):
                return dict(row)
        return None

    def msvc_range(self, cuda: Any) -> Optional[tuple[int, int]]:
        """Accepted _MSC_VER range (inclusive), e.g. 11.2 -> (1910, 1929)."""
        row = self.msvc_row(cuda)
        return (int(row["msc_ver_min"]), int(row["msc_ver_max"])) if row else None

    def msc_ver_name(self, msc_ver: Any) -> Optional[str]:
        number = _int(msc_ver)
        if number is None:
            return None
        for row in self._rows("host_compilers", "msc_ver"):
            if row["from"] <= number <= row["to"]:
                return str(row["visual_studio"])
        return None

    def stl1002_requires(self, msc_ver: Any) -> Optional[str]:
        """The oldest CUDA the STL of this MSVC accepts (STL1002), or None if no such check
        is known for it. '10.1.2' means 10.1 Update 2."""
        number = _int(msc_ver)
        if number is None:
            return None
        best = None
        for row in self._rows("host_compilers", "stl1002"):
            if row["msc_ver_from"] <= number and (best is None or row["msc_ver_from"] > best["msc_ver_from"]):
                best = row
        return str(best["requires_cuda"]) if best else None

    # ---- cuDNN ---------------------------------------------------------------------------

    def cudnn_version_from_macro(self, value: Any) -> Optional[str]:
        """CUDNN_VERSION / cudnnGetVersion() -> 'major.minor.patch' (7605 -> '7.6.5',
        90300 -> '9.3.0')."""
        number = _int(value)
        if number is None or number <= 0:
            return None
        macros = sorted(self._rows("cudnn", "macro"), key=lambda r: -r["major_factor"])
        for row in macros:
            major_factor, minor_factor = row["major_factor"], row["minor_factor"]
            major = number // major_factor
            if row["major_from"] <= major <= row["major_to"]:
                rest = number % major_factor
                return "%d.%d.%d" % (major, rest // minor_factor, rest % minor_factor)
        return None

    def cudnn_cuda_builds(self, cudnn_version: Any) -> list[str]:
        """CUDA versions NVIDIA built (or lists support for) this cuDNN release. Accepts
        '7.6.5' or the macro form 7605 / '90300'. Empty list when unknown."""
        text = _text(cudnn_version)
        if text and _digits(text) and int(text) >= 1000:
            text = self.cudnn_version_from_macro(int(text))
        version = _version(text) if text else None
        if version is None:
            return []
        for row in self._rows("cudnn", "build"):
            low, high = _version(row["from"]), _version(row["to"])
            if low is not None and high is not None and low <= version <= high:
                return list(row["cuda"])
        return []

    # ---- Theano -------------------------------------------------------------------------------

    def theano_release(self, dist: Any, version: Any) -> Optional[dict[str, Any]]:
        """The theano_releases row for this distribution ('Theano', 'Theano-PyMC', any
        spelling) and version, plus 'failures': the ids of known failures for it (whatever
        Python/numpy). None if unknown."""
        wanted, parsed = _normalize_dist(dist), _version(version)
        if wanted is None or parsed is None:
            return None
        for row in self._rows("theano_releases", "release"):
            if _normalize_dist(row["dist"]) != wanted:
                continue
            # "from" and "to" are required versions: the table's schema checked them at load
            if cast(Version, _version(row["from"])) <= parsed <= cast(Version, _version(row["to"])):
                result = dict(row)
                result["failures"] = [f["id"] for f in self._failures_for(wanted, parsed)]
                return result
        return None

    def theano_era(self, dist: Any, version: Any) -> Optional[dict[str, Any]]:
        """The theano_eras row of this release: the newest row of the same package at or
        below the version (a 0.9 row speaks for 0.9.x), None for an unknown package or a
        version older than every row."""
        wanted, parsed = _normalize_dist(dist), _version(version)
        if wanted is None or parsed is None:
            return None
        best: Optional[tuple[Version, dict[str, Any]]] = None
        after: Optional[tuple[Version, dict[str, Any]]] = None
        for row in self._rows("theano_eras", "release"):
            row_version = _version(row["version"])
            if _normalize_dist(row["package"]) != wanted or row_version is None:
                continue
            if row_version > parsed:
                if after is None or row_version < after[0]:
                    after = (row_version, row)
            elif best is None or row_version > best[0]:
                best = (row_version, row)
        if best is None:
            return None
        if parsed.is_prerelease and best[0] != parsed and after is not None:
            # A development build or release candidate between two rows (0.9.0rc2, between
            # 0.8.2 and 0.9.0) may hold either one's code: only what both rows say is known;
            # the rest is None.
            return {key: value if _same_fact(key, value, after[1].get(key)) else None
                    for key, value in best[1].items()}
        return dict(best[1])

    def theano_eras(self, dist: Any) -> list[dict[str, Any]]:
        """Every theano_eras row of one package (Theano, Theano-PyMC), oldest first."""
        wanted = _normalize_dist(dist)
        rows = [(_version(r["version"]), dict(r)) for r in self._rows("theano_eras", "release")
                if wanted is not None and _normalize_dist(r["package"]) == wanted]
        known = [(parsed, row) for parsed, row in rows if parsed is not None]
        return [row for _parsed, row in sorted(known, key=lambda pair: pair[0])]

    def libgpuarray_releases(self) -> list[dict[str, Any]]:
        """Every libgpuarray release row, oldest first."""
        return [dict(r) for r in self._rows("libgpuarray_releases", "release")]

    def libgpuarray_release(self, version: Any) -> Optional[dict[str, Any]]:
        """The libgpuarray_releases row for this pygpu/libgpuarray version (local and dev
        parts ignored: 0.7.2+23.gace45c6 is read as 0.7.2)."""
        parsed = _version(version)
        if parsed is None:
            return None
        base = Version(parsed.base_version)
        for row in self._rows("libgpuarray_releases", "release"):
            if _version(row["version"]) == base:
                return dict(row)
        return None

    def _failures_for(self, dist: str, version: Version) -> list[dict[str, Any]]:
        found = []
        for row in self._rows("theano_releases", "failure"):
            dists = {_normalize_dist(d) for d in row["dists"]}
            if dist in dists and _in_spec(version, row["applies"]):
                found.append(dict(row))
        return found

    def _failure_answers(
        self, dist: Any, version: Any, given: Mapping[str, Any], absent: Collection[str]
    ) -> Optional[list[tuple[dict[str, Any], Optional[list[Optional[bool]]]]]]:
        """Each failure row with the answers of its version conditions (None: the row is
        not about this dist/release); None when the release is unknown."""
        wanted, parsed = _normalize_dist(dist), _version(version)
        if wanted is None or parsed is None:
            return None
        versions = {name: _version(value) for name, value in given.items()}
        out: list[tuple[dict[str, Any], Optional[list[Optional[bool]]]]] = []
        for row in self._rows("theano_releases", "failure"):
            if wanted not in {_normalize_dist(d) for d in row["dists"]} or not _in_spec(parsed, row["applies"]):
                out.append((row, None))
                continue
            # a component known to be absent (no cuDNN) cannot be in any range
            out.append((row, [False if cond in absent else _spec_verdict(versions.get(cond), row[cond])
                              for cond in FAILURE_CONDITIONS if cond in row]))
        return out

    def theano_failure_verdicts(
        self,
        dist: Any,
        version: Any,
        python: Any = None,
        numpy: Any = None,
        cudnn_macro: Any = None,
        absent: Collection[str] = (),
    ) -> dict[str, bool]:
        """Failure id -> whether this dist/version hits it given the other versions; a
        failure whose deciding version (Python, numpy, cuDNN; ``absent`` names those known
        not to be installed) is not given is left out: unknown, not absent. So is one with
        no version condition at all (its condition is a setting, in words). Empty when the
        release is unknown."""
        rows = self._failure_answers(dist, version, {"python": python, "numpy": numpy,
                                                     "cudnn_macro": cudnn_macro}, absent)
        out: dict[str, bool] = {}
        for row, answers in rows or ():  # ids are unique (tests/test_knowledge_failures.py)
            if answers is None or False in answers:
                out[row["id"]] = False
            elif answers and None not in answers:
                out[row["id"]] = True
        return out

    def theano_failures(
        self,
        dist: Any,
        version: Any,
        python: Any = None,
        numpy: Any = None,
        cudnn_macro: Any = None,
    ) -> list[dict[str, Any]]:
        """Known failures that fire for this dist/version given the other versions. A
        failure conditioned on python/numpy/cudnn_macro only fires when that value is given
        and inside its specifier; one without such a condition is listed for the release."""
        rows = self._failure_answers(dist, version, {"python": python, "numpy": numpy,
                                                     "cudnn_macro": cudnn_macro}, ())
        return [dict(row) for row, answers in rows or () if answers is not None and all(answers)]



def _digits(text: Optional[str]) -> bool:
    return bool(text and len(text) <= 18 and text.isascii() and text.isdigit())


def _int(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = _text(value)
    return int(text) if text and _digits(text) else None


def _sm_number(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = _text(value)
    if not text:
        return None
    text = text.lower()
    if text.startswith(("sm_", "compute_")):
        text = text.split("_", 1)[1]
    if CC_RE.match(text):
        major, minor = text.split(".")
        return int(major) * 10 + int(minor)
    return int(text) if _digits(text) else None

