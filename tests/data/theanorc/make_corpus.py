#!/usr/bin/env python3
"""Writes tests/data/theanorc/corpus/: malformed and unusual .theanorc files, as bytes.

Run once (``python3 tests/data/theanorc/make_corpus.py``); the files are checked in.
Symbolic links, unreadable files, folders and FIFOs cannot live in git and are made by
tests/test_theanorc_corpus.py at run time.
"""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).parent / "corpus"

SEED = (
    "[global]\ndevice = cuda\nfloatX = float32\nmode = FAST_RUN\ncompiler = g++\n\n"
    "[cuda]\nroot = C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.2\n\n"
    "[cudnn]\nenable = True\n\n[lib]\ncnmem = 0.8\n"
)


def corpus() -> dict[str, bytes]:
    rng = random.Random(4)
    files: dict[str, str | bytes] = {
        "empty": b"",
        "only-newlines": "\n\n\n\n",
        "only-comments": "# a comment\n; another\n   # indented comment\n",
        "seed-blog": SEED,
        # the blog post as scraped: '=' and '++' lost, everything on one line
        "seed-scraped": "[global] device cuda floatX float32 mode FAST_RUN [cuda] root C:\\Program Files\\NVIDIA GPU "
                        "Computing Toolkit\\CUDA\\v10.2 [lib] cnmem 0.8",
        "seed-scraped-lines": "[global]\ndevice cuda\nfloatX float32\nmode FAST_RUN\n[lib]\ncnmem 0.8\n",
        "bom-utf8": b"\xef\xbb\xbf[global]\nfloatX = float32\n",
        "bom-utf8-comment-first": b"\xef\xbb\xbf# config\n[global]\nfloatX = float32\n",
        "bom-utf16le": "[global]\nfloatX = float32\n".encode("utf-16"),
        "utf16be-bom": b"\xfe\xff" + "[global]\nfloatX = float32\n".encode("utf-16-be"),
        "utf16le-no-bom": "[global]\nfloatX = float32\n".encode("utf-16-le"),
        "gbk-comment": "# 使用 GPU 加速\n[global]\ndevice = cuda\nfloatX = float32\n".encode("gbk"),
        "utf8-chinese-comment": "# 使用 GPU 加速\n[global]\ndevice = cuda\nfloatX = float32\n",
        "utf8-chinese-value": "[global]\ncxx = C:\\用户\\张三\\mingw64\\bin\\g++.exe\nbase_compiledir = C:\\用户\\缓存\n",
        "latin1-comment": "# configuraci\xf3n r\xe1pida\n[global]\nfloatX = float32\n".encode("latin-1"),
        "crlf": b"[global]\r\ndevice = cpu\r\nfloatX = float32\r\n\r\n[blas]\r\nldflags = -lopenblas\r\n",
        "cr-only": b"[global]\rdevice = cpu\rfloatX = float32\r",
        "mixed-newlines": b"[global]\r\ndevice = cpu\nfloatX = float32\r[dnn]\r\nenabled = False\n",
        "binary-garbage": bytes(rng.randrange(256) for _ in range(4096)),
        "nul-bytes": b"[global]\x00\nfloatX = float32\x00\n\x00\x00",
        "no-trailing-newline": "[global]\nfloatX = float32",
        "tabs-indent": "[global]\n\tdevice = cuda\n\tfloatX = float32\n",
        "indented-section-headers": "  [global]\n  floatX = float32\n  [dnn]\n  enabled = False\n",
        "continuation-lines": "[global]\nfloatX = float32\n    device = cuda\n    mode = FAST_RUN\n[gcc]\ncxxflags = -O3\n  -march=native\n",
        "duplicate-section": "[global]\nfloatX = float32\n[dnn]\nenabled = False\n[global]\ndevice = cpu\n",
        "duplicate-option": "[global]\nfloatX = float32\ndevice = cpu\nFLOATX = float64\n",
        "missing-header": "floatX = float32\ndevice = cuda\n[global]\nmode = FAST_RUN\n",
        "missing-header-dotted": "gpuarray.preallocate = 0.5\n",
        "parse-error-lines": "[global]\ndevice cuda\nthis is not an option\nfloatX = float32\n",
        "empty-option-name": "[global]\n= float32\n : x\n",
        "default-section": "[DEFAULT]\nfloatX = float32\ndevice = cuda\n[global]\nmode = FAST_RUN\n[DEFAULT]\nallow_gc = False\n",
        "inline-comments-mixed": "[global]\nfloatX = float32 # hash\ndevice = cpu ; semicolon\nmode = FAST_RUN#tight\n"
                                 "[gcc]\ncxxflags = -O3 ; fast\n",
        "quoted-values": "[global]\nfloatX = \"float32\"\ndevice = 'cuda'\n[cuda]\nroot = \"/usr/local/cuda\"\n",
        "interpolation-various": "[global]\nbase_compiledir = /tmp/%(USER)s/%(PID)s\ncompiledir_format = x%d\n"
                                 "[gcc]\ncxxflags = -I%(HOME)s/include -DP=100%%\n[blas]\nldflags = %(missing\n",
        "interpolation-loop": "[gcc]\na = %(b)s\nb = %(a)s\ncxxflags = %(a)s\n",
        "weird-section-names": "[global] trailing junk\nfloatX = float32\n[]\nx = 1\n[[dnn]]\nenabled = True\n[ global ]\ndevice = cuda\n",
        "colon-delimiters": "[global]\nfloatX: float32\ndevice : cpu\n[cuda]\nroot: C:\\CUDA\\v10.2\n",
        "unicode-whitespace": "[global]\nfloatX\u3000=\u3000float32\ndevice =\xa0cuda\xa0\n",
        "very-long-line": "[gcc]\ncxxflags = " + "-DX " * 3000 + "\n",
        "many-sections": "".join("[section%d]\noption = %d\n" % (i, i) for i in range(500)) + "[global]\nfloatX = float32\n",
        "huge": "[global]\nfloatX = float32\n" + "# filler line to make the file big\n" * 3000 + "[dnn]\nenabled = False\n",
        "dotted-keys": "[global]\ngpuarray.preallocate = 0.5\ndnn.enabled = True\nglobal.floatX = float32\n"
                       "[dnn]\nconv.algo_fwd = time_once\n[dnn.conv]\nalgo_bwd_data = fft\n",
        "old-backend-0.9": "[global]\ndevice = gpu0\nfloatX = float32\n[lib]\ncnmem = 0.9\n[nvcc]\nflags = -D_FORCE_INLINES\n"
                           "fastmath = True\ncompiler_bindir = C:\\VS\\bin\n[cuda]\nroot = /usr/local/cuda/bin\n",
        "invalid-everything": "[global]\nfloatX = Float32\ndevice = GPU\nmode = fast_run\nallow_gc = no\noptimizer = FAST_RUN\n"
                              "[dnn]\nenabled = true\n[tensor]\ncmp_sloppy = 7\n[gpuarray]\npreallocate = lots\n",
        "case-variants": "[GLOBAL]\nfloatX = float32\n[Global]\nDEVICE = cuda\n[global]\nFLOATX = float32\n[DNN]\nenabled = False\n",
        "windows-paths": "[global]\ncxx = C:\\Program Files\\mingw-w64\\bin\\g++.exe\nbase_compiledir = %LOCALAPPDATA%\\Theano\n"
                         "[cuda]\nroot = C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v9.0\\\n"
                         "[dnn]\ninclude_path = C:\\cudnn\\include\nlibrary_path = C:\\cudnn\\lib\\x64\n",
        "rem-lines": "REM written by a batch file\n[global]\nrem floatX = float32\nfloatX = float32\n",
        "only-section-header": "[global]\n",
        "unclosed-section": "[global\nfloatX = float32\n",
        "equals-in-value": "[gcc]\ncxxflags = -DA=B=C\n[global]\nfloatX = = float32\n",
        "trailing-backslash": "[cuda]\nroot = C:\\CUDA\\\n[global]\nfloatX = float32 \\\n",
        "json-instead": '{"floatX": "float32", "device": "cuda"}\n',
        "shell-syntax-instead": "export THEANO_FLAGS=floatX=float32,device=cuda\nTHEANORC=~/.theanorc\n",
        "python-syntax-instead": "import theano\ntheano.config.floatX = 'float32'\n",
        "flags-syntax-in-file": "[global]\nTHEANO_FLAGS = floatX=float32,device=cuda\nfloatX=float32,device=cuda\n",
        "force-device": "[global]\ndevice = cuda0\nforce_device = True\ninit_gpu_device = cuda1\ncontexts = a->cuda0;b\n",
        "removed-options": "[global]\nhome = /home/x\n[gpuarray]\nsync = True\n[dnn.conv]\nworkmem = small\n[nvcc]\nflags = -arch=sm_30\n",
    }
    return {name: (content.encode("utf-8") if isinstance(content, str) else content) for name, content in files.items()}


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    for name, content in corpus().items():
        (HERE / (name + ".theanorc")).write_bytes(content)
    print("wrote %d files to %s" % (len(corpus()), HERE))


if __name__ == "__main__":
    main()
