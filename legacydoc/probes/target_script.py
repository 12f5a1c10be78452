# The target probe's script: run as `python -c <this text>` inside the interpreter the
# legacy project will use, so it must work unchanged on CPython 2.7 and 3.4-3.13: no
# f-strings, no type hints, stdlib only, and nothing heavy is imported (numpy and theano
# are found by reading files, never by importing them). It prints one JSON line.
# Full-line comments and blank lines are dropped before it is sent, to keep the command
# line short (Windows caps it at 32767 characters), so keep it ASCII and comment only on
# lines of their own.
import io
import json
import os
import re
import sys

REPORT_KEY = "legacydoc_target_report"
REPORT_VERSION = 1

# Distributions whose presence and version matter to a Theano project (PEP 503 names).
MATTERS = (
    "theano", "theano-pymc", "pygpu", "numpy", "scipy", "mkl", "mkl-service", "six",
    "nose", "aesara", "pytensor", "lasagne", "keras", "pylearn2", "chainer",
    "tensorflow", "tensorflow-gpu", "pymc3", "pymc", "h5py", "pillow", "pydot", "pydot-ng",
    "mpi4py",  # import theano imports it, and so starts MPI (LD170)
    "cython",  # what builds pygpu from source (LD176)
)
# Conda packages worth knowing in a conda env (many have no Python metadata at all).
CONDA_MATTERS = (
    "python", "theano", "theano-pymc", "pygpu", "libgpuarray", "numpy", "numpy-base",
    "scipy", "mkl", "mkl-service", "blas", "libblas", "libcblas", "openblas",
    "libopenblas", "cudatoolkit", "cudnn", "m2w64-toolchain", "libpython", "mingw",
    "pymc3", "pymc", "aesara", "pytensor", "gxx_linux-64", "gcc_linux-64",
)
MAX_PATH_ENTRIES = 200
MAX_READ = 256 * 1024

PY2 = sys.version_info[0] == 2
STRING_TYPES = (str, type(u""))  # json gives unicode on Python 2


def text(value):
    # Python 2 paths are bytes: turn them into text so json can always encode them.
    if PY2 and isinstance(value, str):
        return value.decode(sys.getfilesystemencoding() or "utf-8", "replace")
    return value


def normalise(name):
    # PEP 503: runs of -, _ and . become one -, lower case.
    return re.sub(r"[-_.]+", "-", name).lower()


def read_text(path, limit=MAX_READ):
    try:
        handle = io.open(path, "r", encoding="utf-8", errors="replace")
        try:
            return handle.read(limit)
        finally:
            handle.close()
    except Exception:
        return None


def read_headers(path):
    # METADATA / PKG-INFO: RFC 822 headers up to the first blank line.
    content = read_text(path, 64 * 1024)
    if content is None:
        return None
    headers = {}
    for line in content.splitlines():
        if not line.strip():
            break
        if line[:1] in (" ", "\t") or ":" not in line:
            continue
        key, value = line.split(":", 1)
        key = key.strip().lower()
        if key not in headers:
            headers[key] = value.strip()
    return headers


def listdir(path):
    try:
        return sorted(os.listdir(path or "."))
    except Exception:
        return []


def caller_cwd():
    # legacydoc runs this script from an empty folder, so that nothing in the user's folder
    # (a json.py, a numpy.py) is imported into it; the user's folder is passed as argv[1].
    if len(sys.argv) > 1 and sys.argv[1]:
        return sys.argv[1]
    return os.getcwd()


def path_entries():
    entries = []
    for entry in sys.path[:MAX_PATH_ENTRIES]:
        # '' (and '.') mean the current directory for imports: the user's, where their
        # scripts run, not the empty folder this script was started in.
        real = entry or caller_cwd()
        if isinstance(real, str) or (PY2 and isinstance(real, unicode)):  # noqa: F821
            entries.append((entry, real))
    return entries


def name_from_filename(filename):
    # "Theano_PyMC-1.1.2.dist-info" / "numpy-1.9.1-py2.7.egg-info" / "theano.egg-info"
    stem = filename.rsplit(".", 1)[0]
    if stem.endswith(".dist") or stem.endswith(".egg"):
        stem = stem.rsplit(".", 1)[0]
    return normalise(stem.split("-", 1)[0])


def claims_from_lines(lines, strip_parent):
    # Top-level names owned by a distribution, from RECORD / installed-files.txt lines.
    names = set()
    for line in lines:
        path = line.split(",", 1)[0].strip().replace("\\", "/")
        if strip_parent:
            # installed-files.txt paths are relative to the egg-info directory.
            if not path.startswith("../"):
                continue
            path = path[3:]
        if not path or path.startswith("../") or path.startswith("/"):
            continue
        top = path.split("/", 1)[0]
        if top.endswith(".py"):
            top = top[:-3]
        if top and not top.endswith(".dist-info") and not top.endswith(".egg-info") and top != "__pycache__":
            names.add(top)
    return names


def read_claims(meta_dir, kind):
    names = set()
    if kind == "dist-info":
        record = read_text(os.path.join(meta_dir, "RECORD"), 4 * 1024 * 1024)
        if record:
            names |= claims_from_lines(record.splitlines(), False)
    elif kind in ("egg-info", "egg"):
        files = read_text(os.path.join(meta_dir, "installed-files.txt"), 4 * 1024 * 1024)
        if files:
            names |= claims_from_lines(files.splitlines(), True)
    top_level = read_text(os.path.join(meta_dir, "top_level.txt"))
    if top_level:
        for line in top_level.splitlines():
            line = line.strip().replace("\\", "/").split("/", 1)[0]
            if line:
                names.add(line)
    return sorted(names)


def make_record(meta_path, kind, location):
    # One installed copy of a distribution, described from its metadata files.
    if kind == "dist-info":
        headers = read_headers(os.path.join(meta_path, "METADATA"))
    elif kind == "egg":
        headers = read_headers(os.path.join(meta_path, "EGG-INFO", "PKG-INFO"))
    elif os.path.isdir(meta_path):
        headers = read_headers(os.path.join(meta_path, "PKG-INFO"))
    else:
        # distutils writes the egg-info as a single PKG-INFO file.
        headers = read_headers(meta_path)
        kind = "egg-info-file"
    if not headers or not headers.get("name"):
        return None
    record = {
        "name": text(headers.get("name")),
        "version": text(headers.get("version", "")),
        "location": text(location),
        "metadata": text(meta_path),
        "kind": kind,
    }
    if kind == "dist-info":
        installer = read_text(os.path.join(meta_path, "INSTALLER"), 200)
        if installer and installer.strip():
            record["installer"] = installer.strip().splitlines()[0]
        direct = read_text(os.path.join(meta_path, "direct_url.json"), 64 * 1024)
        if direct:
            try:
                if json.loads(direct).get("dir_info", {}).get("editable"):
                    record["editable"] = True
            except Exception:
                pass
    return record


def record_claims(record):
    # Read lazily: a RECORD can be megabytes (tensorflow), only theano's site dir matters.
    kind = record["kind"]
    if kind == "egg-info-file":
        return []
    if kind == "egg":
        return read_claims(os.path.join(record["metadata"], "EGG-INFO"), "egg")
    return read_claims(record["metadata"], kind)


def egg_link_target(path):
    content = read_text(path, 4096)
    if not content:
        return None
    first = content.splitlines()[0].strip() if content.splitlines() else ""
    return first or None


def scan_distributions():
    # Every copy of every distribution that matters, in sys.path order.
    found = []
    seen = set()
    links = []

    def add(record):
        if record is None:
            return
        key = os.path.normcase(os.path.realpath(record["metadata"]))
        if key in seen:
            return
        if normalise(record["name"]) not in MATTERS:
            return
        seen.add(key)
        found.append(record)

    for _entry, real in path_entries():
        if real.endswith(".egg") and os.path.isdir(os.path.join(real, "EGG-INFO")):
            if name_from_filename(os.path.basename(real)) in MATTERS:
                add(make_record(real, "egg", real))
            continue
        for filename in listdir(real):
            lower = filename.lower()
            if lower.endswith(".egg-link"):
                links.append((real, filename))
                continue
            if lower.endswith(".dist-info"):
                kind = "dist-info"
            elif lower.endswith(".egg-info"):
                kind = "egg-info"
            else:
                continue
            if name_from_filename(filename) not in MATTERS:
                continue
            add(make_record(os.path.join(real, filename), kind, real))
    # Develop installs (pip install -e / setup.py develop): an .egg-link names the
    # source directory, whose *.egg-info holds the metadata.
    for site_dir, filename in links:
        if name_from_filename(filename) not in MATTERS:
            continue
        target = egg_link_target(os.path.join(site_dir, filename))
        if not target:
            continue
        target = os.path.normpath(os.path.join(site_dir, target))
        for sub in listdir(target):
            if not sub.lower().endswith(".egg-info"):
                continue
            meta = os.path.join(target, sub)
            key = os.path.normcase(os.path.realpath(meta))
            for record in found:
                if os.path.normcase(os.path.realpath(record["metadata"])) == key:
                    record["develop"] = True
                    record["egg_link"] = text(os.path.join(site_dir, filename))
                    break
            else:
                record = make_record(meta, "egg-info", target)
                if record is not None:
                    record["develop"] = True
                    record["egg_link"] = text(os.path.join(site_dir, filename))
                    add(record)
    return found


def find_package_dirs(module):
    # Where `import module` would look: each sys.path entry holding module/__init__.py.
    dirs = []
    for _entry, real in path_entries():
        candidate = os.path.join(real, module)
        if os.path.isfile(os.path.join(candidate, "__init__.py")) and text(candidate) not in dirs:
            dirs.append(text(candidate))
    return dirs


def theano_version_from_text(theano_dir):
    # Without importing: versioneer's _version.py (1.0.x, Theano-PyMC), then the
    # generated_version.py setup.py writes (0.6 to 0.9: release = True only in the packages
    # on PyPI, git_revision a commit or 'RELEASE'), then version.py, then __init__.py.
    out = {}
    content = read_text(os.path.join(theano_dir, "_version.py")) or ""
    match = re.search(r'"version"\s*:\s*"([^"]+)"', content)
    if match:
        out["version"] = match.group(1)
        out["version_source"] = "_version.py"
    match = re.search(r'"full-revisionid"\s*:\s*"([0-9a-fA-F]{7,40})"', content)
    if match:
        out["revision"] = match.group(1)
    for name in ("generated_version.py", "version.py"):
        if "version" in out:
            break
        content = read_text(os.path.join(theano_dir, name)) or ""
        match = re.search(r"^(?:short_)?version\s*=\s*['\"]([^'\"]+)['\"]", content, re.M)
        if not match:
            continue
        out["version"] = match.group(1)
        out["version_source"] = name
        match = re.search(r"^git_revision\s*=\s*['\"]([0-9a-fA-F]{7,40}|RELEASE)['\"]", content, re.M)
        if match and "revision" not in out:
            out["revision"] = match.group(1)
        # True only in the packages built for PyPI (every tag says ISRELEASED = False)
        match = re.search(r"^release\s*=\s*(True|False)\s*$", content, re.M)
        if match:
            out["released"] = match.group(1) == "True"
    if "version" not in out:
        content = read_text(os.path.join(theano_dir, "__init__.py")) or ""
        match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", content, re.M)
        if match:
            out["version"] = match.group(1)
            out["version_source"] = "__init__.py"
    return out


def classify_blas(names):
    # A family name for the BLAS numpy was built against.
    joined = " ".join(names).lower()
    for needle, family in (("mkl", "mkl"), ("openblas", "openblas"), ("blis", "blis"),
                           ("accelerate", "accelerate"), ("veclib", "accelerate"),
                           ("atlas", "atlas"), ("armpl", "armpl"), ("flexiblas", "flexiblas"),
                           ("cblas", "blas"), ("blas", "blas")):
        if needle in joined:
            return family
    return None


def blas_from_distutils_config(content):
    # numpy.distutils-built numpy (< 1.26): a line "blas_opt_info={...}", or only
    # "blas_ilp64_opt_info={...}" in the 1.22+ ILP64 wheels.
    out = {}
    out["blas_opt_info"] = re.search(r"^blas_opt_info\s*=", content, re.M) is not None
    match = re.search(r"^blas_opt_info\s*=(.*)$", content, re.M) or \
        re.search(r"^blas_ilp64_opt_info\s*=(.*)$", content, re.M)
    if match:
        line = match.group(1)
        libs = re.search(r"'libraries'\s*:\s*\[([^\]]*)\]", line)
        names = re.findall(r"'([^']+)'", libs.group(1)) if libs else []
        links = re.search(r"'extra_link_args'\s*:\s*\[([^\]]*)\]", line)
        if links:
            names += [n for n in re.findall(r"'([^']+)'", links.group(1)) if "ccelerate" in n or "vecLib" in n]
        if names:
            out["blas_libraries"] = names
            family = classify_blas(names)
            if family:
                out["blas"] = family
    return out


def blas_from_meson_config(content):
    # meson-built numpy (>= 1.26): CONFIG = {... "blas": {"name": "scipy-openblas", ...}}
    out = {}
    match = re.search(r'"blas"\s*:\s*\{\s*"name"\s*:\s*"([^"]*)"(.*?)\}', content, re.S)
    if match:
        out["blas_libraries"] = [match.group(1)]
        family = classify_blas([match.group(1)])
        if family:
            out["blas"] = family
        version = re.search(r'"version"\s*:\s*"([^"]*)"', match.group(2))
        if version and version.group(1):
            out["blas_version"] = version.group(1)
    return out


def numpy_build_info(numpy_dir):
    out = {"distutils": os.path.isdir(os.path.join(numpy_dir, "distutils"))}
    config = os.path.join(numpy_dir, "distutils", "__config__.py")
    out["distutils_config"] = os.path.isfile(config)
    out["blas_opt_info"] = False
    if out["distutils_config"]:
        out["config_file"] = text(config)
        out.update(blas_from_distutils_config(read_text(config) or ""))
    if "blas" not in out:
        config = os.path.join(numpy_dir, "__config__.py")
        content = read_text(config) or ""
        found = blas_from_meson_config(content)
        if not found and "blas_opt_info" in content:
            found = blas_from_distutils_config(content)
            found.pop("blas_opt_info", None)
        if found:
            out["blas_source"] = text(config)
            out.update(found)
    elif out["distutils_config"]:
        out["blas_source"] = out["config_file"]
    return out


CONDA_SUBDIRS = ("noarch", "linux-64", "linux-32", "linux-aarch64", "linux-ppc64le", "win-64", "win-32",
                 "osx-64", "osx-arm64")


def conda_channel(meta):
    # "schannel" (older conda) is the short name; "channel" a URL such as
    # https://conda.anaconda.org/conda-forge/linux-64 or https://repo.anaconda.com/pkgs/main/win-64.
    short = meta.get("schannel")
    if isinstance(short, STRING_TYPES) and short:
        return short
    url = meta.get("channel")
    if not isinstance(url, STRING_TYPES) or not url:
        return None
    path = re.sub(r"^[a-z][a-z0-9+.-]*://[^/]*", "", url).strip("/").split("/")
    if path and path[-1] in CONDA_SUBDIRS:
        path = path[:-1]
    return "/".join(path) or None


def conda_packages(prefix):
    # conda-meta/<name>-<version>-<build>.json: name, version and build from the name; the
    # channel from the file (read only when small: some list thousands of files).
    out = {}
    meta_dir = os.path.join(prefix, "conda-meta")
    for filename in listdir(meta_dir):
        if not filename.endswith(".json"):
            continue
        parts = filename[:-5].rsplit("-", 2)
        if len(parts) != 3 or parts[0] not in CONDA_MATTERS:
            continue
        entry = {"version": parts[1], "build": parts[2]}
        path = os.path.join(meta_dir, filename)
        try:
            small = os.path.isfile(path) and os.path.getsize(path) <= MAX_READ
        except OSError:
            small = False
        content = read_text(path) if small else None
        if content:
            try:
                meta = json.loads(content)
            except ValueError:
                meta = None
            channel = conda_channel(meta) if isinstance(meta, dict) else None
            if channel:
                entry["channel"] = channel
        out[parts[0]] = entry
    return out


def python_facts():
    import platform
    import struct

    facts = {}
    info = sys.version_info
    facts["version"] = "%d.%d.%d" % (info[0], info[1], info[2])
    facts["version_info"] = [int(info[0]), int(info[1]), int(info[2])]
    facts["release_level"] = str(info[3])
    facts["sys_version"] = text(sys.version).replace("\n", " ")
    try:
        facts["implementation"] = platform.python_implementation()
    except Exception:
        facts["implementation"] = getattr(getattr(sys, "implementation", None), "name", "unknown")
    facts["bits"] = struct.calcsize("P") * 8
    if sys.executable:
        facts["executable"] = text(sys.executable)
    facts["prefix"] = text(sys.prefix)
    facts["exec_prefix"] = text(sys.exec_prefix)
    base_prefix = getattr(sys, "base_prefix", None)
    real_prefix = getattr(sys, "real_prefix", None)
    if real_prefix:
        # old virtualenv (< 20) sets sys.real_prefix instead of base_prefix
        facts["real_prefix"] = text(real_prefix)
    facts["base_prefix"] = text(real_prefix or base_prefix or sys.prefix)
    if os.path.isdir(os.path.join(sys.prefix, "conda-meta")):
        facts["env_kind"] = "conda"
    elif real_prefix or (base_prefix and base_prefix != sys.prefix):
        facts["env_kind"] = "venv"
    else:
        facts["env_kind"] = "system"
    facts["base_is_conda"] = os.path.isdir(os.path.join(facts["base_prefix"], "conda-meta"))
    facts["platform"] = sys.platform
    # Not platform.platform(): since Python 3.9 it runs `uname -p` in a subprocess, a
    # sixth of this script's time, for what the doctor's own system facts already say.
    try:
        facts["machine"] = platform.machine()
    except Exception:
        pass
    facts["sys_path"] = [text(p) for p in sys.path[:MAX_PATH_ENTRIES]]
    try:
        facts["cwd"] = text(caller_cwd())
    except Exception:
        pass
    try:
        import site

        user_site = getattr(site, "USER_SITE", None)
        if user_site:
            facts["user_site"] = text(user_site)
            facts["user_site_enabled"] = bool(getattr(site, "ENABLE_USER_SITE", False))
    except Exception:
        pass
    facts["filesystem_encoding"] = sys.getfilesystemencoding() or ""
    try:
        facts["headers"], libpython = build_facts()
        if libpython is not None:
            facts["libpython"] = libpython
    except Exception as exc:
        facts["build_error"] = "%s: %s" % (type(exc).__name__, exc)
    return facts


# Where Theano compiles and links every module it builds (theano/gof/cmodule.py
# std_include_dirs, std_lib_dirs_and_libs and the compilers' compile_str), read through
# distutils as Theano reads it: -I<get_python_inc()> and its platform-specific twin must
# hold Python.h and pyconfig.h; on Linux each module links -l<LDLIBRARY without lib/.so/.a>
# (0.8.0 on; 0.6-0.7 took the include folder's name) from -L<LIBDIR> and -L<the standard
# library's parent folder>, and the libpython* files found there say whether ld gets a
# shared library or only a static one.
def build_paths():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from distutils import sysconfig as dsc

            return ("distutils", dsc.get_python_inc(), dsc.get_python_inc(plat_specific=1), dsc.get_config_var,
                    os.path.dirname(dsc.get_python_lib(plat_specific=1, standard_lib=1)))
        except ImportError:
            pass
    # Python 3.12+ without setuptools has no distutils; sysconfig's installed-base paths
    # are the ones distutils gave
    import sysconfig

    paths = sysconfig.get_paths()
    return ("sysconfig", paths["include"], paths["platinclude"], sysconfig.get_config_var,
            os.path.dirname(paths["stdlib"]))


def build_facts():
    source, include, plat_include, config_var, stdlib_parent = build_paths()
    include, plat_include, stdlib_parent = text(include), text(plat_include), text(stdlib_parent)
    folders = (include, plat_include)
    headers = {"source": source, "include_dir": include, "plat_include_dir": plat_include,
               "python_h": any(os.path.isfile(os.path.join(d, "Python.h")) for d in folders),
               "pyconfig_h": any(os.path.isfile(os.path.join(d, "pyconfig.h")) for d in folders)}
    if not sys.platform.startswith("linux"):
        return headers, None
    libdir = text(config_var("LIBDIR") or "")
    libpython = {"ldlibrary": text(config_var("LDLIBRARY") or ""), "libdir": libdir,
                 "include_name": os.path.basename(include), "stdlib_parent": stdlib_parent}
    files, listed = [], []
    for folder in (libdir, stdlib_parent):
        if not folder or folder in listed:
            continue
        if not os.path.exists(folder):
            # ld passes over a -L folder that is not there
            listed.append(folder)
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        listed.append(folder)
        for name in sorted(names):
            path = os.path.join(folder, name)
            # os.path.exists: a link to nothing is no library to ld
            if name.startswith("libpython") and name.endswith((".so", ".a")) and os.path.exists(path):
                files.append(text(path))
    libpython["dirs_listed"] = listed
    libpython["files"] = files
    return headers, libpython


# keras.json values worth recording (strings only: Keras asserts their spelling itself).
KERAS_KEYS = ("backend", "image_data_format", "image_dim_ordering", "floatx")


def version_tuple(value):
    match = re.match(r"(\d+)\.(\d+)", value or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def keras_config(keras_version):
    # The keras.json this Keras reads, as keras/backend/__init__.py (1.0-2.2) and
    # load_backend.py (2.3) find it: $KERAS_HOME/keras.json from 2.2 on when KERAS_HOME
    # is set, else ~/.keras/keras.json, or /tmp/.keras when home is not writable.
    out = {}
    keras_home = os.environ.get("KERAS_HOME")
    release = version_tuple(keras_version)
    if keras_home and release is None:
        out["error"] = "KERAS_HOME is set and the Keras version is unknown"
        return out
    if keras_home and release >= (2, 2):
        path, out["from"] = os.path.join(keras_home, "keras.json"), "KERAS_HOME"
    else:
        home = os.path.expanduser("~")
        base, out["from"] = (home, "home") if os.access(home, os.W_OK) else ("/tmp", "tmp")
        path = os.path.join(base, ".keras", "keras.json")
    path = os.path.expanduser(path)
    out["path"] = text(path)
    out["exists"] = os.path.isfile(path)
    if not out["exists"]:
        return out
    content = read_text(path, 64 * 1024)
    if content is None:
        out["error"] = "cannot be read"
        return out
    try:
        value = json.loads(content)
    except ValueError as exc:
        out["error"] = "not JSON: %s" % exc
        return out
    if not isinstance(value, dict):
        out["error"] = "not a JSON object"
        return out
    for key in KERAS_KEYS:
        if isinstance(value.get(key), STRING_TYPES):
            out[key] = value[key]
    return out


# C sources every Theano release ships and compiles at run time, at each release's place:
# 0.7-0.9, 1.0.x (and Theano-PyMC 1.0.x), Theano-PyMC 1.1. An install without them (a
# zipped egg, a frozen app, a wheel built without package data) runs the slow Python VM.
C_SOURCES = (
    ("lazylinker_c", ("gof/lazylinker_c.c", "gof/c_code/lazylinker_c.c", "link/c/c_code/lazylinker_c.c")),
    ("scan_perform", ("scan_module/scan_perform.c", "scan_module/c_code/scan_perform.c",
                      "scan/c_code/scan_perform.c")),
)


def theano_c_sources(theano_dir):
    # None when the folder cannot be looked into by this name (Python 2 decoded a name its
    # file system encoding cannot hold): not seeing the files is not their absence.
    try:
        if not os.path.isfile(os.path.join(theano_dir, "__init__.py")):
            return None
        found = {}
        for name, places in C_SOURCES:
            found[name] = any(os.path.isfile(os.path.join(theano_dir, *place.split("/"))) for place in places)
        return found
    except Exception:
        return None


def package_facts():
    facts = {}
    records = scan_distributions()
    facts["distributions"] = records
    # what was looked for: a distribution not in this list is unknown, not absent
    facts["watched"] = list(MATTERS)
    theano_dirs = find_package_dirs("theano")
    if theano_dirs:
        theano_dir = theano_dirs[0]
        facts["theano_import_dir"] = theano_dir
        if len(theano_dirs) > 1:
            facts["theano_shadowed_dirs"] = theano_dirs[1:]
        location = os.path.normcase(os.path.realpath(os.path.dirname(theano_dir)))
        claimed = []
        for record in records:
            if os.path.normcase(os.path.realpath(record["location"])) != location:
                continue
            if record["name"] not in claimed and "theano" in record_claims(record):
                claimed.append(record["name"])
        facts["theano_claimed_by"] = claimed
        sources = theano_c_sources(theano_dir)
        if sources is not None:
            facts["theano_c_sources"] = sources
        version = theano_version_from_text(theano_dir)
        if "version" in version:
            facts["theano_version_text"] = version["version"]
            facts["theano_version_source"] = version["version_source"]
        if "revision" in version:
            facts["theano_revision"] = version["revision"]
        if "released" in version:
            facts["theano_released"] = version["released"]
    else:
        facts["theano_claimed_by"] = []
    # Having the theano package directory itself on sys.path breaks Theano on Python 3.
    for _entry, real in path_entries():
        if os.path.basename(os.path.normpath(real)) == "theano" and \
                os.path.isfile(os.path.join(real, "__init__.py")):
            facts["theano_dir_in_sys_path"] = text(real)
            break
    # A stale copy of Lasagne or Keras earlier on sys.path (an old checkout in a folder on
    # PYTHONPATH) is imported instead of the one pip installed.
    for module in ("lasagne", "keras"):
        module_dirs = find_package_dirs(module)
        if module_dirs:
            facts[module + "_import_dir"] = module_dirs[0]
            if len(module_dirs) > 1:
                facts[module + "_shadowed_dirs"] = module_dirs[1:]
    pygpu_dirs = find_package_dirs("pygpu")
    if pygpu_dirs:
        facts["pygpu_import_dir"] = pygpu_dirs[0]
    # mpi4py where import finds it, with or without metadata (an HPC module's build on
    # PYTHONPATH): import theano imports it (LD170)
    mpi4py_dirs = find_package_dirs("mpi4py")
    if mpi4py_dirs:
        facts["mpi4py_import_dir"] = mpi4py_dirs[0]
    numpy_dirs = find_package_dirs("numpy")
    if numpy_dirs:
        facts["numpy_import_dir"] = numpy_dirs[0]
        if len(numpy_dirs) > 1:
            facts["numpy_shadowed_dirs"] = numpy_dirs[1:]
        for key, value in numpy_build_info(numpy_dirs[0]).items():
            facts["numpy_" + key] = value
    if os.path.isdir(os.path.join(sys.prefix, "conda-meta")):
        facts["conda"] = conda_packages(sys.prefix)
    keras = [r for r in records if normalise(r["name"]) == "keras"]
    if keras:
        # A hostile keras.json (nested past the recursion limit) must not cost the packages.
        try:
            facts["keras_config"] = keras_config(keras[0].get("version"))
        except Exception as exc:
            facts["keras_config"] = {"error": "%s: %s" % (type(exc).__name__, exc)}
    return facts


def main():
    report = {REPORT_KEY: REPORT_VERSION}
    for key, func in (("python", python_facts), ("packages", package_facts)):
        try:
            report[key] = func()
        except Exception as exc:
            report[key + "_error"] = "%s: %s" % (type(exc).__name__, exc)
    sys.stdout.write("\n" + json.dumps(report, ensure_ascii=True, sort_keys=True) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
