# Code written against Theano 1.0's module layout (theano.gof), run under Theano-PyMC 1.1,
# which split theano.gof into theano.graph and theano.link.
from theano.gof import Apply, Op

print(Apply.__name__, Op.__name__)
