#!/usr/bin/env python3
"""Command line and config file: -n checks, file:line errors with sysexits codes, SEC-1 plain
listeners, --hash-password (SEC-2), [server] password (issue 27), refusing an in-use port."""

import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Server, daemon_path, free_port, run_tests  # noqa: E402

EX_NOINPUT = 66
EX_CONFIG = 78

TMP = tempfile.mkdtemp(prefix="agentircd-conf-")


def teardown_module():
    shutil.rmtree(TMP, ignore_errors=True)


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(*args, stdin=None, timeout=20):
    return subprocess.run([daemon_path()] + list(args), input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout)


GOOD = """# a good config
[server]
name = irc.test
network = TestNet
ping-interval = 30
max-channels = 10
flood-exempt = 127.0.0.1/32

[listen]
address = 127.0.0.1:%d
""" % free_port()


def check_error(text, name, line, what=None):
    path = write(name, text)
    r = run("-n", "-f", path)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == EX_CONFIG, (r.returncode, err)
    assert re.search(r"%s:%d: \S" % (re.escape(name), line), err), \
        "no '%s:%d: message' in stderr: %r" % (name, line, err)
    if what:
        assert re.search(what, err, re.I), (what, err)
    assert "AddressSanitizer" not in err and "runtime error:" not in err, err
    return err


def test_check_good_config_exits_0():
    path = write("good.conf", GOOD)
    r = run("-n", "-f", path)
    assert r.returncode == 0, (r.returncode, r.stderr)


def test_example_config_checks():
    """conf/agentircd.conf.example is a valid config."""
    src = os.environ.get("SRCDIR") or os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    ex = os.path.join(src, "conf", "agentircd.conf.example")
    if not os.path.exists(ex):
        from ircharness import SkipTest
        raise SkipTest("no conf/agentircd.conf.example yet")
    d = tempfile.mkdtemp(dir=TMP)
    shutil.copy(ex, os.path.join(d, "agentircd.conf"))
    motd = os.path.join(src, "conf", "agentircd.motd")
    if os.path.exists(motd):
        shutil.copy(motd, d)
    r = run("-n", "-f", os.path.join(d, "agentircd.conf"))
    assert r.returncode == 0, (r.returncode, r.stderr)


def test_unknown_key_file_line_78():
    check_error("[server]\nname = irc.test\n\nbogus-key = 1\n", "unknown.conf", 4, "bogus-key")


def test_unknown_section():
    check_error("[server]\nname = irc.test\n[nonsense]\n", "section.conf", 3, "nonsense")


def test_bad_values():
    check_error("[server]\nping-interval = soon\n", "badint.conf", 2, "ping-interval")
    check_error("[server]\nname = irc.test\n\n\nmax-channels = -3\n", "range.conf", 5)
    check_error("[server]\nflood-exempt = not-an-address\n", "cidr.conf", 2)
    check_error("[listen]\naddress = 127.0.0.1\n", "noport.conf", 2)
    check_error("[server]\nname irc.test\n", "noequals.conf", 2)
    check_error("[server\nname = x\n", "bracket.conf", 1)
    check_error("[operator op]\npassword = plaintext\n", "plainpw.conf", 2, "password|hash")


def test_server_password_key():
    """Issue 27: [server] password takes a hash of --hash-password; plain text is
    refused at its file:line, and never printed."""
    err = check_error("[server]\nname = irc.test\npassword = hunter2-plain\n",
                      "srvpw.conf", 3, "password|hash")
    assert "hunter2-plain" not in err, err
    h = run("--hash-password", stdin=b"hunter2-plain\n").stdout.decode().strip()
    path = write("srvpw-good.conf", GOOD.replace("[server]\n", "[server]\npassword = %s\n"
                                                 % h, 1))
    r = run("-n", "-f", path)
    assert r.returncode == 0, (r.returncode, r.stderr)


ACCT = "[account alice]\ncertfp = %s\n" % ("ab" * 32)
AGENT = "[agent a]\ncommand = true\n"


def test_bad_authority_keys():
    """Issue 21: bad input to every new key gets file:line from -n and a non-zero exit (AU-1,
    AU-2, AU-3, AU-10)."""
    check_error(AGENT + "users = * alice\n" + ACCT, "users1.conf", 3, r"users.*stand alone")
    check_error(AGENT + "users = logged-in, alice\n" + ACCT, "users2.conf", 3, "stand alone")
    check_error(ACCT + AGENT + "users = alice mallory\n", "users3.conf", 5,
                r"mallory.*\[account mallory\]")
    check_error(AGENT + "users = ,\n", "users4.conf", 3, "users")
    check_error(AGENT + "admins = root\n", "admins.conf", 3, r"admins.*root")
    check_error(AGENT + "modes = plan *\n", "modes1.conf", 3, r"modes.*stand alone")
    check_error(AGENT + "modes = " + "m" * 65 + "\n", "modes2.conf", 3, "64 bytes")
    check_error(AGENT + "modes = caf\u00e9\n", "modes3.conf", 3, "printable ASCII")
    check_error(AGENT + "env-inherit = OK 9LIVES\n", "inherit1.conf", 3, "9LIVES")
    check_error(AGENT + "env-inherit = OK\nenv-inherit = A-B\n", "inherit2.conf", 4, "A-B")
    check_error("[channel #c]\npermissions = everything\n", "chperm.conf", 2, "permissions")
    check_error("[channel #c]\n\nops = bob\n" + ACCT, "chops.conf", 3, r"ops.*bob")
    check_error("[server]\nworkspace = \"\"\n", "ws.conf", 2, "workspace")


def test_errors_show_no_secret():
    """I2: an env or env-inherit error never prints the value, which may be a key."""
    for i, line in enumerate(["env = ANTHROPIC_API_KEY sk-secret-456",
                              "env = BAD-NAME=sk-secret-456",
                              "env = K=sk-secret-456\nenv = K=sk-secret-456",
                              "env-inherit = K=sk-secret-456"]):
        err = check_error(AGENT + line + "\n", "secret%d.conf" % i, 3 + line.count("\n"))
        assert "sk-secret" not in err, err


def _pem_pair(stem):
    cert, key = os.path.join(TMP, stem + ".pem"), os.path.join(TMP, stem + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=irc.test"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return cert, key


def test_n_reports_what_would_fail_at_start():
    """Issue 24: -n reports, each at its section's file:line, what conf_load cannot see
    and would fail at start or at an agent's first use: a TLS key that is not there, a
    key that does not match its certificate, an agent command not on PATH (nor on the
    PATH its env sets), an absolute command that does not exist, a cwd that does not
    exist or is a file. Exit 78, and a config without them is OK."""
    cert, key = _pem_pair("pf1")
    _, other = _pem_pair("pf2")
    afile = write("not-a-dir", "x\n")
    text = ("[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = gone.key\n\n"
            "[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n\n"
            "[agent ghost]\ncommand = no-such-agent-cmd --acp\n\n"
            "[agent abs]\ncommand = /nonexistent/bin/agent\n\n"
            "[agent envpath]\ncommand = true\nenv = PATH=/nonexistent\n\n"
            "[agent nocwd]\ncommand = true\ncwd = /nonexistent/agent-dir\n\n"
            "[agent filecwd]\ncommand = true\ncwd = %s\n\n"
            "[agent fine]\ncommand = true\n"
            % (free_port(), cert, free_port(), cert, other, afile))
    path = write("preflight.conf", text)
    r = run("-n", "-f", path)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == EX_CONFIG, (r.returncode, err)
    for line, rx in ((1, r"\[listen\] 127\.0\.0\.1:\d+: tls-key \S*gone\.key: No such file"),
                     (6, r"\[listen\] 127\.0\.0\.1:\d+: its TLS files .* do not load"),
                     (11, r"\[agent ghost\]: command no-such-agent-cmd: not found on PATH"),
                     (14, r"\[agent abs\]: command /nonexistent/bin/agent: No such file"),
                     (17, r"\[agent envpath\]: command true: not found on PATH"),
                     (21, r"\[agent nocwd\]: cwd /nonexistent/agent-dir: No such file"),
                     (25, r"\[agent filecwd\]: cwd \S*not-a-dir is not a directory")):
        assert re.search(r"preflight\.conf:%d: %s" % (line, rx), err), (line, rx, err)
    assert "[agent fine]" not in err, err
    assert "key values mismatch" in err, err
    assert "configuration OK" not in err, err
    # The same listeners and agents, mended: OK (the default cwd is made at start).
    good = write("preflight-ok.conf",
                 "[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n\n"
                 "[agent fine]\ncommand = true\n\n[agent abs]\ncommand = /bin/true\n\n"
                 "[agent envpath]\ncommand = true\nenv = PATH=/usr/bin:/bin\n"
                 % (free_port(), cert, key))
    r = run("-n", "-f", good)
    assert r.returncode == 0, (r.returncode, r.stderr)


def test_good_authority_keys():
    """Every new key, well written, passes -n."""
    path = write("authority.conf", AGENT + "users = alice\nadmins = alice\n"
                 "modes = default plan\nenv-inherit = FOO_API_KEY\nenv-inherit = BAR\n"
                 "[agent b]\ncommand = true\nusers = logged-in\nmodes = *\n"
                 "[channel #c]\npermissions = allow-reads\nops = alice\n"
                 "[server]\nworkspace = ws\n" + ACCT)
    r = run("-n", "-f", path)
    assert r.returncode == 0, (r.returncode, r.stderr)


def test_plain_listener_on_any_address_refused():
    """SEC-1: a plain-text listener on 0.0.0.0 needs TLS or open = yes."""
    text = "[server]\nname = irc.test\n\n[listen]\naddress = 0.0.0.0:%d\n" % free_port()
    err = check_error(text, "open.conf", 4)
    assert "0.0.0.0" in err, err
    path = write("opened.conf", text + "open = yes\n")
    r = run("-n", "-f", path)
    assert r.returncode == 0, (r.returncode, r.stderr)


def test_missing_file_66():
    r = run("-n", "-f", os.path.join(TMP, "does-not-exist.conf"))
    assert r.returncode == EX_NOINPUT, (r.returncode, r.stderr)
    assert b"does-not-exist.conf" in r.stderr, r.stderr


def test_hash_password():
    """--hash-password reads stdin and prints a crypt(3) hash with a random salt (SEC-2)."""
    r1 = run("--hash-password", stdin=b"hunter2\n")
    r2 = run("--hash-password", stdin=b"hunter2\n")
    assert r1.returncode == 0 and r2.returncode == 0, (r1, r2)
    h1 = r1.stdout.decode().strip()
    h2 = r2.stdout.decode().strip()
    assert re.match(r"^\$(y|6)\$\S+$", h1), h1
    assert h1 != h2, "same salt twice"
    assert b"hunter2" not in r1.stdout + r1.stderr
    # the hash is accepted in a config
    path = write("hashed.conf", GOOD + "\n[operator admin]\npassword = %s\n" % h1)
    r = run("-n", "-f", path)
    assert r.returncode == 0, (r.returncode, r.stderr)


def on_terminal(*lines):
    """--hash-password on a terminal (a pty) that types lines, each once its prompt
    ("Password:", then "Again:") shows: (exit status, everything the terminal showed, what
    went to stdout). A line typed before its prompt would be flushed away with the echo
    turned off, as a terminal does."""
    master, slave = os.openpty()
    out_r, out_w = os.pipe()
    p = subprocess.Popen([daemon_path(), "--hash-password"], stdin=slave, stdout=out_w,
                         stderr=slave, close_fds=True)
    os.close(slave)
    os.close(out_w)
    shown = b""
    deadline = time.time() + 20
    try:
        for line, prompt in zip(lines, (b"Password: ", b"Again: ")):
            # The prompt first, so the line goes in with echo already off.
            while prompt not in shown and time.time() < deadline:
                r, _, _ = select.select([master], [], [], 0.5)
                if r:
                    shown += os.read(master, 1024)
            os.write(master, line + b"\n")
            seen = len(shown)
            while len(shown) == seen and time.time() < deadline:
                r, _, _ = select.select([master], [], [], 0.5)
                if r:
                    shown += os.read(master, 1024)
    except OSError:
        pass        # EIO: the program is gone, the terminal closed
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise AssertionError("--hash-password still waits for input; the terminal "
                             "showed %r" % shown)
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if not r:
            break
        try:
            data = os.read(master, 1024)
        except OSError:
            break
        if not data:
            break
        shown += data
    os.close(master)
    out = os.read(out_r, 4096)
    os.close(out_r)
    return p.returncode, shown.decode("utf-8", "replace"), out.decode()


def test_sec8_hash_password_on_a_terminal():
    """SEC-8, I3: on a terminal, --hash-password asks twice with the echo off: the password
    never shows on the terminal; the same twice gives a hash, two different ones an error
    and no hash. Piped, it reads one line, as before."""
    code, shown, out = on_terminal(b"s3cret-Pw", b"s3cret-Pw")
    assert code == 0 and re.match(r"^\$(y|6)\$\S+$", out.strip()), (code, shown, out)
    assert "Password:" in shown and "Again:" in shown, shown
    assert "s3cret-Pw" not in shown, "the password was echoed: %r" % shown
    code, shown, out = on_terminal(b"s3cret-Pw", b"s3cret-Px")
    assert code == 64 and "the passwords differ" in shown and out == "", (code, shown, out)
    assert "s3cret" not in shown, shown


def test_in_use_port_refused():
    """The daemon refuses to start on a port already in use, with a clear message:
    exit 71 (EX_OSERR) and an error, not a warning, that names the address and why;
    nothing says it is listening (issue 24, UX review 24)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    try:
        path = write("inuse.conf", "[server]\nname = irc.test\n[listen]\naddress = "
                     "127.0.0.1:%d\n" % port)
        r = run("-f", path, timeout=30)
        err = r.stderr.decode("utf-8", "replace")
        assert r.returncode != 0, (r.returncode, err)
        assert str(port) in err and re.search(r"in use|bind", err, re.I), err
        assert "AddressSanitizer" not in err, err
        assert r.returncode == 71, (r.returncode, err)
        assert re.search(r" error listen 127\.0\.0\.1:%d: cannot bind, so the server does "
                         r"not start .*: Address already in use" % port, err), err
        assert "listening on" not in err and " warn listen" not in err, err
    finally:
        s.close()


def test_starts_and_stops_cleanly():
    """SIGTERM: exit status 0 and no sanitizer report."""
    with Server() as srv:
        assert srv.alive()


if __name__ == "__main__":
    run_tests(globals())
