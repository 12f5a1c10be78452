# Import Theano and print its version: a failed install shows at the first import.
import theano

print(theano.__version__)
