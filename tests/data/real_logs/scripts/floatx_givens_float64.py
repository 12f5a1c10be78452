# float64 data (numpy's default) substituted (givens) for a variable that floatX=float32 made
# float32: theano.function cannot convert one into the other.
import os

os.environ.setdefault("THEANO_FLAGS", "floatX=float32")
import numpy as np  # noqa: E402
import theano  # noqa: E402
import theano.tensor as T  # noqa: E402

data = theano.shared(np.zeros((4, 3)), name="data")  # numpy's float64
i = T.lscalar("i")
x = T.matrix("x")  # floatX
theano.function([i], x.sum(), givens={x: data[i:i + 2]})
