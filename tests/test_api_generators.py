"""The selection logic of tools/keywords_added.py, tools/theano_api_added.py and
tools/theano_api_table.py (which generate catalogue patterns and a knowledge table from
release tags), on small made-up tag tables: what they
claim, and what they must not claim."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import keywords_added  # noqa: E402
import theano_api_added  # noqa: E402
import theano_api_table  # noqa: E402

TAGS = ("old", "new")
SCAN = "theano/scan_module/scan.py"


def _tags(old: dict, new: dict, old_methods: dict | None = None, new_methods: dict | None = None) -> dict:
    return {"old": {"functions": old, "methods": old_methods or {}, "inits": {}},
            "new": {"functions": new, "methods": new_methods or {}, "inits": {}}}


def _def(params: list[str], kwargs: bool = False, path: str = SCAN, elemwise: bool = False) -> list:
    return [params, kwargs, path, elemwise]


def test_a_keyword_the_old_release_rejected_in_the_same_module_is_claimed() -> None:
    tags = _tags({"scan": [_def(["fn"])]}, {"scan": [_def(["fn", "strict"])]})
    assert keywords_added.added_function_keywords(tags, TAGS) == {"scan": {"strict": "new"}}


def test_no_claim_where_the_old_release_could_have_taken_it() -> None:
    # through **kwargs, by another definition of the same name, or never had the function
    assert keywords_added.added_function_keywords(
        _tags({"scan": [_def(["fn"], kwargs=True)]}, {"scan": [_def(["fn", "strict"])]}), TAGS) == {}
    assert keywords_added.added_function_keywords(
        _tags({"scan": [_def(["fn"]), _def(["fn", "strict"], path="theano/sandbox/scan.py")]},
              {"scan": [_def(["fn", "strict"])]}), TAGS) == {}
    assert keywords_added.added_function_keywords(_tags({}, {"scan": [_def(["fn", "strict"])]}), TAGS) == {}


def test_no_claim_for_a_function_moved_to_another_module() -> None:
    # the old back-end's function rejected it; upgrading removes that module, not the error
    tags = _tags({"dnn_conv": [_def(["img"], path="theano/sandbox/cuda/dnn.py")]},
                 {"dnn_conv": [_def(["img", "algo"], path="theano/gpuarray/dnn.py")]})
    assert keywords_added.added_function_keywords(tags, TAGS) == {}


def test_no_claim_a_method_or_a_fork_of_the_same_name_contradicts() -> None:
    old, new = {"prod": [_def(["x"], path="theano/tensor/basic.py")]}, {
        "prod": [_def(["x", "no_zeros_in_input"], path="theano/tensor/basic.py")]}
    assert keywords_added.added_function_keywords(_tags(old, new), TAGS) == {"prod": {"no_zeros_in_input": "new"}}
    # x.prod(no_zeros_in_input=True) on the newest release fails with the same bare name
    method = {"prod": [_def(["self", "axis"], path="theano/tensor/var.py")]}
    assert keywords_added.added_function_keywords(_tags(old, new, new_methods=method), TAGS) == {}
    fork = {"functions": {"prod": [_def(["x"], path="theano/tensor/basic.py")]}, "methods": {}, "inits": {}}
    assert keywords_added.added_function_keywords(_tags(old, new), TAGS, (fork,)) == {}


def test_an_op_made_by_a_decorator_is_never_claimed() -> None:
    tags = _tags({"j0": [_def([], path="theano/tensor/basic.py")]},
                 {"j0": [_def(["x"], path="theano/tensor/basic.py", elemwise=True)]})
    assert keywords_added.added_function_keywords(tags, TAGS) == {}


def test_a_layer_keyword_needs_the_layer_in_the_old_release_and_nothing_old_taking_it() -> None:
    layers = "lasagne/layers/"
    by_tag = {
        "v0.1": {"functions": {}, "methods": {}, "inits": {
            "LSTMLayer": [_def(["self", "incoming"], True, layers + "recurrent.py")],
            "Conv2DDNNLayer": [_def(["self", "incoming", "flip_filters"], True, layers + "dnn.py")]}},
        "master": {"functions": {}, "methods": {}, "inits": {
            "LSTMLayer": [_def(["self", "incoming", "only_return_final"], True, layers + "recurrent.py")],
            "Conv2DLayer": [_def(["self", "incoming", "flip_filters"], True, layers + "conv.py")],
            "DilatedConv2DLayer": [_def(["self", "incoming", "dilation"], True, layers + "conv.py")]}},
    }
    # Conv2DLayer's flip_filters: a 0.1 layer took it; DilatedConv2DLayer: not in 0.1
    assert keywords_added.added_layer_keywords(by_tag, ("v0.1", "master")) == {"LSTMLayer": ["only_return_final"]}
    # a keyword master's layer hands on through **kwargs to its base class
    by_tag["v0.1"]["inits"]["Conv2DLayer"] = [_def(["self", "incoming", "pad"], True, layers + "conv.py")]
    by_tag["master"]["inits"]["Conv2DLayer"][0][1] = True
    by_tag["master"]["inits"]["BaseConvLayer"] = [_def(["self", "incoming", "num_groups"], True, layers + "conv.py")]
    by_tag["master"]["bases"] = {"Conv2DLayer": ["BaseConvLayer"]}
    found = keywords_added.added_layer_keywords(by_tag, ("v0.1", "master"))
    assert found == {"LSTMLayer": ["only_return_final"], "Conv2DLayer": ["num_groups"]}
    pattern = re.compile(keywords_added.layer_pattern({}, found))
    error = "TypeError: __init__() got an unexpected keyword argument '%s'"
    assert pattern.search("    super(Conv2DLayer, self).__init__(incoming, **kwargs)\n" + error % "num_groups")
    assert pattern.search("    l = Conv2DLayer(l_in, 32, 3, num_groups=2)\n" + error % "num_groups")
    assert not pattern.search("    super(Conv2DLayer, self).__init__(incoming, **kwargs)\n" + error % "only_return_final")
    assert not pattern.search("    l = Conv2DLayer(l_in, 32, 3, dilation=2)\n" + error % "dilation")


def test_a_name_numpy_or_keras_also_has_needs_the_call_through_theano() -> None:
    pattern = re.compile(keywords_added.function_pattern({"std": {"ddof": "new"}, "scan": {"strict": "new"}}, {"std"}))
    assert pattern.search("TypeError: scan() got an unexpected keyword argument 'strict'")
    assert not pattern.search("TypeError: std() got an unexpected keyword argument 'ddof'")
    assert pattern.search("    s = T.std(x, ddof=1)\nTypeError: std() got an unexpected keyword argument 'ddof'")
    assert not pattern.search("    s = K.std(x, ddof=1)\nTypeError: std() got an unexpected keyword argument 'ddof'")


def test_a_module_is_claimed_where_its_package_was_there_without_it() -> None:
    by_tag = {tag: {} for tag in theano_api_added.TAGS}
    for tag in theano_api_added.TAGS:
        by_tag[tag] = {"theano": {}, "theano.tensor": {}, "theano.sandbox": {}}
    newest = theano_api_added.TAGS[-1]
    by_tag[newest].update({"theano.gpuarray": {}, "theano.gpuarray.type": {}, "theano.tensor.fft": {}})
    by_tag[theano_api_added.TAGS[-2]]["theano.tensor.fft"] = {}
    modules = theano_api_added.added_modules(by_tag)
    # the package that was missing is named, not its submodule (Python names the first one)
    assert modules == {"theano.gpuarray": ["type"], "theano.tensor.fft": []}
    pattern = re.compile(theano_api_added.module_pattern(modules))
    assert pattern.search("ModuleNotFoundError: No module named 'theano.gpuarray'")
    assert not pattern.search("ModuleNotFoundError: No module named 'theano.gpuarray'; 'theano' is not a package")
    # Python 2 names only the rest, as it does for theano.sandbox.gpuarray (gone from 1.0)
    assert pattern.search("    import theano.gpuarray.type\nImportError: No module named gpuarray.type")
    assert not pattern.search("    import theano.sandbox.gpuarray.type\nImportError: No module named gpuarray.type")
    assert not pattern.search("ImportError: No module named gpuarray.type")


def _module(sure: list[str], may: list[str] | None = None, subs: list[str] | None = None) -> dict:
    return {"sure": sure, "may": sorted(set(sure) | set(may or [])), "subs": subs or []}


def _removed_tags(old: dict, newest: dict, middle: dict | None = None) -> dict:
    tags = theano_api_added.TAGS
    by_tag = {tag: dict(middle if middle is not None else old) for tag in tags[:-1]}
    by_tag[tags[0]] = old
    by_tag[tags[-1]] = newest
    return by_tag


def test_a_name_an_old_release_always_had_and_the_newest_lacks_is_claimed_removed_with_its_last_tag() -> None:
    tags = theano_api_added.TAGS
    old = {"theano": _module(["function", "ProfileMode"]), "theano.tensor.nnet": _module(["conv3D", "sigmoid"])}
    middle = {"theano": _module(["function"]), "theano.tensor.nnet": _module(["conv3D", "sigmoid"])}
    newest = {"theano": _module(["function"]), "theano.tensor.nnet": _module(["sigmoid"])}
    gone = theano_api_added.removed(_removed_tags(old, newest, middle), "attribute")
    assert gone == {"theano": {"ProfileMode": tags[0]}, "theano.tensor.nnet": {"conv3D": tags[-2]}}


def test_no_removal_claimed_where_the_newest_may_still_have_it_or_it_was_never_sure() -> None:
    # bound under a condition in the newest (a try/if), or a submodule there: it may be found
    newest = {"theano.tensor.nnet": _module([], may=["conv3D"], subs=["neighbours"])}
    old = {"theano.tensor.nnet": _module(["conv3D", "neighbours"])}
    assert theano_api_added.removed(_removed_tags(old, newest), "import") == {}
    # the old release had it only under a condition: nobody could count on it
    old = {"theano.tensor.nnet": _module([], may=["conv3D"])}
    assert theano_api_added.removed(_removed_tags(old, {"theano.tensor.nnet": _module([])}), "import") == {}
    # a standard-library module or a builtin bound by an import is nobody's API
    old = {"theano.tensor.nnet": _module(["os", "any", "sys"])}
    assert theano_api_added.removed(_removed_tags(old, {"theano.tensor.nnet": _module([])}), "import") == {}


def test_removals_with_a_message_of_their_own_are_left_to_it() -> None:
    # theano.sandbox.cuda is a stub in 1.0 that raises its own error; downsample has its message
    old = {"theano.sandbox.cuda": _module(["CudaNdarrayType"]), "theano.tensor.signal": _module([], subs=["downsample"])}
    newest = {"theano.sandbox.cuda": _module([]), "theano.tensor.signal": _module([])}
    assert theano_api_added.removed(_removed_tags(old, newest), "import") == {}
    by_tag = _removed_tags({"theano.tensor.signal": {}, "theano.tensor.signal.downsample": {}},
                           {"theano.tensor.signal": {}})
    assert theano_api_added.removed_modules(by_tag) == {}


def test_a_bundled_module_is_claimed_removed_from_its_package_as_a_name_and_as_a_module() -> None:
    tags = theano_api_added.TAGS
    old = {"theano.compat": _module([], subs=["six"]), "theano.compat.six": {}, "theano.compat.six.moves": {},
           "theano.sandbox": {}, "theano.sandbox.test_scan": {}}
    newest = {"theano.compat": _module([]), "theano.sandbox": {}}
    by_tag = _removed_tags(old, newest)
    assert theano_api_added.removed(by_tag, "import") == {"theano.compat": {"six": tags[-2]}}
    assert theano_api_added.removed(by_tag, "attribute") == {}  # a submodule is an attribute only once imported
    # the first missing module only (what the ImportError names), and no test files
    modules = theano_api_added.removed_modules(by_tag)
    assert modules == {"theano.compat.six": tags[-2]}
    pattern = re.compile(theano_api_added.removed_module_pattern(modules))
    assert pattern.search("ModuleNotFoundError: No module named 'theano.compat.six'")
    assert pattern.search("    from theano.compat.six.moves import input, zip as izip\nImportError: No module named six.moves")
    # Python 2's bare form is any six's: it counts only after the import line naming Theano's
    assert not pattern.search("    from six.moves import input\nImportError: No module named six.moves")
    assert not pattern.search("ImportError: No module named six.moves")
    assert not pattern.search("ModuleNotFoundError: No module named 'theano.compat.sixes'")


def test_a_fork_compared_with_the_release_it_left_is_read_the_same_way_in_python_3_only() -> None:
    # Theano 1.0.5 against Theano-PyMC 1.1.2: any two tags, and no Python 2 form for the fork
    tags = ("rel-1.0.5", "fork")
    pair = {"rel-1.0.5": {"theano": _module(["Op", "function"]), "theano.gof": {}},
            "fork": {"theano": _module(["function"], subs=["graph"]), "theano.graph": {}}}
    assert theano_api_added.removed(pair, "attribute", tags) == {"theano": {"Op": "rel-1.0.5"}}
    modules = theano_api_added.removed_modules(pair, tags)
    assert modules == {"theano.gof": "rel-1.0.5"}
    pattern = theano_api_added.removed_module_pattern(modules, python2=False)
    assert re.search(pattern, "ModuleNotFoundError: No module named 'theano.gof'")
    assert not re.search(pattern, "    from theano.gof import Op\nImportError: No module named gof")
    # the names an older Theano lacked too are left out (the error would not tell which)
    found = {"theano": {"Op": "rel-1.0.5", "scan_checkpoints": "rel-1.0.5"}}
    assert theano_api_added._kept(found, lambda module, name, last: name != "scan_checkpoints") == {
        "theano": {"Op": "rel-1.0.5"}}


def test_a_release_lacks_a_name_only_where_every_tag_of_its_group_lacks_it() -> None:
    new = {"theano.tensor.nnet": _module(["relu", "ctc_helper"], subs=["ctc"])}
    by_tag = {"rel-1.0.5": new,
              "rel-0.8.0": {"theano.tensor.nnet": _module(["sigmoid"])},
              "rel-0.8.1": {"theano.tensor.nnet": _module(["sigmoid"], may=["relu"])},  # under an if
              "rel-0.8.2": {"theano.tensor.nnet": _module(["sigmoid", "ctc_helper"])}}
    group = ("rel-0.8.0", "rel-0.8.1", "rel-0.8.2")
    # relu may be there at 0.8.1, ctc_helper is at 0.8.2: neither is claimed for the group
    assert theano_api_table.lacking(by_tag, "rel-1.0.5", group, "attribute") == {}
    # a submodule is missing only from `from module import X`
    assert theano_api_table.lacking(by_tag, "rel-1.0.5", group, "import") == {"theano.tensor.nnet": ["ctc"]}


def test_a_removed_name_is_claimed_with_the_last_release_that_surely_had_it() -> None:
    by_tag = {"rel-0.7": {"theano": _module(["ProfileMode", "Mode"])},
              "rel-0.8.0": {"theano": _module(["ProfileMode", "Mode"])},
              "rel-0.8.1": {"theano": _module(["ProfileMode", "Mode"])},
              "rel-0.8.2": {"theano": _module(["ProfileMode", "Mode"])},
              "rel-0.9.0": {"theano": _module(["Mode"], may=["ProfileMode"])},
              **{t: {"theano": _module(["Mode"])} for t in theano_api_table.GROUPS[-1][2]}}
    # 0.9.0 may have it (under a condition): nothing is claimed about 0.9.0
    assert theano_api_table.removed(by_tag, ("rel-0.9.0",), "attribute") == {}
    assert theano_api_table.removed(by_tag, theano_api_table.GROUPS[-1][2], "attribute") == {
        ("theano", "rel-0.8.2"): ["ProfileMode"]}
    # no release before 0.7 was read: nothing is removed from 0.7's point of view
    assert theano_api_table.removed(by_tag, ("rel-0.7",), "attribute") == {}


def test_a_missing_module_is_named_at_its_first_missing_package() -> None:
    by_tag = {"rel-1.0.5": {"theano": {}, "theano.gpuarray": {}, "theano.gpuarray.dnn": {}, "theano.tensor": {},
                            "theano.tensor.fft": {}, "theano._version": {}},
              "rel-0.8.2": {"theano": {}, "theano.tensor": {}}}
    assert theano_api_table.missing_modules(by_tag, ("rel-1.0.5",), ("rel-0.8.2",)) == {
        "theano.gpuarray": "rel-1.0.5", "theano.tensor.fft": "rel-1.0.5"}
