# An elementwise op on a matrix: Theano compiles it with make_reordered_loop, whose int
# arrays are filled from npy_intp sizes and strides (a narrowing clang rejects in C++11+).
import numpy
import theano
import theano.tensor as T

x = T.dmatrix("x")
f = theano.function([x], T.exp(x) + 1)
print(f(numpy.ones((2, 3)))[0, 0])
