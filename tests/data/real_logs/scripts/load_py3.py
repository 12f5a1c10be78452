# Run with Python 3: load the Python 2 pickle as such a project's code does.
import pickle

with open("model_py2.pkl", "rb") as f:
    params = pickle.load(f)
print([p.shape for p in params])
