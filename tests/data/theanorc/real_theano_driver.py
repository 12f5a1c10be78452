# Run inside a venv that has the REAL Theano installed (Python 3.6+): evaluates many
# config cases in one run. Each case is imported in a forked child with its own
# environment (HOME, THEANORC, THEANO_FLAGS, ...) and working directory, because Theano
# reads its config once, at import. Input: JSON list of cases on stdin; output: one JSON
# line per case, prefixed with CASE_RESULT.
#
# A case: {"id": str, "env": {name: value}, "cwd": str, "names": [option names],
#          "filters": {option name: [values]}}  ("filters": ask the option's own filter)
import json
import multiprocessing
import os
import sys
import warnings

# Pre-import what theano imports but does not configure, so each child pays only for theano.
for _name in ("numpy", "numpy.distutils", "scipy", "six"):
    try:
        __import__(_name)
    except ImportError:
        pass


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return repr(value)
        return value
    return repr(value)


def _lookup(config, name):
    if hasattr(config, "_config_var_dict"):
        return getattr(config, name)
    node = config
    for part in name.split("."):
        node = getattr(node, part)
    return node


def _filter_fn(param):
    if hasattr(param, "apply") and hasattr(param, "validate"):
        def run(value):
            applied = param.apply(value)
            param.validate(applied)
            return applied
        return run
    return param.filter or (lambda value: value)


def run_case(case):
    os.environ.clear()
    os.environ.update(case["env"])
    os.chdir(case["cwd"])
    out = {"id": case["id"], "pid": os.getpid()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import theano
        except BaseException as exc:  # what the user would see at "import theano"
            out["import_error"] = type(exc).__name__
            out["import_message"] = str(exc)[:500]
            out["warnings"] = [str(w.message) for w in caught]
            return out
    out["warnings"] = [str(w.message) for w in caught]
    out["version"] = theano.__version__
    values = {}
    for name in case.get("names", []):
        try:
            values[name] = ["ok", _jsonable(_lookup(theano.config, name))]
        except BaseException as exc:
            values[name] = ["error", type(exc).__name__]
    out["values"] = values
    if case.get("filters"):
        params = getattr(theano.configparser, "_config_var_list", None)
        if params is None:
            params = list(theano.config._config_var_dict.values())
        by_name = {(getattr(p, "fullname", None) or p.name): p for p in params}
        answers = {}
        for name, trial_values in case["filters"].items():
            fn = _filter_fn(by_name[name])
            answers[name] = []
            for value in trial_values:
                try:
                    answers[name].append(["ok", _jsonable(fn(value))])
                except BaseException as exc:
                    answers[name].append(["error", type(exc).__name__])
        out["filters"] = answers
    return out


def main():
    cases = json.loads(sys.stdin.read())
    workers = max(1, min(len(cases), int(os.environ.get("LEGACYDOC_REAL_WORKERS", "0")) or os.cpu_count() or 1))
    context = multiprocessing.get_context("fork")
    with context.Pool(processes=workers, maxtasksperchild=1) as pool:
        for result in pool.imap_unordered(run_case, cases):
            sys.stdout.write("CASE_RESULT " + json.dumps(result) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
