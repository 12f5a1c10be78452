# Run with Python 2.7: pickle a model's parameters the way 2015-2017 Theano/Lasagne projects did.
import cPickle
import numpy as np

params = [np.arange(6, dtype="float32").reshape(2, 3), np.ones(3, dtype="float32")]
with open("model_py2.pkl", "wb") as f:
    cPickle.dump(params, f, protocol=cPickle.HIGHEST_PROTOCOL)
