# Code written for the original Theano reads a config option through the dotted section
# API, which Theano-PyMC 1.1 only warns about, then registers a dotted option (as older
# add-on packages do), which it refuses.
import theano
from theano.configparser import StrParam

print(theano.config.blas.ldflags)
theano.config.add("mypackage.option", "an add-on's option", StrParam(""), in_c_key=False)
