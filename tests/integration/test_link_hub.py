#!/usr/bin/env python3
"""Rule LK-5: agentircd as the hub of two links.

With the harness of test_link.py: agentircd (irc.test) in the middle, hosting an echo
agent, links to a real InspIRCd 3 (leaf 1, irc.insp.test) and is linked to by a second
agentircd (leaf 2, irc.b.test). Checked: a person on each leaf, in one channel, see
each other join (JOIN and NAMES), talk both ways and privately, and see each other
quit; a person on leaf 2 asks the hub's agent and the person on leaf 1 sees the
answer; when leaf 1 goes away, leaf 2's person sees leaf 1's people quit (the hub
tells leaf 2 with an SQUIT).
With a fake peer as the second link: the hub's burst to it holds InspIRCd's server
(SERVER), its users (UID from their own SID) and their channels (FJOIN); the fake's
user reaches InspIRCd's people; a SID the other link has already (1IN) is refused
with an ERROR and a log line, and the fake's users quit on InspIRCd too.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, TestFailure, hash_password,  # noqa: E402
                        run_tests)
from test_link import FakePeer  # noqa: E402
from test_link import (HAVE_AGENT, INSP_NAME, LIVE, InspIRCd,  # noqa: E402
                       agent_section, free_port, link_section, names, wait_for)


def hub_net():
    """InspIRCd (leaf 1) <- agentircd hub with an agent -> agentircd leaf 2."""
    insp = InspIRCd(free_port())
    LIVE.append(insp)
    lport = free_port()
    hub = Server(config_extra=link_section(insp)
                 + "[listen]\naddress = 127.0.0.1:%d\nlinks = yes\n\n"
                 "[link irc.b.test]\naddress = 127.0.0.1:1\nsend-password = a-pass\n"
                 "receive-password = %s\ntls = no\nautoconnect = no\n\n%s"
                 % (lport, hash_password("b-pass"),
                    agent_section("helper", "#hub") if HAVE_AGENT else ""),
                 flood_exempt="127.0.0.0/8")
    wait_for("the hub links to InspIRCd", lambda: "link %s: up" % INSP_NAME
             in hub.log_text())
    wait_for("InspIRCd has the hub's burst", lambda: "Received end of netburst "
             "from irc.test" in insp.log_text())
    b = Server(config_extra="[link irc.test]\naddress = 127.0.0.1:%d\n"
               "send-password = b-pass\nreceive-password = %s\ntls = no\n"
               % (lport, hash_password("a-pass")),
               flood_exempt="127.0.0.0/8", start=False)
    b.name = "irc.b.test"
    b.config_text = b.config_text.replace("name = irc.test", "name = irc.b.test")
    with open(b.conf, "w") as f:
        f.write(b.config_text)
    b.start()
    wait_for("the hub has leaf 2", lambda: "link irc.b.test: up" in hub.log_text())
    wait_for("leaf 2 has the hub's burst", lambda: "link irc.test: burst received"
             in b.log_text())
    wait_for("InspIRCd hears of leaf 2", lambda: "irc.b.test" in insp.log_text())
    return insp, hub, b


def test_lk5_hub_between_two_leaves():
    """LK-5: people on two leaves of an agentircd hub share a channel, talk, see
    the hub's agent answer, and see a split of the other leaf."""
    insp, hub, b = hub_net()
    ian = Client(insp, "ian")
    kim = Client(b, "kim")
    ian.join("#hub")
    wait_for("ian in #hub on leaf 2", lambda: "ian" in names(kim, "#hub"))
    kim.join("#hub")
    ian.expect(r"^:kim!\S+ JOIN :?#hub")
    if "kim" not in names(ian, "#hub"):
        raise TestFailure("kim not in NAMES on InspIRCd")
    if HAVE_AGENT and "helper" not in names(ian, "#hub"):
        raise TestFailure("the hub's agent not in NAMES on InspIRCd")
    ian.send("PRIVMSG #hub :hello from leaf one")
    kim.expect(r"^(@\S+ )?:ian!\S+ PRIVMSG #hub :hello from leaf one$")
    kim.send("PRIVMSG #hub :hello from leaf two")
    ian.expect(r"^(@\S+ )?:kim!\S+ PRIVMSG #hub :hello from leaf two$")
    kim.send("PRIVMSG ian :just you")
    ian.expect(r"^(@\S+ )?:kim!\S+ PRIVMSG ian :just you$")
    ian.send("PRIVMSG kim :and you")
    kim.expect(r"^(@\S+ )?:ian!\S+ PRIVMSG kim :and you$")
    if HAVE_AGENT:
        kim.send("PRIVMSG #hub :@helper hi from leaf two")
        ian.expect(r"^(@\S+ )?:kim!\S+ PRIVMSG #hub :@helper hi from leaf two$")
        # The answer is several lines: the transcript, then the question.
        ian.expect(r"^(@\S+ )?:helper!\S+ PRIVMSG #hub :kim: echo: ", timeout=30)
        ian.expect(r"^(@\S+ )?:helper!\S+ PRIVMSG #hub :.*hi from leaf two",
                   timeout=30)
    if "link %s: split" % INSP_NAME in hub.log_text() or \
            "link irc.b.test: split" in hub.log_text():
        raise TestFailure("a link of the hub split: %s" % hub.log_text()[-2000:])
    ian.send("QUIT :bye now")
    kim.expect(r"^:ian!\S+ QUIT :.*bye now")
    ivy = Client(insp, "ivy")
    ivy.join("#hub")
    kim.expect(r"^:ivy!\S+ JOIN :?#hub")
    insp.stop()
    kim.expect(r"^:ivy!\S+ QUIT :", timeout=20)
    wait_for("leaf 2 drops leaf 1", lambda: "server irc.insp.test split"
             in b.log_text() or "ivy" not in names(kim, "#hub"))
    if "ivy" in names(kim, "#hub"):
        raise TestFailure("ivy still in #hub on leaf 2 after the split")
    kim.quit()
    b.stop()
    hub.stop()


def test_lk5_hub_burst_and_sid_collision():
    """LK-5: a new link gets the other link's servers, users and channels in our
    burst; a SID already behind another link is refused."""
    insp = InspIRCd(free_port())
    LIVE.append(insp)
    fake = FakePeer()
    hub = Server(config_extra=link_section(insp)
                 + "[link irc.fake.test]\naddress = 127.0.0.1:%d\n"
                 "send-password = ai-pass\nreceive-password = %s\ntls = no\n\n"
                 % (fake.sport, hash_password("fake-pass")),
                 flood_exempt="127.0.0.0/8")
    wait_for("the hub links to InspIRCd", lambda: "Received end of netburst "
             "from irc.test" in insp.log_text())
    ian = Client(insp, "ian")
    ian.join("#hub")
    watch = Client(hub, "watch")
    wait_for("ian on the hub", lambda: "ian" in names(watch, "#hub"))
    fake.accept()
    fake.expect(r"^CAPAB END$")
    for l in ("CAPAB START 1205", "CAPAB CAPABILITIES :CASEMAPPING=rfc1459",
              "CAPAB END"):
        fake.send(l)
    fake.expect(r"^SERVER irc.test ai-pass 0 \w{3} :")
    fake.send("SERVER irc.fake.test fake-pass 0 9FK :a fake server")
    fake.expect(r"^:\w{3} SERVER irc.insp.test 1IN :")
    uid = fake.expect(r"^:1IN UID 1IN\w{6} \d+ ian ").split()[2]
    fake.expect(r"^:\w{3} FJOIN #hub \d+ \S+ :.*%s" % uid)
    fake.expect(r"^:\w{3} ENDBURST$")
    fake.send(":9FK BURST 1")
    fake.send(":9FK UID 9FKAAAAAA 1 fay h.fake h.fake fay 127.0.0.1 1 +i :Fay")
    fake.send(":9FK FJOIN #hub 1 +nt :,9FKAAAAAA:1")
    fake.send(":9FK ENDBURST")
    ian.expect(r"^:fay!\S+ JOIN :?#hub")
    fake.send("@+draft/reply=abc :9FKAAAAAA PRIVMSG #hub :from the fake side")
    ian.expect(r"^(@\S+ )?:fay!\S+ PRIVMSG #hub :from the fake side$")
    fake.send(":9FKAAAAAA PRIVMSG %s :just ian" % uid)
    ian.expect(r"^(@\S+ )?:fay!\S+ PRIVMSG ian :just ian$")
    ian.send("PRIVMSG fay :back to you")
    fake.expect(r"^(@\S+ )?:%s PRIVMSG 9FKAAAAAA :back to you$" % uid)
    fake.send(":9FK SERVER irc.evil.test 1IN :a SID InspIRCd has")
    fake.expect(r"^ERROR :Server ID 1IN is invalid or already in use")
    wait_for("the hub logs the collision", lambda: "1IN is invalid or already "
             "in use" in hub.log_text())
    ian.expect(r"^:fay!\S+ QUIT :")
    # fay quit by our SQUIT of 9FK, not by a split of InspIRCd's own link.
    if not insp.alive() or "link %s: split" % INSP_NAME in hub.log_text():
        raise TestFailure("the link to InspIRCd went down")
    for c in (ian, watch):
        c.quit()
    hub.stop()


if __name__ == "__main__":
    run_tests(globals())
