# Run with Python 2.7: save a list of parameter arrays with numpy.save (an object array, pickled inside).
import numpy as np

params = np.empty(2, dtype=object)
params[0] = np.arange(6, dtype="float32").reshape(2, 3)
params[1] = np.ones(3, dtype="float32")
np.save("params_py2.npy", params)
