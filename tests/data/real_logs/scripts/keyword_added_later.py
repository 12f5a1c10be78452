# Code written for Theano 0.9+: pool_2d's ws keyword (Theano 0.8 calls it ds).
import theano.tensor as T
from theano.tensor.signal.pool import pool_2d

x = T.tensor4()
y = pool_2d(x, ws=(2, 2), ignore_border=True)
print(y.ndim)
