/*
 * link-proto.h: the lines of InspIRCd's spanning-tree protocol (1205, as
 * InspIRCd 3 speaks it), parsed and formatted. Pure: no sockets, no
 * server state; unit-tested in tests/unit/test_link_proto.c.
 *
 * A line is "[@tags] [:source] COMMAND params... [:last]", as a client's,
 * but the source is a server id (SID, "0AB") or a user id (UUID, the SID
 * and six more of A-Z0-9, "0ABAAAAAB"), and a server line may carry more
 * parameters than a client's 15.
 */
#ifndef IRCD_LINK_PROTO_H
#define IRCD_LINK_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* The protocol version spoken: InspIRCd 3. */
#define LINK_PROTO		1205
/* Parameters a line may have; more is a malformed line. */
#define LINK_MAXPARAMS		32
/* A line without CRLF: tags, then the 512 bytes of the rest. */
#define LINK_LINEMAX		(8191 + 512)
/* A line we write; the peer's limit for the part after the tags. */
#define LINK_OUTMAX		510
#define LINK_SIDLEN		3
#define LINK_UUIDLEN		9

struct link_msg {
	char	*tags;		/* raw, without '@'; or NULL */
	char	*source;	/* without ':'; or NULL */
	char	*cmd;
	char	*params[LINK_MAXPARAMS];
	int	 nparams;
};

/*
 * Parse line (no CR/LF) in place. 0, or -1 when it has no command, too
 * many parameters, or a NUL-less control character the protocol never
 * sends (then the line is ignored and logged by the caller).
 */
int	link_parse(char *line, struct link_msg *);

int	link_is_sid(const char *);
int	link_is_uuid(const char *);

/*
 * The UUID of this server's user number id: the SID, then id in base 36
 * (A-Z then 0-9, as InspIRCd counts), six places. 0 if id does not fit.
 */
int	link_uuid_make(const char *sid, uint64_t id, char out[LINK_UUIDLEN + 1]);
/* The number a UUID of ours stands for; -1 if it is not one of sid's. */
int	link_uuid_id(const char *sid, const char *uuid, uint64_t *id);

/*
 * A key's value in CAPAB CAPABILITIES ("KEY=VALUE KEY2=VALUE2 FLAG"):
 * 1 and its value (truncated to len) when present, else 0.
 */
int	link_capab_get(const char *caps, const char *key, char *val, size_t len);

/* One member of FJOIN's last parameter: "ov,0ABAAAAAB:12". */
struct link_member {
	char	modes[16];	/* prefix mode letters, "" for none */
	char	uuid[LINK_UUIDLEN + 1];
};
/*
 * The next member of the list at *sp (advanced past it): 1, 0 at the
 * end, -1 for a malformed entry (skipped; *sp still advances).
 */
int	link_fjoin_next(const char **sp, struct link_member *);

/*
 * FJOIN lines for a channel: "head" is ":SID FJOIN #chan ts +modes", each
 * member "modes,uuid:membid"; emit gets every line, cut so that none is
 * longer than LINK_OUTMAX. Returns the number of lines.
 */
struct link_fjoin {
	char	 line[LINK_OUTMAX + 1];
	size_t	 head;		/* length of the head, and its " :" */
	size_t	 len;
	int	 n;		/* members in line */
	int	 lines;
	void	(*emit)(const char *line, size_t len, void *arg);
	void	*arg;
};
void	link_fjoin_begin(struct link_fjoin *, const char *sid, const char *chan,
	    long long ts, const char *modes,
	    void (*emit)(const char *, size_t, void *), void *arg);
void	link_fjoin_add(struct link_fjoin *, const char *prefixes,
	    const char *uuid, unsigned long long membid);
int	link_fjoin_end(struct link_fjoin *);

/*
 * Keep from a tag section only what crosses the link: client-only tags
 * ("+typing", "+draft/reply"); into out (no '@'), "" when none.
 */
size_t	link_tags_client(const char *tags, char *out, size_t size);

/*
 * The network's identity of a message, from a peer's tags: msgid (into
 * msgid, "" when absent or not a plain id of at most size - 1 bytes:
 * printable ASCII without '\\', ';' or '=') and time (an IRCv3
 * server-time "YYYY-MM-DDThh:mm:ss.sssZ", as Unix milliseconds into
 * *time_ms; 0 when absent or malformed). InspIRCd 3 sends msgid
 * (m_ircv3_msgid); agentircd sends both.
 */
void	link_tags_ids(const char *tags, char *msgid, size_t size,
	    int64_t *time_ms);
/* A server-time value as Unix milliseconds; 0 when malformed. */
int64_t	link_time_parse(const char *s, size_t len);

/*
 * How a channel mode letter takes a parameter, from a peer's CAPAB
 * CHANMODES ("list:ban=b param-set:limit=l prefix:30000:op=@o
 * simple:secret=s"): a MODE_* of ircd/mode.h (MODE_LIST, MODE_ALWAYS,
 * MODE_SETONLY, MODE_PREFIX, MODE_FLAG), MODE_UNKNOWN if not listed.
 */
int	link_chanmode_type(const char *chanmodes, char letter);

#endif
