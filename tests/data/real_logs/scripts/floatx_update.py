# A float32 shared variable updated by an expression that floatX=float64 (Theano's
# default) makes float64: theano.function refuses the update.
import numpy as np
import theano
import theano.tensor as T

W = theano.shared(np.zeros(3, dtype="float32"), name="W")
x = T.vector("x")  # floatX: float64 unless the config says float32
cost = T.sum(W * x)
theano.function([x], cost, updates=[(W, W - 0.1 * T.grad(cost, W))])
