"""`legacydoc bench`: the CPU GEMM baseline, how close it is to the machine's limit, and
what it means for training time and for a GPU.

Modules, one job each:

- ``target_bench_script`` the timing itself (warm-up, timed repetitions, the size sweep)
  and the BLAS/thread discovery; Python 2.7-compatible, run in the target interpreter
  and imported in-process, so both sides are measured the same way.
- ``gemm``        results as data, the budget plan, the in-process run (legacydoc's numpy).
- ``target_run``  runs the script in the target interpreter (through ``ProbeContext.run``).
- ``theano_bench`` ``--theano``: the same product through ``theano.function``.
- ``peak``        the machine's peak from cores, clock and the widest vector FMA.
- ``meaning``     conv-layer / epoch times and the GPU speedup to expect.
- ``facts``       the ``bench`` facts table the rules in rules/bench.toml match.
- ``render``      the text table and the JSON document.
- ``command``     the orchestration behind ``legacydoc bench``.

Nothing here imports numpy at module level: the CLI imports this package lazily and
numpy is loaded only when the in-process measurement runs.
"""
