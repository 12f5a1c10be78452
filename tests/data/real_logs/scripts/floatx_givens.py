# float32 data substituted (givens) for a variable that floatX=float64 (Theano's default)
# made float64: theano.function cannot convert one into the other.
import numpy as np
import theano
import theano.tensor as T

data = theano.shared(np.zeros((4, 3), dtype="float32"), name="data")
i = T.lscalar("i")
x = T.matrix("x")  # floatX: float64 unless the config says float32
theano.function([i], x.sum(), givens={x: data[i:i + 2]})
