/*
 * internal.h: what the files of acp/ share and nobody else sees: the
 * agent and session objects, and the calls between lifecycle.c (the
 * process), session.c (conversations), update.c (what the agent tells
 * about them) and permission.c (what it asks). Include compat.h first.
 */
#ifndef ACP_INTERNAL_H
#define ACP_INTERNAL_H

#include <cjson/cJSON.h>

#include "acp/acp.h"

struct event;
struct event_base;
struct jsonrpc;
struct acp_proc;
struct tool;		/* update.c */
struct perm;		/* permission.c */
struct early;		/* update.c */
struct cfgset;		/* session.c */

TAILQ_HEAD(tools, tool);
TAILQ_HEAD(perms, perm);
TAILQ_HEAD(earlies, early);

enum agent_state {
	AG_STOPPED,	/* no process */
	AG_STARTING,	/* waiting for back-off, a slot, or the loop */
	AG_INIT,	/* spawned, initialize sent */
	AG_READY,
	AG_STOPPING,	/* going; agent_fin_cb() follows */
	AG_BROKEN
};

enum sess_state { S_CLOSED, S_OPENING, S_OPEN };

struct acp_session {
	TAILQ_ENTRY(acp_session) entry;
	struct acp_agent	*a;
	void			*arg;
	char			*id;
	char			*mcp;		/* mcpServers JSON, or NULL */
	char			*mcp_http;	/* the same, for HTTP */
	enum sess_state		 st;
	enum acp_open_how	 how;
	int			 want_open;
	int			 dead;
	int			 replaying;
	/*
	 * After a load's answer, updates still come as its replay until the
	 * agent has been quiet a while (settle_ev), up to settle_end
	 * (monotonic ms): see sess_settle in session.c.
	 */
	int			 settling;
	long long		 settle_end;
	int64_t			 open_rid;
	int			 reapply;	/* answers still awaited */
	struct acp_prompt	*prompt;	/* not sent yet */
	int			 in_turn;
	int64_t			 prompt_rid;
	int			 cancel_sent;
	int			 timed_out;
	/*
	 * After a cancel, the next prompt is kept (resend) in case the agent
	 * ends it at once with nothing said (said counts what it did say):
	 * claude-agent-acp 0.23.1 does, and answers it a prompt late. quiet:
	 * reopening the session for that, unseen by the caller.
	 */
	int			 after_cancel;
	int			 said;
	int			 quiet;
	cJSON			*resend;
	struct event		*turn_ev, *cancel_ev, *defer_ev, *settle_ev;
	struct acp_mode		*modes;
	size_t			 nmodes;
	char			*mode_cur;
	char			*mode_want;
	struct cfgset		*cfg;
	size_t			 ncfg;
	struct perms		 perms;
	struct tools		 tools;
	size_t			 ntools;
};
TAILQ_HEAD(sessions, acp_session);

struct acp_agent {
	struct event_base	*base;		/* acp_init()'s */
	struct acp_pool		*pool;
	struct acp_agent_config	 cfg;
	char			*name, *command, *cwd, *auth_method;
	char			**argv;
	char			**env;
	/* acp_agent_reconfigure(): taken at the next spawn, or NULL */
	char			*next_command, *next_cwd;
	char			**next_argv, **next_env;
	struct acp_callbacks	 cb;
	void			*arg;
	enum agent_state	 state;
	struct acp_proc		*proc;
	struct jsonrpc		*rpc;
	int			 eof, reaped, status;
	int			 held;		/* acp_agent_hold() */
	int			 eof_held;	/* EOF seen while held */
	int			 stop_requested, evicted;
	char			 abort_reason[256];
	int			 failures;
	long long		 next_start;	/* monotonic ms */
	char			 broken_reason[512];
	int			 can_load, can_resume, can_close;
	cJSON			*auth_methods;
	int			 auth_tried;
	char			 info[128];
	char			 title[128];	/* agentInfo title, else name */
	int			 mcp_http;	/* mcpCapabilities.http */
	int			 news;		/* session/new in flight */
	struct earlies		 early;
	int			 nearly;
	size_t			 early_bytes;
	struct sessions		 sessions;
	int			 depth;		/* in a user callback */
	int			 dead;
	struct event		*start_ev, *fin_ev, *gc_ev, *eof_ev, *resume_ev;
};

/*
 * SS-4: how long (ms) an agent must stay quiet after answering session/load
 * before the session counts as loaded, and the most that may take.
 */
#define ACP_LOAD_SETTLE_MS	250
#define ACP_LOAD_SETTLE_MAX_MS	3000
/* After the process exits, how long (ms) its stdout may take to close. */
#define ACP_EOF_WAIT_MS		1000
/* While held, a timer that came due looks again this much later (ms). */
#define ACP_HELD_RETRY_MS	1000

/* User callbacks run with depth raised, so frees inside them wait. */
#define CALL_A(a, fn, ...) do {						\
	if (!(a)->dead && (a)->cb.fn != NULL) {				\
		(a)->depth++;						\
		(a)->cb.fn(__VA_ARGS__);				\
		(a)->depth--;						\
	}								\
} while (0)
#define CALL_S(s, fn, ...) do {						\
	if (!(s)->dead && !(s)->a->dead && (s)->a->cb.fn != NULL) {	\
		(s)->a->depth++;					\
		(s)->a->cb.fn(__VA_ARGS__);				\
		(s)->a->depth--;					\
	}								\
} while (0)

/* util.c */
char		*acp_str_copy(const char *);	/* NULL stays NULL */
void		 acp_str_set(char **, const char *);
const char	*acp_jstr(const cJSON *, const char *key);
void		 acp_timer_ms(struct event *, long long ms);
long long	 acp_now_ms(void);

/* lifecycle.c */
void	acp_agent_want(struct acp_agent *);
void	acp_agent_abort(struct acp_agent *, const char *why);
void	acp_agent_gc_later(struct acp_agent *);

/* session.c */
struct acp_session *acp_session_find(struct acp_agent *, const char *id);
void	acp_session_do_open(struct acp_session *);
void	acp_session_open_failed(struct acp_session *, const char *why);
void	acp_session_settle_more(struct acp_session *);
void	acp_session_destroy(struct acp_session *);

/* update.c */
void	acp_update_route(struct acp_agent *, const cJSON *params);
void	acp_update_config(struct acp_session *, const cJSON *options);
void	acp_update_early(struct acp_session *);
void	acp_early_clear(struct acp_agent *);
struct tool *acp_tool_find(struct acp_session *, const char *id, int create);
void	acp_tool_merge(struct tool *, const cJSON *);
void	acp_tool_view(struct tool *, struct acp_tool *, int update,
	    int replay);
void	acp_tools_clear(struct acp_session *);

/* permission.c */
int	acp_perm_request(struct acp_agent *, const cJSON *params,
	    const cJSON *id);
void	acp_perm_withdraw(struct acp_agent *, const cJSON *request_id);
void	acp_perms_cancel(struct acp_session *, int tell);

#endif
