# Code of the Keras 1 / early Keras 2 years tests which back-end runs through the private
# module variable keras.backend._BACKEND, which Keras 2.2.5 stopped exporting.
import os

os.environ["KERAS_BACKEND"] = "theano"
from keras import backend as K  # noqa: E402

if K._BACKEND == "theano":
    print("theano")
