"""Regenerate rules/knowledge/wheels.toml from PyPI's JSON API: which CPython versions have a
binary wheel of each numpy, scipy and h5py release, per OS, and what the pure-Python packages of
the Theano world declare.

    python tools/wheel_table.py            # writes rules/knowledge/wheels.toml
    python tools/wheel_table.py --check    # exit 1 if the file differs from PyPI now

Only final releases; only 64-bit x86 (manylinux/linux x86_64, win_amd64) and any macOS
wheel. The planner reads the table offline: it never asks an index at run time.
"""

from __future__ import annotations

import datetime
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any, Iterable, Iterator

import tomli_w
from packaging.requirements import Requirement
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

OUT = Path(__file__).resolve().parent.parent / "rules" / "knowledge" / "wheels.toml"
API = "https://pypi.org/pypi/%s/json"
# Binary packages: wheels decide where they install. Oldest release worth listing each.
BINARY = {"numpy": "1.9.0", "scipy": "0.16.0", "h5py": "2.5.0"}
# Pure-Python packages: what matters is that they exist and what Python they declare.
PURE = ("Theano", "Theano-PyMC", "Lasagne", "Keras", "pymc3")


def fetch(name: str) -> dict[str, Any]:
    with urllib.request.urlopen(API % name, timeout=60) as response:  # noqa: S310 (fixed https URL)
        return json.load(response)


def numpy_requirement(files: list[dict[str, Any]]) -> str:
    """The numpy range a release declares (Requires-Dist of its first wheel, read from the
    index's PEP 658 metadata file), '' when it declares none or has no wheel."""
    wheel = next((f for f in files if f["packagetype"] == "bdist_wheel"), None)
    if wheel is None:
        return ""
    try:
        with urllib.request.urlopen(wheel["url"] + ".metadata", timeout=60) as response:  # noqa: S310
            text = response.read().decode("utf-8", "replace")
    except OSError:
        return ""
    for line in text.splitlines():
        if line.lower().startswith("requires-dist:"):
            requirement = Requirement(line.split(":", 1)[1].strip())
            if requirement.name.lower() == "numpy" and not requirement.marker:
                return str(requirement.specifier)
    return ""


def _os_of(platform: str) -> str:
    if platform.startswith("win_amd64"):
        return "windows"
    if "linux" in platform and platform.endswith("x86_64"):
        return "linux"
    if platform.startswith("macosx"):
        return "macos"
    return ""


def _cpython(interpreter: str) -> str:
    """'cp38' -> '3.8', 'cp310' -> '3.10', 'cp27' -> '2.7'; '' for others (pypy, py3)."""
    if not interpreter.startswith("cp") or len(interpreter) < 4 or not interpreter[2:].isdigit():
        return ""
    digits = interpreter[2:]
    return "%s.%s" % (digits[0], digits[1:])


def _sort(versions: Iterable[str]) -> list[str]:
    return sorted(set(versions), key=lambda v: tuple(int(p) for p in v.split(".")))


def _releases(data: dict[str, Any]) -> Iterator[tuple[str, Version, list[dict[str, Any]]]]:
    """(version, parsed, files not yanked) of every release with a PEP 440 version."""
    for version, files in data["releases"].items():
        try:
            parsed = Version(version)
        except InvalidVersion:
            continue
        yield version, parsed, [f for f in files if not f.get("yanked")]


def binary_rows(name: str, data: dict[str, Any], oldest: str) -> list[dict[str, Any]]:
    rows = []
    for version, parsed, files in _releases(data):
        if parsed.is_prerelease or parsed.is_devrelease or parsed < Version(oldest) or not files:
            continue
        by_os: dict[str, set[str]] = {"linux": set(), "windows": set(), "macos": set()}
        requires = ""
        sdist = False
        for item in files:
            requires = requires or (item.get("requires_python") or "")
            if item["packagetype"] == "sdist":
                sdist = True
                continue
            try:
                _n, _v, _b, tags = parse_wheel_filename(item["filename"])
            except InvalidWheelFilename:
                continue
            for tag in tags:
                os_name, python = _os_of(tag.platform), _cpython(tag.interpreter)
                if os_name and python:
                    by_os[os_name].add(python)
        uploaded = min((f["upload_time"][:10] for f in files), default="")
        row: dict[str, Any] = {"package": name, "version": version, "date": uploaded, "sdist": sdist}
        if requires:
            row["requires_python"] = requires
        for os_name, pythons in by_os.items():
            row[os_name] = _sort(pythons)
        if name != "numpy":
            needs = numpy_requirement(files)
            if needs:
                row["numpy_requires"] = needs
        rows.append(row)
    return sorted(rows, key=lambda r: Version(r["version"]))


def pure_rows(name: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for version, parsed, live in _releases(data):
        if parsed.is_devrelease or not live:
            continue
        requires = next((f.get("requires_python") for f in live if f.get("requires_python")), "") or ""
        kinds = sorted({"wheel" if f["packagetype"] == "bdist_wheel" else "sdist" for f in live
                        if f["packagetype"] in ("bdist_wheel", "sdist")})
        row: dict[str, Any] = {"package": name, "version": version,
                               "date": min(f["upload_time"][:10] for f in live), "files": kinds}
        if requires:
            row["requires_python"] = requires
        rows.append(row)
    return sorted(rows, key=lambda r: Version(r["version"]))


def build(today: str) -> dict[str, Any]:
    table: dict[str, Any] = {
        "source": "PyPI JSON API (%s), fetched %s by tools/wheel_table.py; conda-forge pygpu builds read from "
                  "github.com/conda-forge/pygpu-feedstock .ci_support/ (commits named per row)"
                  % (API % "<name>", today),
        "generated": today,
        "note": "A wheel row lists, per OS, the CPython versions with a binary wheel (x86_64/amd64; any macOS "
                "arch). Older Pythons may still build from the sdist, which needs a compiler and is not planned.",
    }
    table["wheel"] = [row for name, oldest in BINARY.items() for row in binary_rows(name, fetch(name), oldest)]
    table["pure"] = [row for name in PURE for row in pure_rows(name, fetch(name))]
    table["conda"] = CONDA_ROWS
    return table


# Hand-read from the feedstock (conda's index is not reachable where this runs); cite commits.
CONDA_ROWS: list[dict[str, Any]] = [
    {"package": "pygpu", "version": "0.7.6", "channel": "conda-forge", "python": ["3.7", "3.8", "3.9", "3.10"],
     "os": ["linux", "windows", "macos"], "numpy_build": {"3.7": "1.18", "3.8": "1.18", "3.9": "1.19", "3.10": "1.21"},
     "source": "conda-forge/pygpu-feedstock 7007a4c1c464341d8778690794b782667b974dc2 recipe/meta.yaml (0.7.6, "
               "build 1003, run: pin_compatible('numpy'), libgpuarray ==0.7.6) and .ci_support/*_64_numpy*python3.*",
     "confidence": "C"},
    {"package": "pygpu", "version": "0.7.6", "channel": "conda-forge", "python": ["3.6"],
     "os": ["linux", "windows", "macos"], "numpy_build": {"3.6": "1.16"},
     "source": "conda-forge/pygpu-feedstock d5c8374f621c6eb65b0955c419709a32d105c29e (2021-11-05) removed the "
               "python3.6 variants; builds made before stay on the channel",
     "confidence": "C"},
    {"package": "pygpu", "version": "0.7.6", "channel": "conda-forge", "python": ["2.7"],
     "os": ["linux", "windows", "macos"], "numpy_build": {"2.7": "1.14"},
     "source": "conda-forge/pygpu-feedstock e68ae72b0dc4046462e6546093f9731a253ed7bc (2020-06-24) renamed the "
               "python2.7 variants to python3.6; builds made before stay on the channel",
     "confidence": "C"},
]


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ %s }" % ", ".join("%s = %s" % (json.dumps(k), _value(v)) for k, v in value.items())
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[%s]" % ", ".join(_value(v) for v in value)
    return json.dumps(value)  # ASCII strings: a JSON string is a TOML basic string


def dumps(table: dict[str, Any]) -> str:
    """One line per field, arrays inline: a row stays readable and a diff stays small."""
    plain = {k: v for k, v in table.items() if not isinstance(v, list)}
    out = tomli_w.dumps(plain)
    for key, rows in table.items():
        if isinstance(rows, list):
            for row in rows:
                out += "\n[[%s]]\n" % key + "".join("%s = %s\n" % (k, _value(v)) for k, v in row.items())
    return out


def main(argv: list[str]) -> int:
    today = datetime.date.today().isoformat()
    table = build(today)
    header = ("# Generated by tools/wheel_table.py on %s; do not edit by hand (rerun the script).\n"
              "# [[wheel]] binary wheels of numpy/scipy/h5py per OS (what the planner checks); [[pure]] the\n"
              "# Theano-world pure-Python releases and the Python they declare (for reference);\n"
              "# [[conda]] conda builds the planner may use (pygpu is not on PyPI).\n\n" % today)
    text = header + dumps(table)
    if "--check" in argv:
        old = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        strip = lambda t: [ln for ln in t.splitlines() if "generated" not in ln and "fetched" not in ln]  # noqa: E731
        return 0 if strip(old) == strip(text) else 1
    OUT.write_text(text, encoding="utf-8")
    print("wrote %s: %d wheel rows, %d pure rows" % (OUT, len(table["wheel"]), len(table["pure"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
