"""Import npmod, a C extension built against another numpy (npmod.c): numpy's own check."""
import importlib

import numpy

print(numpy.__version__)
importlib.import_module("npmod")
