# Code written for Theano 0.9 or older: Pylearn2's import of the six that Theano bundled
# (theano/compat/six.py, removed in Theano 1.0).
from theano.compat.six.moves import input, zip as izip  # noqa: I001  (Pylearn2's line as it is)

print(input.__name__, izip.__name__)
