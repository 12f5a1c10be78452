# An install that lacks Theano's package data (a frozen app, a hand-built wheel, files
# deleted): copy the installed theano package without the C sources named on the command
# line, import the copy, and run a scan and a matrix product with blas.ldflags empty.
import os
import shutil
import sys
import sysconfig

installed = os.path.join(sysconfig.get_paths()["purelib"], "theano")
copy = os.path.join(os.getcwd(), "broken-install")
shutil.rmtree(copy, ignore_errors=True)
# paths inside the package (default: the execution engine's C source); "empty:PATH" keeps
# the file but empties it
chosen = sys.argv[1:] or ["gof/c_code/lazylinker_c.c"]
missing = [a for a in chosen if not a.startswith("empty:")]
emptied = [a[len("empty:"):] for a in chosen if a.startswith("empty:")]
shutil.copytree(installed, os.path.join(copy, "theano"),
                ignore=lambda folder, names: [n for n in names
                                              if os.path.relpath(os.path.join(folder, n), installed) in missing])
for name in emptied:
    open(os.path.join(copy, "theano", name), "w").close()
sys.path.insert(0, copy)
os.environ.setdefault("THEANO_FLAGS", "blas.ldflags=")
import numpy as np  # noqa: E402
import theano  # noqa: E402
import theano.tensor as T  # noqa: E402

print(theano.__file__)
x = T.vector("x")
s, _ = theano.scan(lambda v, acc: acc + v, sequences=x, outputs_info=T.zeros_like(x[0]))
a = T.matrix("a")
f = theano.function([x, a], [s, T.dot(a, a)])
print(f(np.ones(3, dtype=theano.config.floatX), np.ones((2, 2), dtype=theano.config.floatX)))
