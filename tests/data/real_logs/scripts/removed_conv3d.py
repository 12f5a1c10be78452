# Code written for Theano 0.9 or older: the old 3-D convolution op, removed in Theano 1.0
# (theano.tensor.nnet.conv3d, with another layout, took its place).
from theano.tensor.nnet import conv3D

print(conv3D.__name__)
