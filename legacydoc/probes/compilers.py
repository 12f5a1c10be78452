"""The C/C++ compilers Theano and nvcc would use, and what each says about itself.

Theano 1.0.5 compiles its C code with the ``g++`` found on PATH (its ``cxx`` default,
resolved to a full path). On Windows, when that ``g++ -v`` fails, it tries
``<directory of python.exe>\\Library\\mingw-w64\\bin\\g++`` (conda's m2w64 toolchain);
on macOS it prefers ``clang++``. nvcc's host compiler is the first ``gcc`` on PATH on
Linux and the first ``cl.exe`` on PATH on Windows (unless ``-ccbin`` says otherwise).

Every ``g++`` on PATH and in the conda prefix is recorded, in search order, because a
second toolchain shadowing the first (a MinGW-w64 behind an MSYS2 or conda one, MSVC's
cl.exe next to g++) is a classic Windows failure. Facts only: nothing is judged here.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from typing import Any, Callable, Optional

from legacydoc.probes.context import ProbeContext
from legacydoc.probes.run import CommandResult

# Enough for any real PATH; each costs one `g++ -v`, and the facts must stay bounded.
MAX_GXX = 8
# What nvcc reads besides PATH when choosing a host compiler (recorded verbatim if set).
NVCC_HOST_ENV = ("NVCC_CCBIN", "CUDAHOSTCXX", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS")
_MAX_ENV_CHARS = 500


# --------------------------------------------------------------------------- parsers
def _lines(text: Any) -> list[str]:
    if not isinstance(text, str):
        return []
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _major(version: str) -> Optional[int]:
    match = re.match(r"(\d+)", version)
    return int(match.group(1)) if match else None


def bits_of_target(target: str) -> Optional[int]:
    """32 or 64 from a target triple's CPU part; None when it is not a known CPU."""
    arch = target.strip().lower().split("-", 1)[0]
    if target.strip().lower() == "mingw32":  # mingw.org's bare triple is 32-bit only
        return 32
    if re.fullmatch(
        r"x86_64|amd64|aarch64|arm64|ppc64(le)?|powerpc64(le)?|s390x|sparc64|sparcv9|mips64(el)?|riscv64|loongarch64|ia64",
        arch,
    ):
        return 64
    if re.fullmatch(r"i[3-7]86|x86|arm.*|mips(el)?|powerpc|ppc|s390|sparc|riscv32", arch):
        return 32
    return None


def _paren_groups(text: str) -> list[str]:
    """Top-level "(...)" groups in order (nested parentheses stay inside their group)."""
    groups: list[str] = []
    depth, start = 0, -1
    for i, char in enumerate(text):
        if char == "(":
            if depth == 0:
                start = i + 1
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                groups.append(text[start:i].strip())
    return groups


# MinGW-builds / WinLibs encode the build in the version string: x86_64-posix-seh-rev0,
# i686-win32-dwarf-rev0, MinGW-W64 x86_64-ucrt-posix-seh.
_BUILD_FLAVOUR = re.compile(
    r"(?<![\w-])(x86_64|i686)(?:-(?:ucrt|msvcrt))?-(posix|win32|mcf)-(seh|sjlj|dwarf)(?![\w])", re.IGNORECASE
)
# gcc's version line, also when gettext translated it: "gcc version 8.1.0 (...)",
# "gcc-Version 12.2.0 (...)", "gcc 版本 8.1.0 (...)".
_GCC_VERSION_LINE = re.compile(r"^gcc(?:[ \t-]+[^\d\s(]{1,20})?[ \t]+(\d+\.\d+(?:\.\d+)?)\b(.*)$")
_CLANG_VERSION_LINE = re.compile(r"^(?:(.{0,40}?)\s+)?(?:clang|LLVM) version (\d+(?:\.\d+)*)\s*(.*)$")
_THREAD_VALUES = r"(posix|win32|single|mcf|aix|dce|lynx|rtems|solaris|tpf|vxworks)"


def _configure_flag(text: str, flag: str) -> bool:
    return re.search(r"(?<!\S)%s(?![\w=-])" % re.escape(flag), text) is not None


def parse_gxx_v(text: str) -> dict[str, Any]:
    """``g++ -v`` / ``gcc -v`` output (stderr) -> version, target, threads, exceptions.

    Keys appear only when the text shows them: version ("8.1.0"), version_major,
    vendor (the parenthesised build string, e.g. "x86_64-posix-seh-rev0, Built by
    MinGW-W64 project"), version_line, target, bits, is_mingw, thread_model,
    exception_model (seh/sjlj/dwarf, MinGW only) with exception_model_source
    (vendor/configure/default), and is_clang/clang_version/clang_is_apple for a clang
    (Apple's g++ shim, or a clang++ set as cxx).
    """
    out: dict[str, Any] = {}
    try:
        _parse_gxx_v(text, out)
    except Exception:  # a parser must never take the probe down
        pass
    return out


def _parse_gxx_v(text: str, out: dict[str, Any]) -> None:
    lines = [line.strip() for line in _lines(text)]
    configure = ""
    for line in lines:
        if not line:
            continue
        if "version" not in out:
            match = _GCC_VERSION_LINE.match(line)
            if match:
                out["version"] = match.group(1)
                out["version_line"] = line[:300]
                rest = match.group(2).strip()
                # The build string is gcc's pkgversion: the first group that is not a
                # release marker ("20150623 (prerelease) (GCC)").
                for group in _paren_groups(rest):
                    if group.lower() not in ("prerelease", "experimental", "release"):
                        out["vendor"] = group[:200]
                        break
                continue
        if line.startswith("Target:") and "target" not in out:
            value = line.split(":", 1)[1].strip()
            if value:
                out["target"] = value
        elif line.startswith("Thread model:") and "thread_model" not in out:
            value = line.split(":", 1)[1].strip()
            if value:
                out["thread_model"] = value
        elif line.startswith("Configured with:") or "/configure " in line or line.startswith("configure "):
            configure = configure or line
        elif "thread_model" not in out and "=" not in line:
            # A translated "Thread model:" line ("线程模型：posix", "Thread-Modell: posix").
            match = re.match(r"^[^:：]{1,30}[:：]\s*%s$" % _THREAD_VALUES, line)
            if match:
                out["thread_model"] = match.group(1)
        if "clang_version" not in out:
            match = _CLANG_VERSION_LINE.match(line)
            if match and "gcc" not in line.lower():
                out["clang_version"] = match.group(2)
                # Apple's own clang says so on this line ("Apple clang", "Apple LLVM");
                # an LLVM, Homebrew, conda or distribution clang does not
                out["clang_is_apple"] = (match.group(1) or "").startswith("Apple")
    whole = configure or "\n".join(lines)

    if "target" not in out:
        match = re.search(r"(?<!\S)--target=(\S+)", whole)
        if match:
            out["target"] = match.group(1).strip("'\"")
        else:  # the LTO wrapper lives in .../gcc/<target>/<version>/lto-wrapper
            match = re.search(r"[/\\]gcc[/\\]([\w.+-]+-[\w.+-]+)[/\\]\d[^/\\]*[/\\]lto-wrapper", text)
            if match:
                out["target"] = match.group(1)
    if "thread_model" not in out:
        match = re.search(r"(?<!\S)--enable-threads=(\w+)", whole)
        if match:
            out["thread_model"] = match.group(1)
    if "vendor" not in out:
        match = re.search(r"--with-pkgversion=(?:'([^']*)'|\"([^\"]*)\"|(\S+))", whole)
        if match:
            out["vendor"] = next(g for g in match.groups() if g is not None)[:200]
    if "clang_version" in out and "version" not in out:
        out["is_clang"] = True  # macOS: g++ is Apple's clang driver

    if "version" in out:
        major = _major(out["version"])
        if major is not None:
            out["version_major"] = major
    target = out.get("target", "")
    if target:
        bits = bits_of_target(target)
        if bits:
            out["bits"] = bits
        out["is_mingw"] = "mingw" in target.lower()
    if out.get("is_mingw"):
        _exception_model(out, whole)


def _exception_model(out: dict[str, Any], configure: str) -> None:
    """seh/sjlj/dwarf of a MinGW g++: build string first, then configure, then GCC's default."""
    match = _BUILD_FLAVOUR.search(out.get("vendor", ""))
    if match:
        out["exception_model"] = match.group(3).lower()
        out["exception_model_source"] = "vendor"
        return
    is_64 = out.get("bits") == 64
    if _configure_flag(configure, "--enable-sjlj-exceptions"):
        model = "sjlj"
    elif _configure_flag(configure, "--with-dwarf2"):
        model = "dwarf"
    elif _configure_flag(configure, "--disable-sjlj-exceptions"):
        model = "seh" if is_64 else "dwarf"
    else:
        model = ""
    if model:
        out["exception_model"] = model
        out["exception_model_source"] = "configure"
        return
    # GCC >= 4.8 defaults to SEH on x86_64-w64-mingw32 (TDM64, MSYS2/conda builds say nothing).
    version = out.get("version", "")
    parts = [int(p) for p in re.findall(r"\d+", version)[:2]]
    if is_64 and len(parts) == 2 and tuple(parts) >= (4, 8):
        out["exception_model"] = "seh"
        out["exception_model_source"] = "default"


# cl.exe's banner: "Microsoft (R) C/C++ Optimizing Compiler Version 19.29.30133 for x64",
# localised: "用于 x64 的 Microsoft (R) C/C++ 优化编译器 19.29.30133 版".
_MSVC_VERSION = re.compile(r"(?<![\d.])(1\d|2\d)\.(\d{2})\.(\d{4,5})(?:\.(\d+))?(?![\d.])")
_MSVC_ARCH = re.compile(r"(?<![\w-])(80x86|x64|x86|ARM64EC|ARM64|ARM|AMD64|Itanium|IA-64)(?![\w-])", re.IGNORECASE)
# Spelled as cl.exe's own "for ..." (VS2008 said "80x86").
_ARCH_NAMES = {
    "80x86": "x86",
    "x86": "x86",
    "x64": "x64",
    "amd64": "x64",
    "arm": "ARM",
    "arm64": "ARM64",
    "arm64ec": "ARM64EC",
    "itanium": "Itanium",
    "ia-64": "Itanium",
}


def parse_msvc_banner(text: str) -> dict[str, Any]:
    """``cl`` (no arguments) banner -> version "19.29.30133", msc_ver 1929 (= _MSC_VER),
    msc_full_ver 192930133, arch ("x64", "x86", "ARM64"), banner (the line itself).
    Works on English and translated banners, and on GBK bytes decoded with replacement."""
    out: dict[str, Any] = {}
    try:
        for raw in _lines(text):
            line = raw.strip()
            if "C/C++" not in line and "Microsoft" not in line and "Compiler" not in line:
                continue
            match = _MSVC_VERSION.search(line)
            if not match:
                continue
            major, minor, build, extra = match.groups()
            out["version"] = match.group(0)
            out["msc_ver"] = int(major) * 100 + int(minor)
            out["msc_full_ver"] = int("%s%s%05d" % (major, minor, int(build)))
            arch = re.search(r"\bfor\s+(\S+)", line[match.end():])
            found = _MSVC_ARCH.search(arch.group(1)) if arch else None
            found = found or _MSVC_ARCH.search(line)
            if found:
                out["arch"] = _ARCH_NAMES.get(found.group(1).lower(), found.group(1))
            out["banner"] = line[:200]
            break
    except Exception:
        return {}
    return out


def parse_clang_version(text: str) -> dict[str, Any]:
    """``clang++ --version`` (or ``-v``) -> version, version_major, vendor ("Apple",
    "Homebrew", "Ubuntu"), is_apple, apple_build ("clang-1200.0.32.29"), target,
    thread_model, installed_dir."""
    out: dict[str, Any] = {}
    try:
        for raw in _lines(text):
            line = raw.strip()
            if "version" not in out:
                match = _CLANG_VERSION_LINE.match(line)
                if match:
                    out["version"] = match.group(2)
                    major = _major(match.group(2))
                    if major is not None:
                        out["version_major"] = major
                    vendor = (match.group(1) or "").strip()
                    if vendor:
                        out["vendor"] = vendor[:60]
                    out["is_apple"] = vendor.startswith("Apple")
                    build = re.search(r"\((clang-[\d.]+)\)", match.group(3))
                    if build:
                        out["apple_build"] = build.group(1)
                    continue
            for label, key in (("Target:", "target"), ("Thread model:", "thread_model"),
                               ("InstalledDir:", "installed_dir")):
                if line.startswith(label) and key not in out:
                    value = line[len(label):].strip()
                    if value:
                        out[key] = value
    except Exception:
        return {}
    return out


# ------------------------------------------------------------------ finding tools
def exe_name(name: str, is_windows: bool) -> str:
    return name + ".exe" if is_windows and not name.lower().endswith(".exe") else name


def path_entries(path_string: str, pathsep: str) -> list[str]:
    """PATH split the way the OS reads it: blanks dropped, Windows quotes stripped."""
    entries = []
    for raw in (path_string or "").split(pathsep):
        entry = raw.strip().strip('"').strip()
        if entry:
            entries.append(entry)
    return entries


def _is_executable(path: str) -> bool:
    try:
        return os.path.isfile(path) and os.access(path, os.X_OK)
    except (OSError, ValueError):
        return False


def find_all_on_path(ctx: ProbeContext, name: str) -> list[str]:
    """Every ``name`` (``name.exe`` on Windows) on the probe's PATH, in PATH order.
    ctx.which stops at the first; shadowing needs all of them."""
    pm = ctx.pathmod
    wanted = exe_name(name, ctx.is_windows)
    found: list[str] = []
    seen: set[str] = set()
    for entry in path_entries(ctx.path_string, ctx.pathsep):
        if not pm.isabs(entry):
            entry = pm.join(str(ctx.cwd), entry)
        candidate = pm.join(entry, wanted)
        key = pm.normcase(pm.normpath(candidate))
        if key in seen:
            continue
        seen.add(key)
        if _is_executable(candidate):
            found.append(candidate)
    return found


def prefix_of_python(python: str, is_windows: bool) -> str:
    """The environment prefix of an interpreter path. Conda on Windows keeps python.exe
    in the prefix itself (Theano looks beside it); a venv's is in Scripts\\. On POSIX
    the interpreter is <prefix>/bin/python."""
    pm = ntpath if is_windows else posixpath
    directory = pm.dirname(python)
    if is_windows:
        return pm.dirname(directory) if pm.basename(directory).lower() == "scripts" else directory
    return pm.dirname(directory) if pm.basename(directory) == "bin" else directory


def conda_gxx_dir(prefix: str, is_windows: bool) -> str:
    """Where a conda environment keeps its g++: m2w64-toolchain's Library\\mingw-w64\\bin
    on Windows, bin/ elsewhere."""
    pm = ntpath if is_windows else posixpath
    if is_windows:
        return pm.join(prefix, "Library", "mingw-w64", "bin")
    return pm.join(prefix, "bin")


def conda_prefixes(ctx: ProbeContext) -> list[str]:
    """The target python's prefix (what Theano itself looks beside), then CONDA_PREFIX."""
    pm = ctx.pathmod
    prefixes: list[str] = []
    if ctx.python:
        python = str(ctx.python)
        if not pm.isabs(python):
            python = ctx.which(python) or python
        if pm.isabs(python):
            prefixes.append(prefix_of_python(python, ctx.is_windows))
    conda = ctx.env("CONDA_PREFIX").strip().strip('"')
    if conda:
        prefixes.append(conda)
    unique: list[str] = []
    for prefix in prefixes:
        if pm.normcase(pm.normpath(prefix)) not in [pm.normcase(pm.normpath(p)) for p in unique]:
            unique.append(prefix)
    return unique


def _identity(ctx: ProbeContext, path: str) -> str:
    """Same file reached twice (a symlink, /bin -> /usr/bin) is one compiler."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        real = path
    return ctx.pathmod.normcase(real)


def gxx_candidates(ctx: ProbeContext) -> list[tuple[str, str]]:
    """(path, source) of every distinct g++ in Theano's search order: PATH first
    ("PATH"), then the conda environment ("conda_prefix")."""
    pm = ctx.pathmod
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str, source: str) -> None:
        key = _identity(ctx, path)
        if key not in seen:
            seen.add(key)
            out.append((path, source))

    for path in find_all_on_path(ctx, "g++"):
        add(path, "PATH")
    for prefix in conda_prefixes(ctx):
        candidate = pm.join(conda_gxx_dir(prefix, ctx.is_windows), exe_name("g++", ctx.is_windows))
        if _is_executable(candidate):
            add(candidate, "conda_prefix")
    return out


# ------------------------------------------------------------------ running tools
class Runner:
    """Runs each (tool, arguments) once per probe and remembers the result, so a tool
    that timed out is never started again (nvcc_host reuses what gcc/g++ said)."""

    def __init__(self, ctx: ProbeContext) -> None:
        self.ctx = ctx
        self._done: dict[tuple[str, tuple[str, ...]], CommandResult] = {}

    def run(self, path: str, args: tuple[str, ...] = (), english: bool = False) -> CommandResult:
        key = (_identity(self.ctx, path), tuple(args))
        if key not in self._done:
            kwargs: dict[str, Any] = {}
            if english:
                # gcc/clang translate -v output with gettext; C keeps it parseable.
                env = dict(self.ctx.environ)
                env["LC_ALL"] = "C"
                kwargs["env"] = env
            self._done[key] = self.ctx.run([path, *args], **kwargs)
        return self._done[key]


def _command_fields(result: CommandResult) -> dict[str, Any]:
    return {"ok": result.ok, "timed_out": result.timed_out, "command": result.to_fact()}


def _tool_entry(
    runner: Runner,
    path: str,
    args: tuple[str, ...],
    parser: Callable[[str], dict[str, Any]],
    english: bool = False,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"found": True, "path": path}
    result = runner.run(path, args, english=english)
    entry.update(_command_fields(result))
    if not result.timed_out:
        entry.update({k: v for k, v in parser(result.output).items() if v is not None})
    return entry


def probe_gxx(ctx: ProbeContext, runner: Optional[Runner] = None) -> dict[str, Any]:
    """gxx (the first g++: Theano's cxx default), gxx_all (every distinct one, in
    order, the first included) and where conda's was looked for."""
    runner = runner or Runner(ctx)
    facts: dict[str, Any] = {}
    candidates = gxx_candidates(ctx)
    entries = []
    for path, source in candidates[:MAX_GXX]:
        entry = _tool_entry(runner, path, ("-v",), parse_gxx_v, english=True)
        entry["source"] = source
        entries.append(entry)
    facts["gxx"] = entries[0] if entries else {"found": False}
    facts["gxx_all"] = entries
    facts["gxx_count"] = len(candidates)
    dirs = [conda_gxx_dir(p, ctx.is_windows) for p in conda_prefixes(ctx)]
    if dirs:
        facts["conda_gxx_dirs"] = dirs
    return facts


def probe_first(
    ctx: ProbeContext,
    name: str,
    args: tuple[str, ...],
    parser: Callable[[str], dict[str, Any]],
    runner: Optional[Runner] = None,
    english: bool = False,
) -> dict[str, Any]:
    """The first ``name`` on PATH, run once with ``args`` and parsed; other copies on
    PATH are listed (not run) as ``also_on_path``."""
    runner = runner or Runner(ctx)
    paths: list[str] = []
    seen: set[str] = set()
    for path in find_all_on_path(ctx, name):
        key = _identity(ctx, path)  # /bin/gcc is /usr/bin/gcc on a merged-/usr system
        if key not in seen:
            seen.add(key)
            paths.append(path)
    if not paths:
        return {"found": False}
    entry = _tool_entry(runner, paths[0], args, parser, english=english)
    if len(paths) > 1:
        entry["also_on_path"] = paths[1:MAX_GXX]
    return entry


def probe_msvc(ctx: ProbeContext, runner: Optional[Runner] = None, name: str = "cl") -> dict[str, Any]:
    """cl.exe on PATH: its banner (stderr when run without arguments)."""
    return probe_first(ctx, name, (), parse_msvc_banner, runner)


def nvcc_host(
    family: str,
    gcc: Optional[dict[str, Any]] = None,
    gxx_on_path: Optional[dict[str, Any]] = None,
    msvc: Optional[dict[str, Any]] = None,
    clang: Optional[dict[str, Any]] = None,
    environ: Optional[dict[str, str]] = None,
) -> dict[str, Any]:
    """The host compiler nvcc would take from PATH (the same for every toolkit unless
    -ccbin is given): gcc (else g++) on Linux, cl.exe on Windows, clang on macOS."""
    out: dict[str, Any] = {"found": False, "source": "PATH"}
    if family == "windows":
        chosen, compiler = msvc, "cl"
    elif family == "darwin":
        chosen, compiler = clang, "clang"
    elif gcc and gcc.get("found"):
        chosen, compiler = gcc, "gcc"
    else:
        chosen, compiler = gxx_on_path, "g++"
    if chosen and chosen.get("found"):
        out["found"] = True
        out["compiler"] = compiler
        for key in ("path", "version", "timed_out"):
            if key in chosen:
                out[key] = chosen[key]
        if compiler == "cl" and "msc_ver" in chosen:
            out["msc_ver"] = chosen["msc_ver"]
        elif compiler == "clang" and "version_major" in chosen:
            out["clang_major"] = chosen["version_major"]
        elif compiler in ("gcc", "g++") and "version_major" in chosen:
            out["gcc_major"] = chosen["version_major"]
    env = {k: v[:_MAX_ENV_CHARS] for k, v in (environ or {}).items() if v}
    if env:
        out["env"] = env
    return out


def theano_cxx(family: str, gxx_all: list[dict[str, Any]], clang: Optional[dict[str, Any]] = None) -> Optional[str]:
    """What Theano 1.0.5's ``cxx`` default would resolve to ("" = no compiler), or None
    when a command did not finish and it cannot be told. PATH's g++ if ``g++ -v``
    succeeds; on Windows otherwise conda's Library\\mingw-w64 one; on macOS clang++."""
    if family == "darwin" and clang and clang.get("found"):
        if clang.get("timed_out"):
            return None
        if clang.get("ok"):
            return clang.get("path", "")
    on_path = [e for e in gxx_all if e.get("source") == "PATH"]
    conda = [e for e in gxx_all if e.get("source") == "conda_prefix"]
    order = on_path[:1] + (conda[:1] if family == "windows" else [])
    for entry in order:
        if entry.get("timed_out"):
            return None
        if entry.get("ok"):
            return entry.get("path", "")
    return ""


def configured_cxx_setting(ctx: ProbeContext) -> Optional[dict[str, str]]:
    """The cxx the config files or THEANO_FLAGS set (value and source), None when neither
    sets it: then Theano resolves its own default, recorded as theano_cxx."""
    from legacydoc.probes.theano_config import theano_settings  # it reads the config files

    setting = theano_settings(ctx, ("cxx",)).get("cxx")
    return setting if setting and isinstance(setting.get("value"), str) else None


def probe_configured_cxx(ctx: ProbeContext, runner: Runner) -> Optional[dict[str, Any]]:
    """The compiler a cxx setting names, run with ``-v`` as Theano runs it: a clang++ on
    Linux or a Homebrew clang++ on macOS is nowhere else in the record. None when cxx is
    not set, or set empty (no compiler on purpose)."""
    setting = configured_cxx_setting(ctx)
    if setting is None or not setting["value"].strip():
        return None
    # As Theano passes it: a THEANO_FLAGS value keeps its spaces. On Windows Theano starts it
    # through cmd (misc/windows.py), which takes a quoted path as one.
    value = setting["value"].strip('"') if ctx.is_windows else setting["value"]
    entry: dict[str, Any] = {"setting": setting["value"], "source": setting.get("source", "")}
    pm = ctx.pathmod
    if pm.basename(value) == value:
        # a bare name: looked up on PATH, as Theano's Popen does
        on_path = find_all_on_path(ctx, value)
        path = on_path[0] if on_path else None
    elif pm.isabs(value):
        path = value if _is_executable(value) else None
    else:
        return entry  # relative to the folder the project runs in, which is not known here
    if path is None:
        if not ctx.is_windows:
            # cmd also tries the current folder, PATHEXT's other suffixes and .bat files:
            # not finding the .exe on Windows says nothing
            entry["found"] = False
        return entry
    entry.update(_tool_entry(runner, path, ("-v",), parse_gxx_v, english=True))
    return entry


# ------------------------------------------------------------------------- probe
def collect(ctx: ProbeContext) -> dict[str, Any]:
    runner = Runner(ctx)
    family = ctx.family
    facts: dict[str, Any] = probe_gxx(ctx, runner)
    gcc = clang = msvc = None
    if family == "windows":
        msvc = facts["msvc"] = probe_msvc(ctx, runner)
    elif family == "darwin":
        clang = facts["clang"] = probe_first(ctx, "clang++", ("--version",), parse_clang_version, runner, english=True)
        xcode = probe_xcode(ctx)
        if xcode:
            facts["xcode"] = xcode
    else:
        gcc = facts["gcc"] = _gcc_summary(probe_first(ctx, "gcc", ("-v",), parse_gxx_v, runner, english=True))

    first_gxx_on_path = next((e for e in facts["gxx_all"] if e.get("source") == "PATH"), None)
    environ = {name: ctx.env(name) for name in NVCC_HOST_ENV}
    facts["nvcc_host"] = nvcc_host(family, gcc, first_gxx_on_path, msvc, clang, environ)
    cxx = theano_cxx(family, facts["gxx_all"], clang)
    if cxx is not None:
        facts["theano_cxx"] = cxx
    configured = probe_configured_cxx(ctx, runner)
    if configured is not None:
        facts["cxx_configured"] = configured
    facts["found"] = any(
        isinstance(v, dict) and v.get("found") for k, v in facts.items() if k in ("gxx", "msvc", "clang", "gcc")
    )
    return facts


# The developer folder xcode-select points at decides whose clang /usr/bin/clang++ runs:
# the Xcode app's (xcodebuild -version: "Xcode 9.4.1") or the Command Line Tools' alone
# (their package receipt: "version: 10.1.0.0.1.1539992718").
_XCODEBUILD_VERSION = re.compile(r"^Xcode\s+(\d+(?:\.\d+){0,2})\s*$", re.MULTILINE)
_RECEIPT_VERSION = re.compile(r"^version:\s*(\d+(?:\.\d+)*)\s*$", re.MULTILINE)
CLT_RECEIPT = "com.apple.pkg.CLTools_Executables"


def parse_xcodebuild_version(text: str) -> Optional[str]:
    match = _XCODEBUILD_VERSION.search(text or "")
    return match.group(1) if match else None


def parse_clt_receipt_version(text: str) -> Optional[str]:
    """The Command Line Tools' version from their receipt, to major.minor.patch."""
    match = _RECEIPT_VERSION.search(text or "")
    return ".".join(match.group(1).split(".")[:3]) if match else None


def probe_xcode(ctx: ProbeContext) -> dict[str, Any]:
    """compilers.xcode: the active developer folder, and the version of what is there;
    a command that fails leaves its part out (unknown), it does not make Xcode absent."""
    selected = ctx.run(["xcode-select", "-p"])
    if selected.timed_out or selected.rc is None:
        return {}  # xcode-select itself could not be run: nothing is known
    path = selected.stdout.strip()
    if not selected.ok or not path:
        return {"found": False}  # "unable to get active developer directory": no tools installed
    table: dict[str, Any] = {"found": True, "path": path}
    if "CommandLineTools" in path:
        receipt = ctx.run(["pkgutil", "--pkg-info=" + CLT_RECEIPT])
        version = parse_clt_receipt_version(receipt.stdout) if receipt.ok else None
        table["tools"] = "command-line-tools"
    else:
        built = ctx.run(["xcodebuild", "-version"])
        version = parse_xcodebuild_version(built.stdout) if built.ok else None
        table["tools"] = "xcode"
    if version:
        table["version"] = version
    return table


def _gcc_summary(entry: dict[str, Any]) -> dict[str, Any]:
    """gcc is recorded for its version (nvcc's host compiler); g++ carries the detail."""
    keep = ("found", "path", "version", "version_major", "vendor", "target", "ok", "timed_out", "also_on_path",
            "command")
    return {k: entry[k] for k in keep if k in entry}
