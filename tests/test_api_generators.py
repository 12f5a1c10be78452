"""The selection logic of tools/keywords_added.py and tools/theano_api_added.py (which
generate catalogue patterns from release tags), on small made-up tag tables: what they
claim, and what they must not claim."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import keywords_added  # noqa: E402
import theano_api_added  # noqa: E402

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
