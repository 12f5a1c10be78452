"""The config checks, one module per kind of evidence: the files (files.py), the values
(values.py), the machine (machine.py). Each check is a function ``check_x(ctx)`` that
appends Findings to ``ctx.out``; legacydoc.theanorc.findings runs them in order."""
