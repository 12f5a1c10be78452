# A graph deeper than Python's default recursion limit (1000): Theano walks and
# optimizes it recursively while compiling.
import theano
import theano.tensor as T

x = T.scalar("x")
y = x
for i in range(3000):
    y = T.tanh(y + i)
theano.function([x], y)
