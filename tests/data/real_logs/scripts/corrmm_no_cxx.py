# CorrMM (the op Lasagne's Conv2DMMLayer builds directly) has only C code: with no C++
# compiler (cxx empty, as when g++ is missing) Theano calls its Python perform.
import os

os.environ.setdefault("THEANO_FLAGS", "cxx=")
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet.corr import CorrMM

img, kern = T.tensor4("img"), T.tensor4("kern")
f = theano.function([img, kern], CorrMM()(img, kern))
print(f(np.ones((1, 1, 5, 5), dtype=theano.config.floatX), np.ones((1, 1, 3, 3), dtype=theano.config.floatX)))
