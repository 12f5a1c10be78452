"""Fix lines for the reader's shell. A rule's fix step is text, or a table with one line per
shell family: ``{ bash = "export X=1", cmd = "set \\"X=1\\"", powershell = "$env:X = \\"1\\"" }``
(bash also serves zsh and sh; cmd and powershell fall back to each other, then to bash).

The shell comes from ``--shell``, else from the facts: cmd on Windows (the Anaconda
Prompt most Theano guides use), bash elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, Union

from legacydoc.errors import UsageError
from legacydoc.i18n import tr

SHELLS = ("bash", "zsh", "cmd", "powershell")
STEP_KEYS = ("bash", "cmd", "powershell")
Step = Union[str, Mapping[str, str]]
_chosen: Optional[str] = None


def choose(option: Optional[str]) -> Optional[str]:
    """The --shell value, checked; None: decide from each record's OS."""
    if option is None:
        return None
    value = option.lower()
    if value in ("ps", "pwsh"):
        value = "powershell"
    if value not in SHELLS:
        raise UsageError(tr("--shell: must be one of %s, got %r") % (", ".join(SHELLS), option))
    return value


def use(shell: Optional[str]) -> None:
    global _chosen
    _chosen = shell


def for_facts(facts: Mapping[str, Any]) -> str:
    if _chosen is not None:
        return _chosen
    system = facts.get("system")
    windows = isinstance(system, Mapping) and system.get("os") == "windows"
    return "cmd" if windows else "bash"


def family(shell: str) -> str:
    return "bash" if shell in ("bash", "zsh") else shell


def assignment(family_name: str, name: str, value: str) -> str:
    """Setting an environment variable in a shell family (STEP_KEYS): bash needs the value
    quoted; cmd's and PowerShell's forms quote it themselves."""
    if family_name == "bash":
        import shlex

        return "export %s=%s" % (name, shlex.quote(value))
    if family_name == "cmd":
        return 'set "%s=%s"' % (name, value)
    return '$env:%s = "%s"' % (name, value)


def line_for(step: Step, shell: str) -> str:
    """The step as this shell's line."""
    if isinstance(step, str):
        return step
    want = family(shell)
    order = [want] + [k for k in ("cmd", "powershell") if k != want and want != "bash"] + ["bash"]
    return next(step[k] for k in order if k in step)


def validate_step(step: Any) -> Optional[str]:
    """What is wrong with a fix step ('' when nothing)."""
    if isinstance(step, str):
        return ""
    if not isinstance(step, Mapping) or not step:
        return "a fix step is a string or a table of shell lines"
    unknown = sorted(set(step) - set(STEP_KEYS))
    if unknown:
        return "a fix step's shells are %s, not %r" % (", ".join(STEP_KEYS), unknown[0])
    if "bash" not in step:
        return "a fix step with shell lines needs a bash line (the fallback)"
    if not all(isinstance(v, str) and v for v in step.values()):
        return "a fix step's shell lines are non-empty strings"
    return ""
