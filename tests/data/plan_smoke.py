# The smoke test a planned environment must pass (tests/test_plan_envs.py): run by the
# environment's own Python (2.7 to 3.11) with THEANORC pointing at the plan's theanorc.
# Prints one JSON line; exits non-zero on any failure.
import json
import sys

import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet import conv2d

floatX = theano.config.floatX
x, y, z = T.matrix("x"), T.matrix("y"), T.matrix("z")
gemm = theano.function([x, y, z], z + 2 * T.dot(x, y))
ops = sorted(set(type(node.op).__name__ for node in gemm.maker.fgraph.toposort()))
a = np.ones((64, 64), dtype=floatX)
result = gemm(a, a, a)
assert np.allclose(result, 1 + 2 * 64), result[0, 0]
assert any(name.startswith(("Gemm", "CGemm", "Dot22")) for name in ops), ops

image, kernel = T.tensor4("image"), T.tensor4("kernel")
conv = theano.function([image, kernel], conv2d(image, kernel))
out = conv(np.ones((1, 1, 5, 5), dtype=floatX), np.ones((1, 1, 3, 3), dtype=floatX))
assert out.shape == (1, 1, 3, 3) and np.allclose(out, 9), out

json.dump({"theano": theano.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
           "device": theano.config.device, "floatX": floatX, "ldflags": theano.config.blas.ldflags,
           "cxx": theano.config.cxx, "gemm_ops": ops}, sys.stdout)
sys.stdout.write("\n")
