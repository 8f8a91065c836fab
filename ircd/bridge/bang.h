/*
 * bang.h: commands in conversations with agents (CM-1..CM-6, PM-5):
 * slash commands to agents, and the server's own ! commands, which are
 * never forwarded to an agent.
 */
#ifndef IRCD_BANG_H
#define IRCD_BANG_H

#include <stddef.h>

struct agent;
struct channel;
struct client;
struct here;
struct outmsg;

/* Who may run a server command. */
enum bang_who {
	BANG_ANYONE,	/* even from outside a -n channel (!help) */
	BANG_MEMBER,	/* in a channel its members (I7); in a query its person */
	BANG_OPERATOR,	/* more, as the command says (AU-1) */
};

/*
 * One of the server's own ! commands. Membership (who) is checked before
 * it runs; what more it needs, by the command once its arguments parse,
 * so that a mistyped one gets its usage first.
 */
struct bang {
	const char	*name;		/* without '!' */
	void		(*run)(struct here *, const struct bang *,
			    const char *args);
	enum bang_who	 who;
	const char	*usage;		/* its arguments, "" for none */
	const char	*help;		/* what it does, in a few words */
	int		 order;		/* its place in !help's list, from 0 */
};

/*
 * A person's PRIVMSG in channel ch (conversation key), already relayed.
 * 1 if it was a command and is handled; 0 to route it as a message (its
 * text may have been changed: "!!x" becomes "!x").
 */
int	bang_channel(struct client *from, struct channel *ch, const char *key,
	    struct outmsg *);
/* Is text one of the server's own ! commands (never shown to agents)? */
int	bang_is_server(const char *text);
/* The same for a private message to agent a. */
int	bang_private(struct client *from, struct agent *a, const char *key,
	    struct outmsg *);

/* The server command called name[0..len) exactly, or NULL. */
const struct bang *bang_find(const char *name, size_t len);
/* Row i of the table, which is sorted by name; NULL past its end. */
const struct bang *bang_at(size_t i);

/*
 * Typos: is word shaped like a command name (a letter, then letters,
 * digits, '-' or '_')? And how far is typed from name in edits (insert,
 * delete, change, swap two neighbours), counted up to max + 1?
 */
int	bang_word_shaped(const char *word);
size_t	bang_distance(const char *typed, const char *name, size_t max);
/* How many edits a typo of typed may be: 1 for short words, else 2. */
size_t	bang_typo_max(const char *typed);

#endif
