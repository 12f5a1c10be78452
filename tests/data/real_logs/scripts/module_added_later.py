# Code written for Theano 0.9+: the new GPU back-end's module (Theano 0.8 has it as theano.sandbox.gpuarray).
from theano.gpuarray.type import ContextNotDefined

print(ContextNotDefined.__name__)
