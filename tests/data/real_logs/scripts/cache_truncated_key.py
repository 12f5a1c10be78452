# A compile cache entry whose key.pkl was cut short (a full disk, a killed process, NFS):
# fill the cache, empty every key.pkl, and compile again in a new process.
import glob
import os
import subprocess
import sys

CHILD = "import theano, theano.tensor as T; x = T.vector(); print(theano.function([x], x * 2 + 1)([1.0, 2.0]))"
subprocess.run([sys.executable, "-c", CHILD], check=True, capture_output=True)
import theano  # noqa: E402  (only to find the compiledir the child used)

for key in glob.glob(os.path.join(theano.config.compiledir, "tmp*", "key.pkl")):
    open(key, "wb").close()
sys.stdout.flush()
sys.exit(subprocess.run([sys.executable, "-c", CHILD]).returncode)
