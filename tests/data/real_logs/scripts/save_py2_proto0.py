# Run with Python 2.7: cPickle's default protocol (0, text), two consecutive dumps in one file.
import cPickle
import numpy as np

with open("model_py2_proto0.pkl", "wb") as f:
    cPickle.dump(12, f)
    cPickle.dump([np.arange(6, dtype="float32").reshape(2, 3)], f)
