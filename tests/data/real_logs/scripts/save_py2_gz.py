# Run with Python 2.7: a gzip-compressed pickle, as mnist.pkl.gz was distributed.
import gzip

import cPickle
import numpy as np

data = (np.zeros((2, 4), dtype="float32"), np.arange(2, dtype="int64"))
f = gzip.open("data_py2.pkl.gz", "wb")
cPickle.dump(data, f, protocol=2)
f.close()
