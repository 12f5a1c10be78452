# Run with Python 2.7: gzip-compressed pickles, as mnist.pkl.gz was distributed: one whose
# arrays hold bytes beyond ASCII (float data), and one whose bytes are all ASCII (zeros).
import gzip

import cPickle
import numpy as np

for name, data in (("data_py2.pkl.gz", (np.ones((2, 4), dtype="float32"), np.arange(2, dtype="int64"))),
                   ("ascii_py2.pkl.gz", (np.zeros((2, 4), dtype="float32"), np.arange(2, dtype="int64")))):
    f = gzip.open(name, "wb")
    cPickle.dump(data, f, protocol=2)
    f.close()
