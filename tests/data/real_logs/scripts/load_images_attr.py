# The same, through the module attribute.
import numpy as np
import scipy.misc

image = scipy.misc.imresize(scipy.misc.imread("cat.png"), (224, 224))
print(np.asarray(image).shape)
