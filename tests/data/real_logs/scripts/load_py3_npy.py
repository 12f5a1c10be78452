# Run with Python 3: load the Python 2 .npy as such a project's code does.
import numpy as np

params = np.load("params_py2.npy", allow_pickle=True)
print([p.shape for p in params])
