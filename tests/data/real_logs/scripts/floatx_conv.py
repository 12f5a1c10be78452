# float32 images against kernels made with floatX=float64 (Theano's default): the
# convolution refuses the mixed types.
import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet import conv

images = T.tensor4("images", dtype="float32")
kernels = theano.shared(np.zeros((2, 1, 3, 3), dtype=theano.config.floatX), name="kernels")
conv.conv2d(images, kernels)
