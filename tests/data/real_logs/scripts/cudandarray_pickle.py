# Rebuild a pickle of the shape Theano's CudaNdarray_pickler writes (device=gpu), then load it.
import pickle

import numpy as np
from theano.sandbox.cuda.type import CudaNdarray_unpickler


class Saved(object):
    def __reduce__(self):
        return (CudaNdarray_unpickler, (np.zeros(3, dtype="float32"),))


blob = pickle.dumps(Saved())
print(pickle.loads(blob))
