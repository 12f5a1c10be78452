# A scan written for Theano's default floatX=float64, run with floatX=float32 (what the GPU
# wants, and what legacydoc theanorc --write sets): the state is float32, the step multiplies
# it by a weight numpy made float64, so the step returns float64.
import os

os.environ.setdefault("THEANO_FLAGS", "floatX=float32")
import numpy as np  # noqa: E402
import theano  # noqa: E402
import theano.tensor as T  # noqa: E402

W = theano.shared(np.eye(3), name="W")  # numpy's float64
h0 = T.zeros((3,))  # floatX
h, _ = theano.scan(lambda h: T.tanh(T.dot(W, h)), outputs_info=h0, n_steps=4)
theano.function([], h)
