/*
 * stream.h: an agent's answer as IRC lines (TN-3, TN-4, TN-5), and the
 * backpressure that makes it wait for its readers.
 */
#ifndef IRCD_BRIDGE_STREAM_H
#define IRCD_BRIDGE_STREAM_H

#include <stddef.h>

struct acp_tool;
struct conv;
struct stream;
struct turn;

/* The answer of t as it will stream; turn.c makes and frees it with t. */
struct stream	*stream_new(struct turn *);
void		 stream_free(struct stream *);

/*
 * One line (no CR/LF) from the agent in cv, stored first (HS-2): an
 * ACTION when action; in turn t (or NULL: none, e.g. a card).
 */
void	stream_send(struct conv *, struct turn *, const char *cmd,
	    const char *text, size_t len, int action);
/*
 * A chunk of t's answer as it streams; message: the id of the model
 * message it belongs to, or NULL (TN-13).
 */
void	stream_text(struct turn *, const char *text, size_t len,
	    const char *message);
/* A tool call of t that finished (TN-5). */
void	stream_tool(struct turn *, const struct acp_tool *);
/*
 * TN-5: tool call tool_id of t was refused, why ("card 2 was denied",
 * "refused by the policy deny-all"): its line says so when it fails.
 */
void	stream_refused(struct turn *, const char *tool_id, const char *why);
/* TN-14: a plan, shown as one line when it is new or changed. */
struct acp_plan_entry;
void	stream_plan(struct turn *, const struct acp_plan_entry *, size_t n);
/* t is asked: typing notifications start (TN-3). */
void	stream_typing_start(struct turn *);
/* t ended; rest: what is not sent yet goes out (not after !stop). */
void	stream_end(struct turn *, int rest);
/*
 * MN-1: what t's agent wrote, NUL-ended (NULL when it was too long to be
 * read for names), and its stored lines: the first's msgid and history
 * id, the last's id (0 when none was stored).
 */
const char *stream_said(const struct turn *, const char **msgid,
	    int64_t *first, int64_t *last);
/*
 * MN-7: one line said by cv's agent for a tool, outside its turn's
 * answer: stored first, then sent. Its history id (0: not said, e.g.
 * +m) and its msgid into msgid.
 */
int64_t	stream_post(struct conv *, const char *text, char *msgid, size_t mlen);
/* Nobody reads t any more: the rest is stored, then silence (AU-4). */
void	stream_orphan(struct turn *);
/* Nothing more is said for t: what waits is dropped (TN-6, AG-2). */
void	stream_silence(struct turn *);

#endif
