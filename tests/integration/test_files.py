#!/usr/bin/env python3
"""SEC-5 (issue 22), findings M4 and M5: the files the server trusts.

M4  the database and its -wal and -shm were world-readable (umask 022): every private
    conversation could be read with sqlite3.
M5  in a directory that others may write, another user could make the database before
    the server did, then read it and seed it with rows the server trusts.

The server makes its database 0600 (and SQLite its -wal and -shm with the same mode),
takes the others' bits off an existing one with a warning, refuses a symlink where the
database goes, and refuses to start when the config, its directory, the database or its
directory is writable by another user or owned by one (not root): the error says which
file and how to fix it. The ownership cases need a second user: as root, the tests make
the files uid 65534's (nobody); otherwise those cases are skipped. I8: the MCP socket
directories a crashed server left in /tmp are removed at the next start.
"""

import glob
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, TestFailure, daemon_path,  # noqa: E402
                        free_port, run_tests)

EX_CONFIG = 78
NOBODY = 65534
TMP = tempfile.mkdtemp(prefix="agentircd-files-")


def teardown_module():
    shutil.rmtree(TMP, ignore_errors=True)


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def setup(name, database=None):
    """A directory of its own (0700) with a config in it: (dir, config path)."""
    d = os.path.join(TMP, name)
    os.makedirs(d, mode=0o700)
    conf = os.path.join(d, "agentircd.conf")
    with open(conf, "w") as f:
        f.write("[server]\nname = irc.test\nnetwork = TestNet\n%s\n"
                "[listen]\naddress = 127.0.0.1:%d\n"
                % ("database = %s\n" % database if database else "", free_port()))
    os.chmod(conf, 0o644)
    return d, conf


def start(conf, seconds=5):
    """(exit code, stderr) of the daemon on conf; None for the code if it was still
    running after seconds (it started), and is then stopped."""
    p = subprocess.Popen([daemon_path(), "-f", conf], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=seconds)
        return p.returncode, err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return None, err.decode("utf-8", "replace")


def refused(conf, want):
    """The daemon will not start with conf, and says want (a substring)."""
    code, err = start(conf)
    if code != EX_CONFIG or want not in err:
        raise TestFailure("want exit %d saying %r; got %s: %r"
                          % (EX_CONFIG, want, "it running" if code is None else code, err))
    if "AddressSanitizer" in err or "runtime error:" in err:
        raise TestFailure(err)
    return err


def test_m4_database_files_private():
    """SEC-5, M4: a new database, its -wal and its -shm are 0600 though the daemon runs
    with umask 022, and a private message stored in them is readable by no other user."""
    old = os.umask(0o022)
    try:
        p = PersistentServer(os.path.join(TMP, "m4.db"))
    finally:
        os.umask(old)
    c = Client(p, "m4a")
    d = Client(p, "m4b")
    c.send("PRIVMSG m4b :my private question about salaries")
    d.expect(r"PRIVMSG m4b :my private question")
    c.sync()
    for side in ("", "-wal", "-shm"):
        path = p.db + side
        if not os.path.exists(path):
            raise TestFailure("%s was not made" % path)
        if mode(path) != 0o600:
            raise TestFailure("M4: %s is mode %04o, want 0600" % (path, mode(path)))
    c.quit()
    d.quit()
    p.stop()


def test_m4_existing_database_tightened():
    """SEC-5, M4: a database left 0644 by an older agentircd is 0600 after a start, and
    the log says so; its rows are all there."""
    db = os.path.join(TMP, "old.db")
    p = PersistentServer(db)
    c = Client(p, "olda")
    c.join("#old")
    c.send("PRIVMSG #old :kept")
    c.sync()
    c.quit()
    p.stop()
    for side in ("", "-wal", "-shm"):
        if os.path.exists(db + side):
            os.chmod(db + side, 0o644)
    p.start()
    if mode(db) != 0o600:
        raise TestFailure("M4: an existing 0644 database is %04o after a start" % mode(db))
    if "was mode 0644, open to other users: now 0600" not in p.log_text():
        raise TestFailure("M4: not logged:\n%s" % p.log_tail())
    con = sqlite3.connect(db)
    try:
        n = con.execute("SELECT count(*) FROM messages WHERE text LIKE '%kept%'").fetchone()[0]
    finally:
        con.close()
    if n < 1:
        raise TestFailure("the message was lost")
    p.stop()


def test_m5_world_writable_directory_refused():
    """SEC-5, M5: a config in a directory every user may write (1777, as /tmp) is
    refused at start, naming the directory and the fix; nothing is made in it."""
    d, conf = setup("ww")
    os.chmod(d, 0o1777)
    refused(conf, "the config's directory %s is writable by every user (mode 1777)" % d)
    refused(conf, "chmod go-w %s" % d)
    if os.path.exists(os.path.join(d, "agentircd.db")):
        raise TestFailure("M5: a database was made in a world-writable directory")


def test_m5_writable_config_and_database_refused():
    """SEC-5: a config its group may write, and a database every user may write, are
    refused at start, each named; -n says the same."""
    d, conf = setup("gw")
    os.chmod(conf, 0o664)
    refused(conf, "the config %s is writable by its group (mode 0664)" % conf)
    r = subprocess.run([daemon_path(), "-n", "-f", conf], stderr=subprocess.PIPE,
                       timeout=20)
    if r.returncode != EX_CONFIG:
        raise TestFailure("-n passed a group-writable config: %r" % r.stderr)
    os.chmod(conf, 0o644)
    db = os.path.join(d, "agentircd.db")
    with open(db, "w"):
        pass
    os.chmod(db, 0o666)
    refused(conf, "the database %s is writable by every user (mode 0666)" % db)


def test_m5_database_of_another_user_refused():
    """SEC-5, M5: as the review did, another user (nobody) makes the database before the
    server starts: the server refuses it, saying whose it is, and does not touch it; a
    config owned by that user is refused too. (As root only: it takes a second user.)"""
    if os.geteuid() != 0:
        print("# skipped: not root, no second user to own the files")
        return
    d, conf = setup("other")
    db = os.path.join(d, "agentircd.db")
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode = wal")
    con.execute("CREATE TABLE planted (x)")
    con.commit()
    con.close()
    os.chown(db, NOBODY, NOBODY)
    os.chmod(db, 0o644)
    refused(conf, "the database %s is owned by uid %d" % (db, NOBODY))
    if os.stat(db).st_uid != NOBODY or os.path.exists(db + "-shm"):
        raise TestFailure("M5: the server touched another user's database")
    os.remove(db)
    os.chown(conf, NOBODY, NOBODY)
    refused(conf, "the config %s is owned by uid %d" % (conf, NOBODY))


def test_sec5_symlinked_database_refused():
    """SEC-5: a symlink where the database goes, to a file not made yet, is not followed:
    the server does not start, and makes nothing where the symlink points."""
    d, conf = setup("link", database=os.path.join(TMP, "link", "agentircd.db"))
    target = os.path.join(TMP, "elsewhere.db")
    os.symlink(target, os.path.join(d, "agentircd.db"))
    code, err = start(conf)
    if code is None or code == 0:
        raise TestFailure("the server started on a symlinked database: %r" % err)
    if os.path.exists(target):
        raise TestFailure("the database was made where the symlink points")


def test_i8_stale_socket_directories_removed():
    """I8: at start the server removes the MCP socket directories that servers of its
    user left in /tmp when they died (their process is gone), with the socket in it;
    it leaves a live process's, and a symlink of that name (not followed)."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = "/tmp/agentircd-mcp.%d.soakT1" % gone.pid
    live = "/tmp/agentircd-mcp.%d.soakT2" % os.getpid()
    link = "/tmp/agentircd-mcp.%d.soakT3" % gone.pid
    target = os.path.join(TMP, "linked-dir")
    os.makedirs(target, mode=0o700)
    for dname in (stale, live):
        os.mkdir(dname, 0o700)
        with open(os.path.join(dname, "mcp.sock"), "w"):
            pass
    os.symlink(target, link)
    try:
        agent = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "agents", "echo-agent.mjs")
        p = PersistentServer(os.path.join(TMP, "i8.db"),
                             config_extra="[agent sweep]\ncommand = node %s\n" % agent)
        if os.path.exists(stale):
            raise TestFailure("I8: %s is still there" % stale)
        if not os.path.exists(os.path.join(live, "mcp.sock")):
            raise TestFailure("I8: a live process's directory was removed")
        if not os.path.islink(link) or not os.path.isdir(target):
            raise TestFailure("I8: the symlink was followed or removed")
        # Every daemon sweeps at its start: one of another test file, started at the
        # same moment by make -j, may be the one that removed it and logged it.
        said = "removed %s, left by process %d" % (stale, gone.pid)
        logs = glob.glob(os.path.join(tempfile.gettempdir(), "agentircd-test-*",
                                      "agentircd.log"))
        if said not in p.log_text() and not any(said in open(f, errors="replace").read()
                                                for f in logs if os.path.isfile(f)):
            raise TestFailure("I8: not logged:\n%s" % p.log_tail())
        p.stop()
    finally:
        for dname in (stale, live):
            shutil.rmtree(dname, ignore_errors=True)
        if os.path.islink(link):
            os.remove(link)


if __name__ == "__main__":
    try:
        run_tests(globals())
    finally:
        teardown_module()
