# blas.ldflags with an include folder (pasted from `pkg-config --cflags --libs`): the first
# BLAS op (a matrix product) reads it.
import os

os.environ.setdefault("THEANO_FLAGS", "blas.ldflags=-I/opt/OpenBLAS/include -lblas")
import numpy as np
import theano
import theano.tensor as T

a, b = T.matrix("a"), T.matrix("b")
f = theano.function([a, b], T.dot(a, b))
print(f(np.ones((3, 3), dtype=theano.config.floatX), np.ones((3, 3), dtype=theano.config.floatX)))
