"""Redaction: the one stage every shared output goes through.

A :class:`Redactor` is built from what it must hide (the user name, host name and home
folder the system probe recorded, plus the values of secret-looking environment
variables) and replaces them by stable placeholders, so paths stay readable::

    C:\\Users\\Alexandrina\\.theanorc   ->  <home>\\.theanorc
    /srv/alexandrina/bin               ->  /srv/<user>/bin
    GPU-5e8f0a1b-2c3d-...              ->  <gpu-uuid-1>

It works on text (:meth:`Redactor.text`) and on nested facts (:meth:`Redactor.data`,
:meth:`Redactor.record`). Redacting twice changes nothing.

Secrets are hidden even with ``--no-redact`` (``identity=False``): nobody needs a token
to help, and the env probe never records such variables in the first place.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

from legacydoc.probes.env import SECRET_NAME

USER = "<user>"
HOST = "<host>"
HOME = "<home>"
SECRET = "<secret>"
PLACEHOLDERS: dict[str, str] = {
    USER: "user name",
    HOST: "host name",
    HOME: "home folder",
    "<gpu-uuid-N>": "GPU UUIDs",
    "<serial-N>": "serial numbers",
    SECRET: "values of secret-looking environment variables (always hidden)",
}

# Names too common to replace as a word everywhere: "root" would garble cuda.root and
# "user" user_site, and they identify nobody. They are still hidden inside the home path.
GENERIC_NAMES = frozenset(
    """root admin administrator user users guest default defaultuser0 public nobody
    ubuntu ec2-user vagrant jovyan runner docker system localhost localhost.localdomain
    theano python cuda nvidia gpu numpy conda anaconda miniconda dev home
    pbs torque master head headnode login server cluster hpc batch sched mgmt""".split()
)
# Beyond env.SECRET_NAME: other names that usually hold credentials.
_MORE_SECRET = re.compile(r"PASS|COOKIE|SESSION|PRIVATE|DSN|WEBHOOK", re.IGNORECASE)
# A secret shorter than this, or a plain path/number/boolean, is not masked everywhere
# (it would replace common text); its variable is never recorded anyway.
MIN_SECRET_LEN = 6
MIN_WORD_LEN = 3

_UUID_RE = re.compile(
    r"(?<![0-9A-Za-z])(?:GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])"
)
# "Serial Number : 0324117046521" (nvidia-smi -q), "serial=...", "Board Serial No: ...".
_SERIAL_RE = re.compile(r"(?i)(\bserial(?:[ _-]?(?:number|no\.?|#))?\s*[:=]\s*)([A-Za-z0-9][A-Za-z0-9-]{3,})")
# Credentials inside URLs: the whole userinfo of scheme://userinfo@host, password or token
# ("https://u:p@ss@host/", "https://TOKEN@host"): up to the last @ before the path.
_URL_CRED_RE = re.compile(r"(?<=://)[^/\s?#]*@(?=[^/\s@?#]+(?:[/?#\s]|$))")
_ENV_NAME_RE = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_FACT_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")  # a fact name, not free text
_BOOLEANISH = frozenset("true false yes no none null on off".split())
# Not a letter or digit (any script): user and host names are matched as whole words,
# with _ - . / \ and spaces as boundaries.
_NOT_ALNUM_BEFORE = r"(?<![^\W_])"
_NOT_ALNUM_AFTER = r"(?![^\W_])"
# 8.3 short names drop these and replace these.
_SHORT_DROP = " ."
_SHORT_BAD = '"*+,/:;<=>?[\\]|'


def looks_secret(name: str) -> bool:
    """An environment variable whose value must never be shared."""
    return bool(SECRET_NAME.search(name) or _MORE_SECRET.search(name))


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """Values of secret-looking variables worth masking wherever they appear."""
    out = []
    for name, value in environ.items():
        if not looks_secret(name) or not isinstance(value, str):
            continue
        value = value.strip()
        if len(value) < MIN_SECRET_LEN or value.lower() in _BOOLEANISH or value.isdigit():
            continue
        if value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", value):
            continue  # a path, not a secret (and home paths are redacted anyway)
        out.append(value)
    return out


def _short_forms(name: str) -> list[str]:
    """Regexes for the Windows 8.3 short forms of a long name (ALEXAN~1, JOHN~1.SMI, AL1F2B~1)."""
    clean = "".join("_" if c in _SHORT_BAD else c for c in name if c not in _SHORT_DROP).upper()
    base, dot, ext = name.rpartition(".")
    stems = {clean[:6]}
    ext3 = ""
    if dot and base:
        stems.add("".join("_" if c in _SHORT_BAD else c for c in base if c not in _SHORT_DROP).upper()[:6])
        ext3 = ext.replace(" ", "").upper()[:3]
    stems.discard("")
    tail = r"~\d{1,6}" + (r"(?:\.%s)?" % re.escape(ext3) if ext3 else "")
    forms = [re.escape(stem) + tail for stem in sorted(stems, key=len, reverse=True)]
    if len(clean) >= 2:  # after four collisions Windows uses 2 letters + 4 hex digits
        forms.append(re.escape(clean[:2]) + r"[0-9A-F]{4}~\d")
    return forms


def _home_pattern(home: str, windows: bool) -> Optional[str]:
    """A regex for one home folder: either slash direction (doubled too, as in JSON),
    8.3 short forms of its parts on Windows; only as a whole path prefix."""
    home = home.rstrip("/\\")
    parts = [p for p in re.split(r"[\\/]+", home) if p != ""]
    if len(home) < 3 or not parts or (windows and len(parts) == 1 and parts[0].endswith(":")):
        return None  # "/" or "C:\" as home: hiding it would hide every path
    pieces = []
    for part in parts:
        alts = [re.escape(part)]
        if windows and not part.endswith(":"):
            alts.extend(_short_forms(part))
        pieces.append("(?:%s)" % "|".join(alts))
    lead = r"[\\/]+" if home[:1] in "/\\" else ""
    if home.startswith(("\\\\", "//")):
        lead = r"[\\/]{2,}"  # a UNC home (\\server\share\user)
    return r"(?<![\w.~-])" + lead + r"[\\/]+".join(pieces) + r"(?![\w-]|\.[\w-])"


def _word_pattern(words: Iterable[str], windows: bool) -> list[str]:
    out = []
    for word in sorted(set(words), key=len, reverse=True):
        alts = [re.escape(word)]
        if windows:
            alts.extend(_short_forms(word))
        out.append(_NOT_ALNUM_BEFORE + "(?:%s)" % "|".join(alts) + _NOT_ALNUM_AFTER)
    return out


# PBS names each job <sequence number>.<server> (qsub(1B)): the server is a host of the site,
# kept in the record with PBS_JOBID, so it is hidden as a host name is.
_PBS_JOBID = re.compile(r"^\d+(?:\[\d*\])?\.([A-Za-z0-9][A-Za-z0-9.-]*)$")


def batch_servers(variables: Mapping[str, Any]) -> list[str]:
    """The batch server's host name a job variable carries (PBS_JOBID=1234.pbs01.example.edu)."""
    match = _PBS_JOBID.match(str(variables.get("PBS_JOBID", "")).strip())
    return [match.group(1)] if match else []


def _is_placeholder(value: str) -> bool:
    return value.startswith("<") and value.endswith(">")


def _usable(names: Iterable[Any]) -> list[str]:
    """Real names only, each also in its other Unicode form (macOS writes paths as NFD)."""
    out: list[str] = []
    for name in names:
        if isinstance(name, str) and name.strip() and not _is_placeholder(name.strip()):
            for form in (name, unicodedata.normalize("NFC", name), unicodedata.normalize("NFD", name)):
                if form not in out:
                    out.append(form)
    return out


class Redactor:
    """Hides identity (unless ``identity=False``) and secrets, in text and in facts."""

    def __init__(
        self,
        users: Sequence[str] = (),
        hosts: Sequence[str] = (),
        homes: Sequence[str] = (),
        secrets: Sequence[str] = (),
        windows: bool = False,
        identity: bool = True,
    ) -> None:
        self.identity = identity
        self.windows = windows
        self._users = _usable(users)
        self._hosts = _usable(hosts)
        self._homes = _usable(homes)
        self._secrets = sorted(set(_usable(secrets)), key=len, reverse=True)
        self._numbered: dict[str, dict[str, str]] = {"gpu-uuid": {}, "serial": {}}
        flags = re.IGNORECASE if windows else 0
        self._secret_re = re.compile("|".join(map(re.escape, self._secrets))) if self._secrets else None
        homes_re = [p for p in (_home_pattern(h, windows) for h in sorted(set(self._homes), key=len, reverse=True))
                    if p]
        self._home_re = re.compile("|".join(homes_re), flags) if homes_re else None
        words = [u for u in self._users if len(u) >= MIN_WORD_LEN and u.lower() not in GENERIC_NAMES]
        # Any case: "Alice" in a path names the same person as "alice" (over-hiding is harmless).
        self._user_re = re.compile("|".join(_word_pattern(words, windows)), re.IGNORECASE) if words else None
        # Host names are case-insensitive everywhere (DNS); "pc.corp.example" also as "pc".
        hosts_all = set()
        for host in self._hosts:
            hosts_all.update({host, host.split(".")[0]})
        hosts_ok = [h for h in hosts_all if len(h) >= MIN_WORD_LEN and h.lower() not in GENERIC_NAMES]
        self._host_re = re.compile("|".join(_word_pattern(hosts_ok, False)), re.IGNORECASE) if hosts_ok else None

    @classmethod
    def for_record(
        cls, record: Mapping[str, Any], environ: Optional[Mapping[str, str]] = None, identity: bool = True
    ) -> "Redactor":
        """What to hide, read from the record's ``system`` table (and secrets from environ)."""
        system = record.get("system") if isinstance(record, Mapping) else None
        system = system if isinstance(system, Mapping) else {}

        def names(*keys: str) -> list[str]:
            out: list[Any] = []  # whatever the record holds: _usable keeps the real names
            for key in keys:
                value = system.get(key)
                out.extend(value if isinstance(value, list) else [value])
            return _usable(out)

        env = record.get("env") if isinstance(record, Mapping) else None
        variables = env.get("variables") if isinstance(env, Mapping) else None
        servers = batch_servers(variables) if isinstance(variables, Mapping) else []
        return cls(
            users=names("user", "user_aliases"),
            hosts=names("hostname", "host_aliases") + servers,
            homes=names("home", "home_aliases"),
            secrets=secret_values(environ or {}),
            windows=system.get("os") == "windows",
            identity=identity,
        )

    # --- text -----------------------------------------------------------------------
    def _number(self, kind: str, value: str) -> str:
        table = self._numbered[kind]
        key = value.upper()
        if key not in table:
            table[key] = "<%s-%d>" % (kind, len(table) + 1)
        return table[key]

    def text(self, text: str) -> str:
        """``text`` with every secret, and (unless identity=False) every identity, replaced."""
        if not isinstance(text, str) or not text:
            return text
        if self._secret_re is not None:
            text = self._secret_re.sub(SECRET, text)
        text = _URL_CRED_RE.sub(SECRET + "@", text)
        if not self.identity:
            return text
        text = _UUID_RE.sub(lambda m: self._number("gpu-uuid", m.group(0)), text)
        text = _SERIAL_RE.sub(lambda m: m.group(1) + self._number("serial", m.group(2)), text)
        if self._home_re is not None:
            text = self._home_re.sub(HOME, text)
        if self._user_re is not None:
            text = self._user_re.sub(USER, text)
        if self._host_re is not None:
            text = self._host_re.sub(HOST, text)
        return text

    # --- facts ----------------------------------------------------------------------
    def data(self, value: Any, key: str = "") -> Any:
        """A redacted copy of nested facts: keys and string values alike."""
        if isinstance(value, Mapping):
            # an environment variable's name is nobody's (a host called "pbs" must not turn
            # PBS_JOBID into <host>_JOBID)
            return {(str(k) if _ENV_NAME_RE.match(str(k)) else self.text(str(k))): self.data(v, str(k))
                    for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v, key) for v in value]
        if isinstance(value, str):
            if key and _ENV_NAME_RE.match(key) and looks_secret(key) and value:
                return SECRET  # an env-style entry with a secret-looking name
            if self.identity and value and not _is_placeholder(value) and _FACT_KEY_RE.match(key):
                lowered = key.lower()
                if "serial" in lowered:
                    return self._number("serial", value)
                if "uuid" in lowered:
                    return self._number("gpu-uuid", value)
            return self.text(value)
        return value

    def json_text(self, text: str) -> str:
        """Redact a JSON document as data (a text pass could split an escape sequence);
        written back the way render/check_json writes it."""
        return json.dumps(self.data(json.loads(text)), indent=2, ensure_ascii=False)

    def record(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """A redacted copy of a facts record, marked ``redacted = true`` (or false)."""
        out = self.data(record)
        out["redacted"] = bool(self.identity or record.get("redacted"))
        system = out.get("system")
        if self.identity and isinstance(system, dict):
            # Generic or short names survive the word rule; their own fields never do.
            for key, placeholder in (("user", USER), ("hostname", HOST), ("home", HOME)):
                if isinstance(system.get(key), str):
                    system[key] = placeholder
            for key, placeholder in (("user_aliases", USER), ("host_aliases", HOST), ("home_aliases", HOME)):
                if isinstance(system.get(key), list):
                    system[key] = [placeholder for _ in system[key]]
        return _keep_header_first(out)

    def describe(self) -> str:
        """One line for reports: what was done."""
        if self.identity:
            return ("redacted: user name, host name and home folder appear as <user>, <host>, <home>; "
                    "GPU UUIDs and serial numbers as <gpu-uuid-N>, <serial-N>; secrets as <secret>")
        return "not redacted (--no-redact): user name, host name and home folder are shown; secrets are still hidden"


def _keep_header_first(record: dict[str, Any]) -> dict[str, Any]:
    # TOML writes scalars first anyway; dict order matters for readers of the dict.
    head = ("schema", "legacydoc_version", "collected_at", "redacted")
    out = {k: record[k] for k in head if k in record}
    out.update((k, v) for k, v in record.items() if k not in out)
    return out



class RedactingWriter:
    """A text stream that passes everything written to it through a Redactor (for commands
    that print as they go, such as theanorc --write)."""

    def __init__(self, stream: Any, redactor: "Redactor") -> None:
        self.stream = stream
        self.redactor = redactor

    def write(self, text: str) -> int:
        return int(self.stream.write(self.redactor.text(text)) or 0)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)())


def for_this_machine(environ: Mapping[str, str], identity: bool = True) -> "Redactor":
    """What to hide when no facts record exists yet (an error before probing): this
    machine's user, host and home, and secrets from the environment."""
    import getpass
    import os
    import socket

    users, homes, hosts = [], [], []
    try:
        users.append(getpass.getuser())
    except Exception:  # no user database entry: nothing to hide by that name
        pass
    home = os.path.expanduser("~")
    if home and home != "~":
        homes.append(home)
    try:
        hosts.append(socket.gethostname())
    except OSError:
        pass
    hosts.extend(batch_servers(environ))
    return Redactor(users=users, homes=homes, hosts=hosts, secrets=secret_values(environ),
                    windows=os.name == "nt", identity=identity)
