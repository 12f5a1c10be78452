# The GEMM benchmark itself. It runs in two places with the same code, so the two
# figures legacydoc shows side by side are measured the same way:
#   - inside the *target* interpreter, as `python -c <this text> <plan JSON>`, where it
#     must work unchanged on CPython 2.7 and 3.x with whatever numpy is there (no
#     f-strings, no type hints, stdlib only) and prints one JSON line;
#   - inside legacydoc's own process, imported as a module (legacydoc/bench/gemm.py).
# Full-line comments and blank lines are dropped before it is sent (Windows caps a
# command line at 32767 characters), so keep it ASCII, comment only on lines of their
# own and never put a blank line inside a string.
from __future__ import division

import json
import os
import re
import sys
import time

REPORT_KEY = "legacydoc_bench_report"
REPORT_VERSION = 1
PY2 = sys.version_info[0] == 2

# Sizes the default sweep tries, in order: 512 first (the seed's size), then steps of
# about 1.5x, because a CPU's sustained rate is only reached once the matrices no longer
# fit its caches and the BLAS threads have enough work each.
LADDER = (512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192)
DEFAULTS = {
    "min_reps": 3,
    "max_reps": 300,
    # a size must beat the best rate so far by this much to count as "still rising";
    # the sweep stops after this many sizes in a row that do not (one noisy size alone
    # must not end it)
    "rise": 0.03,
    "patience": 2,
    # exploring a size may use this fraction of what is left; the rest goes to the
    # best size once the sweep has stopped (its median is the headline)
    "explore_share": 0.12,
    # three matrices of the largest size must fit in this many bytes
    "max_bytes": 1536 * 1024 * 1024,
}
# Environment variables that set how many threads a BLAS library starts, by library,
# highest precedence first (each library's own documentation).
THREAD_VARS = {
    "openblas": ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"),
    "mkl": ("MKL_NUM_THREADS", "OMP_NUM_THREADS"),
    "blis": ("BLIS_NUM_THREADS", "OMP_NUM_THREADS"),
    "accelerate": ("VECLIB_MAXIMUM_THREADS",),
    "atlas": (),
}
# Everything BLAS-related worth recording from the environment (never changed here).
BLAS_ENV = (
    "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_VERBOSE",
    "MKL_THREADING_LAYER", "MKL_DYNAMIC", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS",
    "OMP_PROC_BIND", "OMP_PLACES", "OMP_DYNAMIC", "KMP_AFFINITY",
)
BLAS_FILE_HINTS = ("openblas", "mkl_rt", "libmkl", "blis", "libblas", "libcblas", "flexiblas", "atlas")
NUMPY_CAPI_WARNING = "Using NumPy C-API based implementation for BLAS functions"


def text(value):
    # Python 2 paths and C strings are bytes: JSON needs text.
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if PY2 and isinstance(value, str):
        return value.decode("utf-8", "replace")
    return value


def clock_function():
    # perf_counter where it exists (3.3+); on 2.7 timeit picks the best clock per OS.
    counter = getattr(time, "perf_counter", None)
    if counter is not None:
        return counter
    import timeit

    return timeit.default_timer


def error_text(exc, limit=500):
    message = text(str(exc)).strip().replace("\n", " ")
    return ("%s: %s" % (type(exc).__name__, message))[:limit]


# --- statistics ---------------------------------------------------------------------


def median(values):
    ordered = sorted(values)
    count = len(ordered)
    if count == 0:
        return 0.0
    middle = count // 2
    if count % 2:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def summarize(times, n):
    # Milliseconds and GFLOPS (2 n^3 floating-point operations per product: one multiply
    # and one add per term) for the median, best and worst timed run.
    flop = 2.0 * float(n) ** 3
    mid, best, worst = median(times), min(times), max(times)

    def rate(seconds):
        return round(flop / max(seconds, 1e-12) / 1e9, 3)

    return {
        "n": int(n),
        "reps": len(times),
        "ms": {"median": round(mid * 1e3, 4), "best": round(best * 1e3, 4), "worst": round(worst * 1e3, 4)},
        "gflops": {"median": rate(mid), "best": rate(best), "worst": rate(worst)},
        # range of the runs relative to their median: how steady the machine was
        "spread_pct": round(100.0 * (worst - best) / max(mid, 1e-12), 1),
    }


# --- timing -------------------------------------------------------------------------


def time_calls(call, share_s, min_reps, max_reps, deadline, clock):
    # Timed repetitions of call(): at least min_reps, then until share_s is spent, never
    # more than max_reps, and no new one after the hard deadline once one is done.
    times = []
    start = clock()
    while True:
        t0 = clock()
        call()
        t1 = clock()
        times.append(t1 - t0)
        if len(times) >= max_reps:
            break
        if len(times) >= min_reps and t1 - start >= share_s:
            break
        if t1 >= deadline:
            break
    return times


def make_product(np, dtype, n):
    # Two random n x n matrices and an output buffer; returns the call to time. Writing
    # into a preallocated output keeps allocation out of the timing where numpy allows it.
    rng = np.random.RandomState(n)
    a = rng.random_sample((n, n)).astype(dtype)
    b = rng.random_sample((n, n)).astype(dtype)
    out = np.empty((n, n), dtype=dtype)
    try:
        np.dot(a, b, out=out)
    except (TypeError, ValueError):
        def plain():
            np.dot(a, b)
        return plain, False

    def into():
        np.dot(a, b, out=out)
    return into, True


class Measured(object):
    # One size: its product (kept alive so the best size can be timed further) and times.
    def __init__(self, n, call, times, warmup_s, setup_s):
        self.n = n
        self.call = call
        self.times = times
        self.warmup_s = warmup_s
        self.setup_s = setup_s

    def rate(self):
        return 2.0 * float(self.n) ** 3 / max(median(self.times), 1e-12)

    def result(self):
        out = summarize(self.times, self.n)
        out["warmup_ms"] = round(self.warmup_s * 1e3, 4)
        out["setup_ms"] = round(self.setup_s * 1e3, 4)
        return out


def measure(factory, n, share_s, options, deadline, clock):
    # Build the product, one untimed warm-up call (first-call allocation and BLAS thread
    # start-up would otherwise count), then timed repetitions.
    t0 = clock()
    call = factory(n)
    t1 = clock()
    call()
    t2 = clock()
    times = time_calls(call, share_s, options["min_reps"], options["max_reps"], deadline, clock)
    return Measured(n, call, times, t2 - t1, t1 - t0)


def sweep(factory, sizes, budget_s, options, clock, bytes_per_size=None, on_size=None):
    # factory(n) -> call. With sizes given, each is measured with an equal share of the
    # budget. Without, the ladder is climbed from 512 until the rate stops rising, the
    # next size would not fit in the budget or in memory; what is left of the budget then
    # goes to the best size. Its median is the headline figure.
    start = clock()
    deadline = start + budget_s
    fixed = bool(sizes)
    ladder = list(sizes) if fixed else list(options.get("ladder") or LADDER)
    measured = []
    best = None
    misses = 0
    stopped = "sizes done" if fixed else "largest size"
    for index, n in enumerate(ladder):
        remaining = deadline - clock()
        if bytes_per_size is not None and bytes_per_size(n) > options["max_bytes"]:
            stopped = "memory"
            break
        if measured:
            last = measured[-1]
            scale = (float(n) / last.n) ** 3
            per_call = median(last.times) * scale
            setup = last.setup_s * (float(n) / last.n) ** 2
            predicted = setup + per_call * (options["min_reps"] + 1)
            if predicted > remaining:
                stopped = "budget"
                break
        if fixed:
            share = remaining / (len(ladder) - index)
        else:
            share = remaining * options["explore_share"]
        current = measure(factory, n, share, options, deadline, clock)
        measured.append(current)
        if on_size is not None:
            on_size(n, current.rate())
        rising = best is None or current.rate() >= best.rate() * (1.0 + options["rise"])
        if best is None or current.rate() > best.rate():
            if best is not None:
                best.call = None
            best = current
        elif fixed or current is not best:
            # only the best size's matrices are kept (for its extra runs)
            current.call = None
        misses = 0 if rising else misses + 1
        if not fixed and misses >= options["patience"]:
            stopped = "rate stopped rising"
            break
    if best is not None and not fixed and best.call is not None:
        # exploitation: more repetitions of the best size with what is left
        remaining = deadline - clock()
        if remaining > 0 and len(best.times) < options["max_reps"]:
            more = time_calls(best.call, remaining, 1, options["max_reps"] - len(best.times), deadline, clock)
            best.times.extend(more)
    results = [m.result() for m in measured]
    for m in measured:
        m.call = None
    out = {
        "sizes": results,
        "stopped": stopped,
        "budget_s": round(budget_s, 3),
        "elapsed_s": round(clock() - start, 3),
    }
    if best is not None:
        out["best_n"] = best.n
    return out


# --- BLAS: which library, which version, how many threads ---------------------------


def classify_blas(names):
    joined = " ".join(text(n) for n in names).lower()
    for needle, family in (("mkl", "mkl"), ("openblas", "openblas"), ("blis", "blis"),
                           ("accelerate", "accelerate"), ("veclib", "accelerate"),
                           ("atlas", "atlas"), ("flexiblas", "flexiblas"), ("blas", "blas")):
        if needle in joined:
            return family
    return None


def blas_from_numpy_config(np):
    # What numpy says it was built against: meson builds (numpy >= 1.26) keep a CONFIG
    # dict, numpy.distutils builds keep module-level *_info dicts (blas_opt_info, ...).
    out = {}
    config = getattr(np, "__config__", None)
    conf = getattr(config, "CONFIG", None)
    if isinstance(conf, dict):
        blas = (conf.get("Build Dependencies") or {}).get("blas") or {}
        if isinstance(blas, dict) and blas.get("name"):
            out["config_name"] = text(blas.get("name"))
            if blas.get("version"):
                out["config_version"] = text(blas.get("version"))
            details = blas.get("openblas configuration")
            if details:
                out["config_detail"] = text(details)[:200]
            if blas.get("found") is False:
                out["config_found"] = False
        out["config_source"] = "numpy.__config__.CONFIG"
        return out
    if config is None:
        return out
    for key in ("blas_opt_info", "blas_ilp64_opt_info", "openblas_info", "openblas64__info",
                "blas_mkl_info", "mkl_info", "blis_info", "accelerate_info",
                "atlas_3_10_blas_threads_info", "atlas_blas_threads_info", "atlas_blas_info",
                "blas_info"):
        info = getattr(config, key, None)
        if isinstance(info, dict) and info:
            names = list(info.get("libraries") or [])
            names += [a for a in info.get("extra_link_args") or [] if "ccelerate" in a or "vecLib" in a]
            out["config_key"] = key
            out["config_libraries"] = [text(n) for n in names]
            out["config_source"] = "numpy.__config__." + key
            family = classify_blas(names + [key])
            if family:
                out["config_name"] = family
            return out
    out["config_source"] = "numpy.__config__"
    out["config_name"] = "none"
    return out


def loaded_libraries():
    # Linux: every file this process has mapped, i.e. the BLAS numpy really loaded.
    # None where /proc is not there (Windows, macOS).
    paths = []
    try:
        handle = open("/proc/self/maps")
    except (IOError, OSError):
        return None
    try:
        for line in handle:
            parts = line.split(None, 5)
            if len(parts) == 6:
                path = parts[5].strip()
                if path.startswith("/") and path not in paths:
                    paths.append(path)
    finally:
        handle.close()
    return paths


def is_blas_file(name):
    lower = name.lower()
    if not (".so" in lower or lower.endswith(".dll") or lower.endswith(".dylib")):
        return False
    return any(hint in lower for hint in BLAS_FILE_HINTS)


def blas_files(np):
    # (path, how it was found): the loaded ones on Linux, else the libraries numpy's
    # wheel or conda env ships next to it (loading one of those by path gives the copy
    # numpy already uses).
    here = os.path.dirname(os.path.abspath(text(np.__file__)))
    loaded = loaded_libraries()
    if loaded is not None:
        found = [(p, "loaded") for p in loaded if is_blas_file(os.path.basename(p))]
        # numpy's own copy first: scipy (loaded by theano) may bring another OpenBLAS
        mine = (here + os.sep, os.path.join(os.path.dirname(here), "numpy.libs") + os.sep)
        found.sort(key=lambda item: 0 if item[0].startswith(mine) else 1)
        if found:
            return found
    dirs = [os.path.join(here, ".libs"), os.path.join(os.path.dirname(here), "numpy.libs"),
            os.path.join(here, ".dylibs"), os.path.join(here, "core"),
            os.path.join(sys.prefix, "Library", "bin"), os.path.join(sys.prefix, "lib")]
    found = []
    for directory in dirs:
        try:
            names = sorted(os.listdir(directory))
        except (IOError, OSError):
            continue
        for name in names:
            if is_blas_file(name):
                found.append((os.path.join(directory, name), "file"))
    return found


def c_string(lib, name):
    import ctypes

    func = getattr(lib, name, None)
    if func is None:
        return None
    func.restype = ctypes.c_char_p
    func.argtypes = []
    value = func()
    return text(value) if value else None


def c_int(lib, name):
    import ctypes

    func = getattr(lib, name, None)
    if func is None:
        return None
    func.restype = ctypes.c_int
    func.argtypes = []
    return int(func())


def openblas_names(stem):
    # plain, numpy >= 1.22's ILP64 build (suffix 64_) and scipy-openblas (prefix scipy_)
    return [prefix + stem + suffix for prefix in ("", "scipy_") for suffix in ("", "64_", "_64")]


def query_library(path):
    # Ask the library itself: OpenBLAS, MKL and BLIS export their thread count and
    # version; which gemm symbol it exports tells whether Theano could link it.
    import ctypes

    out = {"path": text(path)}
    try:
        lib = ctypes.CDLL(path)
    except Exception as exc:
        out["error"] = error_text(exc, 200)
        return out
    for name in openblas_names("openblas_get_num_threads"):
        threads = c_int(lib, name)
        if threads is not None:
            out["family"] = "openblas"
            out["threads"] = threads
            suffix = name[len("scipy_") if name.startswith("scipy_") else 0:].replace("openblas_get_num_threads", "")
            prefix = "scipy_" if name.startswith("scipy_") else ""
            detail = c_string(lib, prefix + "openblas_get_config" + suffix)
            if detail:
                out["detail"] = detail[:200]
                match = re.search(r"OpenBLAS\s+([0-9][0-9.]*[0-9])", detail)
                if match:
                    out["version"] = match.group(1)
            core = c_string(lib, prefix + "openblas_get_corename" + suffix)
            if core:
                out["corename"] = core
            break
    if "family" not in out:
        threads = c_int(lib, "MKL_Get_Max_Threads")
        if threads is not None:
            out["family"] = "mkl"
            out["threads"] = threads
            try:
                buf = ctypes.create_string_buffer(256)
                lib.MKL_Get_Version_String(buf, 256)
                out["detail"] = text(buf.value)[:200]
                match = re.search(r"Version\s+([0-9][0-9.]*)", out["detail"])
                if match:
                    out["version"] = match.group(1)
            except Exception:
                pass
    if "family" not in out:
        threads = c_int(lib, "bli_thread_get_num_threads")
        if threads is not None:
            out["family"] = "blis"
            out["threads"] = threads
            version = c_string(lib, "bli_info_get_version_str")
            if version:
                out["version"] = version
    if getattr(lib, "dgemm_", None) is not None:
        out["symbols"] = "lp64"
    elif any(getattr(lib, n, None) is not None for n in ("dgemm_64_", "scipy_dgemm_64_", "dgemm_64")):
        out["symbols"] = "ilp64"
    return out


def cpu_counts():
    out = {}
    try:
        import multiprocessing

        out["cpu_count"] = multiprocessing.cpu_count()
    except Exception:
        pass
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            out["affinity_cpus"] = len(affinity(0))
        except Exception:
            pass
    return out


def threads_from_env(family, environ):
    # What the environment asks of this BLAS: (threads, variable) or (None, None).
    for name in THREAD_VARS.get(family, ("OMP_NUM_THREADS",)):
        value = environ.get(name, "").strip()
        if value:
            first = value.split(",")[0].strip()
            if first.isdigit() and int(first) > 0:
                return int(first), name
    return None, None


def ldflags_suggestion(info, family):
    # A blas.ldflags value that links Theano's C code to the very library numpy loaded:
    # GNU ld's -l:<file> takes a file name as it is (wheels ship libopenblasp-r0-<hash>.so).
    path = info.get("path") or ""
    if not path or info.get("symbols") != "lp64" or sys.platform.startswith("win"):
        return None
    directory, name = os.path.split(path)
    if sys.platform == "darwin":
        return None
    if family == "mkl":
        return "-L%s -lmkl_rt" % directory
    match = re.match(r"^lib([A-Za-z0-9_]+)\.so$", name)
    if match:
        return "-L%s -l%s" % (directory, match.group(1))
    return "-L%s -l:%s" % (directory, name)


def blas_facts(np, environ):
    out = blas_from_numpy_config(np)
    counts = cpu_counts()
    libraries = []
    for path, how in blas_files(np)[:8]:
        info = query_library(path)
        info["found_by"] = how
        libraries.append(info)
    runtime = None
    for info in libraries:
        if info.get("family"):
            runtime = info
            break
    names = [out.get("config_name") or ""] + [os.path.basename(i["path"]) for i in libraries]
    family = (runtime or {}).get("family") or classify_blas(names) or out.get("config_name") or "unknown"
    out["family"] = family
    if runtime is not None:
        out["library"] = runtime["path"]
        for key in ("version", "detail", "corename", "symbols"):
            if runtime.get(key):
                out[key] = runtime[key]
        if out.get("family") == "openblas" and not out.get("version") and out.get("config_version"):
            out["version"] = out["config_version"]
    elif libraries:
        out["library"] = libraries[0]["path"]
        if libraries[0].get("symbols"):
            out["symbols"] = libraries[0]["symbols"]
    if not out.get("version") and out.get("config_version"):
        out["version"] = out["config_version"]
    out["libraries_seen"] = [os.path.basename(i["path"]) for i in libraries]
    env_threads, env_var = threads_from_env(family, environ)
    if runtime is not None and runtime.get("threads"):
        out["threads"] = runtime["threads"]
        out["threads_source"] = "library"
    elif env_threads is not None:
        out["threads"] = env_threads
        out["threads_source"] = "environment"
    elif counts.get("affinity_cpus") or counts.get("cpu_count"):
        out["threads"] = counts.get("affinity_cpus") or counts.get("cpu_count")
        out["threads_source"] = "assumed: one per CPU"
    if env_var:
        out["threads_env_var"] = env_var
        out["threads_env_value"] = env_threads
    # numpy's own library first; if that one cannot be linked (ILP64), another one loaded
    linkable = [i for i in ([runtime] if runtime else []) + libraries if i.get("symbols") == "lp64"]
    suggestion = None
    if linkable:
        suggestion = ldflags_suggestion(linkable[0], linkable[0].get("family") or family)
    if suggestion:
        out["ldflags_suggestion"] = suggestion
    out.update(counts)
    return out


def numpy_cpu_features(np):
    # numpy >= 1.20 detects the CPU's SIMD features itself: the only flags list on
    # Windows, where the system probe has none.
    for path in ("_core._multiarray_umath", "core._multiarray_umath"):
        node = np
        try:
            for part in path.split("."):
                node = getattr(node, part)
            features = node.__cpu_features__
        except Exception:
            continue
        if isinstance(features, dict):
            wanted = ("SSE2", "SSE42", "AVX", "FMA3", "AVX2", "AVX512F", "ASIMD", "NEON")
            return sorted(k for k, v in features.items() if v and k in wanted)
    return []


def interpreter_facts():
    info = sys.version_info
    return {
        "version": "%d.%d.%d" % (info[0], info[1], info[2]),
        "executable": text(sys.executable or ""),
        "bits": 64 if sys.maxsize > 2 ** 32 else 32,
    }


# --- the two modes --------------------------------------------------------------------


def plan_options(plan):
    options = dict(DEFAULTS)
    for key in DEFAULTS:
        if key in plan:
            options[key] = plan[key]
    if plan.get("ladder"):
        options["ladder"] = [int(n) for n in plan["ladder"]]
    return options


def run_gemm(np, plan, environ=None, clock=None, on_size=None):
    # on_size(dtype, n, flops_per_s) after each size: progress for a terminal (in-process only).
    # The numpy side: a sweep per dtype, each with its share of the budget.
    environ = os.environ if environ is None else environ
    clock = clock or clock_function()
    options = plan_options(plan)
    report = {"python": interpreter_facts(), "numpy": text(np.__version__),
              "numpy_file": text(getattr(np, "__file__", "") or "")}
    try:
        report["blas"] = blas_facts(np, environ)
    except Exception as exc:
        report["blas"] = {"error": error_text(exc)}
    report["env"] = dict((k, environ[k]) for k in BLAS_ENV if environ.get(k))
    try:
        report["cpu_features"] = numpy_cpu_features(np)
    except Exception:
        report["cpu_features"] = []
    budget = float(plan.get("budget_s", 2.0))
    dtypes = plan.get("dtypes") or ["float32", "float64"]
    shares = plan.get("shares") or {}
    sizes = [int(n) for n in plan.get("sizes") or []]
    results = {}
    start = clock()
    for index, dtype in enumerate(dtypes):
        left = budget - (clock() - start)
        weight = float(shares.get(dtype, 1.0 / len(dtypes)))
        rest = sum(float(shares.get(d, 1.0 / len(dtypes))) for d in dtypes[index:])
        dtype_budget = max(left * weight / max(rest, 1e-9), 0.0)
        itemsize = np.dtype(dtype).itemsize

        def factory(n, dtype=dtype):
            return make_product(np, dtype, n)[0]

        def nbytes(n, itemsize=itemsize):
            return 3 * n * n * itemsize

        try:
            each = None
            if on_size is not None:
                def each(n, rate, dtype=dtype):
                    on_size(dtype, n, rate)
            results[dtype] = sweep(factory, sizes, dtype_budget, options, clock, nbytes, each)
        except MemoryError:
            results[dtype] = {"error": "MemoryError: not enough memory for these matrices"}
        except Exception as exc:
            results[dtype] = {"error": error_text(exc)}
    report["results"] = results
    report["elapsed_s"] = round(clock() - start, 3)
    return report


class Capture(object):
    # A logging handler that keeps Theano's warnings (they go to stderr otherwise).
    def __init__(self):
        import logging

        class Handler(logging.Handler):
            def emit(inner, record):
                try:
                    message = text(record.getMessage())
                except Exception:
                    return
                if len(self.messages) < 20:
                    self.messages.append(("%s (%s): %s" % (record.levelname, record.name, message))[:400])

        self.messages = []
        self.handler = Handler()
        self.handler.setLevel(logging.WARNING)
        logging.getLogger("theano").addHandler(self.handler)


def theano_flag(config, dotted):
    # Theano reads blas.ldflags, Theano-PyMC >= 1.0.12 spells it blas__ldflags.
    node = config
    try:
        for part in dotted.split("."):
            node = getattr(node, part)
        return text(str(node))
    except Exception:
        pass
    try:
        return text(str(getattr(config, dotted.replace(".", "__"))))
    except Exception:
        return None


def compile_error(exc):
    # Theano's compile errors are a long tuple; the compiler's own message is the news.
    message = text(str(exc))
    match = re.search(r"Compilation failed \(return status=\d+\):\s*(.*?)(?:\.\s*'|\\n|$)", message, re.S)
    if match:
        return ("Compilation failed: " + match.group(1).strip())[:500]
    return error_text(exc)


GEMM_OPS = ("GpuGemm", "GpuDot22", "Gemm", "Dot22", "Dot22Scalar", "CGemv", "GpuGemv")


def classify_op(op_names, has_cthunk, ldflags, warnings):
    # Which implementation computed the product, in check_blas.py's terms plus the
    # NumPy C-API fallback (Gemm with C code but no BLAS linked).
    op = None
    for name in GEMM_OPS:
        if name in op_names:
            op = name
            break
    if op is None:
        return None, "unknown"
    if op.startswith("Gpu"):
        return op, "gpu"
    if has_cthunk is False:
        return op, "python"
    capi = any(NUMPY_CAPI_WARNING in w for w in warnings)
    if not (ldflags or "").strip() or capi:
        return op, "numpy_c_api"
    return op, "blas"


def run_theano(plan, clock=None):
    # The product c <- 0.4 c + 0.8 a.b through theano.function (what check_blas.py
    # compiles), with the target's own flags, then timed like the numpy side.
    clock = clock or clock_function()
    spec = plan.get("theano") or {}
    n = int(spec.get("n", 512))
    dtype = spec.get("dtype", "float32")
    budget = float(spec.get("budget_s", 1.0))
    options = plan_options(plan)
    report = {"python": interpreter_facts(), "n": n, "dtype": dtype, "stage": "import"}
    capture = Capture()
    report["warnings"] = capture.messages
    t0 = clock()
    try:
        import numpy as np
        report["numpy"] = text(np.__version__)
        import theano
        import theano.tensor as T
    except BaseException as exc:
        report["error"] = error_text(exc)
        return report
    report["import_s"] = round(clock() - t0, 3)
    report["theano"] = text(getattr(theano, "__version__", ""))
    config = theano.config
    flags = {}
    for name in ("device", "floatX", "blas.ldflags", "cxx", "mode", "linker"):
        value = theano_flag(config, name)
        if value is not None:
            flags[name] = value
    report["config"] = flags
    report["stage"] = "compile"
    t1 = clock()
    try:
        rng = np.random.RandomState(n)
        a = theano.shared(rng.random_sample((n, n)).astype(dtype), name="a")
        b = theano.shared(rng.random_sample((n, n)).astype(dtype), name="b")
        c = theano.shared(np.zeros((n, n), dtype=dtype), name="c")
        alpha, beta = np.asarray(0.8, dtype=dtype), np.asarray(0.4, dtype=dtype)
        f = theano.function([], updates=[(c, beta * c + alpha * T.dot(a, b))])
    except BaseException as exc:
        report["error"] = compile_error(exc)
        return report
    report["compile_s"] = round(clock() - t1, 3)
    nodes = f.maker.fgraph.toposort()
    names = [type(node.op).__name__ for node in nodes]
    report["ops"] = names[:20]
    has_cthunk = None
    fn_nodes, thunks = getattr(f.fn, "nodes", None), getattr(f.fn, "thunks", None)
    if fn_nodes is not None and thunks is not None:
        for node, thunk in zip(fn_nodes, thunks):
            if type(node.op).__name__ in GEMM_OPS:
                has_cthunk = hasattr(thunk, "cthunk")
                break
    if has_cthunk is not None:
        report["cthunk"] = has_cthunk
    op, kind = classify_op(names, has_cthunk, flags.get("blas.ldflags"), capture.messages)
    if op:
        report["op"] = op
    report["op_kind"] = kind
    value = c.get_value(borrow=True, return_internal_type=True)
    sync = getattr(value, "sync", None)

    def call():
        f()
        if sync is not None:
            c.get_value(borrow=True, return_internal_type=True).sync()

    report["stage"] = "run"
    try:
        call()
        deadline = clock() + budget
        times = time_calls(call, budget, options["min_reps"], options["max_reps"], deadline, clock)
        report["result"] = summarize(times, n)
        np_call = make_product(np, dtype, n)[0]
        np_call()
        np_times = time_calls(np_call, budget / 2.0, options["min_reps"], options["max_reps"],
                              clock() + budget / 2.0, clock)
        report["numpy_result"] = summarize(np_times, n)
    except BaseException as exc:
        report["error"] = error_text(exc)
        return report
    report["stage"] = "done"
    try:
        report["blas"] = blas_facts(np, os.environ)
    except Exception as exc:
        report["blas"] = {"error": error_text(exc)}
    return report


def main(argv):
    try:
        plan = json.loads(argv[1]) if len(argv) > 1 else {}
    except ValueError as exc:
        plan = {}
        sys.stderr.write("bad plan: %s\n" % exc)
    report = {REPORT_KEY: REPORT_VERSION, "mode": plan.get("mode", "gemm")}
    try:
        if report["mode"] == "theano":
            report.update(run_theano(plan))
        else:
            try:
                import numpy as np
            except BaseException as exc:
                report["stage"] = "import"
                report["error"] = error_text(exc)
                report["python"] = interpreter_facts()
            else:
                report.update(run_gemm(np, plan))
    except BaseException as exc:
        # whatever happens, the parent gets a report saying what
        report["error"] = error_text(exc)
    sys.stdout.write("\n" + json.dumps(report, ensure_ascii=True, sort_keys=True) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv)
