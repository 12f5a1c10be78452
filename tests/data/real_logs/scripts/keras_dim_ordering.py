# Code of the Keras 1 / early Keras 2 years sets the Theano layout with the API that
# Keras 2.2.5 stopped exporting from keras.backend.
import os

os.environ["KERAS_BACKEND"] = "theano"
from keras import backend as K  # noqa: E402

K.set_image_dim_ordering("th")
