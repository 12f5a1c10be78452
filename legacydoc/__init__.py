"""legacydoc: a command-line doctor for legacy Theano environments."""

__version__ = "0.1.0"
