# PyMC3 3.5 on the CPU: the same tiny model sampled with two worker processes, then in this
# process, to record what pm.sample() logs in each case (LD218 reads the first).
import pymc3 as pm

if __name__ == "__main__":
    with pm.Model():
        pm.Normal("x", 0, 1)
        pm.sample(draws=50, tune=50, chains=2, cores=2, progressbar=False, random_seed=[1, 2])
        pm.sample(draws=50, tune=50, chains=2, cores=1, progressbar=False, random_seed=[1, 2])
