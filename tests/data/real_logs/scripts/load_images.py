# A Theano-era image loader (Python 3 syntax), as such projects wrote it.
import numpy as np
from scipy.misc import imread, imresize

image = imresize(imread("cat.png"), (224, 224))
print(np.asarray(image).shape)
