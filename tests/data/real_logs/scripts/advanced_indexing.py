# Advanced indexing with two index vectors: Theano runs AdvancedSubtensor's Python
# perform(), which indexes the array with a list where numpy 1.15+ wants a tuple.
import numpy as np
import theano
import theano.tensor as T

x = T.matrix("x")
i = T.lvector("i")
j = T.lvector("j")
f = theano.function([x, i, j], x[i, j])
print(f(np.arange(9.0).reshape(3, 3), [0, 1], [1, 2]))  # [1. 5.]
