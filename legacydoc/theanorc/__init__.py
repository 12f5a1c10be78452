"""The Theano config model: which files and flags Theano reads, what each line really
does, what is wrong with it, and a correct ``.theanorc`` for this machine.

Everything here works from a facts record (``theano_config.files[].text`` and friends),
never from the live machine, so a facts file saved elsewhere replays the same answers.

Public entry points:

* :func:`effective_config` (record -> EffectiveConfig): every option's value and where
  it came from;
* :func:`derive_config_facts` (record -> {"config": {...}}): findings and key values as
  derived facts for the rule engine;
* :func:`legacydoc.theanorc.command.show` / :func:`legacydoc.theanorc.command.write`:
  what ``legacydoc theanorc`` and ``legacydoc theanorc --write`` run.
"""

from __future__ import annotations

from typing import Any

# Imported on first use (PEP 562): the CLI imports this package on every run.
_EXPORTS = {
    "EffectiveConfig": "legacydoc.theanorc.effective",
    "Setting": "legacydoc.theanorc.effective",
    "effective_config": "legacydoc.theanorc.effective",
    "Finding": "legacydoc.theanorc.findings",
    "derive_config_facts": "legacydoc.theanorc.findings",
    "find_problems": "legacydoc.theanorc.findings",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError("module 'legacydoc.theanorc' has no attribute %r" % name)


__all__ = [
    "EffectiveConfig",
    "Finding",
    "Setting",
    "derive_config_facts",
    "effective_config",
    "find_problems",
]
