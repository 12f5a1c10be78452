# Code written for Theano 0.8 or older: ProfileMode, which Theano 0.9 removed (its flag
# profile=True took over).
import theano
import theano.tensor as T

x = T.vector()
f = theano.function([x], x * 2, mode=theano.ProfileMode())
print(f([1.0, 2.0]))
