# Keras 1 code calling a backend function with a Keras 1 keyword (border_mode; Keras 2 calls
# it padding), run with Keras 2.3.1 on its Theano back-end.
import os

os.environ.setdefault("KERAS_BACKEND", "theano")
import keras.backend as K  # noqa: E402

x = K.placeholder((1, 3, 8, 8))
w = K.zeros((3, 3, 3, 4))
y = K.conv2d(x, w, border_mode='same')
