# The pattern of a PyMC3 script on Windows (or macOS with Python 3.8+), where
# multiprocessing starts its workers by spawning a new interpreter that imports the
# script again: without an `if __name__ == "__main__":` guard the worker starts workers.
import multiprocessing as mp


def work():
    pass


context = mp.get_context("spawn")
process = context.Process(target=work)
process.start()
process.join()
