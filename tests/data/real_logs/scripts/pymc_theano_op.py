# A custom Op declared as theano.Op, as code written against Theano 1.0 could do, run
# under Theano-PyMC 1.1, which moved Op to theano.graph.op.
import numpy as np
import theano
import theano.tensor as tt


class Double(theano.Op):
    itypes = [tt.dvector]
    otypes = [tt.dvector]

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.asarray(inputs[0] * 2)


x = tt.dvector()
print(theano.function([x], Double()(x))([1.0, 2.0]))
