"""Redaction: what is hidden, how it reads afterwards, and what is left alone."""

from __future__ import annotations

from pathlib import Path

from conftest import posix_only
from legacydoc import facts
from legacydoc.probes import collect_all
from legacydoc.redact import HOME, HOST, SECRET, USER, Redactor, secret_values
from legacydoc.report import CommandOutput, build_members

WIN_HOME = "C:\\Users\\Alexandrina Smith"
WIN = Redactor(users=["alexandrina.smith"], hosts=["WS-LAB-0042.corp.example.com"], homes=[WIN_HOME], windows=True)


def test_windows_home_in_every_spelling_becomes_home() -> None:
    cases = {
        "C:\\Users\\Alexandrina Smith\\.theanorc": "<home>\\.theanorc",
        "c:/users/alexandrina smith/.theanorc": "<home>/.theanorc",
        "C:\\\\Users\\\\Alexandrina Smith\\\\AppData": "<home>\\\\AppData",  # as JSON escapes it
        "C:\\Users\\ALEXAN~1\\AppData\\Local\\Theano": "<home>\\AppData\\Local\\Theano",  # 8.3 short form
        "C:\\Users\\AL1F2B~1\\x": "<home>\\x",  # 8.3 short form after many collisions
        "PATH=C:\\CUDA\\bin;C:\\Users\\Alexandrina Smith\\Anaconda3;C:\\x": "PATH=C:\\CUDA\\bin;<home>\\Anaconda3;C:\\x",
        "\\\\?\\C:\\Users\\Alexandrina Smith\\x": "\\\\?\\<home>\\x",
    }
    for raw, expected in cases.items():
        assert WIN.text(raw) == expected, raw


def test_a_longer_folder_name_is_not_mistaken_for_the_home() -> None:
    assert WIN.text("C:\\Users\\Alexandrina Smithson\\x") == "C:\\Users\\Alexandrina Smithson\\x"


def test_user_name_in_paths_and_outputs_becomes_user() -> None:
    assert WIN.text("D:\\envs\\alexandrina.smith\\python.exe") == "D:\\envs\\<user>\\python.exe"
    assert WIN.text("ALEXANDRINA.SMITH logged in") == "<user> logged in"  # Windows: any case
    assert WIN.text("D:\\ALEXAN~1.SMI\\x") == "D:\\<user>\\x"
    posix = Redactor(users=["alexandrina"], homes=["/home/alexandrina"])
    assert posix.text("/data/alexandrina/cuda:~alexandrina/bin") == "/data/<user>/cuda:~<user>/bin"
    assert posix.text("/opt/alexandrinas-tools") == "/opt/alexandrinas-tools"  # a different word


def test_host_name_full_and_short_any_case() -> None:
    assert WIN.text("ws-lab-0042 WS-LAB-0042.corp.example.com Ws-Lab-0042") == "<host> <host> <host>"


def test_gpu_uuids_and_serials_get_stable_numbered_placeholders() -> None:
    red = Redactor()
    a, b = "GPU-5e8f0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b", "GPU-00000000-1111-2222-3333-444444444444"
    text = "GPU 0 (UUID: %s)\nGPU 1 (UUID: %s)\nSerial Number : 0324117046521" % (a, b)
    assert red.text(text) == "GPU 0 (UUID: <gpu-uuid-1>)\nGPU 1 (UUID: <gpu-uuid-2>)\nSerial Number : <serial-1>"
    # the same value keeps its number in facts, whatever the key says
    assert red.data({"gpu": {"devices": [{"uuid": a.lower(), "serial": "0324117046521"}]}}) == {
        "gpu": {"devices": [{"uuid": "<gpu-uuid-1>", "serial": "<serial-1>"}]}
    }
    assert red.text("Serial Number : N/A") == "Serial Number : N/A"


def test_secret_values_are_hidden_even_without_identity_redaction() -> None:
    environ = {"MY_API_TOKEN": "tok_9f8e7d6c5b4a", "AWS_SECRET_ACCESS_KEY": "abcdefghij", "PATH": "/usr/bin",
               "XAUTHORITY": "/home/a/.Xauthority", "DB_PASSWORD": "true", "SHORT_KEY": "abc"}
    assert sorted(secret_values(environ)) == ["abcdefghij", "tok_9f8e7d6c5b4a"]  # not paths, booleans, short
    for identity in (True, False):
        red = Redactor(users=["alexandrina"], secrets=secret_values(environ), identity=identity)
        assert red.text("curl -H 'Bearer tok_9f8e7d6c5b4a'") == "curl -H 'Bearer <secret>'"
        assert red.text("https://bob:hunter2@pypi.example/simple") == "https://<secret>@pypi.example/simple"
        # an env-style key with a secret-looking name never keeps its value, known or not
        assert red.data({"variables": {"CUDA_AUTH_TOKEN": "zzz", "CUDA_PATH": "/c"}}) == {
            "variables": {"CUDA_AUTH_TOKEN": SECRET, "CUDA_PATH": "/c"}
        }
    assert Redactor(users=["alexandrina"], identity=False).text("/srv/alexandrina") == "/srv/alexandrina"


def test_generic_account_names_are_hidden_only_inside_the_home() -> None:
    red = Redactor(users=["root"], hosts=["localhost"], homes=["/root"])
    assert red.text("/root/.theanorc cuda.root CUDA_ROOT localhost") == "<home>/.theanorc cuda.root CUDA_ROOT localhost"
    record = red.record({"schema": 1, "system": {"user": "root", "hostname": "localhost", "home": "/root"}})
    assert record["system"] == {"user": USER, "hostname": HOST, "home": HOME}


def test_redacting_twice_changes_nothing() -> None:
    text = "C:\\Users\\ALEXAN~1 ws-lab-0042 GPU-5e8f0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b Serial Number: 0324117046521"
    once = WIN.text(text)
    assert Redactor(users=["alexandrina.smith"], homes=[WIN_HOME], windows=True).text(once) == once


def test_record_is_marked_and_the_redactor_reads_what_to_hide_from_it() -> None:
    record = facts.new_record(
        {
            "system": {"os": "windows", "user": "alexandrina.smith", "hostname": "WS-LAB-0042", "home": WIN_HOME,
                       "home_aliases": ["C:\\Users\\ALEXAN~1"], "home_has_space": True},
            "theano_config": {"files": [{"path": WIN_HOME + "\\.theanorc", "from": "default"}]},
            "path": {"entries": [{"entry": "c:\\users\\alexandrina smith\\anaconda3\\scripts"}]},
        }
    )
    assert record["redacted"] is False
    red = Redactor.for_record(record)
    out = red.record(record)
    assert out["redacted"] is True and list(out)[:4] == ["schema", "legacydoc_version", "collected_at", "redacted"]
    assert out["system"]["user"] == USER and out["system"]["home"] == HOME and out["system"]["hostname"] == HOST
    assert out["system"]["home_aliases"] == [HOME] and out["system"]["home_has_space"] is True
    assert out["theano_config"]["files"][0]["path"] == "<home>\\.theanorc"
    assert out["path"]["entries"][0]["entry"] == "<home>\\anaconda3\\scripts"
    text = facts.dumps(out)
    assert "lexandrina" not in text.lower() and "WS-LAB" not in text and "ALEXAN~1" not in text
    assert Redactor.for_record(out).record(out) == out  # a redacted record stays as it is
    kept = Redactor.for_record(record, identity=False).record(record)
    assert kept["redacted"] is False and kept["system"]["user"] == "alexandrina.smith"


@posix_only
def test_a_probed_world_leaves_no_trace_of_its_owner(tmp_path: Path, fake_tools, ctx_factory) -> None:
    """The probes' real output for a planted user, host, home and secret, redacted as data
    and as a whole report (facts, markdown, json, raw commands)."""
    user, host, secret = "alexandrina", "ws-lab-0042", "tok_9f8e7d6c5b4a3210"
    home = tmp_path / "Users" / user
    home.mkdir(parents=True)
    (home / ".theanorc").write_text("[global]\ndevice = cpu\nbase_compiledir = /srv/%s/cache\n" % user)
    userbin = tmp_path / "srv" / user / "bin"
    userbin.mkdir(parents=True)
    fake_tools.add(
        "nvidia-smi",
        stdout="GPU 0: GeForce GTX 1080 Ti (UUID: GPU-5e8f0a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b)\n"
        "Serial Number : 0324117046521\nFailed to initialize NVML: Unknown Error\n"
        "log: %s/nvsmi.log (%s@%s, %s)\n" % (home, user, host, secret),
        rc=255,
    )
    env = {"HOME": str(home), "USER": user, "LOGNAME": user, "HOSTNAME": host, "MY_API_TOKEN": secret,
           "THEANO_FLAGS": "base_compiledir=/srv/%s/theano" % user}
    ctx = ctx_factory(path_dirs=[fake_tools.bindir, userbin], env=env)
    record = facts.new_record(collect_all(ctx))
    assert record["system"]["user"] == user and record["system"]["home"] == str(home)
    assert host in record["system"]["host_aliases"]
    raw = facts.dumps(record)
    assert user in raw and "0324117046521" in raw  # the world really is in the facts

    from legacydoc.engine import load_rules

    red = Redactor.for_record(record, environ=ctx.environ)
    commands = [CommandOutput.from_result(r) for r in ctx.log.results]
    members, _, _ = build_members(record, load_rules(), commands, red, "this machine", "r.zip")
    planted = [user, host, str(home), secret, "GPU-5e8f0a1b", "0324117046521"]
    for name, data in {**members, "facts": facts.dumps(red.record(record)).encode()}.items():
        text = data.decode("utf-8")
        for item in planted:
            assert item not in text, "%s leaks %r" % (name, item)
    assert "<home>/.theanorc" in members["facts.toml"].decode()
    assert "/srv/<user>/bin" in members["facts.toml"].decode()


def test_the_system_probe_records_who_and_where_for_a_windows_world() -> None:
    from legacydoc.probes.context import ProbeContext
    from legacydoc.probes.system import identity

    ctx = ProbeContext(
        environ={"USERPROFILE": WIN_HOME, "USERNAME": "alexandrina.smith", "COMPUTERNAME": "WS-LAB-0042",
                 "HOMEDRIVE": "H:", "HOMEPATH": "\\"},
        platform="win32",
    )
    seen = identity(ctx)
    assert seen["user"] == "alexandrina.smith" and seen["home"] == WIN_HOME
    assert "WS-LAB-0042" in seen.get("host_aliases", []) or seen["hostname"] == "WS-LAB-0042"
    assert seen["home_has_space"] is True and seen["home_non_ascii"] is False
    assert "H:" in seen["home_aliases"]  # HOMEDRIVE+HOMEPATH, another spelling of home
