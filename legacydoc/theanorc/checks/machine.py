"""Checks of the config against the machine the facts describe: a GPU device without
pygpu, a GPU or a compiler; cuda.root and [dnn] paths that do not exist; numpy's BLAS
info; config files Theano will not read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from legacydoc import readiness
from legacydoc.facts import get
from legacydoc.i18n import tr
from legacydoc.theanorc import machine
from legacydoc.theanorc.checks.base import Context, _fix_for, _place, config_lines
from legacydoc.theanorc.discovery import theanorc_line
from legacydoc.theanorc.effective import blas_default_fails


def check_gpu(ctx: Context) -> None:
    config = ctx.config
    if not config.gpu_backend:
        return
    # the setting that asks for the GPU: device, else init_gpu_device, else contexts
    candidates = [config.get(n) for n in ("device", "init_gpu_device", "contexts")]
    anchor = next((s for s in candidates if s is not None and not s.is_default and s.value), config["device"])
    where = _place(anchor.origin.file, anchor.origin.line) if anchor.origin.source == "file" else anchor.origin.label
    fields = dict(file=anchor.origin.file if anchor.origin.source == "file" else anchor.origin.source,
                  line=anchor.origin.line, section="global", option=anchor.option["option"], value=anchor.value)
    to_cpu = _fix_for(anchor, "cpu") if anchor.name == "device" else _fix_for(anchor, "")
    if anchor.name in ("device", "init_gpu_device") and not pygpu_parses_device(str(anchor.value)):
        ctx.add(
            "gpu-device-name", "error",
            tr("%s: %s=%s is accepted by Theano, but pygpu reads what follows 'cuda' as a GPU number (opencl: "
            "'<platform>:<device>') and raises ValueError; Theano logs \"Could not initialize pygpu, support "
            "disabled\" and runs on the CPU. Use cuda (the driver picks a GPU) or cuda0, cuda1 ...")
            % (where, anchor.name, anchor.value),
            _fix_for(anchor, "cuda" if str(anchor.value).startswith("cuda") else "opencl0:0"), **fields,
        )
    usable, evidence = readiness.pygpu_status(ctx.record)
    if usable is False:
        pin = "pygpu=0.7" if ctx.schema.id in ("theano-1.0.5", "theano-pymc-1.1.2") else "pygpu=0.6"
        ctx.add(
            "cuda-without-pygpu", "error",
            tr("%s: %s=%s asks for the GPU, but %s; Theano logs \"pygpu was configured but could not be imported\" "
            "and runs everything on the CPU. Install pygpu (conda only: it is not on PyPI) or set device = cpu.")
            % (where, anchor.name, anchor.value, evidence),
            "conda install -c mila-udem %s" % pin, **fields,
        )
    gpu = readiness.gpu_usable(ctx.record)
    if gpu is False:
        output = readiness.gpu_failure_text(ctx.record)
        ctx.add(
            "cuda-without-gpu", "error",
            tr("%s: %s=%s asks for the GPU, but no working NVIDIA GPU was found (%s); Theano logs \"Could not "
            "initialize pygpu, support disabled\" and runs on the CPU.") % (
                where, anchor.name, anchor.value, str(output).splitlines()[0] if output else "?"),
            to_cpu, **fields,
        )
    cxx = config["cxx"]
    if cxx.value == "":
        other = readiness.usable_gxx(ctx.record)
        ctx.add(
            "cuda-without-compiler", "error",
            tr("%s: %s=%s needs a C++ compiler, but %s; the gpuarray backend refuses to start (\"The new gpu-backend "
            "need a c++ compiler.\") and Theano runs on the CPU.") % (
                where, anchor.name, anchor.value,
                "cxx is set empty" if not cxx.is_default else "no g++ was found"),
            config_lines("global", "cxx", other) if other else "", **fields,
        )
    floatx = config["floatX"]
    # the default float64 is known only when every config file was read: one nobody
    # recorded may set floatX, so nothing is claimed then
    if floatx.typed == "float64" and (not floatx.is_default or _every_file_read(ctx)):
        how = " (%s)" % floatx.origin.label if not floatx.is_default else tr(" (the default)")
        ctx.add(
            "float64-on-gpu", "warning",
            tr("%s: with %s=%s, floatX is float64%s; consumer GPUs run float64 many times slower than float32 and "
            "much of Theano's GPU code expects float32.") % (where, anchor.name, anchor.value, how),
            _fix_for(floatx, "float32") if not floatx.is_default else config_lines("global", "floatX", "float32"),
            file=fields["file"] if floatx.is_default else (floatx.origin.file or floatx.origin.source),
            line=anchor.origin.line if floatx.is_default else floatx.origin.line, section="global", option="floatX",
            value="float64",
        )


def _every_file_read(ctx: Context) -> bool:
    """A default stands only when every config file Theano reads was read: a record that
    never listed them (a ticket, a partial replay) may have a .theanorc saying otherwise."""
    from legacydoc.configread import config_files_read

    return config_files_read(ctx.record)


def pygpu_parses_device(value: str) -> bool:
    """Would pygpu_init() accept this device name? (libgpuarray v0.6.2-v0.7.6
    pygpu/gpuarray.pyx: int(dev[4:]) for cuda, '<int>:<int>' for opencl)."""
    if value.startswith("cuda"):
        try:
            return value[4:] == "" or isinstance(int(value[4:]), int)
        except ValueError:
            return False
    if value.startswith("opencl"):
        spec = value[6:].split(":")
        return len(spec) >= 2 and spec[0].isdigit() and spec[1].isdigit()
    return True


def check_cuda_root(ctx: Context) -> None:
    setting = ctx.config.get("cuda.root")
    if setting is None or not setting.value:
        return
    value = setting.value
    pm = machine.pathmod(ctx.record)
    trimmed = value.rstrip("/\\")
    where = ctx._where_setting(setting)
    fields = ctx._fields(setting)
    if pm.basename(trimmed).lower() == "bin":
        parent = pm.dirname(trimmed)
        ctx.add(
            "cuda-root-bin", "warning",
            tr("%s: cuda.root is %s, the toolkit's bin folder; Theano takes the CUDA headers from <cuda.root>/include "
            "(and finds cudnn.h there), so it must be the toolkit folder itself.") % (where, value),
            ctx._fix_anywhere(setting, parent), **fields,
        )
        return
    toolkit = machine.toolkit_at(ctx.record, value)
    if toolkit is not None and toolkit.get("exists") is False:
        real = machine.toolkit_for_writing(ctx.record)
        ctx.add(
            "cuda-root-missing", "warning",
            tr("%s: cuda.root is %s, which does not exist; Theano cannot find the CUDA headers (nor cudnn.h "
               "there).%s") % (
                where, value, tr(" The toolkit on this machine is %s.") % real["root"] if real else ""),
            ctx._fix_anywhere(setting, str(real["root"])) if real else "", **fields,
        )


def check_dnn_paths(ctx: Context) -> None:
    searched = {
        "include": machine.dirs_searched(ctx.record, "include"),
        "library": machine.dirs_searched(ctx.record, "library"),
    }
    recorded = get(ctx.record, "cudnn.dnn_settings") or {}
    pm = machine.pathmod(ctx.record)
    for short, which in (("include_path", "include"), ("library_path", "library"), ("bin_path", "library"),
                         ("base_path", "include")):
        setting = ctx.config.get("dnn." + short)
        if setting is None or setting.is_default or not setting.value or searched[which] is None:
            continue
        if not isinstance(recorded, Mapping) or recorded.get(short) != setting.value:
            continue  # the probe did not look at this value: cannot tell
        target = pm.join(setting.value, "include") if short == "base_path" else setting.value
        if any(machine.same_path(ctx.record, d, target) for d in searched[which] or []):
            continue
        found = _cudnn_dir(ctx, which)
        ctx.add(
            "dnn-path-missing", "error" if ctx.config["dnn.enabled"].value == "True" else "warning",
            tr("%s: dnn.%s is %s, which %s; Theano cannot compile or load cuDNN from there%s.%s") % (
                ctx._where_setting(setting), short, setting.value,
                "has no include folder" if short == "base_path" else "does not exist",
                " and with dnn.enabled = True import fails" if ctx.config["dnn.enabled"].value == "True" else
                ", so it silently runs without cuDNN",
                " cuDNN was found in %s." % found if found else ""),
            ctx._fix_anywhere(setting, found) if found and short != "base_path" else "", **ctx._fields(setting),
        )


def _cudnn_dir(ctx: Context, which: str) -> Optional[str]:
    pm = machine.pathmod(ctx.record)
    if which == "include":
        for header in get(ctx.record, "cudnn.headers", []) or []:
            if isinstance(header, Mapping) and header.get("header") == "cudnn.h" and header.get("exists", True):
                return pm.dirname(str(header["path"]))
        return None
    for library in get(ctx.record, "cudnn.libraries", []) or []:
        if isinstance(library, Mapping) and library.get("exists", True) and library.get("path"):
            return pm.dirname(str(library["path"]))
    return None


def check_blas(ctx: Context) -> None:
    if blas_default_fails(ctx.config, ctx.record):
        version = get(ctx.record, "packages.numpy.version", "?")
        ctx.add(
            "blas-ldflags-needed", "error",
            tr("blas.ldflags is not set, so Theano computes it at import from numpy's build info, and numpy %s no "
            "longer has numpy.distutils.__config__.blas_opt_info: import theano fails with \"AttributeError: "
            "module 'numpy.distutils.__config__' has no attribute 'blas_opt_info'\". Set blas.ldflags (empty "
            "means NumPy's C-API fallback) or use numpy < 1.22.") % version,
            config_lines("blas", "ldflags", ""), option="ldflags", section="blas", import_fails=True,
        )


def check_discovery(ctx: Context) -> None:
    theanorc = machine.theanorc_env(ctx.record)
    win32 = machine.is_win32(ctx.record)
    pm = machine.pathmod(ctx.record)
    for fact in get(ctx.record, "theano_config.unread_files", []) or []:
        if not isinstance(fact, Mapping) or fact.get("kind") not in (None, "file") or not fact.get("exists", True):
            continue
        path, where = str(fact.get("path", "")), fact.get("where")
        name = pm.basename(path)
        if where == "home" and theanorc is not None:
            ctx.add(
                "theanorc-hides-home", "warning",
                tr("THEANORC is set (%s), so Theano reads only the files it lists and %s is ignored. Add it to "
                "THEANORC (files on the right override those on the left) or merge it into one of the listed files.")
                % (theanorc, path),
                theanorc_line(ctx.record, add=[path], first=True), file=path,
            )
            continue
        if where == "home" and name == ".theanorc.txt" and not win32:
            ctx.add(
                "unread-theanorc", "warning",
                tr("%s is never read: Theano looks for ~/.theanorc.txt on Windows only. Rename it to "
                   ".theanorc.") % path,
                "mv %s %s" % (path, pm.join(pm.dirname(path), ".theanorc")), file=path,
            )
            continue
        if where in ("cwd", "project"):
            ctx.add(
                "unread-theanorc", "warning",
                tr("%s is never read: Theano reads ~/.theanorc%s and the files listed in THEANORC, never a .theanorc "
                "in the %s folder. List it in THEANORC (a later file overrides an earlier one) or move its settings "
                "into ~/.theanorc.") % (path, " (and ~/.theanorc.txt)" if win32 else "",
                                       "project" if where == "project" else "current"),
                theanorc_line(ctx.record, add=[path]), file=path,
            )
