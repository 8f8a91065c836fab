/*
 * conf.h: the configuration file, parsed into plain data.
 * INI style: [section] or [section name], key = value, # comments.
 * Every error is reported as "file:line: message".
 */
#ifndef IRCD_CONF_H
#define IRCD_CONF_H

#include <stddef.h>

struct sockaddr;

/* Longest ACP mode id the config accepts in an agent's modes (AU-3). */
#define CONF_MODEID_MAX	64

/* An address block, addr/bits, of IPv4 or IPv6. */
struct conf_cidr {
	int		 family;	/* AF_INET or AF_INET6 */
	int		 bits;		/* of the prefix that must match */
	unsigned char	 addr[16];	/* network order; 4 bytes for IPv4 */
};

/*
 * SEC-7, I1: TLS 1.2 with forward secrecy and AEAD only (GCM, ChaCha20),
 * unless tls-ciphers says otherwise. TLS 1.3's suites are all AEAD.
 */
#define CONF_TLS_CIPHERS	"ECDHE+AESGCM:ECDHE+CHACHA20"

struct conf_listen {
	char	*address;	/* as written: host:port, [v6]:port */
	char	*host;		/* parsed host part */
	char	*port;		/* parsed port part */
	char	*tls_cert;	/* NULL for a plain-text listener */
	char	*tls_key;
	char	*tls_client_ca;
	char	*tls_ciphers;	/* TLS 1.2 cipher list; NULL: CONF_TLS_CIPHERS */
	int	 open;		/* explicitly opened to the world (SEC-1) */
	int	 links;		/* LK-1: for server links, not clients */
	int	 line;		/* where it was defined, for errors */
};

struct conf_account {
	char	*name;
	char	*password;	/* crypt(3) hash */
	char	*certfp;	/* lowercase hex SHA-256 of the client cert, or NULL */
	int	 line;
};

struct conf_oper {
	char	*name;
	char	*password;	/* crypt(3) hash */
	char	*mask;		/* user@host mask the OPER must come from; "*@*" default */
	int	 line;
};

struct conf_channel {
	char	*name;
	char	*topic;		/* NULL if none */
	char	*modes;		/* "+nt" style, NULL for the server default */
	/* AU-1: ceiling of every agent's policy here, NULL for none */
	char	*permissions;
	char	**ops;		/* accounts that get op on JOIN here, or NULL */
	int	 line;
};

struct conf_agent {
	char	*name;
	char	**argv;		/* NULL-terminated, from command (shell-like quoting) */
	char	*command;	/* the command line as written */
	/* AU-10: default <workspace>/<name>, made when the agent starts */
	char	*cwd;
	/*
	 * NULL-terminated "KEY=VALUE" from env, then the bare NAMEs of
	 * env_inherit, which acp_proc_spawn() takes from the daemon.
	 */
	char	**env;
	char	**channels;	/* NULL-terminated */
	char	*description;
	char	*permissions;	/* ask | allow-reads | allow-all | deny-all */
	char	*tools;		/* show | hide */
	char	*format;	/* TN-13: irc (Markdown as IRC bold) | plain */
	/*
	 * AU-2: who may talk to it: NULL for the default ("*" on a server
	 * without [account], else "logged-in"), else a NULL-terminated list
	 * of one "*", one "logged-in", or account names.
	 */
	char	**users;
	char	**admins;	/* AU-1: accounts that may loosen; NULL: none */
	char	**modes;	/* AU-3: ACP mode ids !mode may pick; NULL: none */
	char	**env_inherit;	/* AU-10: variables it inherits; NULL: none */
	int	 line;
};

/*
 * LK-1: a link to another server of the network, by InspIRCd's
 * spanning-tree protocol. This server connects to address when
 * autoconnect says so; see docs/linking.md for what a link does.
 */
struct conf_link {
	char	*name;		/* the peer's server name, as it says in SERVER */
	char	*address;	/* as written: host:port, [v6]:port */
	char	*host;		/* parsed host part */
	char	*port;		/* parsed port part */
	/*
	 * The protocol sends passwords as they are (we offer no CHALLENGE),
	 * so the one we send must be kept as written; the one we receive is
	 * a crypt(3) hash (SEC-2) that the peer's plain text is checked on.
	 */
	char	*send_password;
	char	*receive_password;	/* crypt(3) hash */
	char	*fingerprint;	/* the peer's certificate SHA-256, lowercase hex */
	int	 tls;		/* default yes */
	int	 autoconnect;	/* default yes: connect, and again after a split */
	int	 line;
};

/* A server id (SID): a digit, then two of A-Z or 0-9. */
#define CONF_SIDLEN	3

struct conf {
	char	*path;		/* the file as given */
	char	*dir;		/* its directory, for relative paths */

	/* [server] */
	char	*name;		/* server name, default "agentircd.local" */
	char	*network;	/* default "agentircd" */
	char	*info;		/* server description (INFO, LINKS) */
	char	*motd;		/* path of the MOTD file (relative to dir), or NULL */
	char	*database;	/* absolute path; default <config without .conf>.db */
	char	*admin;		/* contact line, or NULL */
	/*
	 * crypt(3) hash of the password every client must send by PASS
	 * before it registers, or NULL for none (cmd-register.c).
	 */
	char	*password;
	/* LK-1: the server id; default derived from name (conf_default_sid) */
	char	 sid[CONF_SIDLEN + 1];
	/*
	 * AU-10: parent of the agents' own directories, absolute; default
	 * <config without .conf>.workspace beside the config.
	 */
	char	*workspace;
	int	 ping_interval;	/* seconds of silence before we PING */
	int	 ping_timeout;	/* seconds after the PING before we drop */
	int	 register_timeout; /* seconds to complete registration */
	size_t	 sendq;		/* bytes queued to a client before SendQ exceeded */
	size_t	 recvq;		/* bytes of unprocessed input before Excess Flood */
	int	 max_clients;	/* connections accepted at once */
	int	 max_per_ip;	/* connections from one address (0 = no limit) */
	int	 max_channels;	/* channels per user (CHANLIMIT) */
	int	 max_targets;	/* targets per PRIVMSG/NOTICE/JOIN/... (TARGMAX) */
	int	 max_bans;	/* list modes per channel (MAXLIST) */
	int	 flood;		/* 0 disables flood control (benchmarks) */
	int	 flood_burst;	/* seconds of penalty a client may run ahead */
	char	**flood_exempt;	/* NULL-terminated list of CIDR masks */
	struct conf_cidr *flood_nets;	/* the same, parsed */
	size_t	 nflood_nets;
	char	*default_modes;	/* modes of a new channel, default "+nt" */
	char	*client_tag_deny; /* CLIENTTAGDENY value ("*,-typing"), or NULL */
	int	 whowas;	/* WHOWAS entries kept */
	int	 max_monitor;	/* nicks on one client's MONITOR list */
	int	 history_replay;	/* lines replayed on JOIN (HS-3), default 50 */
	int	 history_days;		/* prune older messages; 0 keeps all */
	int	 history_max_rows;	/* prune beyond this many; 0 keeps all */
	int	 channel_expire_days;	/* end channels empty this long; 0 never */
	int	 max_loaded_agents;	/* SS-5, default 2 */
	int	 max_parallel_turns;	/* TN-1, default 4 */
	int	 max_open_sessions;	/* conversations an agent keeps open, default 8 */
	int	 turn_timeout;		/* TN-8 watchdog, seconds, default 1800 */
	int	 follow_up;		/* RT-3 follow-up window, minutes, 10 */
	int	 paste_window;		/* TN-10, milliseconds, default 700 */
	int	 transcript_lines;	/* SS-2, default 20 */
	int	 transcript_chars;	/* SS-2, default 300 */
	int	 permission_timeout;	/* PM-3, seconds, default 600 */
	int	 schedule_minute;	/* seconds in a schedule's minute (tests), 60 */

	struct conf_listen	*listens;
	size_t			 nlistens;
	struct conf_account	*accounts;
	size_t			 naccounts;
	struct conf_oper	*opers;
	size_t			 nopers;
	struct conf_channel	*channels;
	size_t			 nchannels;
	struct conf_agent	*agents;
	size_t			 nagents;
	struct conf_link	*links;
	size_t			 nlinks;
};

/*
 * Parse text (the whole file) named filename. On error returns NULL and
 * writes "filename:line: message" into err. Pure: touches no file.
 */
struct conf	*conf_parse(const char *text, const char *filename,
		    char *err, size_t errlen);
/*
 * Read and parse the file at path; errors as conf_parse. If the file
 * cannot be read, err is "path: reason" and errno is left set; after a
 * parse error errno is 0. dir, database, motd and TLS paths come out
 * absolute (relative ones are taken from the file's real directory).
 */
struct conf	*conf_load(const char *path, char *err, size_t errlen);
void		 conf_free(struct conf *);

/*
 * The SID a server named name gets when [server] gives none: a digit
 * and two characters of A-Z0-9, from a hash of the name, so that one
 * name always gets the same id.
 */
void		 conf_default_sid(const char *name, char sid[CONF_SIDLEN + 1]);
/* Is s a valid SID: a digit, then two of A-Z or 0-9? */
int		 conf_valid_sid(const char *s);

/* Parse "addr" or "addr/bits"; -1 if it is neither. */
int		 conf_cidr_parse(const char *, struct conf_cidr *);
/*
 * Is the address in one of the n blocks? Only a block of its own family
 * can hold it: an IPv4-mapped IPv6 address is not in an IPv4 block.
 */
int		 conf_cidr_match(const struct conf_cidr *, size_t n,
		    const struct sockaddr *);

#endif
