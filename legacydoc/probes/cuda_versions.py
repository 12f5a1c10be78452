"""What a CUDA toolkit says its version is: ``nvcc --version`` output, the toolkit's
``version.txt`` (CUDA <= 10.x) and ``version.json`` (CUDA >= 11). Pure parsers: text in,
facts out, never raising on any input."""

from __future__ import annotations

import json
import re
from typing import Any

# --------------------------------------------------------------------------------------
# Pure parsers
# --------------------------------------------------------------------------------------
_NVCC_FULL_RE = re.compile(r"release\s+(\d+)\.(\d+)\s*,\s*V(\d+)\.(\d+)\.(\d+)", re.IGNORECASE)
# Fallback for cut-off output: only trusted on the "Cuda compilation tools" line.
_NVCC_RELEASE_RE = re.compile(r"Cuda compilation tools\s*,\s*release\s+(\d+)\.(\d+)", re.IGNORECASE)
_NVCC_BUILT_ON_RE = re.compile(r"^[ \t]*Built on[ \t]+(\S+)", re.MULTILINE)
_NVCC_BUILD_RE = re.compile(r"^[ \t]*Build[ \t]+(\S+)", re.MULTILINE)
_NVCC_YEAR_RE = re.compile(r"_((?:19|20)\d\d)$")


def as_text(text: Any) -> str:
    if isinstance(text, bytes):
        return text.decode("utf-8", errors="replace")
    return text if isinstance(text, str) else ""


def parse_nvcc_version(text: str) -> dict[str, Any]:
    """``nvcc --version`` output -> {is_nvcc, release "10.2", major, minor, full "10.2.89",
    built_on, built_year, build}. Keys are absent when not seen. Never raises.

    Matches on the ``release X.Y, VX.Y.Z`` pattern, not on line positions: 8.0-10.2
    print four lines, 11.0+ five, and the date line differs between Linux
    (``..._PDT_2019``) and Windows (``..._Pacific_Daylight_Time_2019``).
    """
    try:
        text = as_text(text)
        out: dict[str, Any] = {
            "is_nvcc": "cuda compiler driver" in text.lower() or "cuda compilation tools" in text.lower()
        }
        match = _NVCC_FULL_RE.search(text)
        if match:
            major, minor = int(match.group(1)), int(match.group(2))
            out.update(
                release="%d.%d" % (major, minor),
                major=major,
                minor=minor,
                full="%s.%s.%s" % (match.group(3), match.group(4), match.group(5)),
            )
        else:
            match = _NVCC_RELEASE_RE.search(text)
            if match:
                major, minor = int(match.group(1)), int(match.group(2))
                out.update(release="%d.%d" % (major, minor), major=major, minor=minor)
        built = _NVCC_BUILT_ON_RE.search(text)
        if built:
            out["built_on"] = built.group(1)
            year = _NVCC_YEAR_RE.search(built.group(1))
            if year:
                out["built_year"] = int(year.group(1))
        build = _NVCC_BUILD_RE.search(text)
        if build:
            out["build"] = build.group(1)
        return out
    except Exception:  # a parser must never take the probe down
        return {}


_VERSION_TXT_RE = re.compile(r"CUDA\s+Version\s+(\d+)\.(\d+)(?:\.(\d+))?", re.IGNORECASE)


def parse_version_txt(text: str) -> dict[str, Any]:
    """``version.txt`` ("CUDA Version 10.0.130") -> {version "10.0", full "10.0.130"}."""
    try:
        match = _VERSION_TXT_RE.search(as_text(text))
        if not match:
            return {}
        out: dict[str, Any] = {"version": "%s.%s" % (int(match.group(1)), int(match.group(2)))}
        if match.group(3) is not None:
            out["full"] = "%s.%s.%s" % (int(match.group(1)), int(match.group(2)), int(match.group(3)))
        return out
    except Exception:
        return {}


_DOTTED_RE = re.compile(r"^\s*(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version_json(text: str) -> dict[str, Any]:
    """``version.json`` (CUDA 11+) -> {version "11.1", full, nvcc_version, cudart_version}.

    The toolkit version is ``cuda.version``; the per-component entries
    (``cuda_nvcc``, ``cuda_cudart``) are kept as well since a partial install may lack nvcc.
    """
    try:
        text = as_text(text).lstrip("\ufeff")
        data = json.loads(text)
        if not isinstance(data, dict):
            return {}
        out: dict[str, Any] = {}
        cuda = data.get("cuda")
        if isinstance(cuda, dict) and isinstance(cuda.get("version"), str):
            match = _DOTTED_RE.match(cuda["version"])
            if match:
                out["version"] = "%s.%s" % (int(match.group(1)), int(match.group(2)))
                out["full"] = cuda["version"].strip()
        for key, name in (("cuda_nvcc", "nvcc_version"), ("cuda_cudart", "cudart_version")):
            entry = data.get(key)
            if isinstance(entry, dict) and isinstance(entry.get("version"), str):
                out[name] = entry["version"].strip()
        return out
    except Exception:
        return {}
