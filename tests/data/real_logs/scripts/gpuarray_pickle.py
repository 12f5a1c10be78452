# Rebuild a pickle of the shape Theano's GpuArray_pickler writes (device=cuda), then load it.
import pickle

import numpy as np
from theano.gpuarray.type import GpuArray_unpickler


class Saved(object):
    def __reduce__(self):
        return (GpuArray_unpickler, (np.zeros(3, dtype="float32"), None))


blob = pickle.dumps(Saved())
print(pickle.loads(blob))
