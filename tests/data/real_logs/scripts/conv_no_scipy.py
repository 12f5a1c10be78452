# A convolution with no C++ compiler (cxx empty): Theano runs the Python implementation,
# which needs scipy.signal's private functions. Run it in a venv without scipy, or with
# scipy 1.8 or later, which moved them.
import os

os.environ.setdefault("THEANO_FLAGS", "cxx=")
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet import conv2d

img, kern = T.tensor4("img"), T.tensor4("kern")
f = theano.function([img, kern], conv2d(img, kern))
print(f(np.ones((1, 1, 5, 5), dtype=theano.config.floatX), np.ones((1, 1, 3, 3), dtype=theano.config.floatX)))
