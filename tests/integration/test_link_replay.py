#!/usr/bin/env python3
"""Issue 26, rule LK-3: no message accepted before a split is lost or delivered twice.

A link can break with lines written into it that the peer never read: TCP only says
they reached a kernel. agentircd keeps each PRIVMSG and NOTICE it sent to a link until
the peer answers a PING sent after it (the PING carries a token, the PONG gives it
back), and sends again, once the link is back and both bursts are done, what was not
acknowledged when the link broke.

Between the servers runs a relay written here that the test can blind (what agentircd
sends from then on is read and thrown away, as a broken network would) and cut (both
connections closed). Checked against a real InspIRCd 3 and against a second agentircd:
messages said before the blinding arrive once; messages said into the blind link
arrive once after the relink, with their msgid; a message whose sender left during the
split is not sent again (there is nobody to send it as); the other agentircd stores
each message once (CHATHISTORY).
"""

import os
import re
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, TestFailure, free_port,  # noqa: E402
                        hash_password, run_tests)
from test_link import (INSP_NAME, LIVE, InspIRCd, link_section,  # noqa: E402
                       server_b, wait_for, wait_up)


class Relay:
    """A TCP relay from the server that connects (agentircd) to its peer. blind:
    what the connecting side sends is read and lost. cut(): both ends closed."""

    def __init__(self, upstream_port):
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(4)
        self.sport = self.port = self.ls.getsockname()[1]
        self.up = upstream_port
        self.blind = False
        self.lock = threading.Lock()
        self.fwd = b""       # what the connecting side sent and was passed on
        self.lost = b""      # what it sent while blind
        self.back = b""      # what the peer sent
        self.socks = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                a, _ = self.ls.accept()
            except OSError:
                return
            try:
                b = socket.create_connection(("127.0.0.1", self.up), timeout=10)
            except OSError:
                a.close()
                continue
            b.settimeout(None)
            self.socks += [a, b]
            threading.Thread(target=self._pump, args=(a, b, True),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(b, a, False),
                             daemon=True).start()

    def _pump(self, src, dst, forward):
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                break
            if not data:
                break
            with self.lock:
                if forward and self.blind:
                    self.lost += data
                    continue
                if forward:
                    self.fwd += data
                else:
                    self.back += data
            try:
                dst.sendall(data)
            except OSError:
                break
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def text(self, which):
        with self.lock:
            return getattr(self, which).decode("utf-8", "replace")

    def cut(self):
        socks, self.socks = self.socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self.blind = False


def acknowledged(relay, line):
    """Wait until the peer has answered the PING agentircd sent after line: from
    then on line is acknowledged and must not be sent again."""
    def token():
        fwd = relay.text("fwd")
        i = fwd.find(line)
        if i < 0:
            return None
        m = re.search(r"^:\w{3} PING \w{3} (\d+)\r?$", fwd[i:], re.M)
        return m.group(1) if m else None
    try:
        tok = wait_for("a PING after %r" % line, token)
    except TestFailure:
        print("# fwd: %r" % relay.text("fwd")[-3000:])
        print("# back: %r" % relay.text("back")[-3000:])
        raise
    wait_for("its PONG", lambda: re.search(r"PONG \w{3} %s\r?$" % tok,
                                           relay.text("back"), re.M))


def said(c, text):
    """How many times c was shown a message ending in text."""
    return sum(1 for l in c.lines if l.endswith(" :" + text))


def blind_split_relink(relay, ai, peer_name, say, others):
    """Blind the relay, have say() speak into it, cut, and wait for the relink."""
    relay.blind = True
    lines = say()
    wait_for("the blind relay swallows what was said",
             lambda: all(x in relay.text("lost") for x in lines))
    ups = ai.log_text().count("link %s: burst received" % peer_name)
    relay.cut()
    wait_for("agentircd logs the split", lambda: "link %s: split" % peer_name
             in ai.log_text())
    for f in others:
        f()
    wait_for("the link comes back", lambda: ai.log_text().count(
        "link %s: burst received" % peer_name) > ups, timeout=30)


def test_lk3_nothing_lost_with_inspircd():
    """LK-3: against InspIRCd 3. Messages said before the link went blind arrive
    once; those said into it arrive once after the relink, and one whose sender
    quit during the split is not sent again (the log says how many were)."""
    insp = InspIRCd(free_port())
    LIVE.append(insp)
    relay = Relay(insp.sport)
    ai = Server(config_extra=link_section(relay), flood_exempt="127.0.0.0/8")
    wait_up(ai, insp)
    sam = Client(ai, "sam")
    sam.join("#rp")
    uma = Client(ai, "uma")
    uma.join("#rp")
    tess = Client(insp, "tess")
    tess.join("#rp")
    sam.expect(r"^:tess!\S+ JOIN :?#rp")
    for i in (1, 2, 3):
        sam.send("PRIVMSG #rp :before %d" % i)
    tess.expect(r"^:sam!\S+ PRIVMSG #rp :before 3$")
    acknowledged(relay, "PRIVMSG #rp :before 3")

    def say():
        for i in (1, 2, 3):
            sam.send("PRIVMSG #rp :during %d" % i)
        sam.send("PRIVMSG tess :during private")
        uma.send("PRIVMSG #rp :during from uma")
        uma.send("PING :sent")
        uma.expect(r"PONG .*sent")
        return ["#rp :during 3", ":during private", ":during from uma"]

    def uma_leaves():
        uma.quit()

    blind_split_relink(relay, ai, INSP_NAME, say, [uma_leaves])
    tess.expect(r"^:sam!\S+ PRIVMSG #rp :during 3$", timeout=15)
    tess.expect(r"^:sam!\S+ PRIVMSG tess :during private$")
    sam.send("PRIVMSG #rp :after")
    tess.expect(r"^:sam!\S+ PRIVMSG #rp :after$")
    for text in ("before 1", "before 2", "before 3", "during 1", "during 2",
                 "during 3", "during private", "after"):
        if said(tess, text) != 1:
            raise TestFailure("tess saw %r %d times" % (text, said(tess, text)))
    if said(tess, "during from uma") != 0:
        raise TestFailure("a message of uma, who left, was sent again")
    if not re.search(r"link %s: 4 messages of before the split sent again, 1 not"
                     % INSP_NAME, ai.log_text()):
        raise TestFailure("no log line of the messages sent again:\n"
                          + ai.log_tail())
    for c in (sam, tess):
        c.quit()
    ai.stop()
    insp.stop()


def test_lk3_nothing_lost_or_doubled_between_agentircd():
    """LK-3, LK-4: between two agentircd servers, through the same relay. Messages
    said into the blind link arrive once after the relink, keep their msgid, and the
    other server stores each message once."""
    lport = free_port()
    b = server_b("[listen]\naddress = 127.0.0.1:%d\nlinks = yes\n\n"
                 "[link irc.test]\naddress = 127.0.0.1:1\nsend-password = b-pass\n"
                 "receive-password = %s\ntls = no\nautoconnect = no\n\n"
                 % (lport, hash_password("a-pass")))
    relay = Relay(lport)
    a = Server(config_extra="[link irc.b.test]\naddress = 127.0.0.1:%d\n"
               "send-password = a-pass\nreceive-password = %s\ntls = no\n"
               % (relay.port, hash_password("b-pass")),
               flood_exempt="127.0.0.0/8")
    wait_for("A up", lambda: "link irc.b.test: burst received" in a.log_text())
    sam = Client(a, "sam")
    sam.join("#rp")
    tess = Client(b)
    tess.send("CAP REQ :message-tags server-time batch draft/chathistory")
    tess.expect(r"CAP \S+ ACK")
    tess.send("CAP END")
    tess.register("tess")
    tess.join("#rp")
    sam.expect(r"^:tess!\S+ JOIN :?#rp")
    sam.send("PRIVMSG #rp :before 1")
    tess.expect(r":sam!\S+ PRIVMSG #rp :before 1$")
    acknowledged(relay, "PRIVMSG #rp :before 1")
    # Said just before the blinding, perhaps acknowledged, perhaps not: sent
    # again or not, B shows and stores it once (a known msgid is dropped).
    sam.send("PRIVMSG #rp :edge")
    tess.expect(r":sam!\S+ PRIVMSG #rp :edge$")

    def say():
        sam.send("PRIVMSG #rp :during 1")
        sam.send("PRIVMSG #rp :during 2")
        sam.send("PING :sent")
        sam.expect(r"PONG .*sent")
        return ["#rp :during 2"]

    blind_split_relink(relay, a, "irc.b.test", say, [])
    m = tess.expect_msg(r":sam!\S+ PRIVMSG #rp :during 2$", timeout=15)
    if "msgid" not in m.tags:
        raise TestFailure("the message sent again has no msgid: %r" % m.raw)
    sam.send("PRIVMSG #rp :after")
    tess.expect(r":sam!\S+ PRIVMSG #rp :after$")
    for text in ("before 1", "edge", "during 1", "during 2", "after"):
        if said(tess, text) != 1:
            raise TestFailure("tess saw %r %d times" % (text, said(tess, text)))
    tess.send("CHATHISTORY LATEST #rp * 50")
    got = tess.collect_until(r" BATCH -")
    texts = [l.split(" PRIVMSG #rp :", 1)[1] for l in got if " PRIVMSG #rp :" in l]
    for text in ("before 1", "edge", "during 1", "during 2", "after"):
        if texts.count(text) != 1:
            raise TestFailure("B stored %r %d times: %r" % (text, texts.count(text),
                                                           texts))
    for c in (sam, tess):
        c.quit()
    a.stop()
    b.stop()


if __name__ == "__main__":
    run_tests(globals())
