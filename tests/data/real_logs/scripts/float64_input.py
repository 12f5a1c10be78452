# A function whose input is float32 (as with floatX=float32) called with numpy's default
# float64 data: Theano will not downcast it silently.
import numpy as np
import theano
import theano.tensor as T

x = T.matrix("x", dtype="float32")
f = theano.function([x], x.sum())
f(np.ones((2, 2)))  # float64
