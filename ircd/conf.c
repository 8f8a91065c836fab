/*
 * conf.c: the configuration file, INI style, parsed into struct conf.
 * Every key is checked here, so the rest of the server can trust the
 * values; the first problem stops the parse with "file:line: message".
 */
#include "compat.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/ssl.h>

#include "acp/proc.h"
#include "ircd/casemap.h"
#include "ircd/conf.h"
#include "ircd/ircd.h"
#include "ircd/passwd.h"
#include "ircd/xmalloc.h"

/* A config is a few KiB; this only stops a wrong -f from eating memory. */
#define CONF_MAX_FILE	(16 * 1024 * 1024)

enum conf_section {
	SEC_NONE,
	SEC_SERVER,
	SEC_LISTEN,
	SEC_ACCOUNT,
	SEC_OPER,
	SEC_CHANNEL,
	SEC_AGENT,
	SEC_LINK
};

static const struct {
	const char		*word;
	enum conf_section	 section;
	int			 named;		/* [word NAME] rather than [word] */
} conf_sections[] = {
	{ "server",	SEC_SERVER,	0 },
	{ "listen",	SEC_LISTEN,	0 },
	{ "account",	SEC_ACCOUNT,	1 },
	{ "operator",	SEC_OPER,	1 },
	{ "channel",	SEC_CHANNEL,	1 },
	{ "agent",	SEC_AGENT,	1 },
	{ "link",	SEC_LINK,	1 },
};

enum conf_type {
	T_STR,		/* free text */
	T_PATH,		/* a file, relative to the config's directory */
	T_ABSPATH,	/* must be absolute */
	T_DATABASE,	/* T_PATH, but ":memory:" is SQLite's, not a file */
	T_INT,
	T_SIZE,		/* bytes, with an optional k or m suffix */
	T_BOOL,
	T_SERVERNAME,
	T_NETWORK,
	T_CIDRS,	/* list of addr or addr/bits */
	T_DEFMODES,	/* modes for new channels: flags only */
	T_MODES,	/* modes of a configured channel: k and l take args */
	T_ADDRESS,	/* host:port or [v6]:port */
	T_HASH,		/* crypt(3) string */
	T_CERTFP,
	T_MASK,		/* user@host */
	T_ARGV,		/* a command line, shell-like quoting */
	T_ENV,		/* KEY=VALUE, repeatable */
	T_CHANLIST,
	T_PERMS,
	T_TOOLS,
	T_FORMAT,	/* TN-13: irc or plain */
	T_USERS,	/* AU-2: "*", "logged-in" or accounts */
	T_ACCOUNTS,	/* accounts an [account] section defines */
	T_MODEIDS,	/* AU-3: ACP mode ids, or "*" */
	T_ENVNAMES,	/* AU-10: variable names, repeatable, adding up */
	T_SID,		/* LK-1: a digit, then two of A-Z0-9 */
	T_LINKADDR,	/* host:port of a link's peer */
	T_SECRET	/* free text never shown in an error */
};

#define K_REPEAT	0x1	/* may be given more than once */
#define K_RAW		0x2	/* the value keeps its quotes for the handler */

struct conf_key {
	enum conf_section	 section;
	const char		*name;
	enum conf_type		 type;
	size_t			 offset;
	long long		 min, max;
	int			 flags;
};

#define S(f)	offsetof(struct conf, f)
#define L(f)	offsetof(struct conf_listen, f)
#define A(f)	offsetof(struct conf_account, f)
#define O(f)	offsetof(struct conf_oper, f)
#define C(f)	offsetof(struct conf_channel, f)
#define G(f)	offsetof(struct conf_agent, f)
#define K(f)	offsetof(struct conf_link, f)

static const struct conf_key conf_keys[] = {
	{ SEC_SERVER, "name",		T_SERVERNAME,	S(name), 0, 0, 0 },
	{ SEC_SERVER, "network",	T_NETWORK,	S(network), 0, 0, 0 },
	{ SEC_SERVER, "info",		T_STR,		S(info), 0, 0, 0 },
	{ SEC_SERVER, "motd",		T_PATH,		S(motd), 0, 0, 0 },
	{ SEC_SERVER, "database",	T_DATABASE,	S(database), 0, 0, 0 },
	{ SEC_SERVER, "admin",		T_STR,		S(admin), 0, 0, 0 },
	{ SEC_SERVER, "password",	T_HASH,		S(password), 0, 0, 0 },
	{ SEC_SERVER, "ping-interval",	T_INT,	S(ping_interval), 1, 86400, 0 },
	{ SEC_SERVER, "ping-timeout",	T_INT,	S(ping_timeout), 1, 86400, 0 },
	{ SEC_SERVER, "register-timeout", T_INT, S(register_timeout), 1, 3600,
	    0 },
	/* Below one IRC line neither queue could hold a message. */
	{ SEC_SERVER, "sendq",		T_SIZE,	S(sendq), 512, 1LL << 30, 0 },
	{ SEC_SERVER, "recvq",		T_SIZE,	S(recvq), 512, 1LL << 20, 0 },
	{ SEC_SERVER, "max-clients",	T_INT,	S(max_clients), 1, 1000000, 0 },
	{ SEC_SERVER, "max-per-ip",	T_INT,	S(max_per_ip), 0, 1000000, 0 },
	{ SEC_SERVER, "max-channels",	T_INT,	S(max_channels), 1, 10000, 0 },
	{ SEC_SERVER, "max-targets",	T_INT,	S(max_targets), 1, 100, 0 },
	{ SEC_SERVER, "max-bans",	T_INT,	S(max_bans), 1, 10000, 0 },
	{ SEC_SERVER, "flood-control", T_BOOL,	S(flood), 0, 0, 0 },
	{ SEC_SERVER, "flood-burst",	T_INT,	S(flood_burst), 1, 3600, 0 },
	{ SEC_SERVER, "flood-exempt",	T_CIDRS, S(flood_exempt), 0, 0, 0 },
	{ SEC_SERVER, "default-modes",	T_DEFMODES, S(default_modes), 0, 0, 0 },
	{ SEC_SERVER, "client-tag-deny", T_STR, S(client_tag_deny), 0, 0, 0 },
	{ SEC_SERVER, "whowas",		T_INT,	S(whowas), 0, 100000, 0 },
	{ SEC_SERVER, "max-monitor",	T_INT,	S(max_monitor), 1, 10000, 0 },
	{ SEC_SERVER, "history-replay",	T_INT,	S(history_replay), 0, 1000, 0 },
	{ SEC_SERVER, "history-days",	T_INT,	S(history_days), 0, 1000000, 0 },
	{ SEC_SERVER, "history-max-rows", T_INT, S(history_max_rows), 0, 1000000000, 0 },
	{ SEC_SERVER, "channel-expire-days", T_INT, S(channel_expire_days), 0, 1000000, 0 },
	{ SEC_SERVER, "max-loaded-agents", T_INT, S(max_loaded_agents), 1, 1000, 0 },
	{ SEC_SERVER, "max-parallel-turns", T_INT, S(max_parallel_turns), 1, 1000, 0 },
	{ SEC_SERVER, "max-open-sessions", T_INT, S(max_open_sessions), 1, 100000, 0 },
	{ SEC_SERVER, "turn-timeout",	T_INT,	S(turn_timeout), 1, 86400, 0 },
	{ SEC_SERVER, "follow-up",	T_INT,	S(follow_up), 0, 1440, 0 },
	{ SEC_SERVER, "paste-window",	T_INT,	S(paste_window), 0, 10000, 0 },
	{ SEC_SERVER, "transcript-lines", T_INT, S(transcript_lines), 0, 1000, 0 },
	{ SEC_SERVER, "transcript-chars", T_INT, S(transcript_chars), 20, 100000, 0 },
	{ SEC_SERVER, "permission-timeout", T_INT, S(permission_timeout), 1, 86400, 0 },
	{ SEC_SERVER, "schedule-minute", T_INT, S(schedule_minute), 1, 60, 0 },
	{ SEC_SERVER, "workspace",	T_PATH,		S(workspace), 0, 0, 0 },
	{ SEC_SERVER, "sid",		T_SID,		S(sid), 0, 0, 0 },

	{ SEC_LISTEN, "address",	T_ADDRESS,	L(address), 0, 0, 0 },
	{ SEC_LISTEN, "tls-cert",	T_PATH,		L(tls_cert), 0, 0, 0 },
	{ SEC_LISTEN, "tls-key",	T_PATH,		L(tls_key), 0, 0, 0 },
	{ SEC_LISTEN, "tls-client-ca",	T_PATH,	L(tls_client_ca), 0, 0, 0 },
	{ SEC_LISTEN, "tls-ciphers",	T_STR,	L(tls_ciphers), 0, 0, 0 },
	{ SEC_LISTEN, "open",		T_BOOL,		L(open), 0, 0, 0 },
	{ SEC_LISTEN, "links",		T_BOOL,		L(links), 0, 0, 0 },

	{ SEC_ACCOUNT, "password",	T_HASH,		A(password), 0, 0, 0 },
	{ SEC_ACCOUNT, "certfp",	T_CERTFP,	A(certfp), 0, 0, 0 },

	{ SEC_OPER, "password",		T_HASH,		O(password), 0, 0, 0 },
	{ SEC_OPER, "mask",		T_MASK,		O(mask), 0, 0, 0 },

	{ SEC_CHANNEL, "topic",		T_STR,		C(topic), 0, 0, 0 },
	{ SEC_CHANNEL, "modes",		T_MODES,	C(modes), 0, 0, 0 },
	{ SEC_CHANNEL, "permissions",	T_PERMS,	C(permissions), 0, 0, 0 },
	{ SEC_CHANNEL, "ops",		T_ACCOUNTS,	C(ops), 0, 0, 0 },

	{ SEC_AGENT, "command",		T_ARGV,		G(argv), 0, 0, K_RAW },
	{ SEC_AGENT, "cwd",		T_ABSPATH,	G(cwd), 0, 0, 0 },
	{ SEC_AGENT, "env",		T_ENV,		G(env), 0, 0, K_REPEAT },
	{ SEC_AGENT, "channels",	T_CHANLIST,	G(channels), 0, 0, 0 },
	{ SEC_AGENT, "description",	T_STR,		G(description), 0, 0, 0 },
	{ SEC_AGENT, "permissions",	T_PERMS,	G(permissions), 0, 0, 0 },
	{ SEC_AGENT, "tools",		T_TOOLS,	G(tools), 0, 0, 0 },
	{ SEC_AGENT, "format",		T_FORMAT,	G(format), 0, 0, 0 },
	{ SEC_AGENT, "users",		T_USERS,	G(users), 0, 0, 0 },
	{ SEC_AGENT, "admins",		T_ACCOUNTS,	G(admins), 0, 0, 0 },
	{ SEC_AGENT, "modes",		T_MODEIDS,	G(modes), 0, 0, 0 },
	{ SEC_AGENT, "env-inherit",	T_ENVNAMES,	G(env_inherit), 0, 0,
	    K_REPEAT },

	{ SEC_LINK, "address",		T_LINKADDR,	K(address), 0, 0, 0 },
	{ SEC_LINK, "send-password",	T_SECRET,	K(send_password), 0, 0, 0 },
	{ SEC_LINK, "receive-password",	T_HASH,	K(receive_password), 0, 0, 0 },
	{ SEC_LINK, "fingerprint",	T_CERTFP,	K(fingerprint), 0, 0, 0 },
	{ SEC_LINK, "tls",		T_BOOL,		K(tls), 0, 0, 0 },
	{ SEC_LINK, "autoconnect",	T_BOOL,		K(autoconnect), 0, 0, 0 },
};

#define NKEYS	(sizeof(conf_keys) / sizeof(conf_keys[0]))

struct conf_parser {
	struct conf		*conf;
	const char		*file;
	const char		*dir;		/* for relative paths */
	char			*err;
	size_t			 errlen;
	int			 line;
	enum conf_section	 section;
	char			*label;		/* "[agent alice]", for messages */
	int			 section_line;
	int			 server_line;	/* 0 until [server] is seen */
	int			 seen[NKEYS];	/* line of each key in this section */
	/*
	 * Account names that users, admins and ops refer to, checked
	 * once the whole file is read: [account] may come later.
	 */
	struct conf_ref {
		const char	*key;
		char		*name;
		int		 line;
	}			*refs;
	size_t			 nrefs;
};

static int	conf_error(struct conf_parser *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static int
conf_error(struct conf_parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%d: ", p->file, line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Plain ASCII classes: the C locale's ctype is not ours to rely on. */
static int
conf_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int
conf_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

static int
conf_isalpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
conf_isxdigit(int c)
{
	return conf_isdigit(c) || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static char *
conf_trim(char *s)
{
	char *e;

	while (conf_isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && conf_isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static size_t
conf_strv_len(char **v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* Append s (taken over) to a NULL-terminated vector. */
static void
conf_strv_add(char ***vp, char *s)
{
	size_t n = conf_strv_len(*vp);

	*vp = xreallocarray(*vp, n + 2, sizeof(**vp));
	(*vp)[n] = s;
	(*vp)[n + 1] = NULL;
}

static void
conf_strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Split on spaces, tabs and commas, dropping empty items. */
static char **
conf_split_list(const char *s)
{
	char **v = NULL;
	size_t n;

	for (;;) {
		s += strspn(s, " \t,");
		if (*s == '\0')
			break;
		n = strcspn(s, " \t,");
		conf_strv_add(&v, xstrndup(s, n));
		s += n;
	}
	return v;
}

static char *
conf_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, slash - path);
}

/* dir/path, unless path is absolute already. */
static char *
conf_join(const char *dir, const char *path)
{
	char *s;
	size_t n = strlen(dir);

	if (path[0] == '/')
		return xstrdup(path);
	xasprintf(&s, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/",
	    path);
	return s;
}

/* <dir>/<basename of path without its last extension><suffix> */
static char *
conf_default_beside(const char *path, const char *dir, const char *suffix)
{
	const char *base, *dot;
	char *stem, *db, *s;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	dot = strrchr(base, '.');
	/* ".agentircd" is a hidden file with no extension. */
	if (dot == NULL || dot == base)
		stem = xstrdup(base);
	else
		stem = xstrndup(base, dot - base);
	xasprintf(&db, "%s%s", stem, suffix);
	s = conf_join(dir, db);
	free(stem);
	free(db);
	return s;
}

static char *
conf_default_database(const char *path, const char *dir)
{
	return conf_default_beside(path, dir, ".db");
}

static int
conf_valid_channel(const char *s)
{
	size_t n = strlen(s);

	if (s[0] != '#' || n > CHANNELLEN)
		return 0;
	return strpbrk(s, " ,\a\r\n") == NULL;
}

/* The rest of a listener's host check happens at bind time. */
static int
conf_valid_hostname(const char *s)
{
	if (*s == '\0' || *s == '.' || *s == '-')
		return 0;
	for (; *s != '\0'; s++)
		if (!conf_isalpha((unsigned char)*s) &&
		    !conf_isdigit((unsigned char)*s) && *s != '.' && *s != '-')
			return 0;
	return 1;
}

/* SEC-1: only these may listen without TLS unless the operator says so. */
static int
conf_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (strcasecmp(host, "localhost") == 0 ||
	    strcasecmp(host, "localhost.") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1) {
		if (IN6_IS_ADDR_LOOPBACK(&a6))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
	}
	return 0;
}

static int
conf_parse_address(struct conf_parser *p, char **address, char **hostp,
    char **portp, const char *v)
{
	struct in6_addr a6;
	const char *close, *colon, *port;
	char *host;
	size_t i, n;
	long val;

	if (v[0] == '[') {
		if ((close = strchr(v, ']')) == NULL || close[1] != ':')
			return conf_error(p, p->line, "bad address \"%s\": "
			    "write an IPv6 listener as [address]:port", v);
		host = xstrndup(v + 1, close - v - 1);
		port = close + 2;
		if (inet_pton(AF_INET6, host, &a6) != 1) {
			free(host);
			return conf_error(p, p->line, "bad address \"%s\": "
			    "not an IPv6 address in the brackets", v);
		}
	} else {
		if ((colon = strrchr(v, ':')) == NULL)
			return conf_error(p, p->line, "bad address \"%s\": "
			    "expected host:port", v);
		host = xstrndup(v, colon - v);
		port = colon + 1;
		if (strchr(host, ':') != NULL) {
			free(host);
			return conf_error(p, p->line, "bad address \"%s\": "
			    "put an IPv6 address in brackets, as in "
			    "[::1]:6697", v);
		}
		if (!conf_valid_hostname(host)) {
			free(host);
			return conf_error(p, p->line, "bad address \"%s\": "
			    "bad host name", v);
		}
	}
	n = strlen(port);
	for (i = 0; i < n && conf_isdigit((unsigned char)port[i]); i++)
		;
	val = n > 0 && n <= 5 && i == n ? strtol(port, NULL, 10) : -1;
	if (val < 0 || val > 65535) {
		free(host);
		return conf_error(p, p->line, "bad port in address \"%s\": "
		    "expected a number from 0 to 65535", v);
	}
	free(*address);
	free(*hostp);
	free(*portp);
	*address = xstrdup(v);
	*hostp = host;
	*portp = xstrdup(port);
	return 0;
}

/* Whole decimal number in [min, max]; -1 on anything else. */
static int
conf_number(const char *s, long long min, long long max, long long *out)
{
	long long v = 0;

	if (*s == '\0')
		return -1;
	for (; conf_isdigit((unsigned char)*s); s++) {
		if (v > (LLONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
conf_size(const char *s, long long min, long long max, long long *out)
{
	char *num;
	size_t n = strlen(s);
	long long mult = 1, v;
	int rc;

	if (n > 0 && (s[n - 1] == 'k' || s[n - 1] == 'K'))
		mult = 1024;
	else if (n > 0 && (s[n - 1] == 'm' || s[n - 1] == 'M'))
		mult = 1024 * 1024;
	num = xstrndup(s, mult == 1 ? n : n - 1);
	rc = conf_number(num, 0, max / mult, &v);
	free(num);
	if (rc == -1 || v * mult < min)
		return -1;
	*out = v * mult;
	return 0;
}

static int
conf_bool(const char *s, int *out)
{
	static const char *yes[] = { "yes", "true", "on", "1" };
	static const char *no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

int
conf_cidr_parse(const char *s, struct conf_cidr *net)
{
	const char *slash;
	char *host;
	long long bits;
	int max;

	memset(net, 0, sizeof(*net));
	slash = strchr(s, '/');
	host = slash != NULL ? xstrndup(s, slash - s) : xstrdup(s);
	if (inet_pton(AF_INET, host, net->addr) == 1) {
		net->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, host, net->addr) == 1) {
		net->family = AF_INET6;
		max = 128;
	} else
		max = -1;
	free(host);
	if (max == -1)
		return -1;
	if (slash == NULL)
		bits = max;
	else if (conf_number(slash + 1, 0, max, &bits) == -1)
		return -1;
	net->bits = (int)bits;
	return 0;
}

int
conf_cidr_match(const struct conf_cidr *nets, size_t n,
    const struct sockaddr *sa)
{
	const unsigned char *have;
	size_t i;
	int j, bits;

	if (sa->sa_family == AF_INET)
		have = (const unsigned char *)
		    &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		have = (const unsigned char *)
		    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	else
		return 0;
	for (i = 0; i < n; i++) {
		if (nets[i].family != sa->sa_family)
			continue;
		/* Whole bytes, then the high bits of the next one. */
		for (j = 0, bits = nets[i].bits; bits >= 8; j++, bits -= 8)
			if (nets[i].addr[j] != have[j])
				break;
		if (bits >= 8)
			continue;
		if (bits == 0 || ((nets[i].addr[j] ^ have[j]) &
		    (0xff << (8 - bits)) & 0xff) == 0)
			return 1;
	}
	return 0;
}

/*
 * Modes as "+flags [args]". Only what a configured channel can carry
 * from start: no lists (b), no member prefixes (o v).
 */
static int
conf_check_modes(struct conf_parser *p, const char *key, const char *v,
    const char *allowed)
{
	char **tok;
	const char *m;
	size_t ntok, nargs = 0, i;
	long long lim;
	int rc = 0;

	tok = conf_split_list(v);
	ntok = conf_strv_len(tok);
	if (ntok == 0)
		goto bad;
	m = tok[0][0] == '+' ? tok[0] + 1 : tok[0];
	if (*m == '\0')
		goto bad;
	for (i = 0; m[i] != '\0'; i++) {
		if (strchr(allowed, m[i]) == NULL) {
			rc = conf_error(p, p->line, "%s \"%s\": mode '%c' is "
			    "not one of \"%s\"", key, v, m[i], allowed);
			goto done;
		}
		if (strchr(m + i + 1, m[i]) != NULL) {
			rc = conf_error(p, p->line, "%s \"%s\": mode '%c' "
			    "given twice", key, v, m[i]);
			goto done;
		}
		if (m[i] == 'k') {
			if (++nargs >= ntok || strlen(tok[nargs]) > KEYLEN)
				goto bad;
		} else if (m[i] == 'l') {
			if (++nargs >= ntok ||
			    conf_number(tok[nargs], 1, INT_MAX, &lim) == -1)
				goto bad;
		}
	}
	if (nargs + 1 != ntok)
		goto bad;
	goto done;
bad:
	if (strchr(allowed, 'k') != NULL)
		rc = conf_error(p, p->line, "bad %s \"%s\": expected + and "
		    "letters of \"%s\", then a key for k and a limit for l",
		    key, v, allowed);
	else
		rc = conf_error(p, p->line, "bad %s \"%s\": expected + and "
		    "letters of \"%s\"", key, v, allowed);
done:
	conf_strv_free(tok);
	return rc;
}

/*
 * An agent's command is split by the launcher's own splitter, so the
 * config refuses exactly what could not run. Here is why, in its words.
 */
static const char *const conf_argv_why[] = {
	[ACP_ARGV_OK] = NULL,
	[ACP_ARGV_NOMEM] = "out of memory",
	[ACP_ARGV_EMPTY] = "no program to run",
	[ACP_ARGV_NOPROG] = "no program to run",
	[ACP_ARGV_SQUOTE] = "unterminated ' quote",
	[ACP_ARGV_DQUOTE] = "unterminated \" quote",
	[ACP_ARGV_BACKSLASH] = "backslash at the end",
};

/* Undo "double quotes" around a value: \" and \\ are the escapes. */
static int
conf_unquote(struct conf_parser *p, char *v)
{
	char *r = v + 1, *w = v;

	if (*v != '"')
		return 0;
	while (*r != '\0' && *r != '"') {
		if (*r == '\\') {
			if (r[1] != '"' && r[1] != '\\')
				return conf_error(p, p->line, "unknown escape "
				    "in quoted value: only \\\" and \\\\");
			r++;
		}
		*w++ = *r++;
	}
	if (*r != '"')
		return conf_error(p, p->line, "unterminated quote");
	if (r[1] != '\0')
		return conf_error(p, p->line, "text after the closing quote");
	*w = '\0';
	return 0;
}

static void *
conf_section_base(struct conf_parser *p)
{
	struct conf *c = p->conf;

	switch (p->section) {
	case SEC_SERVER:
		return c;
	case SEC_LISTEN:
		return &c->listens[c->nlistens - 1];
	case SEC_ACCOUNT:
		return &c->accounts[c->naccounts - 1];
	case SEC_OPER:
		return &c->opers[c->nopers - 1];
	case SEC_CHANNEL:
		return &c->channels[c->nchannels - 1];
	case SEC_AGENT:
		return &c->agents[c->nagents - 1];
	case SEC_LINK:
		return &c->links[c->nlinks - 1];
	case SEC_NONE:
		break;
	}
	return NULL;
}

static void
conf_set_str(char **field, char *value)
{
	free(*field);
	*field = value;
}

/*
 * flood-exempt, the one list of address blocks: kept as written, and
 * parsed, so that an accepted connection is only compared.
 */
static int
conf_set_cidrs(struct conf_parser *p, const struct conf_key *k,
    const char *v)
{
	struct conf *c = p->conf;
	struct conf_cidr *nets;
	char **list;
	size_t i, n;

	list = conf_split_list(v);
	n = conf_strv_len(list);
	nets = n > 0 ? xreallocarray(NULL, n, sizeof(*nets)) : NULL;
	for (i = 0; i < n; i++) {
		if (conf_cidr_parse(list[i], &nets[i]) == -1) {
			conf_error(p, p->line, "bad %s \"%s\": expected an "
			    "address or address/bits", k->name, list[i]);
			conf_strv_free(list);
			free(nets);
			return -1;
		}
	}
	conf_strv_free(c->flood_exempt);
	c->flood_exempt = list;
	free(c->flood_nets);
	c->flood_nets = nets;
	c->nflood_nets = n;
	return 0;
}

/* What a shell would take as a variable name: [A-Za-z_][A-Za-z0-9_]*. */
static int
conf_valid_envname(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || conf_isdigit((unsigned char)s[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!conf_isalpha((unsigned char)s[i]) && s[i] != '_' &&
		    !conf_isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Remember an account name to look up when the file has been read. */
static void
conf_ref_add(struct conf_parser *p, const char *key, const char *name)
{
	p->refs = xreallocarray(p->refs, p->nrefs + 1, sizeof(*p->refs));
	p->refs[p->nrefs].key = key;
	p->refs[p->nrefs].name = xstrdup(name);
	p->refs[p->nrefs++].line = p->line;
}

/*
 * users, admins, ops: a list of accounts. For users, "*" or
 * "logged-in" may stand in for the list, alone (AU-2).
 */
static int
conf_set_accounts(struct conf_parser *p, const struct conf_key *k,
    const char *v, char ***vp)
{
	char **list;
	size_t i, n;

	list = conf_split_list(v);
	if ((n = conf_strv_len(list)) == 0)
		return conf_error(p, p->line, "key \"%s\" needs a value",
		    k->name);
	for (i = 0; i < n; i++) {
		if (k->type == T_USERS && (strcmp(list[i], "*") == 0 ||
		    strcmp(list[i], "logged-in") == 0)) {
			if (n == 1)
				break;
			conf_error(p, p->line, "bad %s: \"%s\" must stand "
			    "alone, not in a list of accounts", k->name,
			    list[i]);
			conf_strv_free(list);
			return -1;
		}
		conf_ref_add(p, k->name, list[i]);
	}
	conf_strv_free(*vp);
	*vp = list;
	return 0;
}

/*
 * modes: ACP mode ids as the agent announces them. They end up in IRC
 * lines and in !status, so one printable word each, bounded.
 */
static int
conf_set_modeids(struct conf_parser *p, const struct conf_key *k,
    const char *v, char ***vp)
{
	char **list;
	const char *c;
	size_t i, n;

	list = conf_split_list(v);
	if ((n = conf_strv_len(list)) == 0)
		return conf_error(p, p->line, "key \"%s\" needs a value",
		    k->name);
	for (i = 0; i < n; i++) {
		if (strcmp(list[i], "*") == 0 && n > 1) {
			conf_error(p, p->line, "bad %s: \"*\" must stand "
			    "alone, not in a list of modes", k->name);
			goto fail;
		}
		for (c = list[i]; *c != '\0'; c++)
			if ((unsigned char)*c <= ' ' ||
			    (unsigned char)*c >= 0x7f)
				break;
		if (*c != '\0' || strlen(list[i]) > CONF_MODEID_MAX) {
			conf_error(p, p->line, "bad %s: a mode id is printable "
			    "ASCII of at most %d bytes", k->name,
			    CONF_MODEID_MAX);
			goto fail;
		}
	}
	conf_strv_free(*vp);
	*vp = list;
	return 0;
fail:
	conf_strv_free(list);
	return -1;
}

/* env-inherit: names only, never values; repeats add to the list. */
static int
conf_set_envnames(struct conf_parser *p, const struct conf_key *k,
    const char *v, char ***vp)
{
	char **list;
	size_t i, j;

	if ((list = conf_split_list(v)) == NULL)
		return conf_error(p, p->line, "key \"%s\" needs a value",
		    k->name);
	for (i = 0; list[i] != NULL; i++) {
		/* I2: NAME=VALUE here is a slip, and VALUE may be a key. */
		if (strchr(list[i], '=') != NULL) {
			conf_error(p, p->line, "bad %s: names only, not "
			    "NAME=VALUE (the value is not shown)", k->name);
			conf_strv_free(list);
			return -1;
		}
		if (!conf_valid_envname(list[i], strlen(list[i]))) {
			conf_error(p, p->line, "bad %s: \"%.64s\" is not a "
			    "variable name: letters, digits and _, not "
			    "starting with a digit", k->name, list[i]);
			conf_strv_free(list);
			return -1;
		}
	}
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		for (j = 0; *vp != NULL && (*vp)[j] != NULL; j++)
			if (strcmp((*vp)[j], list[i]) == 0)
				break;
		if (*vp != NULL && (*vp)[j] != NULL)
			free(list[i]);
		else
			conf_strv_add(vp, list[i]);
	}
	free(list);
	return 0;
}

static int
conf_set(struct conf_parser *p, const struct conf_key *k, char *v)
{
	char *base = conf_section_base(p), *s, *eq;
	char **list, ***vp;
	enum acp_argv_error argv_why;
	long long n;
	size_t i, j;
	int b;

	switch (k->type) {
	case T_STR:
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_PATH:
		conf_set_str((char **)(base + k->offset), conf_join(p->dir, v));
		break;
	case T_DATABASE:
		conf_set_str((char **)(base + k->offset),
		    strcmp(v, ":memory:") == 0 ? xstrdup(v) :
		    conf_join(p->dir, v));
		break;
	case T_ABSPATH:
		if (v[0] != '/')
			return conf_error(p, p->line, "%s must be an absolute "
			    "path, not \"%s\"", k->name, v);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_INT:
		if (conf_number(v, k->min, k->max, &n) == -1)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "a whole number from %lld to %lld", k->name, v,
			    k->min, k->max);
		*(int *)(base + k->offset) = (int)n;
		break;
	case T_SIZE:
		if (conf_size(v, k->min, k->max, &n) == -1)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "bytes from %lld to %lld, k and m suffixes "
			    "allowed", k->name, v, k->min, k->max);
		*(size_t *)(base + k->offset) = (size_t)n;
		break;
	case T_BOOL:
		if (conf_bool(v, &b) == -1)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "yes or no", k->name, v);
		*(int *)(base + k->offset) = b;
		break;
	case T_SERVERNAME:
		if (!conf_valid_hostname(v) || strchr(v, '.') == NULL ||
		    strlen(v) > HOSTLEN)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "a host-like name with a dot, as in "
			    "irc.example.org", k->name, v);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_NETWORK:
		for (s = v; *s != '\0'; s++)
			if ((unsigned char)*s <= ' ' || *s == 0x7f)
				break;
		if (*s != '\0' || strlen(v) > 64)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "one word of at most 64 bytes", k->name, v);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_CIDRS:
		return conf_set_cidrs(p, k, v);
	case T_DEFMODES:
		if (conf_check_modes(p, k->name, v, "Cimnst") == -1)
			return -1;
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_MODES:
		if (conf_check_modes(p, k->name, v, "Cimnstkl") == -1)
			return -1;
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_ADDRESS: {
		struct conf_listen *l = (struct conf_listen *)(void *)base;

		return conf_parse_address(p, &l->address, &l->host, &l->port,
		    v);
	}
	case T_LINKADDR: {
		struct conf_link *kl = (struct conf_link *)(void *)base;

		if (conf_parse_address(p, &kl->address, &kl->host, &kl->port,
		    v) == -1)
			return -1;
		if (strcmp(kl->port, "0") == 0)
			return conf_error(p, p->line, "bad address \"%s\" in "
			    "%s: port 0", v, p->label);
		return 0;
	}
	case T_SECRET:
		/* I2: a secret; no error shows any of it. */
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_SID:
		if (!conf_valid_sid(v))
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "a digit, then two letters or digits, as in 0AB",
			    k->name, v);
		memcpy(base + k->offset, v, CONF_SIDLEN + 1);
		/* InspIRCd's ids are upper case; so is ours on the wire. */
		for (i = 0; i < CONF_SIDLEN; i++)
			if ((base + k->offset)[i] >= 'a' &&
			    (base + k->offset)[i] <= 'z')
				(base + k->offset)[i] -= 'a' - 'A';
		break;
	case T_HASH:
		if (!passwd_is_hash(v))
			return conf_error(p, p->line, "password in %s is not a "
			    "crypt(3) hash: run \"agentircd --hash-password\" "
			    "and paste what it prints", p->label);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_CERTFP:
		/* Colons as openssl prints them; lower case as we compute it. */
		s = xmalloc(strlen(v) + 1);
		for (i = j = 0, b = 0; v[i] != '\0'; i++) {
			if (v[i] == ':')
				continue;
			if (!conf_isxdigit((unsigned char)v[i]))
				b = 1;
			s[j++] = (char)casemap_lower((unsigned char)v[i]);
		}
		s[j] = '\0';
		if (b || j != 64) {
			free(s);
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "a SHA-256 fingerprint of 64 hex digits (colons "
			    "allowed)", k->name, v);
		}
		conf_set_str((char **)(base + k->offset), s);
		break;
	case T_MASK:
		if ((s = strchr(v, '@')) == NULL || s == v || s[1] == '\0' ||
		    strpbrk(v, " \t") != NULL)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "user@host, as in *@*", k->name, v);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_ARGV:
		if ((list = acp_argv_split(v, &argv_why)) == NULL)
			return conf_error(p, p->line, "bad %s: %s", k->name,
			    conf_argv_why[argv_why]);
		vp = (char ***)(base + k->offset);
		conf_strv_free(*vp);
		*vp = list;
		/* The launcher is given the line as written and splits it. */
		if (p->section == SEC_AGENT) {
			struct conf_agent *ag = (struct conf_agent *)(void *)base;

			free(ag->command);
			ag->command = xstrdup(v);
		}
		break;
	case T_ENV:
		/* I2: the value may be a secret; no error shows any of it. */
		if ((eq = strchr(v, '=')) == NULL)
			return conf_error(p, p->line, "bad %s: expected "
			    "NAME=VALUE (the line is not shown: it may hold a "
			    "secret)", k->name);
		if (!conf_valid_envname(v, eq - v))
			return conf_error(p, p->line, "bad %s: \"%.*s\" is not "
			    "a variable name: letters, digits and _, not "
			    "starting with a digit", k->name,
			    (int)(eq - v > 64 ? 64 : eq - v), v);
		vp = (char ***)(base + k->offset);
		for (i = 0; *vp != NULL && (*vp)[i] != NULL; i++)
			if (strncmp((*vp)[i], v, eq - v + 1) == 0)
				return conf_error(p, p->line, "%s %.*s is set "
				    "twice", k->name, (int)(eq - v), v);
		conf_strv_add(vp, xstrdup(v));
		break;
	case T_CHANLIST:
		list = conf_split_list(v);
		for (i = 0; list != NULL && list[i] != NULL; i++) {
			if (!conf_valid_channel(list[i])) {
				conf_error(p, p->line, "bad %s: \"%s\" is not a "
				    "channel name", k->name, list[i]);
				conf_strv_free(list);
				return -1;
			}
		}
		vp = (char ***)(base + k->offset);
		conf_strv_free(*vp);
		*vp = list;
		break;
	case T_PERMS:
		if (strcmp(v, "ask") != 0 && strcmp(v, "allow-reads") != 0 &&
		    strcmp(v, "allow-all") != 0 && strcmp(v, "deny-all") != 0)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "ask, allow-reads, allow-all or deny-all",
			    k->name, v);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_TOOLS:
		if (strcmp(v, "show") != 0 && strcmp(v, "hide") != 0)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "show or hide", k->name, v);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_FORMAT:
		if (strcmp(v, "irc") != 0 && strcmp(v, "plain") != 0)
			return conf_error(p, p->line, "bad %s \"%s\": expected "
			    "irc or plain", k->name, v);
		conf_set_str((char **)(base + k->offset), xstrdup(v));
		break;
	case T_USERS:
	case T_ACCOUNTS:
		return conf_set_accounts(p, k, v, (char ***)(base + k->offset));
	case T_MODEIDS:
		return conf_set_modeids(p, k, v, (char ***)(base + k->offset));
	case T_ENVNAMES:
		return conf_set_envnames(p, k, v, (char ***)(base + k->offset));
	}
	return 0;
}

/* Does OpenSSL make a TLS 1.2 cipher list of v (I1)? */
static int
conf_ciphers_ok(const char *v)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	int ok;

	if (ctx == NULL)
		return 1;	/* cannot tell; the listener will say */
	ok = SSL_CTX_set_cipher_list(ctx, v) == 1;
	SSL_CTX_free(ctx);
	return ok;
}

/*
 * LK-1: a link needs where, both passwords, and the peer's certificate
 * pinned: only a plain-text link to loopback may go without one.
 */
static int
conf_link_end(struct conf_parser *p, struct conf_link *k)
{
	int line = p->section_line;

	if (k->address == NULL)
		return conf_error(p, line, "%s needs address = host:port",
		    p->label);
	if (k->send_password == NULL)
		return conf_error(p, line, "%s needs a send-password (the "
		    "peer's receive password, as written)", p->label);
	if (k->receive_password == NULL)
		return conf_error(p, line, "%s needs a receive-password (a "
		    "hash of the peer's send password: run \"agentircd "
		    "--hash-password\")", p->label);
	if (strpbrk(k->send_password, " \t:") != NULL ||
	    strlen(k->send_password) > 200)
		return conf_error(p, line, "%s: send-password may not hold "
		    "spaces or \":\" and is at most 200 bytes (the protocol "
		    "sends it as one word)", p->label);
	if (k->fingerprint == NULL && (k->tls || !conf_is_loopback(k->host)))
		return conf_error(p, line, "%s needs fingerprint = the peer's "
		    "certificate SHA-256 (only a link to loopback with "
		    "tls = no may go without)", p->label);
	return 0;
}

/* Checks that need the whole section: required keys, pairs, SEC-1. */
static int
conf_section_end(struct conf_parser *p)
{
	struct conf *c = p->conf;
	struct conf_listen *l;
	struct conf_account *a;
	struct conf_oper *o;
	struct conf_agent *g;
	int line = p->section_line;

	switch (p->section) {
	case SEC_LISTEN:
		l = &c->listens[c->nlistens - 1];
		if (l->address == NULL)
			return conf_error(p, line, "[listen] needs "
			    "address = host:port");
		if (l->tls_cert != NULL && l->tls_key == NULL)
			return conf_error(p, line, "tls-cert without tls-key "
			    "in [listen] %s", l->address);
		if (l->tls_key != NULL && l->tls_cert == NULL)
			return conf_error(p, line, "tls-key without tls-cert "
			    "in [listen] %s", l->address);
		if (l->tls_client_ca != NULL && l->tls_cert == NULL)
			return conf_error(p, line, "tls-client-ca needs "
			    "tls-cert and tls-key in [listen] %s", l->address);
		if (l->tls_ciphers != NULL && l->tls_cert == NULL)
			return conf_error(p, line, "tls-ciphers needs "
			    "tls-cert and tls-key in [listen] %s", l->address);
		if (l->tls_ciphers != NULL && !conf_ciphers_ok(l->tls_ciphers))
			return conf_error(p, line, "tls-ciphers \"%s\" in "
			    "[listen] %s names no cipher this OpenSSL has",
			    l->tls_ciphers, l->address);
		if (l->tls_cert == NULL && !l->open &&
		    !conf_is_loopback(l->host))
			return conf_error(p, line, "plain-text listener on "
			    "non-loopback address %s needs tls-cert/tls-key "
			    "or open = yes", l->address);
		break;
	case SEC_ACCOUNT:
		a = &c->accounts[c->naccounts - 1];
		if (a->password == NULL && a->certfp == NULL)
			return conf_error(p, line, "%s needs a password or a "
			    "certfp", p->label);
		break;
	case SEC_OPER:
		o = &c->opers[c->nopers - 1];
		if (o->password == NULL)
			return conf_error(p, line, "%s needs a password",
			    p->label);
		break;
	case SEC_AGENT:
		g = &c->agents[c->nagents - 1];
		if (g->argv == NULL)
			return conf_error(p, line, "%s needs a command",
			    p->label);
		if (g->permissions == NULL)
			g->permissions = xstrdup("ask");
		if (g->tools == NULL)
			g->tools = xstrdup("show");
		if (g->format == NULL)
			g->format = xstrdup("irc");
		break;
	case SEC_LINK:
		return conf_link_end(p, &c->links[c->nlinks - 1]);
	case SEC_NONE:
	case SEC_SERVER:
	case SEC_CHANNEL:
		break;
	}
	return 0;
}

/* Every account that users, admins or ops name must be defined. */
static int
conf_check_refs(struct conf_parser *p)
{
	struct conf *c = p->conf;
	size_t i, j;

	for (i = 0; i < p->nrefs; i++) {
		for (j = 0; j < c->naccounts; j++)
			if (casemap_cmp(c->accounts[j].name,
			    p->refs[i].name) == 0)
				break;
		if (j == c->naccounts)
			return conf_error(p, p->refs[i].line, "%s names "
			    "account \"%s\", but no [account %s] defines it",
			    p->refs[i].key, p->refs[i].name, p->refs[i].name);
	}
	return 0;
}

/* "[word]" or "[word name]": close the open section, open the next. */
static int
conf_section_begin(struct conf_parser *p, char *s)
{
	struct conf *c = p->conf;
	char *word, *name;
	size_t i, len = strlen(s);
	int named = 0;

	if (s[len - 1] != ']')
		return conf_error(p, p->line, "section header must end with "
		    "]: %s", s);
	s[len - 1] = '\0';
	word = conf_trim(s + 1);
	name = word + strcspn(word, " \t");
	if (*name != '\0') {
		*name++ = '\0';
		name = conf_trim(name);
		if (strpbrk(name, " \t") != NULL)
			return conf_error(p, p->line, "section name must be "
			    "one word: [%s %s]", word, name);
	}

	if (conf_section_end(p) == -1)
		return -1;
	for (i = 0; i < sizeof(conf_sections) / sizeof(conf_sections[0]);
	    i++)
		if (strcmp(word, conf_sections[i].word) == 0)
			break;
	if (i == sizeof(conf_sections) / sizeof(conf_sections[0]))
		return conf_error(p, p->line, "unknown section [%s]", word);
	named = conf_sections[i].named;
	if (named && *name == '\0')
		return conf_error(p, p->line, "[%s] needs a name, as in "
		    "[%s NAME]", word, word);
	if (!named && *name != '\0')
		return conf_error(p, p->line, "[%s] takes no name", word);

	p->section = conf_sections[i].section;
	p->section_line = p->line;
	memset(p->seen, 0, sizeof(p->seen));
	free(p->label);
	if (named)
		xasprintf(&p->label, "[%s %s]", word, name);
	else
		xasprintf(&p->label, "[%s]", word);

	/*
	 * Names compare as the server will compare them (rfc1459), so
	 * "[agent Foo]" and "[agent foo]" collide as the two nicks would.
	 */
	switch (p->section) {
	case SEC_SERVER:
		if (p->server_line != 0)
			return conf_error(p, p->line, "[server] given twice, "
			    "first at line %d", p->server_line);
		p->server_line = p->line;
		break;
	case SEC_LISTEN:
		c->listens = xreallocarray(c->listens, c->nlistens + 1,
		    sizeof(*c->listens));
		memset(&c->listens[c->nlistens], 0, sizeof(*c->listens));
		c->listens[c->nlistens++].line = p->line;
		break;
	case SEC_ACCOUNT:
		for (i = 0; i < c->naccounts; i++)
			if (casemap_cmp(c->accounts[i].name, name) == 0)
				return conf_error(p, p->line, "duplicate "
				    "account \"%s\", first at line %d", name,
				    c->accounts[i].line);
		c->accounts = xreallocarray(c->accounts, c->naccounts + 1,
		    sizeof(*c->accounts));
		memset(&c->accounts[c->naccounts], 0, sizeof(*c->accounts));
		c->accounts[c->naccounts].name = xstrdup(name);
		c->accounts[c->naccounts++].line = p->line;
		break;
	case SEC_OPER:
		for (i = 0; i < c->nopers; i++)
			if (casemap_cmp(c->opers[i].name, name) == 0)
				return conf_error(p, p->line, "duplicate "
				    "operator \"%s\", first at line %d", name,
				    c->opers[i].line);
		c->opers = xreallocarray(c->opers, c->nopers + 1,
		    sizeof(*c->opers));
		memset(&c->opers[c->nopers], 0, sizeof(*c->opers));
		c->opers[c->nopers].name = xstrdup(name);
		c->opers[c->nopers].mask = xstrdup("*@*");
		c->opers[c->nopers++].line = p->line;
		break;
	case SEC_CHANNEL:
		if (!conf_valid_channel(name))
			return conf_error(p, p->line, "bad channel name \"%s\": "
			    "# then up to %d bytes without spaces, commas or "
			    "control characters", name, CHANNELLEN - 1);
		for (i = 0; i < c->nchannels; i++)
			if (casemap_cmp(c->channels[i].name, name) == 0)
				return conf_error(p, p->line, "duplicate "
				    "channel \"%s\", first at line %d", name,
				    c->channels[i].line);
		c->channels = xreallocarray(c->channels, c->nchannels + 1,
		    sizeof(*c->channels));
		memset(&c->channels[c->nchannels], 0, sizeof(*c->channels));
		c->channels[c->nchannels].name = xstrdup(name);
		c->channels[c->nchannels++].line = p->line;
		break;
	case SEC_AGENT:
		if (!casemap_valid_nick(name, NICKLEN))
			return conf_error(p, p->line, "bad agent name \"%s\": "
			    "it must be a valid nick of up to %d characters",
			    name, NICKLEN);
		for (i = 0; i < c->nagents; i++)
			if (casemap_cmp(c->agents[i].name, name) == 0)
				return conf_error(p, p->line, "duplicate "
				    "agent \"%s\", first at line %d", name,
				    c->agents[i].line);
		c->agents = xreallocarray(c->agents, c->nagents + 1,
		    sizeof(*c->agents));
		memset(&c->agents[c->nagents], 0, sizeof(*c->agents));
		c->agents[c->nagents].name = xstrdup(name);
		c->agents[c->nagents++].line = p->line;
		break;
	case SEC_LINK:
		if (!conf_valid_hostname(name) || strchr(name, '.') == NULL ||
		    strlen(name) > HOSTLEN)
			return conf_error(p, p->line, "bad link name \"%s\": "
			    "the peer's server name, as in irc.example.org",
			    name);
		for (i = 0; i < c->nlinks; i++)
			if (strcasecmp(c->links[i].name, name) == 0)
				return conf_error(p, p->line, "duplicate "
				    "link \"%s\", first at line %d", name,
				    c->links[i].line);
		c->links = xreallocarray(c->links, c->nlinks + 1,
		    sizeof(*c->links));
		memset(&c->links[c->nlinks], 0, sizeof(*c->links));
		c->links[c->nlinks].name = xstrdup(name);
		c->links[c->nlinks].tls = 1;
		c->links[c->nlinks].autoconnect = 1;
		c->links[c->nlinks++].line = p->line;
		break;
	case SEC_NONE:
		break;
	}
	return 0;
}

static int
conf_keyvalue(struct conf_parser *p, char *s)
{
	const struct conf_key *k = NULL;
	char *eq, *key, *value;
	size_t i;

	if ((eq = strchr(s, '=')) == NULL)
		return conf_error(p, p->line, "expected \"key = value\", "
		    "\"[section]\" or a # comment");
	*eq = '\0';
	key = conf_trim(s);
	value = conf_trim(eq + 1);
	if (*key == '\0')
		return conf_error(p, p->line, "missing key before =");
	if (p->section == SEC_NONE)
		return conf_error(p, p->line, "key \"%s\" outside of any "
		    "section", key);
	for (i = 0; i < NKEYS; i++) {
		if (conf_keys[i].section == p->section &&
		    strcmp(conf_keys[i].name, key) == 0) {
			k = &conf_keys[i];
			break;
		}
	}
	if (k == NULL)
		return conf_error(p, p->line, "unknown key \"%s\" in %s", key,
		    p->label);
	if (p->seen[i] != 0 && !(k->flags & K_REPEAT))
		return conf_error(p, p->line, "duplicate key \"%s\" in %s, "
		    "first at line %d", key, p->label, p->seen[i]);
	p->seen[i] = p->line;
	if (*value == '\0')
		return conf_error(p, p->line, "key \"%s\" needs a value", key);
	if (!(k->flags & K_RAW)) {
		if (conf_unquote(p, value) == -1)
			return -1;
		/* "" is a deliberate empty text, never an empty number. */
		if (*value == '\0' && k->type != T_STR)
			return conf_error(p, p->line, "key \"%s\" needs a "
			    "value", key);
	}
	return conf_set(p, k, value);
}

static int
conf_line(struct conf_parser *p, char *s)
{
	s = conf_trim(s);
	if (*s == '\0' || *s == '#')
		return 0;
	/* A stray CR would end up inside an IRC line (a topic, say). */
	if (strchr(s, '\r') != NULL)
		return conf_error(p, p->line, "carriage return inside a line");
	if (*s == '[')
		return conf_section_begin(p, s);
	return conf_keyvalue(p, s);
}

static struct conf *
conf_new(const char *filename, const char *dir)
{
	struct conf *c = xcalloc(1, sizeof(*c));

	c->path = xstrdup(filename);
	c->dir = xstrdup(dir);
	c->name = xstrdup("agentircd.local");
	c->network = xstrdup("agentircd");
	c->info = xstrdup("agentircd IRC server");
	c->ping_interval = 120;
	c->ping_timeout = 60;
	c->register_timeout = 60;
	c->sendq = 1024 * 1024;
	c->recvq = 8192;
	c->max_clients = 10000;
	c->max_per_ip = 0;
	c->max_channels = 50;
	c->max_targets = 4;
	c->max_bans = 100;
	c->flood = 1;
	c->flood_burst = 10;
	c->default_modes = xstrdup("+nt");
	c->whowas = 100;
	c->max_monitor = 100;
	c->history_replay = 50;
	c->max_loaded_agents = 2;
	c->max_parallel_turns = 4;
	c->max_open_sessions = 8;
	c->turn_timeout = 1800;
	c->follow_up = 10;
	c->paste_window = 700;
	c->transcript_lines = 20;
	c->transcript_chars = 300;
	c->permission_timeout = 600;
	c->schedule_minute = 60;
	return c;
}

/*
 * AU-10, L6: what an agent's section does not give it. Its cwd is a
 * directory of its own under the workspace, never the config's; its
 * env-inherit names go after its env entries as bare NAMEs, which the
 * launcher takes from the daemon's environment.
 */
static void
conf_agent_defaults(struct conf *c)
{
	struct conf_agent *g;
	size_t i, j, n;

	n = strlen(c->workspace);
	while (n > 1 && c->workspace[n - 1] == '/')
		c->workspace[--n] = '\0';
	for (i = 0; i < c->nagents; i++) {
		g = &c->agents[i];
		if (g->cwd == NULL)
			g->cwd = conf_join(c->workspace, g->name);
		for (j = 0; g->env_inherit != NULL && g->env_inherit[j] != NULL;
		    j++)
			conf_strv_add(&g->env, xstrdup(g->env_inherit[j]));
	}
}

/* The parser proper; dir is the directory relative paths start from. */
static struct conf *
conf_parse_dir(const char *text, const char *filename, const char *dir,
    char *err, size_t errlen)
{
	struct conf_parser p;
	struct conf_listen *l;
	const char *s = text, *nl;
	char *line;
	size_t i;
	int rc = 0;

	memset(&p, 0, sizeof(p));
	p.conf = conf_new(filename, dir);
	p.file = filename;
	p.dir = dir;
	p.err = err;
	p.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';

	/* Editors on some systems start UTF-8 files with a BOM. */
	if (strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (rc == 0 && *s != '\0') {
		p.line++;
		nl = strchr(s, '\n');
		line = nl != NULL ? xstrndup(s, nl - s) : xstrdup(s);
		rc = conf_line(&p, line);
		free(line);
		s = nl != NULL ? nl + 1 : s + strlen(s);
	}
	if (rc == 0)
		rc = conf_section_end(&p);
	if (rc == 0)
		rc = conf_check_refs(&p);
	free(p.label);
	for (i = 0; i < p.nrefs; i++)
		free(p.refs[i].name);
	free(p.refs);
	if (rc == -1) {
		conf_free(p.conf);
		return NULL;
	}

	if (p.conf->nlistens == 0) {
		p.conf->listens = xcalloc(1, sizeof(*p.conf->listens));
		p.conf->nlistens = 1;
		l = &p.conf->listens[0];
		l->address = xstrdup("127.0.0.1:6667");
		l->host = xstrdup("127.0.0.1");
		l->port = xstrdup("6667");
	}
	if (p.conf->database == NULL)
		p.conf->database = conf_default_database(filename, dir);
	if (p.conf->workspace == NULL)
		p.conf->workspace = conf_default_beside(filename, dir,
		    ".workspace");
	conf_agent_defaults(p.conf);
	if (p.conf->sid[0] == '\0')
		conf_default_sid(p.conf->name, p.conf->sid);
	for (i = 0; i < p.conf->nlinks; i++)
		if (strcasecmp(p.conf->links[i].name, p.conf->name) == 0) {
			conf_error(&p, p.conf->links[i].line, "[link %s] "
			    "names this server", p.conf->links[i].name);
			conf_free(p.conf);
			return NULL;
		}
	return p.conf;
}

struct conf *
conf_parse(const char *text, const char *filename, char *err, size_t errlen)
{
	struct conf *c;
	char *dir;

	dir = conf_dirname(filename);
	c = conf_parse_dir(text, filename, dir, err, errlen);
	free(dir);
	return c;
}

struct conf *
conf_load(const char *path, char *err, size_t errlen)
{
	struct conf *c = NULL;
	FILE *fp;
	char *text = NULL, *dir = NULL, *rdir = NULL;
	const char *nul;
	size_t len = 0, cap = 0, n;
	int saved, line;

	if ((fp = fopen(path, "r")) == NULL)
		goto fail_errno;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			text = xreallocarray(text, cap, 1);
		}
		n = fread(text + len, 1, cap - len - 1, fp);
		len += n;
		if (len > CONF_MAX_FILE) {
			fclose(fp);
			free(text);
			snprintf(err, errlen, "%s: larger than %d bytes: not a "
			    "config file?", path, CONF_MAX_FILE);
			errno = EFBIG;
			return NULL;
		}
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		saved = errno;
		fclose(fp);
		errno = saved;
		goto fail_errno;
	}
	fclose(fp);
	text[len] = '\0';

	if ((nul = memchr(text, '\0', len)) != NULL) {
		for (line = 1, n = 0; text + n < nul; n++)
			if (text[n] == '\n')
				line++;
		snprintf(err, errlen, "%s:%d: NUL byte in the file", path,
		    line);
		free(text);
		errno = 0;
		return NULL;
	}

	/* Relative paths in the file are relative to where the file is. */
	dir = conf_dirname(path);
	if ((rdir = realpath(dir, NULL)) == NULL)
		goto fail_errno;
	c = conf_parse_dir(text, path, rdir, err, errlen);
	free(text);
	free(dir);
	free(rdir);
	errno = 0;
	return c;

fail_errno:
	saved = errno;
	snprintf(err, errlen, "%s: %s", path, strerror(saved));
	free(text);
	free(dir);
	errno = saved != 0 ? saved : EIO;
	return NULL;
}

void
conf_free(struct conf *c)
{
	size_t i;

	if (c == NULL)
		return;
	free(c->path);
	free(c->dir);
	free(c->name);
	free(c->network);
	free(c->info);
	free(c->motd);
	free(c->database);
	free(c->admin);
	free(c->password);
	free(c->workspace);
	conf_strv_free(c->flood_exempt);
	free(c->flood_nets);
	free(c->default_modes);
	free(c->client_tag_deny);
	for (i = 0; i < c->nlistens; i++) {
		free(c->listens[i].address);
		free(c->listens[i].host);
		free(c->listens[i].port);
		free(c->listens[i].tls_cert);
		free(c->listens[i].tls_key);
		free(c->listens[i].tls_client_ca);
		free(c->listens[i].tls_ciphers);
	}
	free(c->listens);
	for (i = 0; i < c->naccounts; i++) {
		free(c->accounts[i].name);
		free(c->accounts[i].password);
		free(c->accounts[i].certfp);
	}
	free(c->accounts);
	for (i = 0; i < c->nopers; i++) {
		free(c->opers[i].name);
		free(c->opers[i].password);
		free(c->opers[i].mask);
	}
	free(c->opers);
	for (i = 0; i < c->nchannels; i++) {
		free(c->channels[i].name);
		free(c->channels[i].topic);
		free(c->channels[i].modes);
		free(c->channels[i].permissions);
		conf_strv_free(c->channels[i].ops);
	}
	free(c->channels);
	for (i = 0; i < c->nagents; i++) {
		conf_strv_free(c->agents[i].argv);
		free(c->agents[i].command);
		free(c->agents[i].name);
		free(c->agents[i].cwd);
		conf_strv_free(c->agents[i].env);
		conf_strv_free(c->agents[i].channels);
		free(c->agents[i].description);
		free(c->agents[i].permissions);
		free(c->agents[i].tools);
		free(c->agents[i].format);
		conf_strv_free(c->agents[i].users);
		conf_strv_free(c->agents[i].admins);
		conf_strv_free(c->agents[i].modes);
		conf_strv_free(c->agents[i].env_inherit);
	}
	free(c->agents);
	for (i = 0; i < c->nlinks; i++) {
		free(c->links[i].name);
		free(c->links[i].address);
		free(c->links[i].host);
		free(c->links[i].port);
		free(c->links[i].send_password);
		free(c->links[i].receive_password);
		free(c->links[i].fingerprint);
	}
	free(c->links);
	free(c);
}

void
conf_default_sid(const char *name, char sid[CONF_SIDLEN + 1])
{
	static const char an[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)casemap_lower((unsigned char)*name);
		h *= 16777619u;
	}
	sid[0] = an[h % 10];
	h /= 10;
	sid[1] = an[h % 36];
	h /= 36;
	sid[2] = an[h % 36];
	sid[3] = '\0';
}

int
conf_valid_sid(const char *s)
{
	size_t i;

	if (strlen(s) != CONF_SIDLEN || !conf_isdigit((unsigned char)s[0]))
		return 0;
	for (i = 1; i < CONF_SIDLEN; i++)
		if (!conf_isdigit((unsigned char)s[i]) &&
		    !conf_isalpha((unsigned char)s[i]))
			return 0;
	return 1;
}
