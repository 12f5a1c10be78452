"""One plan for this machine and this project: the Python, the pins, the Theano release,
pygpu, the compiler, the ``.theanorc`` and the environment variables, with a reason for
each, and the ordered steps to get there.

Rules the planner keeps:
- nothing is proposed that the wheel table says cannot install (a pin is a release with a
  wheel for that Python on that OS, or it is not planned);
- the smallest change first: the user's environment is kept when its Python can carry the
  plan; a new one is proposed only with the reason;
- drivers, CUDA toolkits and system compilers are never installed by the plan: they are
  manual steps, named as such;
- the config is the one ``theanorc --write`` writes (the same generator, the same device).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from legacydoc import readiness
from legacydoc.cxxdialect import configured_facts
from legacydoc.facts import get
from legacydoc.i18n import N_, tr
from legacydoc.plan.config import for_new_env, planned_config, with_pygpu_installed
from legacydoc.plan.project import DOWNSAMPLE, GONE_AFTER_08, GONE_AFTER_09, OLD_BACKEND, ProjectScan
from legacydoc.plan.wheels import Wheels, admits
from legacydoc.pymc3chains import parallel_chains
from legacydoc.structs import asdict, field, struct
from legacydoc.theanorc import machine

# Theano targets the planner knows, with the Pythons to try, best first. The numpy ranges
# are those of rules/knowledge/theano_releases.toml (failures numpy-blas-opt-info,
# numpy-bool-alias, numpy2-gemm-compile) and rules/versions.toml (numpy 1.16 breaks
# Theano <= 1.0.3's compiled-module cache); "requires" is each release's own floor, its
# setup.py install_requires (Theano rel-0.8.2, rel-0.9.0, rel-1.0.5; Theano-PyMC rel-1.1.2).
TARGETS: dict[str, dict[str, Any]] = {
    "Theano==1.0.5": {"dist": "Theano", "version": "1.0.5",
                      "python": ["3.8", "3.9", "3.10", "3.7", "3.11", "3.6", "2.7"],
                      "python_ok": ">=2.7,<3.12", "numpy": "<1.22", "numpy_with_ldflags": "<1.24",
                      "requires": {"numpy": ">=1.9.1", "scipy": ">=0.14"}, "old_backend": False},
    "Theano-PyMC==1.1.2": {"dist": "Theano-PyMC", "version": "1.1.2", "python": ["3.8", "3.9", "3.7", "3.6"],
                           "python_ok": ">=3.6,<3.10", "numpy": "<1.22", "numpy_with_ldflags": "<1.22",
                           "requires": {"numpy": ">=1.9.1", "scipy": ">=0.14"}, "old_backend": False},
    "Theano==0.9.0": {"dist": "Theano", "version": "0.9.0", "python": ["3.6", "2.7", "3.5"],
                      "python_ok": ">=2.7,<3.7", "numpy": "<1.16", "numpy_with_ldflags": "<1.16",
                      "requires": {"numpy": ">=1.9.1", "scipy": ">=0.14"}, "old_backend": True},
    "Theano==0.8.2": {"dist": "Theano", "version": "0.8.2", "python": ["2.7", "3.5", "3.6"],
                      "python_ok": ">=2.7,<3.7", "numpy": "<1.16", "numpy_with_ldflags": "<1.16",
                      "requires": {"numpy": ">=1.7.1", "scipy": ">=0.11"}, "old_backend": True},
}
INSTALL_TITLE = N_("Install the pinned packages")
LASAGNE_AT_COMMIT = "https://github.com/Lasagne/Lasagne/archive/5d3c63cb315c50b1cbd27a6bc8664b406f34dd99.zip"
SHELL_KINDS = ("bash", "cmd", "powershell")
# pymc3 3.11.6 requires scipy<1.8.0,>=1.7.3.
PYMC_SCIPY = "<1.8.0,>=1.7.3"
# SciPy 1.3.0 removed scipy.misc.imread, imresize, imsave ... (deprecated since 1.0).
SCIPY_WITH_MISC_IMAGES = "<1.3"
# Keras before 2.4 decodes its HDF5 attributes as bytes; h5py 3.0 reads them as str, and
# load_model / load_weights fail ("'str' object has no attribute 'decode'").
H5PY_FOR_KERAS = "<3"


@struct
class Step:
    """One step of a plan, with its commands for each shell."""

    title: str
    why: str
    commands: dict[str, list[str]] = field(default_factory=dict)  # shell family -> lines
    manual: bool = False  # drivers, toolkits, system packages: the user does these
    unblocks: int = 1  # how many problems it solves (steps that unblock most come first)
    kind: str = ""  # env | install | config | check | manual
    template: str = ""  # the title with %s for args, for translation ('' : the title is fixed text)
    args: tuple[str, ...] = ()
    pip: str = ""  # "install" or "uninstall" when the step is one pip command (what fix runs)
    packages: list[str] = field(default_factory=list)  # its requirements, or the distributions it removes


@struct
class Plan:
    """One plan for a machine and project: the Python, the pins and the steps."""

    os: str
    python: str
    python_now: str
    keep_env: bool
    env_kind: str  # "conda" or "venv"
    theano: str  # "Theano==1.0.5"
    packages: dict[str, str]  # pip name -> pin ("==1.21.6", or a URL)
    conda_packages: dict[str, str]
    reasons: dict[str, str]  # package or "python" -> why
    device: str
    theanorc: str
    env: dict[str, str]
    steps: list[Step]
    cannot: list[str]  # what this plan says in advance will not work
    keras_json: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    wheels_generated: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The plan as plain data (plan --format json, check's JSON): steps numbered from 1."""
        data = asdict(self)
        data["steps"] = [dict(step, number=n) for n, step in enumerate(data["steps"], 1)]
        return data

    def install_line(self) -> str:
        """The pip line of the plan's install step ('' when nothing is to install)."""
        step = next((s for s in self.steps if s.title == INSTALL_TITLE), None)
        return step.commands["bash"][0] if step else ""

    def facts(self) -> dict[str, Any]:
        """The ``plan`` table rules read, so every finding's fix says what the plan says."""
        pins = ", ".join(requirement(name, pin) for name, pin in self.packages.items())
        if self.keep_env:
            line = self.install_line()
            numpy_fix = (tr("%s  (the plan: Python %s stays; legacydoc plan shows every step)") % (line, self.python)
                         if line else tr("the plan keeps every installed package (legacydoc plan)"))
        else:
            numpy_fix = (tr("a new Python %s environment with %s%s: legacydoc plan -o DIR writes its "
                         "requirements.txt and steps") % (
                             self.python, pins, " (%s)" % self.reasons["new_env"] if "new_env" in self.reasons else ""))
        return {"python": self.python, "new_env": not self.keep_env, "theano": self.theano, "device": self.device,
                "numpy": self.packages.get("numpy", "").lstrip("="), "install": self.install_line(),
                "fix": numpy_fix, "pins": pins}


@struct
class _Choice:
    """The Python and package versions a plan settles on."""

    python: str
    numpy: str
    scipy: str
    needs_ldflags: bool
    h5py: str = ""  # the h5py 2 release a Keras project gets ('' when it needs none)


def _version_of(record: Mapping[str, Any], name: str) -> Optional[str]:
    """The installed version of a distribution (PEP 503 name), None when not recorded."""
    value = get(record, "packages.%s" % name)
    if isinstance(value, Mapping):
        value = value.get("version")
    return str(value) if isinstance(value, str) and value else None


def _recorded(record: Mapping[str, Any], name: str) -> bool:
    """Whether the record lists this distribution as installed, its version known or not."""
    return isinstance(get(record, "packages.%s" % name), Mapping)


def _python_now(record: Mapping[str, Any]) -> str:
    info = machine.python_version_info(record)
    return "%d.%d" % (info[0], info[1]) if info else ""


def _removed_in_1_0(project: Optional[ProjectScan]) -> dict[str, str]:
    """{last release that had it ("0.9.0", "0.8.2"): "name at file:line"} for the project's
    first use of each kind of Theano API every 1.0 release lacks (rules/knowledge/theano_api.toml)."""
    if project is None:
        return {}
    from legacydoc.knowledge import tables
    from legacydoc.theanoapi import gaps

    out: dict[str, str] = {}
    for gap in gaps(project.theano_api_uses(), "Theano", "1.0.5", tables()["theano_api"].data):
        if gap.written_for == "older":
            out.setdefault(gap.found_in, "%s at %s" % (gap.name, gap.where))
    return out


def _lacks(project: Optional[ProjectScan], release: str) -> str:
    """The project's first use of Theano API this release lacks ("name at file:line"), or ""."""
    if project is None:
        return ""
    from legacydoc.knowledge import tables
    from legacydoc.theanoapi import gaps

    found = gaps(project.theano_api_uses(), "Theano", release, tables()["theano_api"].data)
    return "%s at %s" % (found[0].name, found[0].where) if found else ""


def _project_uses_pymc3(project: Optional[ProjectScan]) -> bool:
    """The project imports PyMC3 or pins it."""
    return project is not None and ("pymc3" in project.frameworks() or project.pin("pymc3") is not None)


def choose_target(record: Mapping[str, Any], project: Optional[ProjectScan]) -> tuple[str, str]:
    """(target key, why)."""
    # installed is enough: a PyMC3 of unrecorded version is still PyMC3 (the plan pins 3.11.6)
    pymc = _recorded(record, "pymc3")
    pymc_pin = project.pin("pymc3") if project else None
    uses_pymc = pymc or _project_uses_pymc3(project)
    lasagne_01 = (_version_of(record, "lasagne") or "").startswith("0.1") or bool(
        project and project.pin("Lasagne") and admits(project.pin("Lasagne").spec or "", "0.1")  # type: ignore[union-attr]
        and project.pin("Lasagne").spec)  # type: ignore[union-attr]
    # (the release, why) for each thing only an older release has, in the order that decides:
    # what only 0.8.2 has first (it also has the old back-end and all 0.9.0 removed later)
    needs: list[tuple[str, str]] = []
    if project and project.uses(DOWNSAMPLE) and not lasagne_01:
        needs.append(("0.8.2", tr("the project imports theano.tensor.signal.downsample (%s), removed after "
                                  "Theano 0.8 (commit 1960ddab6)") % project.uses(DOWNSAMPLE)))
    removed = _removed_in_1_0(project)
    # the table names what it is ("theano.ProfileMode at net.py:2"); the lists only where
    gone_08 = removed.get("0.8.2") or (project.uses(GONE_AFTER_08) if project else None)
    if gone_08:
        needs.append(("0.8.2", tr("the project uses Theano API removed in 0.9 (%s); 0.8.2 is the last release "
                                  "that has it") % gone_08))
    if project and project.uses(OLD_BACKEND):
        needs.append(("0.9.0", tr("the project imports the old GPU back-end (%s), removed in Theano 1.0; "
                                  "0.9.0 is the last release that has it") % project.uses(OLD_BACKEND)))
    gone_09 = removed.get("0.9.0") or (project.uses(GONE_AFTER_09) if project else None)
    if gone_09:
        needs.append(("0.9.0", tr("the project uses Theano API removed in 1.0 (%s); 0.9.0 is the last release "
                                  "that has it") % gone_09))
    if needs:
        release, why = needs[0]
        blocker = _lacks(project, release)
        if not blocker:
            return "Theano==" + release, why
        # no release has all of it: the old calls are ported (LD165), on the last release
        return "Theano==1.0.5", tr("%s, but Theano %s lacks other API the project uses (%s): no release has "
                                   "all of it, so the old calls must be ported") % (why, release, blocker)
    if uses_pymc:
        if pymc_pin and pymc_pin.spec and not admits(pymc_pin.spec, "3.11.6"):
            return "Theano==1.0.5", tr("the project pins %s%s, which needs theano>=1.0.5") % (
                pymc_pin.name, pymc_pin.spec)
        return "Theano-PyMC==1.1.2", tr("PyMC3 3.11 requires theano-pymc==1.1.2 (its wheel's METADATA)")
    return "Theano==1.0.5", tr("the last Theano release; it runs code written for 0.9 and 1.0 with device=cuda")


def _numpy_range(target: Mapping[str, Any], project: Optional[ProjectScan], ldflags: bool, pymc: bool) -> str:
    spec = target["numpy_with_ldflags" if ldflags else "numpy"]
    if pymc:
        spec += ",<1.22.2,>=1.15.0"
    return spec


@struct(frozen=True)
class _Needs:
    """What the project's code asks of the pins beyond the Theano release: scipy below 1.3
    for scipy.misc's image functions, an h5py 2 for Keras. Wishes: when no Python can carry
    them with the rest, the plan drops them and says what will not work."""

    misc_images: bool = False
    h5py: bool = False


NO_NEEDS = _Needs()


def _scipy_spec(project: Optional[ProjectScan], needs: _Needs, pymc: bool) -> str:
    """The scipy range: PyMC3's, the project's own pin, and below 1.3 for scipy.misc images."""
    pin = project.pin("scipy") if project else None
    parts = [PYMC_SCIPY if pymc else "", pin.spec if pin else "", SCIPY_WITH_MISC_IMAGES if needs.misc_images else ""]
    return ",".join(p for p in parts if p)


def _choose_versions(wheels: Wheels, target: Mapping[str, Any], python: str, os_family: str,
                     project: Optional[ProjectScan], gpu: bool, pymc: bool,
                     installed: Optional[Mapping[str, str]] = None, needs: _Needs = NO_NEEDS) -> Optional[_Choice]:
    if not admits(target["python_ok"], python):
        return None
    h5py = ""
    if needs.h5py:
        h5py = wheels.newest("h5py", python, os_family, H5PY_FOR_KERAS) or ""
        if not h5py:
            return None  # no h5py 2 wheel for this Python: Keras could not load its files
    conda = wheels.conda_build("pygpu", python, os_family) if gpu else None
    if gpu and conda is None:
        return None
    floor = ">=%s" % conda["numpy_build"].get(python, "0") if conda else ""
    for ldflags in (False, True):
        spec = ",".join(s for s in (_numpy_range(target, project, ldflags, pymc), floor,
                                    target["requires"]["numpy"]) if s)
        wanted = project.pin("numpy") if project else None
        if wanted and wanted.spec:
            spec += "," + wanted.spec
        have = (installed or {}).get("numpy")
        # The smallest change: an installed numpy that fits stays.
        numpy = have if have and admits(spec, have) else wheels.newest("numpy", python, os_family, spec)
        if numpy is None:
            continue
        scipy_spec = ",".join(s for s in (_scipy_spec(project, needs, pymc), target["requires"]["scipy"]) if s)
        have = (installed or {}).get("scipy")
        its_numpy = (wheels.row("scipy", have) or {}).get("numpy_requires", "") if have else ""
        scipy = have if have and admits(scipy_spec, have) and admits(its_numpy, numpy) else \
            wheels.newest("scipy", python, os_family, scipy_spec, numpy=numpy)
        if scipy is None:
            continue
        return _Choice(python, numpy, scipy, ldflags, h5py)
    return None


def _env_steps(plan_python: str, keep: bool, env_kind: str, os_family: str) -> list[Step]:
    if keep:
        return []
    why = (tr("a new environment, so the one you have stays as it is (Python %s must be installed: "
           "python.org, pyenv or conda)") % plan_python)
    if env_kind == "conda":
        create = "conda create -y -n theano-legacy python=%s" % plan_python
        lines = [create, "conda activate theano-legacy"]
        return [Step("Create a conda environment with Python %s" % plan_python, why,
                     {k: list(lines) for k in SHELL_KINDS}, kind="env", unblocks=5,
                     template=N_("Create a conda environment with Python %s"), args=(plan_python,))]
    return [Step("Create a virtual environment with Python %s" % plan_python, why,
                 {"bash": ["python%s -m venv theano-legacy" % plan_python, ". theano-legacy/bin/activate"],
                  "cmd": ["py -%s -m venv theano-legacy" % plan_python, r"theano-legacy\Scripts\activate.bat"],
                  "powershell": ["py -%s -m venv theano-legacy" % plan_python, r"theano-legacy\Scripts\Activate.ps1"]},
                 kind="env", unblocks=5, template=N_("Create a virtual environment with Python %s"),
                 args=(plan_python,))]


def requirement(name: str, pin: str) -> str:
    """A pin as pip takes it: 'numpy==1.21.6', or the URL itself."""
    return pin if "://" in pin else name + pin


def _pip_line(packages: Mapping[str, str]) -> str:
    parts = [r if "://" in r else '"%s"' % r for r in (requirement(n, p) for n, p in packages.items())]
    return "python -m pip install " + " ".join(parts)


class PlanError(Exception):
    """No plan is possible from the facts (one line, shown as is)."""


def _pick(wheels: Wheels, target: Mapping[str, Any], record: Mapping[str, Any], os_family: str,
          project: Optional[ProjectScan], gpu_now: bool, pymc: bool,
          reasons: dict[str, str], cannot: list[str], needs: _Needs) -> tuple[_Choice, bool, bool]:
    """(versions, keep the environment, the new environment gets pygpu)."""
    now = _python_now(record)
    py2 = bool(project and project.py2_only)
    candidates = ["2.7"] if py2 else list(target["python"])
    if py2 and project is not None:
        reasons["python"] = tr("the project has Python-2-only code (%s)") % project.py2_only[0]
    conda_now = get(record, "python.env_kind") == "conda"
    if now and (now in candidates or (not py2 and admits(target["python_ok"], now))):
        if _mingw_dlls_unreachable(os_family, now, conda_now):
            reasons["new_env"] = tr(WINDOWS_DLL_WHY) % now
        else:
            # The environment in use already has pygpu if the GPU works: no conda build needed.
            installed = {n: v for n in ("numpy", "scipy") if (v := _version_of(record, n))}
            choice = _choose_versions(wheels, target, now, os_family, project, False, pymc, installed, needs)
            if choice is not None:
                reasons.setdefault("python",
                                   tr("Python %s (this environment) can carry the plan: the smallest change") % now)
                return choice, True, gpu_now
    for with_pygpu in ((True, False) if gpu_now else (False,)):
        for python in candidates:
            # a new environment is conda with pygpu (or when this one is conda), else a venv
            if _mingw_dlls_unreachable(os_family, python, with_pygpu or conda_now):
                continue
            choice = _choose_versions(wheels, target, python, os_family, project, with_pygpu, pymc, needs=needs)
            if choice is None:
                continue
            why = tr("Python %s has wheels for every pin (wheel table of %s)") % (python, wheels.generated)
            if now and "new_env" not in reasons:
                reasons["new_env"] = _why_not_here(wheels, target, now, os_family, project, needs, py2, pymc)
            if now:
                why += tr("; this environment's: %s") % reasons["new_env"]
            if os_family == "windows" and not (with_pygpu or conda_now) and python != candidates[0]:
                why += tr("; on Windows outside conda the newest is 3.7 (LD318)")
            reasons.setdefault("python", why)
            if gpu_now and not with_pygpu:
                cannot.append(tr("the GPU in the new environment: conda-forge has no pygpu 0.7.6 for a Python that "
                              "also has wheels for these pins, so it runs on the CPU"))
            return choice, False, with_pygpu
    pinned = project.pin("numpy") if project else None
    why = tr("; the project pins numpy%s (%s)") % (pinned.spec, pinned.where) if pinned and pinned.spec else ""
    raise PlanError(tr("no Python on %s has wheels for %s's numpy and scipy (wheel table of %s)%s")
                    % (os_family, _target_key(target), wheels.generated, why))


WINDOWS_DLL_WHY = N_("Python %s outside conda on Windows no longer finds DLLs on PATH, so the modules Theano compiles "
                   "with MinGW cannot load MinGW's runtime DLLs (LD318)")


def _mingw_dlls_unreachable(os_family: str, python: str, conda: bool) -> bool:
    """Python 3.8+ on Windows outside conda: Theano's compiled modules fail to load (LD318)."""
    return os_family == "windows" and not conda and not python.startswith("2.") and \
        tuple(int(p) for p in python.split(".")[:2]) >= (3, 8)


def _target_key(target: Mapping[str, Any]) -> str:
    return "%s==%s" % (target["dist"], target["version"])


def _with_the_pymc3_sampled(record: Mapping[str, Any], project: Optional[ProjectScan],
                            planned: Optional[str]) -> Optional[Mapping[str, Any]]:
    """The record as PyMC3 will sample under the plan (for LD218's note): with the PyMC3 the
    plan installs, else the one recorded, else the one the project pins or imports (its
    version then as pinned, or unknown); None when nothing uses PyMC3."""
    if planned is None and _recorded(record, "pymc3"):
        return record
    if planned is not None:
        version: Optional[str] = planned.lstrip("=")
    elif project is not None and _project_uses_pymc3(project):
        pin = project.pin("pymc3")
        version = pin.spec[2:] if pin is not None and pin.spec.startswith("==") else None
    else:
        return None
    entry = {"name": "pymc3", **({"version": version} if version else {})}
    return {**record, "packages": {**(get(record, "packages") or {}), "pymc3": entry}}


def make_plan(record: Mapping[str, Any], project: Optional[ProjectScan] = None,
              wheels: Optional[Wheels] = None) -> Plan:
    """The plan for these facts (and this project). Raises PlanError when none is possible."""
    wheels = wheels or Wheels.load()
    # where nothing in the record names the OS the plan is written for Linux, and says so
    # (a note below): unknown is not Linux
    os_unknown = machine.recorded_family(record) is None
    os_family = machine.family(record)
    if os_family not in ("linux", "windows", "darwin"):
        os_family = "linux"
    key, target_why = choose_target(record, project)
    target = TARGETS[key]
    pymc = key.startswith("Theano-PyMC")
    gpu_now = planned_config(record).device in ("cuda", "gpu") and not target["old_backend"]
    reasons: dict[str, str] = {target["dist"]: target_why}
    cannot: list[str] = []
    notes: list[str] = []
    if os_unknown:
        notes.append(tr("the record does not say which operating system this is: the plan is written for Linux "
                        "(run legacydoc plan on the machine itself for Windows or macOS)"))
    needs = _Needs(misc_images=bool(project and project.scipy_misc_images), h5py=_keras_needs_h5py2(record, project))
    try:
        choice, keep, with_pygpu = _pick(wheels, target, record, os_family, project, gpu_now, pymc, reasons, cannot,
                                         needs)
    except PlanError:
        if needs == NO_NEEDS:
            raise
        # No Python carries those wishes with the rest (a scipy pin, PyMC3's scipy): plan
        # without them, and say what will not work.
        choice, keep, with_pygpu = _pick(wheels, target, record, os_family, project, gpu_now, pymc, reasons, cannot,
                                         NO_NEEDS)
        if needs.h5py:
            cannot.append(tr("Keras loading its saved files (load_model, load_weights): no Python that carries the "
                             "rest of the plan has an h5py 2 wheel, and h5py 3 breaks it (LD149)"))
        if needs.misc_images and project is not None:
            cannot.append(tr("%s: SciPy 1.3 removed it, and the rest of the plan needs a newer scipy; replace it "
                             "(imageio.imread and imwrite, Pillow's resize)") % project.scipy_misc_images)
        needs = NO_NEEDS
    env_kind = "conda" if (with_pygpu and not keep) or get(record, "python.env_kind") == "conda" else "venv"

    packages: dict[str, str] = {"numpy": "==" + choice.numpy, "scipy": "==" + choice.scipy}
    numpy_range = _numpy_range(target, project, choice.needs_ldflags, pymc)
    if keep and _version_of(record, "numpy") == choice.numpy:
        reasons["numpy"] = tr("the installed numpy is in %s's range %s: kept") % (key, numpy_range)
    else:
        reasons["numpy"] = tr("the newest numpy %s with a wheel for Python %s on %s") % (
            numpy_range, choice.python, os_family)
    if choice.needs_ldflags:
        reasons["numpy"] += " (it needs [blas] ldflags set, which the planned .theanorc does)"
    if keep and _version_of(record, "scipy") == choice.scipy:
        reasons["scipy"] = tr("the installed scipy accepts numpy %s: kept") % choice.numpy
    else:
        reasons["scipy"] = tr("the newest scipy with a wheel for Python %s that accepts numpy %s") % (
            choice.python, choice.numpy)
    packages[target["dist"]] = "==" + target["version"]
    if pymc:
        packages["pymc3"] = "==3.11.6"
        reasons["pymc3"] = tr("3.11.6 is the PyMC3 release built on Theano-PyMC 1.1.2")
    _frameworks(record, project, packages, reasons, notes)
    if choice.h5py:
        packages["h5py"] = "==" + choice.h5py
        reasons["h5py"] = tr("Keras before 2.4 reads its HDF5 files' attributes as bytes, and h5py 3 returns str: "
                             "load_model fails (LD149); %s is the newest h5py 2 with a wheel for Python %s") % (
                                 choice.h5py, choice.python)
    scipy_pin = project.pin("scipy") if project else None
    if scipy_pin and scipy_pin.spec:
        reasons["scipy"] += tr("; the project pins scipy%s (%s)") % (scipy_pin.spec, scipy_pin.where)
    if needs.misc_images and project is not None:
        # scipy.misc's image functions only exist where Pillow does (scipy below 1.3). Pillow
        # is left to pip: every release of it installs where scipy 1.2 does, and pip picks
        # the newest that supports the Python (checked with 6.2.2 and 9.5.0 on 3.7).
        packages["Pillow"] = ""
        reasons["Pillow"] = tr("the project uses %s; SciPy 1.3 removed it, and before that it needed Pillow: "
                               "scipy below 1.3, with Pillow") % project.scipy_misc_images
        reasons["scipy"] += tr("; below 1.3 for %s") % project.scipy_misc_images
    # Moving a Python 2 project to Python 3 leaves its pickles readable only one way (LD146).
    if project is not None and project.py2_pickles and choice.python.startswith("3"):
        notes.append(tr("the project's %s was pickled by Python 2: Python %s reads it only with "
                        "pickle.load(f, encoding='latin1') (LD146)") % (project.py2_pickles[0], choice.python))
    conda_packages: dict[str, str] = {}
    add_pygpu = keep and not target["old_backend"] and _pygpu_missing_for_a_working_gpu(record)
    pygpu_blocks = add_pygpu and not (env_kind == "conda" and wheels.conda_build("pygpu", choice.python, os_family))
    if pygpu_blocks:
        add_pygpu = False
        cannot.append(tr("the GPU: pygpu is missing and is not on PyPI; conda-forge builds pygpu 0.7.6 for Python "
                      "2.7 and 3.6-3.10, so use a conda environment with one of those (environment.yml of "
                      "legacydoc plan -o DIR)"))
    if (with_pygpu and not keep) or add_pygpu:
        conda_packages["pygpu"] = "=0.7.6"
        reasons["pygpu"] = tr("pygpu 0.7.6 from conda-forge (built for Python %s); it is not on PyPI") % choice.python

    # The config the plan ends with: for a new environment, what it will have; with pygpu
    # added to this one, as if it were installed (theanorc --write after that step says so).
    if keep:
        config = planned_config(with_pygpu_installed(record) if add_pygpu else record)
    else:
        config = planned_config(for_new_env(record, env_kind, with_pygpu))
    device, theanorc = config.device, config.text
    notes += config.notes
    sampled = _with_the_pymc3_sampled(record, project, packages.get("pymc3") if pymc else None)
    if device in ("cuda", "gpu") and sampled is not None and parallel_chains(sampled) is not False:
        # LD218 would warn about the config this plan writes: say it here, once
        notes.append(tr("PyMC3 samples its chains in worker processes, which cannot use the GPU this config opens: "
                        "on the GPU call pm.sample(..., cores=1); for parallel chains run the sampling with "
                        "THEANO_FLAGS=device=cpu (LD218)"))
    if device == "cpu" and project is not None and project.gpu_only:
        # LD172 would find the config this plan writes refused by the code: say it here, once
        notes.append(tr("this config runs Theano on the CPU, where the project's %s cannot run: use "
                        "lasagne.layers.Conv2DLayer and MaxPool2DLayer instead of the dnn, cuda_convnet or corrmm "
                        "layers (LD172)") % project.gpu_only)
    steps = _env_steps(choice.python, keep, env_kind, os_family)
    other = "Theano" if pymc else "Theano-PyMC"
    both = keep and _recorded(record, other.lower())
    if both:
        # Uninstalling one deletes files of the 'theano' package the other installed too
        # (theano/__init__.py among them): remove both, then install the planned one afresh.
        gone = [other] + ([target["dist"]] if _recorded(record, target["dist"].lower()) else [])
        steps.append(Step("Uninstall %s" % " and ".join(gone),
                          tr("%s and %s install the same package 'theano' and overwrite each other's files: %s "
                          "goes, and %s is installed afresh") % (other, target["dist"], " and ".join(gone),
                                                                 target["dist"]),
                          {k: ["python -m pip uninstall -y %s" % " ".join(gone)] for k in SHELL_KINDS},
                          kind="install", unblocks=2, template=N_("Uninstall %s"), args=(" and ".join(gone),),
                          pip="uninstall", packages=gone))
    if conda_packages:
        line = "conda install -y -c conda-forge " + " ".join("%s%s" % kv for kv in conda_packages.items())
        # conda before pip (fix runs it first too): pip's pins then win over what conda pulled in
        steps.append(Step(N_("Install pygpu from conda-forge"), reasons["pygpu"], {k: [line] for k in SHELL_KINDS},
                          kind="install", unblocks=len(packages) + 1))
    install = {name: pin for name, pin in packages.items()
               if not (keep and _installed(record, name, pin)) or (both and name == target["dist"])}
    if install:
        line = _pip_line(install)
        steps.append(Step(INSTALL_TITLE,
                          "; ".join("%s: %s" % (n, reasons[n]) for n in install if n in reasons),
                          {k: [line] for k in SHELL_KINDS}, kind="install", unblocks=len(install),
                          pip="install", packages=[requirement(n, p) for n, p in install.items()]))
    else:
        notes.append(tr("every planned package is already installed at its pin"))
    steps += _compiler_steps(record, os_family, env_kind)
    # a venv made from the same Python inherits its include folder and LIBDIR; conda brings its own
    if keep or (env_kind == "venv" and choice.python == _python_now(record)):
        steps += _python_build_steps(record, target["version"], os_family)
    env = _env_vars(config.ldflags, os_family)
    if env:
        steps.append(Step(N_("Set the environment variables"), "; ".join("%s=%s" % kv for kv in env.items()),
                          _assignments(env), kind="config"))
    pythonpath = _pythonpath_step(record) if choice.python.startswith("3") else None  # LD110: Python 3 only
    if pythonpath is not None:
        steps.append(pythonpath[0])
        if pythonpath[1] is not None:
            env["PYTHONPATH"] = pythonpath[1]
    steps.append(Step(N_("Write the Theano config"), tr("device = %s: the file legacydoc theanorc --write writes%s") % (
        device, "" if keep else tr(", run inside the new environment so [blas] matches its numpy")),
        {k: ["legacydoc theanorc --write"] for k in SHELL_KINDS}, kind="config", unblocks=2))
    if not pygpu_blocks:  # else the GPU line above already says what it needs
        steps += _manual_gpu_steps(record, device, config.device_why, cannot)
    steps.append(Step(N_("Check the result"), tr("the same doctor, on the new setup"),
                      {k: ["legacydoc check"] for k in SHELL_KINDS}, kind="check", unblocks=0))
    plan = Plan(os=os_family, python=choice.python, python_now=_python_now(record), keep_env=keep,
                env_kind=env_kind, theano=key, packages=packages, conda_packages=conda_packages, reasons=reasons,
                device=device, theanorc=theanorc, env=env, steps=_ordered(steps), cannot=cannot, notes=notes,
                wheels_generated=wheels.generated)
    if project is not None and "Keras" in project.frameworks():
        plan.keras_json = keras_json(packages.get("Keras", ""), project.keras_json or {})
    return plan


def keras_json(keras_pin: str, existing: Mapping[str, Any]) -> dict[str, str]:
    """keras.json for the planned Keras with the Theano back-end. Keras 1 names the layout
    image_dim_ordering ('th'/'tf'), Keras 2 image_data_format ('channels_first'/'_last')
    (rules/knowledge/theano_releases.toml, framework Keras); the project's choice is kept,
    since its weights and reshapes were written for it."""
    keras1 = bool(keras_pin) and not keras_pin.startswith("==2") and not admits(keras_pin, "2.0.0")
    key, default = ("image_dim_ordering", "th") if keras1 else ("image_data_format", "channels_first")
    value = existing.get(key)
    return {"backend": "theano", key: value if isinstance(value, str) and value else default, "floatx": "float32"}


def _pygpu_missing_for_a_working_gpu(record: Mapping[str, Any]) -> bool:
    """A GPU that works, and pygpu recorded as not installed (not merely not recorded)."""
    usable, _why = readiness.pygpu_status(record)
    return readiness.gpu_usable(record) is True and usable is False and not readiness.pygpu_installed(record)


def _installed(record: Mapping[str, Any], name: str, pin: str) -> bool:
    have = _version_of(record, name.lower())
    return bool(have) and pin.startswith("==") and have == pin[2:]


def _why_not_here(wheels: Wheels, target: Mapping[str, Any], now: str, os_family: str,
                  project: Optional[ProjectScan], needs: _Needs, py2: bool, pymc: bool) -> str:
    """Why the environment in use cannot carry the plan, in the order the choice checks."""
    if py2 and project is not None:
        return tr("the project has Python-2-only code (%s)") % project.py2_only[0]
    if not admits(target["python_ok"], now):
        return tr("%s does not run on Python %s") % (_target_key(target), now)
    if needs.h5py and not wheels.newest("h5py", now, os_family, H5PY_FOR_KERAS):
        return tr("no h5py %s (what Keras needs to load its files) has a wheel for Python %s on %s") % (
            H5PY_FOR_KERAS, now, os_family)
    scipy_needs = _scipy_spec(project, needs, pymc)
    if scipy_needs and not wheels.newest("scipy", now, os_family, scipy_needs):
        return tr("no scipy %s (what the project needs) has a wheel for Python %s on %s") % (
            scipy_needs, now, os_family)
    return tr("no numpy that %s accepts has a wheel for Python %s on %s") % (_target_key(target), now, os_family)


def _keras_needs_h5py2(record: Mapping[str, Any], project: Optional[ProjectScan]) -> bool:
    """The plan installs a Keras of the Theano years (2.3.1, or the project's pin below 2.4)."""
    if not ((project and "Keras" in project.frameworks()) or _version_of(record, "keras")):
        return False
    pin = project.pin("Keras") if project else None
    return not (pin and pin.spec and not admits(pin.spec, "2.3.1") and admits(pin.spec, "2.4.0"))


def _frameworks(record: Mapping[str, Any], project: Optional[ProjectScan], packages: dict[str, str],
                reasons: dict[str, str], notes: list[str]) -> None:
    found = project.frameworks() if project else {}
    if "Lasagne" in found or _version_of(record, "lasagne"):
        packages["Lasagne"] = LASAGNE_AT_COMMIT
        reasons["Lasagne"] = (tr("Lasagne 0.1 (PyPI) imports theano.tensor.signal.downsample, gone since Theano 0.9; "
                              "GitHub master (0.2.dev1, 5d3c63c) works with Theano 1.0"))
    if "Keras" in found or _version_of(record, "keras"):
        pin = project.pin("Keras") if project else None
        packages["Keras"] = "==2.3.1" if not (pin and pin.spec and not admits(pin.spec, "2.3.1")) else pin.spec
        reasons["Keras"] = tr("2.3.1 is the last Keras with a Theano back-end (2.4.0 is tf.keras only)")
        if pin and pin.spec and not admits(pin.spec, "2.3.1"):
            reasons["Keras"] = tr("the project pins Keras%s (%s); its API differs from 2.x") % (pin.spec, pin.where)
    for dist in ("blocks", "pylearn2", "nolearn"):
        if dist in found:
            notes.append(tr("the project imports %s (%s): not on PyPI in a form that installs today; "
                         "install it from its repository at a commit of its time") % (dist, found[dist]))


def _compiler_steps(record: Mapping[str, Any], os_family: str, env_kind: str) -> list[Step]:
    gxx_bits, python_bits = get(record, "compilers.gxx.bits"), get(record, "python.bits")
    # LD404: a 32-bit MinGW cannot build modules a 64-bit Python loads (and the reverse)
    wrong_bits = (os_family == "windows" and isinstance(gxx_bits, int) and isinstance(python_bits, int)
                  and gxx_bits != python_bits)
    cxx = readiness.theano_cxx(record)
    if (cxx or readiness.usable_gxx(record)) and not wrong_bits:
        return []
    if configured_facts(record).get("configured_found") is True:
        return []  # the config names a compiler of its own, which exists
    if cxx is None and not wrong_bits:
        return []  # not recorded, or g++ -v timed out: whether one is missing is unknown
    if os_family == "windows":
        why = (tr("the g++ on PATH builds %d-bit code and Python is %d-bit (LD404)") % (gxx_bits, python_bits)
               if wrong_bits else tr("Theano compiles its C code with g++"))
        if env_kind == "conda":
            line = "conda install -y m2w64-toolchain"
            return [Step(N_("Install the MinGW-w64 g++ into the environment"), why,
                         {k: [line] for k in SHELL_KINDS}, kind="install", unblocks=3)]
        return [Step(N_("Install MinGW-w64 g++ and put its bin folder on PATH"),
                     why + tr("; without conda there is no package for it"), manual=True, kind="manual", unblocks=3)]
    if os_family == "darwin":
        # /usr/bin/g++ is Apple clang, installed with the Command Line Tools; the command opens
        # Apple's installer dialog, so the user runs it.
        return [Step(N_("Install Apple's Command Line Tools (xcode-select --install): they provide g++ (clang)"),
                     tr("Theano compiles its C code with g++"), manual=True, kind="manual", unblocks=3)]
    return [Step(N_("Install g++ (on Debian/Ubuntu: sudo apt install g++)"), tr("Theano compiles its C code with g++"),
                 manual=True, kind="manual", unblocks=3)]


def _python_build_steps(record: Mapping[str, Any], theano_version: str, os_family: str) -> list[Step]:
    """What the plan's Python (the one in use, or the base of a venv of the same version)
    lacks for Theano's compiles (LD424, LD419): system packages or another Python, which
    the user does."""
    from legacydoc.pythonbuild import linked_libpython, missing_headers

    steps = []
    headers = missing_headers(record)
    # gcc shown the headers another way: LD424 stays quiet, and so does the plan
    if headers.get("headers_ok") is False and headers.get("headers_elsewhere") is not True:
        why = tr("%s missing: Theano cannot compile any module (LD424)") % headers["headers_missing"]
        if os_family == "linux":
            version = headers.get("short_version") or "3.X"
            devel = "python2-devel" if version.startswith("2.") else "python3-devel"
            template = N_("Install this Python's C headers (Debian/Ubuntu: sudo apt install python%s-dev; Fedora: %s)")
            steps.append(Step(template % (version, devel), why, manual=True, kind="manual", unblocks=3,
                              template=template, args=(version, devel)))
        else:
            steps.append(Step(N_("Install Python with python.org's installer or conda, which include its C headers "
                                 "(Windows' embeddable zip has none), and make the environment from it"),
                              why, manual=True, kind="manual", unblocks=3))
    link = linked_libpython(record, theano_version)
    if os_family == "linux" and link.get("libpython_link") == "static":
        steps.append(Step(N_("Rebuild this Python with a shared libpython (pyenv: env "
                             "PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install <version>), or use a conda Python; "
                             "then recreate the environment"),
                          tr("ld links %s, a static library, into every module Theano compiles (LD419)")
                          % link["libpython_file"], manual=True, kind="manual", unblocks=3))
    return steps


def _assignments(env: Mapping[str, str]) -> dict[str, list[str]]:
    """Each variable set in each shell; an empty value clears it (Python ignores an empty
    PYTHONPATH, and cmd and PowerShell remove a variable set to nothing)."""
    from legacydoc.shells import assignment

    return {kind: [assignment(kind, k, v) for k, v in env.items()] for kind in SHELL_KINDS}


def _pythonpath_step(record: Mapping[str, Any]) -> Optional[tuple[Step, Optional[str]]]:
    """Theano's own package folder taken off PYTHONPATH (LD110): the step, and the value left
    (None when the step is the user's: the rest of the value was redacted in the record)."""
    from legacydoc import derive
    from legacydoc.redact import PLACEHOLDERS

    kept = derive.pythonpath_without_theano_dir(record)
    if kept is None:
        return None
    entry = derive.theano_dir_on_pythonpath(record) or "theano"
    why = tr("PYTHONPATH names %s, Theano's package folder itself: on Python 3 `import theano` fails (LD110). "
             "Remove it where it is set for good too (on Windows: System Properties > Environment Variables; "
             "elsewhere: the shell's profile)") % entry
    title = N_("Take Theano's own folder off PYTHONPATH")
    if any(placeholder.split("-N")[0] in kept for placeholder in PLACEHOLDERS):
        # a redacted record's <home>/<user> cannot be typed back: the user edits the value
        return Step(title, why, manual=True, kind="manual", unblocks=1), None
    return Step(title, why, _assignments({"PYTHONPATH": kept}), kind="env", unblocks=1), kept


def _env_vars(ldflags: str, os_family: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if "mkl" in ldflags and os_family != "darwin":
        # Theano links MKL next to its own GNU OpenMP; MKL must use the GNU threading layer
        # (Theano rel-1.0.5 theano/configdefaults.py check_mkl_openmp, skipped on macOS)
        out["MKL_THREADING_LAYER"] = "GNU"
    return out


def _manual_gpu_steps(record: Mapping[str, Any], device: str, device_why: str, cannot: list[str]) -> list[Step]:
    if device in ("cuda", "gpu"):
        return []
    usable = readiness.gpu_usable(record)
    if usable is None and not machine.gpu_names(record):
        cannot.append(tr("the GPU: whether this machine has a working NVIDIA GPU is not known (not recorded); "
                      "the plan runs Theano on the CPU"))
        return []
    if usable is False and not machine.gpu_names(record):
        cannot.append(tr("the GPU: no working NVIDIA GPU was found, so the plan runs Theano on the CPU"))
        return []
    why = device_why.split(": ", 1)[-1] if device_why.startswith("cpu: ") else device_why
    fit = _toolkit_fit(record)
    if fit.get("toolkit_fix"):
        why += ". " + fit["toolkit_fix"]
    if fit.get("toolkits_named") and not fit.get("toolkits_that_fit"):
        cannot.append(tr("the GPU: ") + fit["toolkit_fix"])
        return []
    cannot.append(tr("the GPU, until the manual step is done: the plan writes device = cpu meanwhile"))
    return [Step(N_("Make the GPU usable (manual: drivers and toolkits are yours to change; legacydoc check "
                    "says how for each problem)"), why, manual=True, kind="manual", unblocks=1)]


def _toolkit_fit(record: Mapping[str, Any]) -> dict[str, Any]:
    """derive.toolkit_fit for the record: the same answer check's LD303 gives."""
    from legacydoc import derive

    os_family = machine.family(record)
    driver = derive.driver_facts(record, os_family)
    nvcc = derive.nvcc_facts(record, os_family, driver.get("max_cuda"))
    return derive.toolkit_fit(driver.get("max_cuda"), os_family, derive.gpu_list(record, nvcc))


def _ordered(steps: list[Step]) -> list[Step]:
    """Environment first, checks last; in between, the steps that unblock most first."""
    rank = {"env": 0, "install": 1, "manual": 2, "config": 3, "check": 4}
    return sorted(steps, key=lambda s: (rank.get(s.kind, 2), -s.unblocks))
