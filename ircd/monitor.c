/*
 * monitor.c: who watches which nick (IRCv3 monitor). A client's list is
 * an array of at most max-monitor entries, each pointing at the index's
 * entry for that nick, which holds the nick's watchers. So an event about
 * a nick is one dict look-up, and a list is cleared in time proportional
 * to its length, never to the number of clients.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "ircd/casemap.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/monitor.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/* One watched nick in the index, and who watches it. */
struct montarget {
	char		  key[NICKLEN + 1];	/* casefolded */
	struct client	**w;
	unsigned	  n, cap;
};

/* A client's list: the nick as typed (for MONITOR L) and its target. */
struct monlist {
	struct {
		struct montarget	*t;
		char			 nick[NICKLEN + 1];
	}		*e;
	unsigned	 n, cap;
};

static struct dict *index_;

static int
monitor_find(const struct monlist *l, const char *key)
{
	unsigned i;

	for (i = 0; l != NULL && i < l->n; i++)
		if (strcmp(l->e[i].t->key, key) == 0)
			return (int)i;
	return -1;
}

/* c no longer watches t; t goes when nobody does. */
static void
monitor_unwatch(struct client *c, struct montarget *t)
{
	unsigned i;

	for (i = 0; i < t->n; i++) {
		if (t->w[i] == c) {
			/* Kept in order: watchers hear of a nick as they came. */
			memmove(&t->w[i], &t->w[i + 1],
			    (t->n - i - 1) * sizeof(t->w[0]));
			t->n--;
			break;
		}
	}
	if (t->n == 0) {
		dict_del(index_, t->key);
		free(t->w);
		free(t);
	}
}

int
monitor_add(struct client *c, const char *nick)
{
	struct monlist *l = c->monitor;
	struct montarget *t;
	char key[NICKLEN + 1];
	unsigned max = (unsigned)ircd.conf->max_monitor;

	casemap_fold(key, nick, sizeof(key));
	if (monitor_find(l, key) != -1)
		return 1;
	if (l != NULL && l->n >= max)
		return 0;
	if (l == NULL)
		l = c->monitor = xcalloc(1, sizeof(*l));
	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 8 : l->cap * 2;
		if (l->cap > max)
			l->cap = max;
		l->e = xreallocarray(l->e, l->cap, sizeof(l->e[0]));
	}
	if (index_ == NULL)
		index_ = dict_new();
	if ((t = dict_get(index_, key)) == NULL) {
		t = xcalloc(1, sizeof(*t));
		strlcpy(t->key, key, sizeof(t->key));
		dict_set(index_, key, t);
	}
	/* Bounded too: each client is among a nick's watchers once at most. */
	if (t->n == t->cap) {
		t->cap = t->cap == 0 ? 4 : t->cap * 2;
		t->w = xreallocarray(t->w, t->cap, sizeof(t->w[0]));
	}
	t->w[t->n++] = c;
	l->e[l->n].t = t;
	strlcpy(l->e[l->n].nick, nick, sizeof(l->e[0].nick));
	l->n++;
	return 1;
}

void
monitor_del(struct client *c, const char *nick)
{
	struct monlist *l = c->monitor;
	char key[NICKLEN + 1];
	int i;

	casemap_fold(key, nick, sizeof(key));
	if ((i = monitor_find(l, key)) == -1)
		return;
	monitor_unwatch(c, l->e[i].t);
	memmove(&l->e[i], &l->e[i + 1], (l->n - (unsigned)i - 1) * sizeof(l->e[0]));
	l->n--;
}

void
monitor_clear(struct client *c)
{
	struct monlist *l = c->monitor;
	unsigned i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n; i++)
		monitor_unwatch(c, l->e[i].t);
	free(l->e);
	free(l);
	c->monitor = NULL;
}

const char *
monitor_at(const struct client *c, size_t i)
{
	const struct monlist *l = c->monitor;

	return l != NULL && i < l->n ? l->e[i].nick : NULL;
}

static struct montarget *
monitor_target(const char *nick)
{
	char key[NICKLEN + 1];

	if (index_ == NULL)
		return NULL;
	casemap_fold(key, nick, sizeof(key));
	return dict_get(index_, key);
}

struct client *const *
monitor_watchers(const struct client *c, size_t *n)
{
	struct montarget *t = monitor_target(c->nick);

	*n = t != NULL ? t->n : 0;
	return t != NULL ? t->w : NULL;
}

void
monitor_signon(struct client *c)
{
	struct montarget *t = monitor_target(c->nick);
	unsigned i;

	/* Sending never exits a watcher at once (conn_exit_later), so t stays. */
	for (i = 0; t != NULL && i < t->n; i++)
		reply(t->w[i], RPL_MONONLINE, c->prefix);
}

void
monitor_signoff(const char *nick)
{
	struct montarget *t = monitor_target(nick);
	unsigned i;

	for (i = 0; t != NULL && i < t->n; i++)
		reply(t->w[i], RPL_MONOFFLINE, nick);
}

void
monitor_shutdown(void)
{
	struct montarget *t;
	size_t pos = 0;

	if (index_ == NULL)
		return;
	/* Every client has exited, clearing its list: this is what is left. */
	while ((t = dict_next(index_, &pos, NULL)) != NULL) {
		free(t->w);
		free(t);
	}
	dict_free(index_);
	index_ = NULL;
}
