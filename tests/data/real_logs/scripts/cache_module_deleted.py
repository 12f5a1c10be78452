# A compiled module deleted while the process that loaded it still runs (another job ran
# `theano-cache clear`, a tmp cleaner, an antivirus): compile, delete the modules, compile more.
import glob
import os

import theano
import theano.tensor as T

x = T.vector()
print(theano.function([x], x * 2 + 1)([1.0, 2.0]))
for module in glob.glob(os.path.join(theano.config.compiledir, "tmp*", "*.so")):
    os.remove(module)
theano.gof.cc.get_module_cache().refresh()
print(theano.function([x], x * 3 - 1)([1.0, 2.0]))
