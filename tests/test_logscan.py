"""The error catalogue (rules/messages/) and finding its messages in mangled logs."""

from __future__ import annotations

import pytest

from legacydoc import logscan
from legacydoc.engine import load_rules
from legacydoc.messages import CatalogueError, catalogue, message_from_table

MESSAGES = catalogue()
RULE_IDS = {r.id for r in load_rules()}


def test_the_catalogue_is_large_and_every_example_is_found_in_a_log() -> None:
    assert len(MESSAGES) >= 80
    for message in MESSAGES:
        found = {m.id for m in logscan.scan("some noise\n" + message.example + "\nmore noise\n")}
        assert message.id in found, message.id


def test_every_rule_a_message_names_exists() -> None:
    for message in MESSAGES:
        for rule in message.all_rules():
            assert rule in RULE_IDS, (message.id, rule)


@pytest.mark.parametrize("mangle", ["crlf", "ansi", "wrapped", "gbk", "bom", "utf16"])
def test_console_mangling_still_matches(mangle: str) -> None:
    line = "ERROR (theano.gpuarray): Could not initialize pygpu, support disabled"
    text = "Using Theano backend.\n" + line + "\n中文 错误\n"
    if mangle == "crlf":
        data = text.replace("\n", "\r\n").encode()
    elif mangle == "ansi":
        data = text.replace(line, "\x1b[31m" + line + "\x1b[0m").encode()
    elif mangle == "wrapped":  # an 80-column console cut the line, mid-word
        data = text.replace(line, line[:40] + "\n" + line[40:]).encode()
    elif mangle == "gbk":
        data = text.encode("gbk")
    elif mangle == "bom":
        data = b"\xef\xbb\xbf" + text.encode()
    else:
        data = text.encode("utf-16")
    table = logscan.log_table(data, "log.txt")
    assert "theano-gpuarray-could-not-init-pygpu" in table["ids"], (mangle, table["encoding"])


@pytest.mark.parametrize("quoted, message", [
    # a Chinese install guide quoting the error with a full-width colon and curly quotes
    ("AttributeError\uff1amodule \u2018configparser\u2019 has no attribute \u2018SafeConfigParser\u2019",
     "configparser-without-safeconfigparser"),
    ("ERROR\u00a0(theano.gpuarray)\uff1a Could not initialize pygpu, support disabled",
     "theano-gpuarray-could-not-init-pygpu"),
])
def test_a_message_quoted_with_typographic_punctuation_still_matches(quoted: str, message: str) -> None:
    assert message in logscan.log_table(("\u535a\u5ba2\n" + quoted + "\n").encode("utf-8"), "log.txt")["ids"]


@pytest.mark.parametrize("line", [
    "D:\\Python27\\libs/libpython27.a: error adding symbols: File format not recognized",
    # bfd_error_wrong_format, capitalised as binutils before 2.29 printed it; a path with spaces
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v8.0\\lib\\x64/cudnn.lib: error adding symbols: File in wrong format",
    "/usr/lib/libfoo.so: error adding symbols: file in wrong format",
])
def test_both_of_lds_wrong_library_messages_are_known(line: str) -> None:
    found = {m.id for m in logscan.scan("collect2 follows\n" + line + "\n")}
    assert "ld-file-format-not-recognized" in found


@pytest.mark.parametrize("line, static_libpython", [
    ("relocation R_X86_64_32S against `_Py_NotImplementedStruct' can not be used when making a shared object;"
     " recompile with -fPIC", True),
    # newer binutils name the symbol's kind; a PIE-built static libpython fails the same way
    ("/usr/bin/ld: /home/u/.pyenv/versions/3.7.16/lib/libpython3.7m.a(abstract.o): relocation R_X86_64_PC32"
     " against symbol `PyExc_TypeError' can not be used when making a shared object; recompile with -fPIC", True),
    # ld names a section, not a symbol: the library before the colon is Python's
    ("/usr/local/lib/libpython2.7.a(pythonrun.o): relocation R_X86_64_32 against `.rodata.str1.8' can not be used"
     " when making a shared object; recompile with -fPIC", True),
    # a static BLAS is another problem: not Python's library
    ("/usr/lib/libopenblas.a(dgemm.o): relocation R_X86_64_32 against `.rodata' can not be used when making a"
     " shared object; recompile with -fPIC", False),
])
def test_a_static_libpython_is_told_from_other_static_libraries(line: str, static_libpython: bool) -> None:
    found = {m.id for m in logscan.scan(line + "\n")}
    assert ("static-libpython-not-pic" in found) is static_libpython


@pytest.mark.parametrize("line, message", [
    # a Chinese Windows prints the loader's own text: the same messages
    ("ImportError: DLL load failed: 找不到指定的模块。", "windows-dll-load-failed"),
    ("ImportError: DLL load failed: 动态链接库(DLL)初始化例程失败。", "windows-dll-init-failed"),
    ("ImportError: DLL load failed while importing lazylinker_ext: A dynamic link library (DLL) initialization "
     "routine failed.", "windows-dll-init-failed"),
    # a path split at a space: Program Files, or a user folder with a space
    ("g++.exe: error: c:\\program: No such file or directory", "gxx-program-files-split"),
    ("g++.exe: error: C:\\Users\\Chris: No such file or directory", "gxx-program-files-split"),
])
def test_windows_messages_in_either_language_and_split_paths(line: str, message: str) -> None:
    assert message in {m.id for m in logscan.scan(line + "\n")}


@pytest.mark.parametrize("line, message", [
    ('GpuArrayException: Could not load "nvrtc64_70.dll": The specified module could not be found.',
     "pygpu-could-not-load-nvrtc-dll"),
    # libgpuarray always adds ": <why>" (dyn_load.c), but people quote the line without it
    ('GpuArrayException: Could not load "nvrtc64_70.dll":', "pygpu-could-not-load-nvrtc-dll"),
    ('GpuArrayException: Could not load "nvrtc64_70.dll"', "pygpu-could-not-load-nvrtc-dll"),
    ("Could not load \"libnvrtc.so\"", "pygpu-could-not-load-libnvrtc"),
    ("Could not load \"nvcuda.dll\"", "pygpu-could-not-load-libcuda"),
    ("Could not load \"/Library/Frameworks/CUDA.framework/CUDA\"", "pygpu-could-not-load-macos-cuda-driver"),
])
def test_libgpuarrays_load_errors_match_without_their_reason(line: str, message: str) -> None:
    assert message in {m.id for m in logscan.scan(line + "\n")}


LASAGNE, CUDNN_V, KERAS_1 = "lasagne-name-added-after-release", "cudnn-versioned-function-undeclared", \
    "keras-1-name-removed-in-2"


@pytest.mark.parametrize("message, log, found", [
    # Python 2 and 3.3-3.6: the import line, then the bare name
    (LASAGNE, "    from lasagne.layers import Conv2DLayer as ConvLayer, Deconv2DLayer as DeconvLayer\n"
     "ImportError: cannot import name 'Deconv2DLayer'", True),
    (LASAGNE, "    from lasagne.updates import adamax\nImportError: cannot import name adamax", True),
    (LASAGNE, "AttributeError: module 'lasagne.layers' has no attribute 'TransposedConv2DLayer'", True),
    # the same name from another library, or a layer Lasagne 0.1 has
    (LASAGNE, "    from tensorflow.contrib.layers import batch_norm\nImportError: cannot import name 'batch_norm'", False),
    (LASAGNE, "    from lasagne.layers import DenseLayer\nImportError: cannot import name 'DenseLayer'", False),
    (CUDNN_V, 'mod.cu(317): error: identifier "cudnnSetConvolutionNdDescriptor_v3" is undefined', True),
    (CUDNN_V, "dnn_base.c:57:3: error: 'cudnnSetFilterNdDescriptor_v4' was not declared in this scope", True),
    (CUDNN_V, "mod.cpp:(.text+0x1a2): undefined reference to `cudnnSetPoolingNdDescriptor_v4'", True),
    # an unsuffixed function missing is another story (an older cuDNN, or no header at all)
    (CUDNN_V, 'mod.cu(88): error: identifier "cudnnSetFilterNdDescriptor" is undefined', False),
    (KERAS_1, "---> 42 from keras.regularizers import l2, activity_l2, l1, activity_l1\n"
     "ImportError: cannot import name activity_l2", True),
    (KERAS_1, "ImportError: cannot import name 'TimeDistributedDense' from 'keras.layers' (/x/keras/layers/__init__.py)",
     True),
    (KERAS_1, "AttributeError: module 'keras.layers.core' has no attribute 'TimeDistributedDense'", True),
    (KERAS_1, "ImportError: No module named 'keras.utils.visualize_util'", True),
    # a name Keras 2 still has, and a same-named import from another library
    (KERAS_1, "from keras.layers import Dense\nImportError: cannot import name 'Dense'", False),
    (KERAS_1, "from keras.layers import Dense\nfrom sklearn.metrics import precision\n"
     "ImportError: cannot import name precision", False),
])
def test_a_versions_missing_name_is_told_from_others(message: str, log: str, found: bool) -> None:
    """Each message names what one release lacks; the same words about another library's
    name, or a name the release has, are not it."""
    assert (message in {m.id for m in logscan.scan(log + "\n")}) is found


def test_a_missing_source_file_is_not_a_split_path() -> None:
    found = {m.id for m in logscan.scan("g++.exe: error: C:\\work\\mod.cpp: No such file or directory\n")}
    assert "gxx-program-files-split" not in found


def test_a_librarys_own_keras_py_missing_its_package_is_not_a_users_file() -> None:
    """A module named keras.py inside site-packages (mlflow's) whose package is missing is
    not a user's file shadowing Keras; the same import failing in the script's own
    keras.py is."""
    shipped = ('  File "/home/u/venv/lib/python3.5/site-packages/mlflow/keras.py", line 20, in <module>\n'
               "    import keras\nImportError: No module named 'keras'\n")
    assert "user-theano-py-shadows-package" not in {m.id for m in logscan.scan(shipped)}
    own = shipped.replace("/home/u/venv/lib/python3.5/site-packages/mlflow/keras.py", "/home/u/work/keras.py")
    assert "user-theano-py-shadows-package" in {m.id for m in logscan.scan(own)}


def test_a_message_is_reported_once_at_its_first_line() -> None:
    text = "a\nnvcc fatal   : Unsupported gpu architecture 'compute_75'\nnvcc fatal   : Unsupported gpu architecture 'compute_75'\n"
    matches = [m for m in logscan.scan(text) if m.id == "nvcc-unsupported-gpu-architecture"]
    assert len(matches) == 1 and matches[0].line == 2
    assert matches[0].groups.get("arch") in (None, "75", "compute_75")


def test_a_log_with_nothing_known_gives_no_ids() -> None:
    assert logscan.log_table(b"hello\nworld\n", "x")["ids"] == []


def test_a_catalogue_entry_whose_pattern_misses_its_example_is_refused() -> None:
    table = {"id": "x-y", "pattern": "abc", "example": "xyz", "tool": "t", "source": "s", "meaning": "m",
             "causes": [{"text": "c"}]}
    with pytest.raises(CatalogueError, match="does not match its own example"):
        message_from_table(table, "m.toml")


def test_a_catalogue_entry_that_shows_an_unknown_thing_is_refused() -> None:
    table = {"id": "x-y", "pattern": "abc", "example": "abc", "tool": "t", "source": "s", "meaning": "m",
             "causes": [{"text": "c"}], "shows": ["gpu-is-fast"]}
    with pytest.raises(CatalogueError, match="'shows' has unknown 'gpu-is-fast'"):
        message_from_table(table, "m.toml")


def test_a_catalogue_entry_whose_informational_is_not_a_bool_is_refused() -> None:
    table = {"id": "x-y", "pattern": "abc", "example": "abc", "tool": "t", "source": "s", "meaning": "m",
             "causes": [{"text": "c"}], "informational": "yes"}
    with pytest.raises(CatalogueError, match="'informational' must be true or false"):
        message_from_table(table, "m.toml")


# What modprobe prints when the driver cannot load its unified-memory module, and lines
# that only look like it (from a review of the first pattern).
UVM_LINES = {
    "modprobe: ERROR: could not insert 'nvidia_361_uvm': Invalid argument": True,
    "modprobe: FATAL: Module nvidia-uvm not found in directory /lib/modules/4.4.0-83-generic": True,
    "FATAL: Module nvidia_uvm not found.": True,  # module-init-tools, before kmod
    "modprobe: ERROR: could not insert 'nvidia_331_updates_uvm': No such device": True,
    "modprobe: ERROR: ../libkmod/libkmod-module.c:809 kmod_module_insert_module() could not find module by "
    "name='nvidia_331_uvm'": True,
    "nvidia-docker | 2017/07/09 00:49:15 Error: Could not load UVM kernel module. Is nvidia-modprobe installed?": True,
    "modprobe: FATAL: Module nvidia_uvm is in use.": False,  # loaded and working
    "modprobe: ERROR: could not remove 'nvidia_uvm': Operation not permitted": False,  # the fix being tried
    "modprobe: FATAL: Module nouveau not found.\n[ 3794.409463] nvidia_uvm: Loaded the UVM driver, major 251": False,
}


@pytest.mark.parametrize("line", sorted(UVM_LINES))
def test_uvm_module_failures_and_their_look_alikes(line: str) -> None:
    ids = [m.id for m in logscan.scan(line, catalogue())]
    assert ("cuda-uvm-module-load-failed" in ids) == UVM_LINES[line], ids
    # The main module's "No such device" entry (LD203) must not claim the uvm module's.
    assert "nvidia-module-cannot-insert" not in ids


# A second review of the revival messages: what each must and must not claim.
REVIVAL_LINES = {
    "----> 4 exmpl = pickle.load(pickle_in)\n      5 \n      6 print(exmpl)\n\n"
    "UnicodeDecodeError: 'ascii' codec can't decode byte 0xe1 in position 2: ordinal not in range(128)\n":
        "python2-pickle-in-python3",
    "    data = cPickle.load(f)\nUnicodeDecodeError: 'ascii' codec can't decode byte 0x90 in position 614: "
    "ordinal not in range(128)": "python2-pickle-in-python3",
    # a decode error of the code's own, below the load
    "    data = pickle.load(f)\n  File \"x.py\", line 9, in g\n    label.decode('ascii')\n"
    "UnicodeDecodeError: 'ascii' codec can't decode byte 0x90 in position 1: ordinal not in range(128)": "",
    # another traceback further down the log
    "    data = pickle.load(f)\nloaded\nTraceback (most recent call last):\n  File \"y.py\", line 2, in <module>\n"
    "UnicodeDecodeError: 'ascii' codec can't decode byte 0x90 in position 1: ordinal not in range(128)": "",
    "NameError: name 'xrange' is not defined": "python2-builtin-on-python3",
    "NameError: name 'cmp' is not defined": "",  # an ordinary variable name too
    "ModuleNotFoundError: No module named 'commands'": "",  # often a project's own package
    # the source line Theano's traceback shows is not the error
    "    raise ContextNotDefined(\"context name %s not defined\" % (name,))": "",
    "theano.gpuarray.type.ContextNotDefined: context name None not defined": "theano-gpuarray-context-not-defined",
    "/usr/lib/python3/dist-packages/theano/gpuarray/type.py in GpuArray_unpickler(npa, ctx_name)":
        "theano-gpu-unpickler-frame",  # IPython's frame line
    # Keras's loader with h5py 3: Python 3.11's carets, IPython 8, Windows paths
    "  File \"/x/keras/engine/saving.py\", line 273, in _deserialize_model\n"
    "    model_config = json.loads(model_config.decode('utf-8'))\n                              ^^^^^^^^^^^^\n"
    "AttributeError: 'str' object has no attribute 'decode'": "keras-hdf5-attribute-decode",
    "File /x/site-packages/keras/engine/saving.py:273, in _deserialize_model(h5dict, custom_objects, compile)\n"
    "    271 model_config = h5dict['model_config']\n--> 273 model_config = json.loads(model_config.decode('utf-8'))\n"
    "\nAttributeError: 'str' object has no attribute 'decode'": "keras-hdf5-attribute-decode",
    "  File \"C:\\Anaconda3\\lib\\site-packages\\keras\\engine\\topology.py\", line 2874, in load_weights\n"
    "    original_keras_version = f.attrs['keras_version'].decode('utf8')\n"
    "AttributeError: 'str' object has no attribute 'decode'": "keras-hdf5-attribute-decode",
    "    img = scipy.misc.imread(path)\nAttributeError: 'module' object has no attribute 'imread'":
        "scipy-misc-image-function-missing",  # Python 2
}


@pytest.mark.parametrize("text", sorted(REVIVAL_LINES))
def test_revival_messages_and_their_look_alikes(text: str) -> None:
    ids = [m.id for m in logscan.scan(text, catalogue())]
    wanted = REVIVAL_LINES[text]
    assert (ids == [wanted]) if wanted else not any(i.startswith(("python2-", "theano-gpu", "keras-hdf5")) for i in ids), ids


# Pasted command lines start a run; other lines that mention python do not.
RUN_STARTS = {
    "THEANO_FLAGS=device=gpu python check1.py": True,
    "$ THEANO_FLAGS='device=cuda0,floatX=float32' python3.6 train.py --epochs 3": True,
    "(py27) C:\\Users\\me\\proj>python -c \"import theano\"": True,
    "user@box:~/proj$ env OMP_NUM_THREADS=1 python x.py": True,
    "  File \"/usr/lib/python2.7/dist-packages/theano/__init__.py\", line 80, in <module>": False,
    "ERROR (theano.gof.cmodule): python was not found": False,
    "/usr/bin/g++ -shared -g -O3 -m64 -I/usr/include/python2.7 -o x.so mod.cpp": False,
    "$ sudo /usr/bin/python2.7 -m theano.misc.check_blas": True,
    "PS C:\\Users\\me> python train.py": True,
    "(theano) me@box ~ % nohup python3.6m run.py &": True,
    ">>> import theano": False,  # the interactive session goes on: the same run
    "me@box:~$ python": True,  # the interactive interpreter starts
    # a traceback's source line, conda's package list, a printed version, a bare word
    "    py = np.zeros(3)": False,
    "python                    3.6.2                h0b30769_14": False,
    "python 2.7.12": False,
    "pytest": False,
}


@pytest.mark.parametrize("line", sorted(RUN_STARTS))
def test_a_pasted_command_line_starts_a_run(line: str) -> None:
    assert logscan.run_starts("output before\n" + line + "\nafter\n") == ([2] if RUN_STARTS[line] else [])


def test_run_starts_stay_linear_on_a_log_of_command_lines() -> None:
    # 4 MiB of nothing but command lines: only the first MAX_RUNS are counted, and each
    # from the one before (counting from the start every time took minutes).
    import time

    text = "python x.py\n" * (4 * 1024 * 1024 // 12)
    started = time.perf_counter()
    lines = logscan.run_starts(text)
    elapsed = time.perf_counter() - started
    assert lines == list(range(1, logscan.MAX_RUNS + 1))
    small = logscan.run_starts("python x.py\n" * 100)
    assert small == lines  # the same answer as a small log's: the rest is never read
    assert elapsed < 60  # a guard against the quadratic count, not a timing measurement


# Older or cut-down wordings of known messages, as the field quoted them.
WORDINGS = {
    # Lasagne 0.1's own frame, and the call in the user's code
    "    super(Conv2DLayer, self).__init__(incoming, **kwargs)\n"
    "TypeError: __init__() got an unexpected keyword argument 'flip_filters'": "lasagne-conv-layer-without-flip-filters",
    "    net['conv1'] = Conv2DLayer(net['input'], 64, 3, pad=1, flip_filters=False)\n"
    "TypeError: __init__() got an unexpected keyword argument 'flip_filters'": "lasagne-conv-layer-without-flip-filters",
    # Python 3's module form, the import form and the attribute form of the early names
    "AttributeError: module 'lasagne.objectives' has no attribute 'Objective'": "lasagne-name-removed-before-release",
    "    from lasagne.objectives import categorical_crossentropy, Objective\nImportError: cannot import name Objective":
        "lasagne-name-removed-before-release",
    "    obj = lasagne.objectives.Objective(l_out, loss_function=lasagne.objectives.mse)\n"
    "AttributeError: 'module' object has no attribute 'Objective'": "lasagne-name-removed-before-release",
    "AttributeError: 'module' object has no attribute 'get_all_non_bias_params'": "lasagne-name-removed-before-release",
    "AttributeError: module 'lasagne.init' has no attribute 'GlorotUniform_c01b'": "lasagne-name-removed-before-release",
    # gcc's wording, and clang's as pasted with escaped quotes
    "op.cpp:42:47: error: exception handling disabled, use '-fexceptions' to enable": "cxx-exceptions-disabled",
    "error: cannot use \\'throw\\' with exceptions disabled": "cxx-exceptions-disabled",
    # TensorFlow 0.x's Python shape functions, in both spellings
    "ValueError: Filter must not be larger than the input: Filter: (3, 1) Input: (1, 80)":
        "tensorflow-negative-dimension-size",
    "ValueError: filter must not be larger than the input: Filter: [9x9] Input: [1x1]": "tensorflow-negative-dimension-size",
    # clang's try form; Python 3.7's import form and a layer's removed method
    "error: cannot use 'try' with exceptions disabled": "cxx-exceptions-disabled",
    "ImportError: cannot import name 'Objective' from 'lasagne.objectives' (/usr/lib/python3/dist-packages/lasagne/objectives.py)":
        "lasagne-name-removed-before-release",
    "AttributeError: 'DenseLayer' object has no attribute 'get_output'": "lasagne-name-removed-before-release",
    "AttributeError: 'Conv2DDNNLayer' object has no attribute 'get_output_shape'": "lasagne-name-removed-before-release",
    "AttributeError: module 'keras.backend' has no attribute 'T'": "keras-backend-without-theano-tensor",
    # a reporter's asterisks for the pids
    "INFO (theano.gof.compilelock): Waiting for existing lock by process '***' (I am process '***')": "theano-lock-waiting",

    "GpuArrayException: cuInit: b: ?": "pygpu-cuinit-garbled",  # Theano 6572
    # a retyped copy (deepmedic#69): no space after the full stops, "moved"
    "ValueError:  You are tring to use the old GPU back-end.It was moved from Theano.Use device=cuda* now.":
        "theano-old-gpu-backend-removed",
    # Theano 6206: the IPython traceback of starting g++, under Theano's own line (no theano/ frame)
    "Problem occurred during compilation with the command line below:\n\n"
    "~/anaconda/envs/b/lib/python3.6/subprocess.py in _execute_child(self, args, executable)\n"
    "-> 1260                             restore_signals, start_new_session, preexec_fn)\n\n"
    "OSError: [Errno 12] Cannot allocate memory": "theano-compile-fork-no-memory",
    # Theano 0.7's printed g++ command line, cut before ld's refusal: the flag alone tells it
    "/usr/bin/g++ -shared -g -m64 -fPIC -I/home/u/Python-2.7.8/Include -o /home/u/.theano/lazylinker_ext.so"
    " /home/u/.theano/mod.cpp -L/usr/local/lib -lInclude\n": "ld-cannot-find-linclude",
    # cuDNN's status quoted by each back-end's convolution and pooling code
    "RuntimeError: GpuDnnConv: error selecting convolution algo: CUDNN_STATUS_ALLOC_FAILED": "theano-cudnn-op-memory",
    "RuntimeError: error doing cuDNN conv gradweight operation: CUDNN_STATUS_ALLOC_FAILED": "theano-cudnn-op-memory",
    "RuntimeError: Could not allocate working memory": "theano-cudnn-op-memory",
    "MemoryError: Could not allocate working GPU memory": "theano-cudnn-op-memory",
    "RuntimeError: GpuDnnPool: error doing cudnnPoolingForward operation: CUDNN_STATUS_ARCH_MISMATCH":
        "theano-cudnn-op-arch-mismatch",
    "could not create cuDNN handle: CUDNN_STATUS_ARCH_MISMATCH": "theano-cudnn-op-arch-mismatch",
    "RuntimeError: GpuDnnPoolGrad: error doing operation: CUDNN_STATUS_EXECUTION_FAILED.":
        "theano-cudnn-op-execution-failed",
    "RuntimeError: error doing cuDNN conv FWD operation: CUDNN_STATUS_EXECUTION_FAILED": "theano-cudnn-op-execution-failed",
    # Theano 0.8's feature checks: the wordings both back-ends print show neither back-end
    "RuntimeError: cuDNN FFT convolution requires cuDNN v3": "theano-cudnn-too-old-for-feature",
    "RuntimeError: cuDNN selection of convolution implementation based on heuristics requires cuDNN v3":
        "theano-cudnn-too-old-for-feature",
    "RuntimeError: cuDNN pooling mode 'average_exc_pad' requires at least v4": "theano-cudnn-too-old-for-feature",
    "RuntimeError: cuDNN 3d tiled-FFT convolution requires cuDNN v5 or more recent": "theano-cuda-cudnn-too-old-for-feature",
    "Exception: cudnn v1 do not support average_exc_pad": "theano-cuda-cudnn-too-old-for-feature",
    "RuntimeError: cuDNN is required for convolution and pooling": "theano-gpuarray-cudnn-required",
    # the old back-end's first kernel, on a GPU its cached or built code has no binary for
    "RuntimeError: CudaNdarray_ptr_int_size: error when calling the gpu code. (no kernel image is available for "
    "execution on the device)": "theano-cuda-invalid-device-function",
    "RuntimeError: Cuda error: kernel_reduce_sum: no kernel image is available for execution on the device.":
        "theano-cuda-invalid-device-function",
    # a compile cache under a base_compiledir of the user's own, and a quota used up
    "PermissionError: [Errno 13] Permission denied: '/scratch/theano_cache/compiledir_Linux-4.15--generic-x86_64-with-"
    "Ubuntu-18.04-bionic-x86_64-3.6.9-64/lock_dir'": "theano-compiledir-errno13",
    "IOError: [Errno 122] Disk quota exceeded: '/home/u/.theano/compiledir_Linux-3.10-x86_64/tmpab12/mod.cpp'":
        "compiler-no-space-left",
    "OSError: [Errno 69] Disc quota exceeded: '/Users/u/.theano/compiledir_Darwin-15.6.0-x86_64-i386-64bit-i386-2.7.12-64'":
        "compiler-no-space-left",
    "mod.cpp:2:10: fatal error: 'iostream' file not found": "macos-sdk-headers-missing",
    "AttributeError: 'module' object has no attribute '_get_ndarray_c_version'": "numpy-get-ndarray-c-version-missing",
    "NotImplementedError: AbstractConv2d theano optimization failed. Did you exclude both \"conv_dnn\" and "
    "\"conv_gemm\" from the optimizer? Is cudnn available and does the GPU support it?":
        "theano-abstractconv-no-implementation",
    "NotImplementedError: The image and the kernel must have the same type.inputs":
        "theano-conv-image-kernel-dtype-mismatch",
    "/tmp/tmpI4RrMS.cu:1:20: error: Python.h: No such file or directory": "gcc-python-h-missing",
    "ld: unsupported tapi file type '!tapi-tbd' in YAML file "
    "'/Library/Developer/CommandLineTools/SDKs/MacOSX12.sdk/usr/lib/libSystem.tbd' for architecture x86_64":
        "macos-ld-tapi-file-unsupported",
    "AttributeError: 'module' object has no attribute 'Param'": "theano-param-missing",
    "pygpu.gpuarray.GpuArrayException: (b'Unsupported operation', 5)": "pygpu-unsupported-operation-opencl",
    "ImportError: DLL load failed: The specified procedure could not be found.": "windows-dll-procedure-not-found",
    "'DLL load failed: \\xd5\\xd2\\xb2\\xbb\\xb5\\xbd\\xd6\\xb8\\xb6\\xa8\\xb5\\xc4\\xb3\\xcc\\xd0\\xf2\\xa1\\xa3'":
        "windows-dll-procedure-not-found",  # Python 2 on a Chinese Windows: escaped GBK
    "ImportError: DLL load failed: \\xd5\\xd2\\xb2\\xbb\\xb5\\xbd\\xd6\\xb8\\xb6\\xa8\\xb5\\xc4\\xc4\\xa3\\xbf\\xe9\\xa1\\xa3":
        "windows-dll-load-failed",
    "ValueError: ('The specified size contains a dimension with value <= 0', (-11520,))": "keras-weight-shape-not-positive",
    "  File \"/usr/lib/python2.7/dist-packages/keras/initializations.py\", line 13, in uniform\n"
    "    return K.variable(np.random.uniform(low=-scale, high=scale, size=shape))\n"
    "ValueError: negative dimensions are not allowed": "keras-weight-shape-not-positive",
    "    from keras.utils.theano_utils import shared_zeros, alloc_zeros_matrix\n"
    "ImportError: No module named theano_utils": "keras-theano-utils-removed",
    "ImportError: No module named 'keras.utils.theano_utils'": "keras-theano-utils-removed",
    "library ine is not found.": "theano-library-not-found-fragment",  # the end of "command-line"
    "TypeError: expected type_num 11 (NPY_FLOAT32) got 12": "theano-c-input-type-num-mismatch",
    "MemoryError: failed to alloc sm output": "theano-host-alloc-failed",
    "<built-in>:0:0: fatal error: when writing output to : No space left on device": "compiler-no-space-left",
    " ** On entry to SGEMM  parameter number 8 had an illegal value": "cublas-gemm-illegal-parameter",
    "FileNotFoundError: [Errno 2] No such file or directory: '/home/u/.theano/compiledir_Linux-3.10-el7.x86_64"
    "-x86_64-with-centos-7.5.1804-Core-x86_64-3.6.2-64/tmpyvtzjxzm'": "theano-cache-changed-under-another-process",
    "Reason: No collective ops available, API error. Is a collectives library installed?":
        "libgpuarray-collectives-unavailable",
    "undefined symbol: _gfortran_transfer_integer_write": "blas-gfortran-symbol-undefined",
    "TypeError: __init__() got an unexpected keyword argument 'flip_filters'": "lasagne-flip-filters-unknown",
    "ImportError:   cannot import name 'downsample'": "theano-cannot-import-downsample",
    "src/run.sh: line 16: 23143 Illegal instruction: 4  python3 npi/add/training_model.py": "process-illegal-instruction",
    "EE.[1]    70691 illegal hardware instruction  THEANO_FLAGS=device=cpu python -c 'import theano'":
        "process-illegal-instruction",
    "x.so: undefined symbol: _ZNSt7__cxx1118basic_stringstreamIcSt11char_traitsIcESaIcEED1Ev":
        "libstdcxx-older-than-module-needs",
    "when theano=0.9.0 :ImportError: cannot import name inplace_increment": "theano-cutils-ext-without-inplace-increment",
    "mod.cu(147): error: argument of type \"void *\" is incompatible with\nparameter of type \"cudnnConvolutionBwdDataAlgo_t\"":
        "cudnn-parameter-type-mismatch",
    "run.sh: line 3: 23143 Segmentation fault      (core dumped) python train.py": "process-segmentation-fault",
    "zsh: segmentation fault  python train.py": "process-segmentation-fault",
    "Segmentation fault: 11": "process-segmentation-fault",
    "Program terminated with signal SIGSEGV, Segmentation fault.": "process-segmentation-fault",
    "[ubuntu1:03387] Signal: Segmentation fault (11)": "process-segmentation-fault",
    "Program received signal SIGSEGV, Segmentation fault.": "process-segmentation-fault",  # live gdb
    "run.sh: line 3: 23143 Segmentation fault      (core dumped) python train.py --data /ld/x":
        "process-segmentation-fault",
    "Command exited with non-zero status 139": "process-segmentation-fault",  # GNU time
    "Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)": "process-segmentation-fault",
    "./run.sh: 行 3: 1234 段错误               (核心已转储) python x.py": "process-segmentation-fault",
    # Theano 0.8's and Python 2's forms, an integer option, and older Python 3's wording
    "    cast_val = mytype(val)\nValueError: could not convert string to float: True": "theano-config-number-invalid",
    "    cast_val = mytype(val)\nValueError: invalid literal for int() with base 10: 'abc'":
        "theano-config-number-invalid",
    '  File "[...]/theano/gof/cmodule.py", line 1798, in _try_compile_tmp\n    err += "\\n" + str(e)\n\n'
    "TypeError: can't concat bytes to str": "theano-trial-compile-oserror-hidden",
    "theano_helpers.h:5:10: fatal error: Eigen/Core: No such file or directory.  #include <Eigen/Core>.":
        "eigen-headers-missing",  # gcc's form, inside Theano's one-line "Compilation failed"
    "    from theano.gpuarray.type import GpuArrayType\nImportError: No module named gpuarray.type":
        "theano-module-added-after-release",  # Python 2
    "UserWarning: downsample module has been moved to the pool module.": "theano-downsample-moved-warning",  # 0.8.0rc1
    # as pasted in the field: retyped, cut at the console's edge, Python 2's and 3's module forms
    'ValueError : Invalid Value ("cpu") for configuration variable "gpu0" . Valid options start with one of "device", '
    '"opencl", "cuda" .': "theano-dev-build-refuses-gpu",
    "RuntimeError: To use MKL 2018 with Theano you must set \"MKL_THREADING_LAYER=GNU\" in your environement":
        "theano-mkl-2018-threading-layer",
    "RuntimeError: You enabled cuDNN, but we aren't able to use": "theano-gpuarray-enabled-cudnn-unusable",
    "---> 18 from theano.tensor.signal.downsample import max_pool_2d\n\nImportError: No module named downsample":
        "theano-cannot-import-downsample",
    "ModuleNotFoundError: No module named 'theano.tensor.signal.downsample'": "theano-cannot-import-downsample",
    "MemoryError": "python-host-memory-error",
    "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 3.73 GiB for an array with shape (50000, 10000) and "
    "data type float64": "python-host-memory-error",
    "pygpu/collectives.pyx:394:55: Cannot assign type 'double' to 'size_t'": "pygpu-build-cython3",
    "ERROR (theano.graph.opt): Optimization failure due to: constant_folding": "theano-optimization-failure",
    "/usr/bin/ld\xa0: ne peut trouver -lcudnn": "ld-cannot-find-lcudnn",  # a French locale (RETURNN#20)
    "ERROR (theano.gof.opt): SeqOptimizer apply <theano.tensor.opt.FusionOptimizer object at 0x7f>":
        "theano-optimization-failure",
    '  File "C:\\Python36\\lib\\site-packages\\theano\\tensor\\blas.py", line 444, in _ldflags\n'
    "    assert t0 == '-'\nAssertionError": "theano-blas-invalid-ldflags-token",  # Theano#6550, cut
    "    from theano.tensor.signal.pool import pool_2d\nImportError: No module named pool": "theano-module-added-after-release",
    "ModuleNotFoundError: No module named 'theano.tensor.nnet.bn'": "theano-module-added-after-release",
    "TypeError: pool_2d() got an unexpected keyword argument 'ws'": "theano-keyword-added-after-release",
    "    s = T.std(x, axis=0, ddof=1)\nTypeError: std() got an unexpected keyword argument 'ddof'":
        "theano-keyword-added-after-release",
    # Lasagne#636's layer, after a Lasagne layers frame (Python 2) and in Python 3.10's wording
    '  File "/env/lib/python2.7/site-packages/lasagne/layers/recurrent.py", line 890, in __init__\n'
    "    super(LSTMLayer, self).__init__(incomings, **kwargs)\n"
    "TypeError: __init__() got an unexpected keyword argument 'only_return_final'": "lasagne-keyword-added-after-release",
    "    l_out = DenseLayer(l_hid, num_units=10,\n"
    "TypeError: MergeLayer.__init__() got an unexpected keyword argument 'num_leading_axes'":
        "lasagne-keyword-added-after-release",
    # nvcc's pre-include of its own header, as gcc, Spanish gcc and cc1plus report it
    "cc1plus: fatal error: cuda_runtime.h: No such file or directory": "nvcc-own-cuda-runtime-h-missing",
    "/usr/include/stdc-predef.h:40:1: error fatal: cuda_runtime.h: No existe el fichero o el directorio":
        "nvcc-own-cuda-runtime-h-missing",
    "RuntimeError: (\"We can't determine the cudnn version as it is not available\", 'Device not supported')":
        "theano-cudnn-version-not-available",
    "as: unrecognized option `-msse2avx'": "assembler-unknown-instruction",  # RHEL 5's binutils under g++ -mavx
    "nvcc fatal : Value 'sm_30' is not defined": "nvcc-value-sm-not-defined",  # an issue title's cut form
    "NameError: name 'reduce' is not defined": "python2-builtin-on-python3",  # functools.reduce in Python 3
    # a channels_first kernel for a channels_last layer (retyped) and the reverse (Python 2's longs)
    "Layer weight shape(3,3,640,64) not compatible with provided weight shape (64,3,3,3)":
        "keras-channels-first-kernel-for-a-channels-last-layer",
    "Exception: Layer weight shape (64L, 224L, 3L, 3L) not compatible with provided weight shape (3L, 3L, 3L, 64L)":
        "keras-channels-last-kernel-for-a-channels-first-layer",
    # Python 2's "except X, e:" under its File line: 3.10+'s words in pip's indented output, and up to 3.9's
    "        File \"C:\\Temp\\pip-install-u9o9k\\theano_e0db\\setup.py\", line 119\n          except Exception, e:\n"
    "                 ^^^^^^^^^^^^\n      SyntaxError: multiple exception types must be parenthesized":
        "python2-syntax-on-python3",
    "  File \"train.py\", line 3\n    except Exception, e:\n                    ^\nSyntaxError: invalid syntax":
        "python2-syntax-on-python3",
    # pip 10-20.2 builds in pip-install-x/<name>/: Theano 0.5's own setup.py
    "  File \"/tmp/pip-install-k2j3ab/theano/setup.py\", line 119\n    except Exception, e:\n                    ^\n"
    "SyntaxError: invalid syntax": "python2-syntax-on-python3",
    "pygpu.gpuarray.GpuArrayException: Out of memory": "pygpu-cumemalloc-out-of-memory",  # Python 2: no quotes
    # a Keras 1 keyword to a Keras 2 backend function, called through the backend on the line above
    "    y = K.one_hot(x, nb_classes=10)\nTypeError: one_hot() got an unexpected keyword argument 'nb_classes'":
        "keras-1-backend-keyword-on-keras-2",
    # the old conv2d under code for the new one (QA-deep-learning#6's frames)
    "  File \"/usr/local/lib/python2.7/dist-packages/theano/tensor/nnet/conv.py\", line 149, in conv2d\n"
    "    imshp=imshp, kshp=kshp, nkern=nkern, bsize=bsize, **kargs)\n"
    "TypeError: __init__() got an unexpected keyword argument 'input_shape'": "theano-old-conv2d-given-new-keywords",
    "UserWarning: You are creating a TensorVariable with float64 dtype. You requested an action via the Theano flag "
    "warn_float64={ignore,warn,raise,pdb}.": "theano-warn-float64-warning",
}


# Look-alikes that are not the message: numpy's error without Keras, another project's own
# theano_utils, a symbol of another C++ library built with GCC 5's string type.
NOT_THESE = {
    # TensorFlow's own cuInit failures name their error: not libgpuarray's garbled message
    "E tensorflow/stream_executor/cuda/cuda_driver.cc:300] failed call to cuInit: UNKNOWN ERROR (303)":
        "pygpu-cuinit-garbled",
    "E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUresult(-1)": "pygpu-cuinit-garbled",
    # starting g++ failed for another reason (g++ not there)
    "Problem occurred during compilation with the command line below:\n/usr/bin/g++ -shared x.cpp\n"
    "OSError: [Errno 2] No such file or directory": "theano-compile-fork-no-memory",
    # a library whose name only starts with Include
    "g++ -shared -o x.so mod.cpp -L/opt/lib -lIncludeHelpers": "ld-cannot-find-linclude",
    # no backend call above it (TensorFlow's own conv2d, a project's), and a keyword Keras 1 never had
    "TypeError: conv2d() got an unexpected keyword argument 'border_mode'": "keras-1-backend-keyword-on-keras-2",
    "    y = K.one_hot(x, border_mode=10)\nTypeError: one_hot() got an unexpected keyword argument 'border_mode'":
        "keras-1-backend-keyword-on-keras-2",
    # the same TypeError from a Keras layer, with no frame of Theano's old conv.py
    "    model.add(Dense(10, input_shape=(4,)))\nTypeError: __init__() got an unexpected keyword argument 'input_shape'":
        "theano-old-conv2d-given-new-keywords",
    # raise's Exception is not warn's warning
    "Exception: You are creating a TensorVariable with float64 dtype. You requested an action via the Theano flag "
    "warn_float64={ignore,warn,raise,pdb}.": "theano-warn-float64-warning",
    # Theano 0.7's own sources imported by Python 3 (a checkout on sys.path): LD110's message, not the project's code
    "  File \"/Users/u/Projects/Theano/theano/__init__.py\", line 153\n    except Exception, e0:\n"
    "                    ^\nSyntaxError: invalid syntax": "python2-syntax-on-python3",
    # another filter count, a Dense layer: not a layout
    "ValueError: Layer weight shape (3, 3, 3, 64) not compatible with provided weight shape (3, 3, 3, 32)":
        "keras-channels-first-kernel-for-a-channels-last-layer",
    "ValueError: Layer weight shape (4096, 1000) not compatible with provided weight shape (25088, 1000)":
        "keras-channels-first-kernel-for-a-channels-last-layer",
    # each direction is not the other
    "Layer weight shape (3, 3, 64, 64) not compatible with provided weight shape (64, 64, 3, 3)":
        "keras-channels-last-kernel-for-a-channels-first-layer",
    "Layer weight shape (64, 64, 3, 3) not compatible with provided weight shape (3, 3, 64, 64)":
        "keras-channels-first-kernel-for-a-channels-last-layer",
    "Layer weight shape (64, 224, 3, 3) not compatible with provided weight shape (3, 3, 3, 64)":
        "keras-channels-first-kernel-for-a-channels-last-layer",
    "Layer weight shape (3, 3, 224, 64) not compatible with provided weight shape (64, 3, 3, 3)":
        "keras-channels-last-kernel-for-a-channels-first-layer",
    "    except (Exception, e):\n                         ^\nSyntaxError: invalid syntax": "python2-syntax-on-python3",
    "pygpu.gpuarray.GpuArrayException: Out of memory mapping the kernel cache": "pygpu-cumemalloc-out-of-memory",
    "NameError: name 'reduced' is not defined": "python2-builtin-on-python3",
    "Error: Value 'fast' is not defined": "nvcc-value-sm-not-defined",
    # cuda.h missing for a project's own source, not through libgpuarray's header
    "kernel.cpp:2:18: fatal error: cuda.h: No such file or directory": "gpuarray-ext-cuda-h-without-cuda-headers",
    # a source file's own #include (a g++ build without -I), and cudnn.h's include: not nvcc's pre-include
    "src/caffe/blob.cpp:3:26: fatal error: cuda_runtime.h: No such file or directory": "nvcc-own-cuda-runtime-h-missing",
    "/usr/include/cudnn.h:63:26: fatal error: cuda_runtime.h: No such file or directory": "nvcc-own-cuda-runtime-h-missing",
    "ValueError: negative dimensions are not allowed": "keras-weight-shape-not-positive",
    "  File \"/x/tensorflow/python/keras/initializers.py\", line 9, in f\n"
    "ValueError: negative dimensions are not allowed": "keras-weight-shape-not-positive",
    "    from lib.theano_utils import floatX, sharedX\nImportError: No module named theano_utils":
        "keras-theano-utils-removed",
    "cv2.so: undefined symbol: _ZN2cv6imreadERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEi":
        "libstdcxx-older-than-module-needs",
    "library ong is not found.": "theano-library-not-found-python-dev",
    "a segmentation fault handler is installed for this process": "process-segmentation-fault",
    # the compiler's own crash, not the process's
    "mod.cpp:1234: internal compiler error: Segmentation fault": "process-segmentation-fault",
    'sh: line 1: 12345 Segmentation fault      (core dumped) "$CICC_PATH/cicc" --orig_src_file_name x.cu':
        "process-segmentation-fault",
    "ValueError: could not convert string to float: 'abc'": "theano-config-number-invalid",  # not Theano's config
    # another framework's warp-ctc binding (warpctc_pytorch), outside Theano's CTC op
    "OSError: libwarpctc.so: cannot open shared object file: No such file or directory": "theano-warpctc-not-loadable",
    # Theano's own host allocation failure and the old back-end's GPU one are messages of their own
    "MemoryError: failed to alloc sm output": "python-host-memory-error",
    "MemoryError: Error allocating 1073741824 bytes of device memory (out of memory).": "python-host-memory-error",
    # another package's pool, and a Theano module every release has
    "    from multiprocessing import pool\nImportError: No module named pool": "theano-module-added-after-release",
    "ImportError: No module named 'theano.tensor.nnet'": "theano-module-added-after-release",
    # Theano 1.0.5 under Python 2 without the old theano.sandbox.gpuarray (import and pickle
    # say the same), and a user's own theano.py
    "    from theano.sandbox.gpuarray.type import GpuArrayType\nImportError: No module named gpuarray.type":
        "theano-module-added-after-release",
    "ImportError: No module named gpuarray.type": "theano-module-added-after-release",
    "ModuleNotFoundError: No module named 'theano.gpuarray'; 'theano' is not a package": "theano-module-added-after-release",
    # a keyword Theano took already in 0.6, another project's own scan, a method of the same name
    "TypeError: scan() got an unexpected keyword argument 'go_backwards'": "theano-keyword-added-after-release",
    "TypeError: myscan() got an unexpected keyword argument 'strict'": "theano-keyword-added-after-release",
    "TypeError: Model.scan() got an unexpected keyword argument 'strict'": "theano-keyword-added-after-release",
    # std is numpy's and Keras's too (K.std has no ddof); prod also a method (x.prod)
    "TypeError: std() got an unexpected keyword argument 'ddof'": "theano-keyword-added-after-release",
    "    s = K.std(x, ddof=1)\nTypeError: std() got an unexpected keyword argument 'ddof'":
        "theano-keyword-added-after-release",
    "    p = x.prod(no_zeros_in_input=True)\nTypeError: prod() got an unexpected keyword argument 'no_zeros_in_input'":
        "theano-keyword-added-after-release",
    # a layer keyword without a Lasagne frame or the layer's name, and one Lasagne 0.1 took
    "TypeError: __init__() got an unexpected keyword argument 'only_return_final'": "lasagne-keyword-added-after-release",
    "    l = DenseLayer(l_in, num_units=10)\nTypeError: __init__() got an unexpected keyword argument 'shared_axes'":
        "lasagne-keyword-added-after-release",
    # Lasagne master: Conv2DLayer takes no dilation (only DilatedConv2DLayer, new in master, does)
    "    l = Conv2DLayer(l_in, 32, 3, dilation=2)\n"
    "TypeError: __init__() got an unexpected keyword argument 'dilation'": "lasagne-keyword-added-after-release",
    "sh: 行 1: 12345 段错误 (核心已转储) cicc -arch compute_30 x.cu": "process-segmentation-fault",
    "sh: line 1: 12345 Segmentation fault /usr/bin/ld -o x.so": "process-segmentation-fault",
    # flip_filters with no convolution layer's frame before it says nothing about the release
    "TypeError: __init__() got an unexpected keyword argument 'flip_filters'": "lasagne-conv-layer-without-flip-filters",
    "    l = DenseLayer(l_in, 10, flip_filters=False)\n"
    "TypeError: __init__() got an unexpected keyword argument 'flip_filters'": "lasagne-conv-layer-without-flip-filters",
    # Keras's and Theano's own objectives and concatenate, which every release has
    "    from keras.objectives import mse\nImportError: cannot import name mse": "lasagne-name-removed-before-release",
    "AttributeError: module 'keras.objectives' has no attribute 'Objective'": "lasagne-name-removed-before-release",
    # Keras's own layers (Keras 1 removed get_output too), and Keras's InputLayer
    "AttributeError: 'Dense' object has no attribute 'get_output'": "lasagne-name-removed-before-release",
    "AttributeError: 'InputLayer' object has no attribute 'get_output'": "lasagne-name-removed-before-release",
    # flip_filters after an import line that names Conv2DLayer, in another layer's call
    "from lasagne.layers import Conv2DLayer\n    l = MyLayer(l, flip_filters=False)\n"
    "TypeError: __init__() got an unexpected keyword argument 'flip_filters'": "lasagne-conv-layer-without-flip-filters",
    # K.T on an array that turned out None or a list (a kernel matrix in GP code), not a module
    "    mu = K.T.dot(alpha)\nAttributeError: 'NoneType' object has no attribute 'T'": "keras-backend-without-theano-tensor",
    "    s = K.T.sum()\nAttributeError: 'list' object has no attribute 'T'": "keras-backend-without-theano-tensor",
    # clang's other exception diagnostics are not about -fno-exceptions
    "error: cannot use 'throw' in a function declared noexcept": "cxx-exceptions-disabled",
    # a lock whose owner Theano names: most often alive, or on another host
    "INFO (theano.gof.compilelock): Waiting for existing lock by process '4242' (I am process '2799')":
        "theano-lock-waiting-unknown-owner",
}


@pytest.mark.parametrize("text", sorted(NOT_THESE))
def test_look_alikes_are_not_the_message(text: str) -> None:
    assert NOT_THESE[text] not in [m.id for m in logscan.scan(text, catalogue())]


@pytest.mark.parametrize("line", sorted(WORDINGS))
def test_older_and_cut_down_wordings_are_known(line: str) -> None:
    assert WORDINGS[line] in [m.id for m in logscan.scan(line, catalogue())]


def test_the_readme_states_the_catalogues_size() -> None:
    """The README's statements of the catalogue's size today ("403 entries from", "all 403
    messages of", "The catalogue has 403 messages") agree with it; its history keeps older counts."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"(\d{3}) entries from|all (\d{3}) messages of|catalogue has (\d{3}) messages",
                       readme.replace("\n", " "))
    stated = [int(number) for groups in found for number in groups if number]
    assert len(stated) == 3 and set(stated) == {len(catalogue())}, stated
