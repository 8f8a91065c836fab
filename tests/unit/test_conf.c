/*
 * test_conf.c: the config parser (every section, defaults, paths, argv
 * quoting, and the exact "file:line: message" of its errors) and the
 * password hashes it checks.
 */
#include "compat.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ircd/conf.h"
#include "ircd/passwd.h"
#include "tests/unit/tap.h"

#define FP64	"0123456789abcdef0123456789abcdef" \
		"0123456789abcdef0123456789abcdef"
/* openssl passwd -6 -salt Wz8xQ2aB 'open sesame' */
#define SHA512_HASH	"$6$Wz8xQ2aB$yHF3DsCwZxOOLrzsmnQRXYWWwoEdD63gOB6R" \
			"v56EgD5RhrjjeaC0ETP.N7BIGoiqZf1ziqAFH4vWmqdTLmogz0"
/* openssl passwd -5 -salt Wz8xQ2aB 'open sesame' */
#define SHA256_HASH	"$5$Wz8xQ2aB$n6RFdddL1KH4n/FSp84//sUEMkLxDQqGcnFG0" \
			".XVC34"

static char err[512];

static size_t
strv_len(char **v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* The parse fails, and the error starts with want (file:line: ...). */
static void
parse_fails(const char *text, const char *want, const char *name)
{
	struct conf *c;
	int good;

	err[0] = '\0';
	c = conf_parse(text, "e.conf", err, sizeof(err));
	good = c == NULL && strncmp(err, want, strlen(want)) == 0;
	ok(good, name);
	if (!good)
		printf("# got %s \"%s\"\n#  want \"%s\"\n",
		    c != NULL ? "a conf and" : "NULL and", err, want);
	conf_free(c);
}

/* The parse succeeds; the caller checks and frees. */
static struct conf *
parse_ok(const char *text, const char *filename, const char *name)
{
	struct conf *c;

	err[0] = '\0';
	c = conf_parse(text, filename, err, sizeof(err));
	ok(c != NULL, name);
	if (c == NULL)
		printf("# error: %s\n", err);
	return c;
}

static void
test_full(const char *hash)
{
	struct conf *c;
	struct conf_agent *g;
	char *text;
	const char *fmt =
	    "# A config with every section and key.\n"
	    "\n"
	    "[server]\n"
	    "name = irc.example.org\n"
	    "network = TestNet\n"
	    "info = \"  spaced \\\"info\\\" # kept  \"\n"
	    "motd = motd.txt\n"
	    "database = data/irc.db\n"
	    "admin = Admin <admin@example.org>\n"
	    "ping-interval = 90\n"
	    "ping-timeout = 30\n"
	    "register-timeout = 20\n"
	    "sendq = 2m\n"
	    "recvq = 16k\n"
	    "max-clients = 500\n"
	    "max-per-ip = 5\n"
	    "max-channels = 20\n"
	    "max-targets = 8\n"
	    "max-bans = 64\n"
	    "flood-control = no\n"
	    "flood-burst = 5\n"
	    "flood-exempt = 127.0.0.1, 10.0.0.0/8 ::1 fd00::/8\n"
	    "default-modes = +nst\n"
	    "whowas = 10\n"
	    "\n"
	    "[listen]\n"
	    "address = 127.0.0.1:6667\n"
	    "\n"
	    "[listen]\n"
	    "address = [::]:6697\n"
	    "tls-cert = /etc/ssl/cert.pem\n"
	    "tls-key = key.pem\n"
	    "tls-client-ca = ca.pem\n"
	    "\n"
	    "[listen]\n"
	    "  address   =   0.0.0.0:7000   \n"
	    "open = yes\n"
	    "\n"
	    "[account bob]\n"
	    "password = %s\n"
	    "certfp = " "01:23:45:67:89:AB:CD:EF:01:23:45:67:89:ab:cd:ef:"
	    "01:23:45:67:89:AB:CD:EF:01:23:45:67:89:ab:cd:ef\n"
	    "\n"
	    "[account carol]\n"
	    "certfp = " FP64 "\n"
	    "\n"
	    "[operator root]\n"
	    "password = %s\n"
	    "mask = *@127.0.0.1\n"
	    "\n"
	    "[operator plain]\n"
	    "password = " SHA512_HASH "\n"
	    "\n"
	    "[channel #general]\n"
	    "topic = Welcome to #general\n"
	    "modes = +ntk secret\n"
	    "\n"
	    "[channel #lim]\n"
	    "modes = +l 10\n"
	    "\n"
	    "[agent alice]\n"
	    "command = npx -y '@zed-industries/claude-agent-acp' "
	    "\"a \\\"b\\\" c\" back\\ slash\n"
	    "cwd = /srv/alice\n"
	    "env = FOO=bar\n"
	    "env = EMPTY=\n"
	    "env = \"SPACED=  x  \"\n"
	    "channels = #general, #dev\n"
	    "description = A helpful agent\n"
	    "permissions = allow-reads\n"
	    "tools = hide\n"
	    "\n"
	    "[agent Bob_2]\n"
	    "command = codex-acp\n";

	if (asprintf(&text, fmt, hash, hash) == -1)
		abort();
	c = parse_ok(text, "conf/full.conf", "full config parses");
	free(text);
	if (c == NULL)
		return;
	is_str(c->path, "conf/full.conf", "path as given");
	is_str(c->dir, "conf", "dir of the file");
	is_str(c->name, "irc.example.org", "server name");
	is_str(c->network, "TestNet", "network");
	is_str(c->info, "  spaced \"info\" # kept  ", "quoted value keeps "
	    "spaces, quotes and #");
	is_str(c->motd, "conf/motd.txt", "motd relative to the config");
	is_str(c->database, "conf/data/irc.db", "database relative to the "
	    "config");
	is_str(c->admin, "Admin <admin@example.org>", "admin");
	is_int(c->ping_interval, 90, "ping-interval");
	is_int(c->ping_timeout, 30, "ping-timeout");
	is_int(c->register_timeout, 20, "register-timeout");
	is_int(c->sendq, 2 * 1024 * 1024, "sendq with m suffix");
	is_int(c->recvq, 16 * 1024, "recvq with k suffix");
	is_int(c->max_clients, 500, "max-clients");
	is_int(c->max_per_ip, 5, "max-per-ip");
	is_int(c->max_channels, 20, "max-channels");
	is_int(c->max_targets, 8, "max-targets");
	is_int(c->max_bans, 64, "max-bans");
	is_int(c->flood, 0, "flood-control = no");
	is_int(c->flood_burst, 5, "flood-burst");
	is_int(strv_len(c->flood_exempt), 4, "flood-exempt: four masks");
	if (strv_len(c->flood_exempt) == 4) {
		is_str(c->flood_exempt[1], "10.0.0.0/8", "flood-exempt v4/8");
		is_str(c->flood_exempt[3], "fd00::/8", "flood-exempt v6/8");
	}
	is_str(c->default_modes, "+nst", "default-modes");
	is_int(c->whowas, 10, "whowas");

	is_int(c->nlistens, 3, "three listeners");
	if (c->nlistens == 3) {
		is_str(c->listens[0].host, "127.0.0.1", "listen 1 host");
		is_str(c->listens[0].port, "6667", "listen 1 port");
		is_int(c->listens[0].line, 26, "listen 1 line");
		ok(c->listens[0].tls_cert == NULL, "listen 1 is plain");
		is_str(c->listens[1].address, "[::]:6697", "listen 2 address");
		is_str(c->listens[1].host, "::", "listen 2 v6 host");
		is_str(c->listens[1].port, "6697", "listen 2 port");
		is_str(c->listens[1].tls_cert, "/etc/ssl/cert.pem",
		    "absolute tls-cert kept");
		is_str(c->listens[1].tls_key, "conf/key.pem",
		    "relative tls-key joined to dir");
		is_str(c->listens[1].tls_client_ca, "conf/ca.pem",
		    "tls-client-ca");
		is_str(c->listens[2].address, "0.0.0.0:7000",
		    "trimmed address");
		is_int(c->listens[2].open, 1, "open = yes");
	}

	is_int(c->naccounts, 2, "two accounts");
	if (c->naccounts == 2) {
		is_str(c->accounts[0].name, "bob", "account name");
		is_str(c->accounts[0].password, hash, "account password");
		is_str(c->accounts[0].certfp, FP64, "certfp: colons stripped, "
		    "lower case");
		ok(c->accounts[1].password == NULL, "certfp-only account");
		is_int(c->accounts[1].line, 43, "account line");
	}
	is_int(c->nopers, 2, "two operators");
	if (c->nopers == 2) {
		is_str(c->opers[0].name, "root", "operator name");
		is_str(c->opers[0].mask, "*@127.0.0.1", "operator mask");
		is_str(c->opers[1].mask, "*@*", "operator mask default");
		is_str(c->opers[1].password, SHA512_HASH, "SHA-512 hash "
		    "accepted");
	}
	is_int(c->nchannels, 2, "two channels");
	if (c->nchannels == 2) {
		is_str(c->channels[0].name, "#general", "channel name");
		is_str(c->channels[0].topic, "Welcome to #general",
		    "unquoted # inside a value is kept");
		is_str(c->channels[0].modes, "+ntk secret", "channel modes");
		ok(c->channels[1].topic == NULL, "no topic");
		is_str(c->channels[1].modes, "+l 10", "limit mode");
	}
	is_int(c->nagents, 2, "two agents");
	if (c->nagents == 2) {
		g = &c->agents[0];
		is_str(g->name, "alice", "agent name");
		is_int(strv_len(g->argv), 5, "agent argv count");
		if (strv_len(g->argv) == 5) {
			is_str(g->argv[0], "npx", "argv[0]");
			is_str(g->argv[2], "@zed-industries/claude-agent-acp",
			    "single-quoted word");
			is_str(g->argv[3], "a \"b\" c", "double-quoted word "
			    "with escapes");
			is_str(g->argv[4], "back slash", "backslash-escaped "
			    "space");
		}
		is_str(g->cwd, "/srv/alice", "cwd");
		is_int(strv_len(g->env), 3, "env is repeatable");
		if (strv_len(g->env) == 3) {
			is_str(g->env[0], "FOO=bar", "env 1");
			is_str(g->env[1], "EMPTY=", "env with empty value");
			is_str(g->env[2], "SPACED=  x  ", "quoted env");
		}
		is_int(strv_len(g->channels), 2, "agent channels");
		if (strv_len(g->channels) == 2)
			is_str(g->channels[1], "#dev", "agent channel 2");
		is_str(g->description, "A helpful agent", "description");
		is_str(g->permissions, "allow-reads", "permissions");
		is_str(g->tools, "hide", "tools");
		g = &c->agents[1];
		is_str(g->name, "Bob_2", "agent name keeps its case");
		is_str(g->permissions, "ask", "permissions default");
		is_str(g->tools, "show", "tools default");
		ok(g->env == NULL && g->channels == NULL,
		    "unset agent keys are NULL");
		is_str(g->cwd, "conf/full.workspace/Bob_2",
		    "default cwd: the agent's own workspace (AU-10, L6)");
	}
	conf_free(c);
}

static void
test_defaults(void)
{
	struct conf *c;

	c = parse_ok("", "agentircd.conf", "empty file parses");
	if (c == NULL)
		return;
	is_str(c->name, "agentircd.local", "default name");
	is_str(c->network, "agentircd", "default network");
	ok(c->motd == NULL && c->admin == NULL, "no motd or admin");
	is_str(c->dir, ".", "dir of a bare file name");
	is_str(c->database, "./agentircd.db", "default database");
	is_int(c->ping_interval, 120, "default ping-interval");
	is_int(c->ping_timeout, 60, "default ping-timeout");
	is_int(c->register_timeout, 60, "default register-timeout");
	is_int(c->sendq, 1048576, "default sendq");
	is_int(c->recvq, 8192, "default recvq");
	is_int(c->max_clients, 10000, "default max-clients");
	is_int(c->max_per_ip, 0, "default max-per-ip");
	is_int(c->max_channels, 50, "default max-channels");
	is_int(c->channel_expire_days, 0, "channels never expire by default");
	is_int(c->max_targets, 4, "default max-targets");
	is_int(c->max_bans, 100, "default max-bans");
	is_int(c->flood, 1, "flood on by default");
	is_int(c->flood_burst, 10, "default flood-burst");
	ok(c->flood_exempt == NULL, "no flood exemptions");
	is_str(c->default_modes, "+nt", "default modes");
	is_int(c->whowas, 100, "default whowas");
	is_int(c->max_open_sessions, 8, "default max-open-sessions");
	is_int(c->nlistens, 1, "one default listener");
	if (c->nlistens == 1) {
		is_str(c->listens[0].address, "127.0.0.1:6667",
		    "default listener address");
		is_str(c->listens[0].host, "127.0.0.1", "default host");
		is_str(c->listens[0].port, "6667", "default port");
		is_int(c->listens[0].line, 0, "default listener line 0");
		ok(c->listens[0].tls_cert == NULL && !c->listens[0].open,
		    "default listener is plain, not open");
	}
	ok(c->naccounts == 0 && c->nopers == 0 && c->nchannels == 0 &&
	    c->nagents == 0, "no accounts, operators, channels or agents");
	conf_free(c);

	/* AU-7: how long an empty channel lives. */
	c = parse_ok("[server]\nchannel-expire-days = 30\n", "x.conf",
	    "channel-expire-days");
	if (c != NULL) {
		is_int(c->channel_expire_days, 30, "channel-expire-days 30");
		conf_free(c);
	}

	/* With a [listen], no default listener is added. */
	c = parse_ok("[listen]\naddress = localhost:0\n", "x.conf",
	    "one listener on port 0");
	if (c != NULL) {
		is_int(c->nlistens, 1, "no default added");
		is_str(c->listens[0].port, "0", "port 0 kept");
		conf_free(c);
	}
}

static void
test_database(void)
{
	static const struct {
		const char *file, *text, *want;
	} t[] = {
		{ "/etc/agentircd/agentircd.conf", "",
		    "/etc/agentircd/agentircd.db" },
		{ "conf/agentircd.conf", "", "conf/agentircd.db" },
		{ "my.irc.cfg", "", "./my.irc.db" },
		{ "noext", "", "./noext.db" },
		{ "/a.d/.hidden", "", "/a.d/.hidden.db" },
		{ "/x/y.conf", "[server]\ndatabase = /var/lib/a.db\n",
		    "/var/lib/a.db" },
		{ "/x/y.conf", "[server]\ndatabase = sub/a.db\n",
		    "/x/sub/a.db" },
		{ "/x/y.conf", "[server]\ndatabase = :memory:\n", ":memory:" },
	};
	struct conf *c;
	char name[128];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(name, sizeof(name), "database for %s: %s", t[i].file,
		    t[i].want);
		c = conf_parse(t[i].text, t[i].file, err, sizeof(err));
		is_str(c != NULL ? c->database : err, t[i].want, name);
		conf_free(c);
	}
}

/* command = text, expecting argv (NULL-terminated). */
static void
argv_is(const char *cmd, const char **want, const char *name)
{
	struct conf *c;
	char *text;
	size_t i, n = 0;
	int good;

	while (want[n] != NULL)
		n++;
	if (asprintf(&text, "[agent a]\ncommand = %s\n", cmd) == -1)
		abort();
	c = conf_parse(text, "a.conf", err, sizeof(err));
	free(text);
	good = c != NULL && strv_len(c->agents[0].argv) == n;
	for (i = 0; good && i < n; i++)
		good = strcmp(c->agents[0].argv[i], want[i]) == 0;
	ok(good, name);
	if (!good && c == NULL)
		printf("# error: %s\n", err);
	for (i = 0; !good && c != NULL && c->agents[0].argv[i] != NULL; i++)
		printf("# argv[%zu] = \"%s\"\n", i, c->agents[0].argv[i]);
	conf_free(c);
}

static void
test_argv(void)
{
	const char *a1[] = { "codex-acp", NULL };
	const char *a2[] = { "gemini", "--acp", NULL };
	const char *a3[] = { "a", "b c", "d \"e\" \\ \\f", "g h", "", NULL };
	const char *a4[] = { "npx", "-y", NULL };
	const char *a5[] = { "sh", "-c", "echo 'hi' \"$HOME\"", NULL };
	const char *a6[] = { "it's", NULL };
	const char *a7[] = { "abc", NULL };
	const char *a8[] = { "a", "b", "c", NULL };

	argv_is("codex-acp", a1, "argv: one word");
	argv_is("  gemini \t --acp  ", a2, "argv: extra blanks");
	argv_is("a 'b c' \"d \\\"e\\\" \\\\ \\f\" g\\ h ''", a3,
	    "argv: quotes, escapes, empty word");
	argv_is("\"npx\" -y", a4, "argv: value quotes are the command's");
	argv_is("sh -c \"echo 'hi' \\\"\\$HOME\\\"\"", a5,
	    "argv: nested quotes, no expansion");
	argv_is("it\\'s", a6, "argv: escaped single quote");
	argv_is("a'b'\"c\"", a7, "argv: quotes join a word");
	argv_is("a\fb\vc", a8, "argv: form feed and vertical tab are blanks");
}

static void
test_errors(void)
{
	char text[512];
	char longname[64];

	/* Syntax. */
	parse_fails("[server]\nfoo = 1\n",
	    "e.conf:2: unknown key \"foo\" in [server]", "unknown key");
	parse_fails("[agent alice]\ncommand = x\nfoo = 1\n",
	    "e.conf:3: unknown key \"foo\" in [agent alice]",
	    "unknown key in a named section");
	parse_fails("\n[bogus]\n", "e.conf:2: unknown section [bogus]",
	    "unknown section");
	parse_fails("# comment\nname = x\n",
	    "e.conf:2: key \"name\" outside of any section",
	    "key outside a section");
	parse_fails("[server]\nname = a.b\n# x\nname = c.d\n",
	    "e.conf:4: duplicate key \"name\" in [server], first at line 2",
	    "duplicate key");
	parse_fails("[agent a]\ncommand = x\ncommand = y\n",
	    "e.conf:3: duplicate key \"command\"", "duplicate command");
	parse_fails("[server]\nflood\n", "e.conf:2: expected \"key = value\"",
	    "line without =");
	parse_fails("[server]\n= x\n", "e.conf:2: missing key before =",
	    "missing key");
	parse_fails("[server]\nname =\n", "e.conf:2: key \"name\" needs a "
	    "value", "empty value");
	parse_fails("[server]\nname = \"\"\n", "e.conf:2: key \"name\" needs "
	    "a value", "empty quoted value for a name");
	parse_fails("[server\n", "e.conf:1: section header must end with ]",
	    "unclosed section header");
	parse_fails("[agent a b]\n", "e.conf:1: section name must be one "
	    "word", "two-word section name");
	parse_fails("[agent]\n", "e.conf:1: [agent] needs a name",
	    "agent without a name");
	parse_fails("[server main]\n", "e.conf:1: [server] takes no name",
	    "server with a name");
	parse_fails("[server]\n[listen]\naddress = 127.0.0.1:1\n[server]\n",
	    "e.conf:4: [server] given twice, first at line 1",
	    "two [server] sections");
	parse_fails("[server]\ninfo = \"abc\n",
	    "e.conf:2: unterminated quote", "unterminated value quote");
	parse_fails("[server]\ninfo = \"abc\" def\n",
	    "e.conf:2: text after the closing quote", "text after quote");
	parse_fails("[server]\ninfo = \"a\\nb\"\n",
	    "e.conf:2: unknown escape", "unknown escape in quotes");
	parse_fails("[server]\r\n# crlf\r\nfoo = 1\r\n",
	    "e.conf:3: unknown key \"foo\"", "CRLF lines count right");
	parse_fails("[server]\ninfo = a\rb\n",
	    "e.conf:2: carriage return inside a line", "bare CR");

	/* [server] values. */
	parse_fails("[server]\nping-interval = abc\n",
	    "e.conf:2: bad ping-interval \"abc\": expected a whole number "
	    "from 1 to 86400", "bad integer");
	parse_fails("[server]\nping-interval = 0\n",
	    "e.conf:2: bad ping-interval \"0\"", "integer below range");
	parse_fails("[server]\nmax-targets = 101\n",
	    "e.conf:2: bad max-targets \"101\"", "integer above range");
	parse_fails("[server]\nwhowas = -1\n", "e.conf:2: bad whowas \"-1\"",
	    "negative integer");
	parse_fails("[server]\nmax-open-sessions = 0\n",
	    "e.conf:2: bad max-open-sessions \"0\"", "no open sessions at all");
	parse_fails("[server]\nmax-clients = 99999999999999999999999\n",
	    "e.conf:2: bad max-clients", "huge integer");
	parse_fails("[server]\nsendq = 12x\n", "e.conf:2: bad sendq \"12x\"",
	    "bad size suffix");
	parse_fails("[server]\nsendq = 100\n", "e.conf:2: bad sendq \"100\"",
	    "size below one line");
	parse_fails("[server]\nrecvq = 2m\n", "e.conf:2: bad recvq \"2m\"",
	    "size above range");
	parse_fails("[server]\nflood-control = maybe\n",
	    "e.conf:2: bad flood-control \"maybe\": expected yes or no", "bad boolean");
	parse_fails("[server]\nname = nodot\n", "e.conf:2: bad name \"nodot\"",
	    "server name without a dot");
	parse_fails("[server]\nnetwork = \"Agent Net\"\n",
	    "e.conf:2: bad network", "network with a space");
	parse_fails("[server]\nflood-exempt = 10.0.0.1 300.1.1.1\n",
	    "e.conf:2: bad flood-exempt \"300.1.1.1\"", "bad exempt address");
	parse_fails("[server]\nflood-exempt = 10.0.0.0/33\n",
	    "e.conf:2: bad flood-exempt \"10.0.0.0/33\"", "bad v4 prefix");
	parse_fails("[server]\nflood-exempt = ::/129\n",
	    "e.conf:2: bad flood-exempt \"::/129\"", "bad v6 prefix");
	parse_fails("[server]\ndefault-modes = +ntk key\n",
	    "e.conf:2: default-modes \"+ntk key\": mode 'k' is not one of "
	    "\"Cimnst\"", "default-modes takes no key");

	parse_fails("[server]\nchannel-expire-days = -1\n",
	    "e.conf:2: bad channel-expire-days \"-1\"", "a negative expiry");

	/* [listen]. */
	parse_fails("[listen]\naddress = 127.0.0.1:70000\n",
	    "e.conf:2: bad port in address \"127.0.0.1:70000\"",
	    "port out of range");
	parse_fails("[listen]\naddress = 127.0.0.1:irc\n",
	    "e.conf:2: bad port in address", "port not a number");
	parse_fails("[listen]\naddress = 127.0.0.1:\n",
	    "e.conf:2: bad port in address", "empty port");
	parse_fails("[listen]\naddress = 127.0.0.1\n",
	    "e.conf:2: bad address \"127.0.0.1\": expected host:port",
	    "address without a port");
	parse_fails("[listen]\naddress = ::1:6667\n",
	    "e.conf:2: bad address \"::1:6667\": put an IPv6 address in "
	    "brackets", "IPv6 without brackets");
	parse_fails("[listen]\naddress = [::1]6667\n",
	    "e.conf:2: bad address", "brackets without a colon");
	parse_fails("[listen]\naddress = [1.2.3.4]:6667\n",
	    "e.conf:2: bad address \"[1.2.3.4]:6667\": not an IPv6",
	    "v4 in brackets");
	parse_fails("# x\n[listen]\nopen = yes\n",
	    "e.conf:2: [listen] needs address = host:port", "missing address");
	parse_fails("[listen]\naddress = 0.0.0.0:6667\n",
	    "e.conf:1: plain-text listener on non-loopback address "
	    "0.0.0.0:6667 needs tls-cert/tls-key or open = yes",
	    "SEC-1: plain listener on 0.0.0.0");
	parse_fails("[listen]\naddress = [::]:6667\n[server]\n",
	    "e.conf:1: plain-text listener on non-loopback address [::]:6667",
	    "SEC-1: plain listener on [::], found when the section ends");
	parse_fails("[listen]\naddress = irc.example.org:6667\n",
	    "e.conf:1: plain-text listener on non-loopback address "
	    "irc.example.org:6667", "SEC-1: host name");
	parse_fails("[listen]\naddress = 0.0.0.0:6697\ntls-cert = c.pem\n",
	    "e.conf:1: tls-cert without tls-key", "tls-cert without tls-key");
	parse_fails("[listen]\naddress = 0.0.0.0:6697\ntls-key = k.pem\n",
	    "e.conf:1: tls-key without tls-cert", "tls-key without tls-cert");
	parse_fails("[listen]\naddress = 127.0.0.1:6697\n"
	    "tls-client-ca = ca.pem\n", "e.conf:1: tls-client-ca needs "
	    "tls-cert", "client CA without a certificate");
	parse_fails("[listen]\naddress = 0.0.0.0:1\nopen = sure\n",
	    "e.conf:3: bad open \"sure\"", "bad open value");

	/* [account] and [operator]. */
	parse_fails("[account bob]\npassword = hunter2\n",
	    "e.conf:2: password in [account bob] is not a crypt(3) hash: run "
	    "\"agentircd --hash-password\"", "password not a hash");
	parse_fails("[account bob]\npassword = $6$short\n",
	    "e.conf:2: password in [account bob] is not a crypt(3) hash",
	    "truncated hash");
	parse_fails("[account bob]\ncertfp = " FP64 "\n\n[account Bob]\n"
	    "certfp = " FP64 "\n", "e.conf:4: duplicate account \"Bob\", "
	    "first at line 1", "duplicate account (case-insensitive)");
	parse_fails("[account bob]\n\n[server]\n",
	    "e.conf:1: [account bob] needs a password or a certfp",
	    "account without credentials");
	parse_fails("[account bob]\ncertfp = " FP64 "0\n",
	    "e.conf:2: bad certfp", "certfp too long");
	parse_fails("[account bob]\ncertfp = 0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdeg\n", "e.conf:2: bad certfp",
	    "certfp not hex");
	parse_fails("[operator root]\nmask = *@*\n",
	    "e.conf:1: [operator root] needs a password",
	    "operator without a password");
	parse_fails("[operator root]\npassword = secret\n",
	    "e.conf:2: password in [operator root] is not a crypt(3) hash",
	    "operator password not a hash");
	snprintf(text, sizeof(text), "[operator root]\npassword = %s\n"
	    "mask = nobody\n", SHA512_HASH);
	parse_fails(text, "e.conf:3: bad mask \"nobody\"", "mask without @");
	snprintf(text, sizeof(text), "[operator root]\npassword = %s\n"
	    "[operator ROOT]\npassword = %s\n", SHA512_HASH, SHA512_HASH);
	parse_fails(text, "e.conf:3: duplicate operator", "duplicate operator");

	/* [channel]. */
	parse_fails("[channel general]\n", "e.conf:1: bad channel name "
	    "\"general\"", "channel name without #");
	memset(longname, 'a', sizeof(longname));
	longname[0] = '#';
	longname[51] = '\0';
	snprintf(text, sizeof(text), "[channel %s]\n", longname);
	parse_fails(text, "e.conf:1: bad channel name", "51-byte channel");
	longname[50] = '\0';
	snprintf(text, sizeof(text), "[channel %s]\n", longname);
	conf_free(parse_ok(text, "e.conf", "50-byte channel is fine"));
	parse_fails("[channel #a,b]\n", "e.conf:1: bad channel name",
	    "comma in a channel name");
	parse_fails("[channel #Dev]\n[channel #dev]\n",
	    "e.conf:2: duplicate channel \"#dev\", first at line 1",
	    "duplicate channel");
	parse_fails("[channel #a]\nmodes = +ntx\n",
	    "e.conf:2: modes \"+ntx\": mode 'x' is not one of \"Cimnstkl\"",
	    "unknown channel mode");
	parse_fails("[channel #a]\nmodes = +k\n", "e.conf:2: bad modes \"+k\"",
	    "+k without a key");
	parse_fails("[channel #a]\nmodes = +l many\n",
	    "e.conf:2: bad modes \"+l many\"", "+l with a bad limit");
	parse_fails("[channel #a]\nmodes = +nt extra\n",
	    "e.conf:2: bad modes \"+nt extra\"", "argument nobody takes");
	parse_fails("[channel #a]\nmodes = +nn\n",
	    "e.conf:2: modes \"+nn\": mode 'n' given twice", "mode twice");

	/* [agent]. */
	parse_fails("[agent 1alice]\n", "e.conf:1: bad agent name \"1alice\"",
	    "agent nick starting with a digit");
	parse_fails("[agent al!ce]\n", "e.conf:1: bad agent name", "agent "
	    "nick with !");
	memset(longname, 'a', sizeof(longname));
	longname[31] = '\0';
	snprintf(text, sizeof(text), "[agent %s]\ncommand = x\n", longname);
	parse_fails(text, "e.conf:1: bad agent name", "31-character nick");
	parse_fails("[agent alice]\ncommand = x\n[agent ALICE]\n",
	    "e.conf:3: duplicate agent \"ALICE\", first at line 1",
	    "duplicate agent");
	/* rfc1459: [ ] \ ^ are the capitals of { } | ~, as in nicks. */
	parse_fails("[agent a[\\]]\ncommand = x\n[agent A{|}]\n",
	    "e.conf:3: duplicate agent \"A{|}\", first at line 1",
	    "duplicate agent (rfc1459 casemapping)");
	parse_fails("[account x^]\ncertfp = " FP64 "\n[account X~]\n",
	    "e.conf:3: duplicate account \"X~\", first at line 1",
	    "duplicate account (^ and ~ are one letter)");
	parse_fails("[agent a]\ncommand = foo 'bar\n",
	    "e.conf:2: bad command: unterminated ' quote",
	    "unterminated single quote");
	parse_fails("[agent a]\ncommand = foo \"bar \\\"\n",
	    "e.conf:2: bad command: unterminated \" quote",
	    "unterminated double quote");
	parse_fails("[agent a]\ncommand = foo\\\n",
	    "e.conf:2: bad command: backslash at the end", "trailing "
	    "backslash");
	parse_fails("[agent a]\ncommand = ''\n",
	    "e.conf:2: bad command: no program to run", "empty program");
	parse_fails("[agent a]\ncommand = \"\" -y\n",
	    "e.conf:2: bad command: no program to run",
	    "empty program before an argument");
	parse_fails("[agent a]\ncwd = /tmp\n\n",
	    "e.conf:1: [agent a] needs a command", "agent without a command");
	parse_fails("[agent a]\ncommand = x\npermissions = maybe\n",
	    "e.conf:3: bad permissions \"maybe\": expected ask, allow-reads, "
	    "allow-all or deny-all", "bad permissions");
	parse_fails("[agent a]\ncommand = x\ntools = some\n",
	    "e.conf:3: bad tools \"some\"", "bad tools");
	parse_fails("[agent a]\ncommand = x\ncwd = work\n",
	    "e.conf:3: cwd must be an absolute path", "relative cwd");
	parse_fails("[agent a]\ncommand = x\nenv = 1FOO=x\n",
	    "e.conf:3: bad env: \"1FOO\" is not a variable name",
	    "env name with a leading digit");
	parse_fails("[agent a]\ncommand = x\nenv = FOO\n",
	    "e.conf:3: bad env: expected NAME=VALUE", "env without =");
	parse_fails("[agent a]\ncommand = x\nenv = FOO=1\nenv = FOO=2\n",
	    "e.conf:4: env FOO is set twice", "env name twice");
	parse_fails("[agent a]\ncommand = x\nchannels = #ok, nochan\n",
	    "e.conf:3: bad channels: \"nochan\" is not a channel name",
	    "bad channel in an agent's list");
}

/* The parse fails at want, and the message holds no part of secret (I2). */
static void
parse_fails_quiet(const char *text, const char *want, const char *secret,
    const char *name)
{
	parse_fails(text, want, name);
	ok(strstr(err, secret) == NULL, "no secret in the error");
	if (strstr(err, secret) != NULL)
		printf("# \"%s\" shows \"%s\"\n", err, secret);
}

/* The keys of issue 21: users, admins, modes, env-inherit, ops, ... */
static void
test_authority_keys(void)
{
	struct conf *c;
	struct conf_agent *g;
	struct conf_channel *ch;

	c = parse_ok("[agent a]\ncommand = x\n[channel #c]\n", "w.conf",
	    "no authority keys");
	if (c != NULL) {
		g = &c->agents[0];
		ok(g->users == NULL && g->admins == NULL && g->modes == NULL &&
		    g->env_inherit == NULL, "agent keys unset are NULL");
		ok(c->channels[0].permissions == NULL &&
		    c->channels[0].ops == NULL, "channel keys unset are NULL");
		is_str(c->workspace, "./w.workspace", "default workspace");
		is_str(g->cwd, "./w.workspace/a", "default cwd");
	}
	conf_free(c);

	c = parse_ok("[agent a]\ncommand = x\n[agent b]\ncommand = x\n"
	    "cwd = /srv/b\n[server]\nworkspace = ws//\n", "/etc/irc/a.conf",
	    "workspace");
	if (c != NULL && c->nagents == 2) {
		is_str(c->workspace, "/etc/irc/ws", "relative workspace "
		    "from the config's directory, no trailing /");
		is_str(c->agents[0].cwd, "/etc/irc/ws/a",
		    "cwd under a workspace given after the agent");
		is_str(c->agents[1].cwd, "/srv/b", "a configured cwd stays");
	}
	conf_free(c);

	/* Accounts may be defined after the section that names them. */
	c = parse_ok("[agent a]\ncommand = x\nusers = alice, Bob carol\n"
	    "admins = alice\nmodes = default plan\n"
	    "env-inherit = FOO_API_KEY, _X1\nenv-inherit = BAR FOO_API_KEY\n"
	    "[agent b]\ncommand = x\nusers = logged-in\nmodes = *\n"
	    "[agent d]\ncommand = x\nusers = *\n"
	    "[channel #c]\npermissions = allow-reads\nops = carol,alice\n"
	    "[account alice]\ncertfp = " FP64 "\n"
	    "[account bob]\ncertfp = " FP64 "\n"
	    "[account carol]\ncertfp = " FP64 "\n", "g.conf",
	    "every authority key");
	if (c != NULL && c->nagents == 3 && c->nchannels == 1) {
		g = &c->agents[0];
		is_int(strv_len(g->users), 3, "three users");
		if (strv_len(g->users) == 3) {
			is_str(g->users[0], "alice", "user 1");
			is_str(g->users[1], "Bob", "user 2 as written");
			is_str(g->users[2], "carol", "user 3");
		}
		is_int(strv_len(g->admins), 1, "one admin");
		if (g->admins != NULL)
			is_str(g->admins[0], "alice", "admin");
		is_int(strv_len(g->modes), 2, "two modes");
		if (strv_len(g->modes) == 2) {
			is_str(g->modes[0], "default", "mode 1");
			is_str(g->modes[1], "plan", "mode 2");
		}
		is_int(strv_len(g->env_inherit), 3,
		    "env-inherit adds up, without repeats");
		if (strv_len(g->env_inherit) == 3) {
			is_str(g->env_inherit[0], "FOO_API_KEY", "inherit 1");
			is_str(g->env_inherit[1], "_X1", "inherit 2");
			is_str(g->env_inherit[2], "BAR", "inherit 3");
		}
		/* The launcher inherits the bare names after env. */
		ok(strv_len(g->env) == 3 &&
		    strcmp(g->env[0], "FOO_API_KEY") == 0 &&
		    strcmp(g->env[2], "BAR") == 0, "env-inherit names in env");
		g = &c->agents[1];
		ok(strv_len(g->users) == 1 &&
		    strcmp(g->users[0], "logged-in") == 0, "users logged-in");
		ok(strv_len(g->modes) == 1 && strcmp(g->modes[0], "*") == 0,
		    "modes *");
		g = &c->agents[2];
		ok(strv_len(g->users) == 1 && strcmp(g->users[0], "*") == 0,
		    "users *");
		ch = &c->channels[0];
		is_str(ch->permissions, "allow-reads", "channel permissions");
		ok(strv_len(ch->ops) == 2 && strcmp(ch->ops[0], "carol") == 0 &&
		    strcmp(ch->ops[1], "alice") == 0, "channel ops");
	}
	conf_free(c);

	parse_fails("[agent a]\ncommand = x\nusers = * alice\n"
	    "[account alice]\ncertfp = " FP64 "\n",
	    "e.conf:3: bad users: \"*\" must stand alone", "users * in a list");
	parse_fails("[agent a]\ncommand = x\nusers = alice,logged-in\n"
	    "[account alice]\ncertfp = " FP64 "\n",
	    "e.conf:3: bad users: \"logged-in\" must stand alone",
	    "users logged-in in a list");
	parse_fails("[account alice]\ncertfp = " FP64 "\n[agent a]\n"
	    "command = x\nusers = alice mallory\n",
	    "e.conf:5: users names account \"mallory\", but no "
	    "[account mallory] defines it", "users: unknown account");
	parse_fails("[agent a]\ncommand = x\nusers = ,\n",
	    "e.conf:3: key \"users\" needs a value", "users: empty list");
	parse_fails("[agent a]\ncommand = x\nusers = *\nusers = *\n",
	    "e.conf:4: duplicate key \"users\"", "users twice");
	parse_fails("[agent a]\ncommand = x\nadmins = root\n",
	    "e.conf:3: admins names account \"root\", but no "
	    "[account root] defines it", "admins: unknown account");
	parse_fails("[agent a]\ncommand = x\nadmins = *\n",
	    "e.conf:3: admins names account \"*\"", "admins: * is no account");
	parse_fails("[agent a]\ncommand = x\nmodes = plan *\n",
	    "e.conf:3: bad modes: \"*\" must stand alone", "modes * in a list");
	parse_fails("[agent a]\ncommand = x\nmodes = \"pl\x01an\"\n",
	    "e.conf:3: bad modes: a mode id is printable ASCII of at most 64",
	    "modes: control character");
	parse_fails("[agent a]\ncommand = x\nmodes = caf\xc3\xa9\n",
	    "e.conf:3: bad modes: a mode id is printable ASCII",
	    "modes: not ASCII");
	parse_fails("[agent a]\ncommand = x\nmodes = "
	    "m12345678901234567890123456789012345678901234567890123456789012345"
	    "\n", "e.conf:3: bad modes: a mode id is printable ASCII of at "
	    "most 64 bytes", "modes: 66 bytes");
	parse_fails("[agent a]\ncommand = x\nenv-inherit = FOO 9LIVES\n",
	    "e.conf:3: bad env-inherit: \"9LIVES\" is not a variable name",
	    "env-inherit: leading digit");
	parse_fails_quiet("[agent a]\ncommand = x\nenv-inherit = FOO=sk-bar\n",
	    "e.conf:3: bad env-inherit: names only, not NAME=VALUE", "sk-bar",
	    "env-inherit: a value, not shown");
	parse_fails("[agent a]\ncommand = x\nenv-inherit = \",\"\n",
	    "e.conf:3: key \"env-inherit\" needs a value",
	    "env-inherit: empty list");
	parse_fails("[channel #c]\npermissions = all\n",
	    "e.conf:2: bad permissions \"all\": expected ask, allow-reads, "
	    "allow-all or deny-all", "channel permissions");
	parse_fails("[channel #c]\npermissions = ask\npermissions = ask\n",
	    "e.conf:3: duplicate key \"permissions\"",
	    "channel permissions twice");
	parse_fails("[channel #c]\nops = alice\n",
	    "e.conf:2: ops names account \"alice\", but no [account alice]",
	    "ops: unknown account");
	parse_fails("[channel #c]\nops = \n", "e.conf:2: key \"ops\" needs a "
	    "value", "ops: no value");
	parse_fails("[server]\nworkspace = \"\"\n",
	    "e.conf:2: key \"workspace\" needs a value", "empty workspace");

	/* I2: env values never show up in an error. */
	parse_fails_quiet("[agent a]\ncommand = x\n"
	    "env = ANTHROPIC_API_KEY sk-secret-456\n",
	    "e.conf:3: bad env: expected NAME=VALUE", "sk-secret-456",
	    "env without =: value not shown");
	parse_fails_quiet("[agent a]\ncommand = x\n"
	    "env = BAD-NAME=sk-secret-456\n",
	    "e.conf:3: bad env: \"BAD-NAME\" is not a variable name",
	    "sk-secret-456", "env bad name: value not shown");
	parse_fails_quiet("[agent a]\ncommand = x\nenv = K=sk-secret-456\n"
	    "env = K=sk-secret-789\n", "e.conf:4: env K is set twice",
	    "sk-secret", "env twice: value not shown");
}

static void
test_accepted(void)
{
	static const char *good[] = {
		"[listen]\naddress = 0.0.0.0:6667\nopen = yes\n",
		"[listen]\naddress = 0.0.0.0:6697\ntls-cert = c\ntls-key = k\n",
		"[listen]\naddress = localhost:6667\n",
		"[listen]\naddress = [::1]:6667\n",
		"[listen]\naddress = 127.1.2.3:1\n",
		"[listen]\naddress = [::ffff:127.0.0.1]:65535\n",
		"[channel #]\n",
		"[agent [x]\\`_^{|}-9]\ncommand = x\n",
		"\xef\xbb\xbf# BOM\n[server]\nflood-control = off\n",
		"[server]\ninfo = \"\"\n",
	};
	struct conf *c;
	char name[128], *n;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(name, sizeof(name), "accepted: %.*s", 40, good[i]);
		for (n = name; *n != '\0'; n++)
			if (*n == '\n' || *n == '#')
				*n = ' ';
		c = parse_ok(good[i], "g.conf", name);
		conf_free(c);
	}
}

static void
test_long_line(void)
{
	struct conf *c;
	char *text;
	size_t n = 100000;

	text = malloc(n + 64);
	if (text == NULL)
		abort();
	strcpy(text, "[channel #long]\ntopic = ");
	memset(text + strlen(text), 'x', n);
	strcpy(text + strlen("[channel #long]\ntopic = ") + n, "\n");
	c = parse_ok(text, "l.conf", "a 100000-byte line");
	if (c != NULL) {
		is_int(strlen(c->channels[0].topic), n, "long value kept whole");
		conf_free(c);
	}
	free(text);
}

static void
test_load(void)
{
	struct conf *c;
	char dir[] = "/tmp/test_conf.XXXXXX", path[128], want[256];
	char cwd[PATH_MAX];
	FILE *fp;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/site.conf", dir);
	fp = fopen(path, "w");
	if (fp == NULL) {
		ok(0, "write temp config");
		return;
	}
	fputs("[server]\nmotd = site.motd\n", fp);
	fclose(fp);

	/* A relative path: conf_load makes dir and paths absolute. */
	if (getcwd(cwd, sizeof(cwd)) == NULL || chdir("/tmp") == -1) {
		ok(0, "chdir");
		return;
	}
	c = conf_load(path + strlen("/tmp/"), err, sizeof(err));
	ok(c != NULL, "conf_load of a relative path");
	if (c != NULL) {
		is_str(c->dir, dir, "dir made absolute");
		snprintf(want, sizeof(want), "%s/site.db", dir);
		is_str(c->database, want, "database absolute beside the file");
		snprintf(want, sizeof(want), "%s/site.motd", dir);
		is_str(c->motd, want, "motd absolute beside the file");
		conf_free(c);
	}
	if (chdir(cwd) == -1)
		ok(0, "chdir back");

	snprintf(want, sizeof(want), "%s/missing.conf", dir);
	errno = 0;
	c = conf_load(want, err, sizeof(err));
	ok(c == NULL && errno == ENOENT, "missing file: NULL and ENOENT");
	snprintf(want, sizeof(want), "%s/missing.conf: ", dir);
	ok(strncmp(err, want, strlen(want)) == 0, "missing file: path: "
	    "reason");

	fp = fopen(path, "w");
	if (fp != NULL) {
		fputs("[server]\n\nbogus = 1\n", fp);
		fclose(fp);
	}
	errno = EINVAL;
	c = conf_load(path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:3: unknown key \"bogus\"", path);
	ok(c == NULL && errno == 0 && strncmp(err, want, strlen(want)) == 0,
	    "conf_load: parse error has file:line and errno 0");

	fp = fopen(path, "w");
	if (fp != NULL) {
		fwrite("[server]\n#\0\n", 1, 12, fp);
		fclose(fp);
	}
	c = conf_load(path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:2: NUL byte", path);
	ok(c == NULL && strncmp(err, want, strlen(want)) == 0,
	    "conf_load: NUL byte reported with its line");

	unlink(path);
	rmdir(dir);
}

static char *
test_passwd(void)
{
	char *h, *h2;

	h = passwd_hash("correct horse battery staple");
	ok(h != NULL, "passwd_hash returns a hash");
	if (h == NULL)
		return NULL;
	ok(strncmp(h, "$y$", 3) == 0 || strncmp(h, "$6$", 3) == 0,
	    "yescrypt or SHA-512 crypt");
	ok(passwd_is_hash(h), "our hash is a hash");
	ok(passwd_verify("correct horse battery staple", h), "right password");
	ok(!passwd_verify("correct horse battery stapler", h),
	    "wrong password rejected");
	ok(!passwd_verify("", h), "empty password rejected");
	h2 = passwd_hash("correct horse battery staple");
	ok(h2 != NULL && strcmp(h, h2) != 0, "random salt: two hashes differ");
	free(h2);

	ok(passwd_verify("open sesame", SHA512_HASH), "SHA-512 crypt verifies");
	ok(!passwd_verify("open sesame!", SHA512_HASH), "SHA-512 wrong "
	    "password");
	ok(passwd_verify("open sesame", SHA256_HASH), "SHA-256 crypt verifies");
	ok(!passwd_verify("open sesame", "open sesame"),
	    "a plain-text 'hash' never matches");
	ok(!passwd_verify("x", NULL), "NULL hash never matches");
	ok(!passwd_is_hash("hunter2"), "plain text is not a hash");
	ok(!passwd_is_hash("$1$abcdefgh$abcdefghijklmnopqrstuv"),
	    "MD5 crypt is not accepted");
	ok(!passwd_is_hash("$6$salt$tooshort"), "truncated SHA-512");
	ok(!passwd_is_hash("$y$j9T$salt$with space and more characters "
	    "to be long enough"), "space in a hash");
	return h;
}

/* Is ip (v4 or v6 text) in one of the blocks written in masks? */
static int
cidr_in(const char *masks, const char *ip)
{
	const char *list[8];
	struct conf_cidr nets[8];
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	const struct sockaddr *sa;
	char buf[256], *s, *last;
	size_t i, n = 0;

	strlcpy(buf, masks, sizeof(buf));
	for (s = strtok_r(buf, " ", &last); s != NULL && n < 8;
	    s = strtok_r(NULL, " ", &last))
		list[n++] = s;
	for (i = 0; i < n; i++)
		if (conf_cidr_parse(list[i], &nets[i]) == -1)
			return -1;
	memset(&sin, 0, sizeof(sin));
	memset(&sin6, 0, sizeof(sin6));
	if (inet_pton(AF_INET, ip, &sin.sin_addr) == 1) {
		sin.sin_family = AF_INET;
		sa = (const struct sockaddr *)&sin;
	} else if (inet_pton(AF_INET6, ip, &sin6.sin6_addr) == 1) {
		sin6.sin6_family = AF_INET6;
		sa = (const struct sockaddr *)&sin6;
	} else
		return -1;
	return conf_cidr_match(nets, n, sa);
}

static void
test_cidr(void)
{
	struct conf_cidr net;
	struct conf *c;

	ok(conf_cidr_parse("10.1.2.3", &net) == 0 && net.family == AF_INET &&
	    net.bits == 32 && net.addr[0] == 10 && net.addr[3] == 3,
	    "cidr: a bare IPv4 address is a /32");
	ok(conf_cidr_parse("fd00::/8", &net) == 0 &&
	    net.family == AF_INET6 && net.bits == 8 && net.addr[0] == 0xfd,
	    "cidr: IPv6 with a prefix");
	ok(conf_cidr_parse("::1", &net) == 0 && net.bits == 128,
	    "cidr: a bare IPv6 address is a /128");
	ok(conf_cidr_parse("0.0.0.0/0", &net) == 0 && net.bits == 0,
	    "cidr: /0");
	ok(conf_cidr_parse("10.0.0.0/33", &net) == -1, "cidr: /33 refused");
	ok(conf_cidr_parse("::/129", &net) == -1, "cidr: /129 refused");
	ok(conf_cidr_parse("10.0.0.0/", &net) == -1, "cidr: empty prefix");
	ok(conf_cidr_parse("10.0.0.0/+8", &net) == -1, "cidr: signed prefix");
	ok(conf_cidr_parse("host.example", &net) == -1, "cidr: a host name");
	ok(conf_cidr_parse("10.0.0", &net) == -1, "cidr: three octets");

	is_int(cidr_in("127.0.0.1", "127.0.0.1"), 1, "match: same address");
	is_int(cidr_in("127.0.0.1", "127.0.0.2"), 0, "match: other address");
	is_int(cidr_in("127.0.0.0/8", "127.255.1.2"), 1, "match: in a /8");
	is_int(cidr_in("127.0.0.0/8", "128.0.0.1"), 0, "match: out of a /8");
	is_int(cidr_in("10.0.0.0/12", "10.15.255.255"), 1,
	    "match: last address of a /12");
	is_int(cidr_in("10.0.0.0/12", "10.16.0.0"), 0,
	    "match: next address after a /12");
	is_int(cidr_in("192.168.1.128/25", "192.168.1.200"), 1,
	    "match: /25, high half");
	is_int(cidr_in("192.168.1.128/25", "192.168.1.100"), 0,
	    "match: /25, low half");
	is_int(cidr_in("0.0.0.0/0", "203.0.113.9"), 1, "match: /0 is all v4");
	is_int(cidr_in("0.0.0.0/0", "::1"), 0, "match: /0 v4 is no v6");
	is_int(cidr_in("::1", "::1"), 1, "match: v6 loopback");
	is_int(cidr_in("fd00::/8", "fdab::1"), 1, "match: v6 /8");
	is_int(cidr_in("fd00::/8", "fe80::1"), 0, "match: out of a v6 /8");
	is_int(cidr_in("2001:db8::/127", "2001:db8::1"), 1, "match: v6 /127");
	is_int(cidr_in("2001:db8::/127", "2001:db8::2"), 0,
	    "match: out of a v6 /127");
	is_int(cidr_in("127.0.0.0/8", "::ffff:127.0.0.1"), 0,
	    "match: a v4-mapped address is not in a v4 block");
	is_int(cidr_in("10.0.0.0/8 ::1 127.0.0.1", "127.0.0.1"), 1,
	    "match: the last of three");
	is_int(cidr_in("", "127.0.0.1"), 0, "match: no blocks, no match");

	c = parse_ok("[server]\nflood-exempt = 127.0.0.1, 10.0.0.0/8 fd00::/8\n",
	    "c.conf", "flood-exempt parsed at load");
	if (c != NULL) {
		is_int(c->nflood_nets, 3, "flood-exempt: three parsed blocks");
		ok(c->nflood_nets == 3 && c->flood_nets[1].family == AF_INET &&
		    c->flood_nets[1].bits == 8 && c->flood_nets[2].family ==
		    AF_INET6, "flood-exempt: families and prefixes");
	}
	conf_free(c);
	c = parse_ok("[server]\n", "c.conf", "no flood-exempt");
	if (c != NULL)
		ok(c->flood_nets == NULL && c->nflood_nets == 0,
		    "no flood-exempt: no blocks");
	conf_free(c);
}

/* LK-1: [link NAME] and [server] sid. */
static void
test_links(void)
{
	struct conf *c;
	char sid[CONF_SIDLEN + 1], sid2[CONF_SIDLEN + 1];
	const char *fp = "AB:CD:EF:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:"
	    "ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89";

	{
		char text[1024];

		snprintf(text, sizeof(text), "[server]\nname = irc.b.test\n"
		    "sid = 1ab\n[link irc.a.test]\naddress = irc.a.test:7000\n"
		    "send-password = s3cret\nreceive-password = "
		    SHA512_HASH "\nfingerprint = %s\nautoconnect = no\n", fp);
		c = parse_ok(text, "l.conf", "a TLS link parses");
	}
	if (c != NULL) {
		is_str(c->sid, "1AB", "sid kept, upper case");
		is_int((int)c->nlinks, 1, "one link");
		if (c->nlinks == 1) {
			is_str(c->links[0].name, "irc.a.test", "link name");
			is_str(c->links[0].host, "irc.a.test", "link host");
			is_str(c->links[0].port, "7000", "link port");
			is_str(c->links[0].send_password, "s3cret",
			    "send-password as written");
			is_int(c->links[0].tls, 1, "tls by default");
			is_int(c->links[0].autoconnect, 0, "autoconnect no");
			is_str(c->links[0].fingerprint, "abcdef0123456789abcd"
			    "ef0123456789abcdef0123456789abcdef0123456789",
			    "fingerprint lower case, no colons");
		}
	}
	conf_free(c);

	c = parse_ok("[server]\nname = irc.b.test\n[link irc.a.test]\n"
	    "address = 127.0.0.1:7000\nsend-password = x\n"
	    "receive-password = " SHA512_HASH "\ntls = no\n", "l.conf",
	    "plain-text loopback link without a fingerprint");
	if (c != NULL) {
		conf_default_sid("irc.b.test", sid);
		is_str(c->sid, sid, "default sid from the name");
		ok(conf_valid_sid(c->sid), "default sid is valid");
		is_int(c->links[0].autoconnect, 1, "autoconnect by default");
		is_int(c->links[0].tls, 0, "tls no");
	}
	conf_free(c);
	conf_default_sid("IRC.B.TEST", sid2);
	conf_default_sid("irc.b.test", sid);
	is_str(sid2, sid, "default sid ignores case");
	ok(conf_valid_sid("0AB") && conf_valid_sid("9zz") &&
	    !conf_valid_sid("A00") && !conf_valid_sid("0A") &&
	    !conf_valid_sid("0A-") && !conf_valid_sid("0ABC"), "valid sids");

	c = parse_ok("[listen]\naddress = 127.0.0.1:7000\nlinks = yes\n",
	    "l.conf", "a links listener");
	if (c != NULL)
		ok(c->nlistens == 1 && c->listens[0].links, "links = yes kept");
	conf_free(c);
	parse_fails("[listen]\naddress = 127.0.0.1:7000\nlinks = maybe\n",
	    "e.conf:3: bad links \"maybe\": expected yes or no",
	    "links: yes or no");

	parse_fails("[server]\nsid = A00\n",
	    "e.conf:2: bad sid \"A00\": expected a digit", "sid: digit first");
	parse_fails("[link irc.a.test]\naddress = 10.0.0.1:7000\n"
	    "send-password = x\nreceive-password = " SHA512_HASH "\n",
	    "e.conf:1: [link irc.a.test] needs fingerprint",
	    "fingerprint needed off loopback");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1:7000\n"
	    "send-password = x\nreceive-password = " SHA512_HASH "\n",
	    "e.conf:1: [link irc.a.test] needs fingerprint",
	    "fingerprint needed with TLS, even on loopback");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1:7000\n"
	    "send-password = x\nreceive-password = plain\n",
	    "e.conf:4: password in [link irc.a.test] is not a crypt(3) hash",
	    "receive-password must be a hash");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1\n",
	    "e.conf:2: bad address \"127.0.0.1\"", "address needs a port");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1:0\n",
	    "e.conf:2: bad address \"127.0.0.1:0\" in [link irc.a.test]: port 0",
	    "address: port 0");
	parse_fails("[link irc.a.test]\ntls = maybe\n",
	    "e.conf:2: bad tls \"maybe\": expected yes or no", "tls: yes or no");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1:7000\n"
	    "receive-password = " SHA512_HASH "\ntls = no\n",
	    "e.conf:1: [link irc.a.test] needs a send-password",
	    "send-password needed");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1:7000\n"
	    "send-password = x\ntls = no\n",
	    "e.conf:1: [link irc.a.test] needs a receive-password",
	    "receive-password needed");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1:7000\n"
	    "send-password = \"a b\"\nreceive-password = " SHA512_HASH
	    "\ntls = no\n", "e.conf:1: [link irc.a.test]: send-password may "
	    "not hold spaces", "send-password is one word");
	parse_fails("[link nodot]\n", "e.conf:1: bad link name \"nodot\"",
	    "link name is a server name");
	parse_fails("[link]\n", "e.conf:1: [link] needs a name",
	    "link needs a name");
	parse_fails("[link irc.a.test]\naddress = 127.0.0.1:1\n"
	    "send-password = x\nreceive-password = " SHA512_HASH "\ntls = no\n"
	    "[link IRC.A.TEST]\n",
	    "e.conf:6: duplicate link \"IRC.A.TEST\", first at line 1",
	    "duplicate link");
	parse_fails("[server]\nname = irc.a.test\n[link irc.a.test]\n"
	    "address = 127.0.0.1:1\nsend-password = x\n"
	    "receive-password = " SHA512_HASH "\ntls = no\n",
	    "e.conf:3: [link irc.a.test] names this server",
	    "a link to oneself");
}

int
main(void)
{
	char *hash;

	hash = test_passwd();
	test_full(hash != NULL ? hash : SHA512_HASH);
	free(hash);
	test_defaults();
	test_database();
	test_argv();
	test_cidr();
	test_errors();
	test_authority_keys();
	test_links();
	test_accepted();
	test_long_line();
	test_load();
	return tap_done();
}
