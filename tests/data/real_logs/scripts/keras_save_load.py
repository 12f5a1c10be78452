# Keras 2.3.1 on Theano: save a small model, then load it back as a revived project would.
import numpy as np
from keras.layers import Dense
from keras.models import Sequential, load_model

model = Sequential([Dense(2, input_shape=(3,))])
model.compile(optimizer="sgd", loss="mse")
model.save("model.h5")
restored = load_model("model.h5")
print(restored.predict(np.zeros((1, 3))).shape)
