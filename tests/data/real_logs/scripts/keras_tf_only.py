# Code written for Keras on TensorFlow resets the TensorFlow session, a function only
# Keras's TensorFlow (and CNTK) back-end has, while Keras runs on Theano.
import os

os.environ["KERAS_BACKEND"] = "theano"
from keras import backend as K  # noqa: E402

K.clear_session()
