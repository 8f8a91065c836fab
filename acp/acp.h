/*
 * acp.h: everything the server may ask of an agent. acp/ starts agent
 * processes, speaks ACP v1 (JSON-RPC over stdio) to them and keeps them
 * healthy; it knows nothing of IRC. All handles are opaque; all results
 * come back through callbacks, run from the caller's libevent loop.
 *
 * Lifetimes: an acp_agent is a configured agent, with or without a
 * running process. An acp_session is one conversation with it; it
 * outlives the process (crash, eviction): the next prompt starts the
 * process again and resumes the session (session/load when advertised,
 * its replay flagged as such, else session/resume when advertised, else
 * a new session: see on_open).
 * Never free an agent or session from inside one of its own callbacks;
 * if it happens anyway the free is deferred.
 */
#ifndef ACP_ACP_H
#define ACP_ACP_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct acp_agent;
struct acp_session;
struct acp_pool;
struct acp_prompt;

enum acp_log_level {
	ACP_LOG_DEBUG, ACP_LOG_INFO, ACP_LOG_WARN, ACP_LOG_ERROR
};

/* Where acp/ logs (default: stderr), and from which level. */
void	acp_log_set(void (*)(enum acp_log_level, const char *msg, void *),
	    void *arg, enum acp_log_level min);

/*
 * Split a command line into argv with shell-like quoting ('...', "...",
 * backslash), but no shell: no expansion, no redirection. Returns a
 * NULL-terminated array to free with acp_argv_free(), or NULL with *err
 * set to a static message.
 */
char	**acp_argv_parse(const char *, const char **err);
void	  acp_argv_free(char **);

/*
 * JSON text for an ACP or MCP frame: cJSON_PrintUnformatted() with every
 * invalid UTF-8 sequence in it replaced by U+FFFD, since the wire is
 * UTF-8 only and IRC text need not be. Returns a string to free() and its
 * length in *len (if not NULL), or NULL when out of memory.
 */
struct cJSON;
char	 *acp_json_print(const struct cJSON *, size_t *len);
/*
 * The same for any text: returns 0 when it is valid UTF-8 (nothing is
 * allocated), else the number of replacements with *out (to free()) and
 * *outlen set, or -1 when out of memory.
 */
int	  acp_utf8_scrub(const char *, size_t, char **out, size_t *outlen);

/*
 * AU-6: agent-written text that people judge, made plain. Removed: C0
 * controls (IRC formatting among them, a colour with its digits), DEL,
 * C1 controls and bidi controls (U+061C, U+200E/F, U+202A-202E,
 * U+2066-2069); tab, line and page breaks, U+2028 and U+2029 become a
 * space; invalid UTF-8 becomes U+FFFD. At most size - 1 bytes and a NUL
 * go to out, cut on a character with "..." (U+2026) when the text does
 * not fit. Returns the length written. acp/ applies it where it parses
 * each such field: struct acp_tool's title, kind, status and path, plan
 * entries, option, command and mode names and descriptions, agentInfo
 * and session titles; never to the answer (struct acp_text).
 */
size_t	  acp_plain(char *out, size_t size, const char *in, size_t len);
/* Would acp_plain() leave s as it is? (Mode ids are kept only then.) */
int	  acp_plain_is(const char *);
/*
 * AU-6, M2: a tool call's rawInput as people should judge it, made
 * plain, into out: the command ("$ rm -rf build", an argv quoted), the
 * paths, the size of an edit ("(120 bytes)"); without such keys, compact
 * JSON cut at 200 bytes. Returns the length; 0 when there is nothing to
 * show (no input, null, {} or []).
 */
size_t	  acp_plain_input(char *out, size_t size, const struct cJSON *);

/*
 * An agent. A number left 0 takes its default: ACP_DEFAULT_<FIELD> below,
 * but max_frame and max_bad_lines take JSON-RPC's (acp/jsonrpc.h:
 * JSONRPC_MAX_FRAME_DEFAULT, JSONRPC_MAX_BAD_DEFAULT).
 */
struct acp_agent_config {
	const char	 *name;		/* for logs ["agent"] */
	const char	 *command;	/* parsed with acp_argv_parse */
	const char	 *cwd;		/* absolute; [the daemon's cwd] */
	const char	**env;		/* "NAME=value" added, NULL-ended */
	const char	 *auth_method;	/* authenticate with this id [none] */
	size_t		  max_frame;	/* bytes */
	int		  max_bad_lines; /* non-JSON lines in a row */
	int		  init_timeout_ms;	/* initialize */
	int		  request_timeout_ms;	/* session/new etc. */
	int		  turn_timeout_ms;	/* TN-8 watchdog */
	int		  cancel_timeout_ms;	/* then restart */
	int		  grace_ms;	/* EOF->TERM->KILL steps */
	int		  backoff_ms;	/* first restart delay */
	int		  backoff_max_ms;
	int		  max_failures;	/* in a row, then broken */
};

#define ACP_DEFAULT_INIT_TIMEOUT_MS	(60 * 1000)
#define ACP_DEFAULT_REQUEST_TIMEOUT_MS	(60 * 1000)
#define ACP_DEFAULT_TURN_TIMEOUT_MS	(30 * 60 * 1000)
#define ACP_DEFAULT_CANCEL_TIMEOUT_MS	(10 * 1000)
#define ACP_DEFAULT_GRACE_MS		(2 * 1000)
#define ACP_DEFAULT_BACKOFF_MS		1000
#define ACP_DEFAULT_BACKOFF_MAX_MS	(60 * 1000)
#define ACP_DEFAULT_MAX_FAILURES	5

enum acp_text_kind {
	ACP_TEXT_AGENT,		/* agent_message_chunk */
	ACP_TEXT_THOUGHT,	/* agent_thought_chunk */
	ACP_TEXT_USER		/* user_message_chunk (mostly replay) */
};

struct acp_text {
	enum acp_text_kind	 kind;
	const char		*text;	/* a delta, not a whole message */
	size_t			 len;
	const char		*message_id;	/* or NULL */
	int			 replay;	/* from session/load: old */
	int			 cancelling;	/* after session/cancel */
};

/* A tool call as known so far: tool_call merged with its updates. */
struct acp_tool {
	const char	*id;
	const char	*title;		/* never NULL */
	const char	*kind;		/* read, edit, execute, ... [other] */
	/* pending, in_progress, completed, failed */
	const char	*status;
	const char	*path;		/* first location or diff, or NULL */
	const char	*text;		/* first text content, or NULL */
	const char	*raw_input;	/* JSON text, or NULL */
	/*
	 * rawInput for people (acp_plain_input), or NULL: what it does. With
	 * no rawInput, the diff's path and size (gemini sends only a diff).
	 */
	const char	*input;
	/* Its diff has no old text (absent, null or ""): a new file. */
	int		 creates;
	int		 is_update;	/* tool_call_update, not tool_call */
	int		 replay;
};

struct acp_plan_entry {
	const char	*content;
	const char	*priority;	/* high, medium, low */
	const char	*status;	/* pending, in_progress, completed */
};

struct acp_command {
	const char	*name;		/* without the leading '/' */
	const char	*description;
	const char	*hint;		/* input hint, or NULL */
};

struct acp_mode {
	const char	*id;
	const char	*name;
	const char	*description;	/* or NULL */
};

enum acp_perm_kind {
	ACP_PERM_ALLOW_ONCE, ACP_PERM_ALLOW_ALWAYS,
	ACP_PERM_REJECT_ONCE, ACP_PERM_REJECT_ALWAYS, ACP_PERM_OTHER
};

struct acp_perm_option {
	const char		*id;
	const char		*name;
	enum acp_perm_kind	 kind;
};

/* Valid during the callback only; answer later by its id. */
struct acp_permission {
	uint64_t			 id;	/* unique in the process */
	const struct acp_tool		*tool;	/* merged with the tool call */
	const struct acp_perm_option	*options;
	size_t				 noptions;
};

enum acp_stop {
	ACP_STOP_END_TURN, ACP_STOP_MAX_TOKENS, ACP_STOP_MAX_TURN_REQUESTS,
	ACP_STOP_REFUSAL, ACP_STOP_CANCELLED,
	ACP_STOP_ERROR		/* error set; includes the agent's death */
};

struct acp_turn_end {
	enum acp_stop	 stop;
	const char	*stop_reason;	/* as sent, or NULL */
	int		 code;		/* JSON-RPC error code, or 0 */
	const char	*error;		/* for the user, or NULL */
	int		 cancelled;	/* a cancel had been asked for */
	int		 timed_out;	/* the watchdog fired */
};

enum acp_open_how {
	ACP_OPEN_NEW,		/* a fresh session: it remembers nothing */
	ACP_OPEN_LOADED,	/* session/load: history replayed (flagged) */
	ACP_OPEN_RESUMED,	/* session/resume: no replay */
	ACP_OPEN_FAILED		/* error says why (e.g. a login is needed) */
};

struct acp_exit {
	int		 status;	/* wait(2) status, or -1 if unknown */
	int		 requested;	/* we stopped it (stop, eviction) */
	int		 evicted;	/* SS-5 */
	int		 broken;	/* too many failures: will not start */
	const char	*reason;	/* for people: "killed by signal 9" */
};

/*
 * Callbacks. The void * is the agent's arg for agent events, and the
 * session's arg for session events. Any may be NULL.
 */
struct acp_callbacks {
	void	(*on_ready)(struct acp_agent *, void *);
	void	(*on_open)(struct acp_session *, enum acp_open_how,
		    const char *error, void *);
	void	(*on_text)(struct acp_session *, const struct acp_text *,
		    void *);
	void	(*on_tool)(struct acp_session *, const struct acp_tool *,
		    void *);
	void	(*on_plan)(struct acp_session *,
		    const struct acp_plan_entry *, size_t, void *);
	/* A full replacement of the command list. */
	void	(*on_commands)(struct acp_session *,
		    const struct acp_command *, size_t, void *);
	void	(*on_mode)(struct acp_session *, const char *mode_id,
		    void *);
	/* A JSON array of ConfigOption, the complete state. */
	void	(*on_config)(struct acp_session *, const char *json, void *);
	void	(*on_title)(struct acp_session *, const char *title, void *);
	/* Answer with acp_session_permit(). Unanswered, the turn waits. */
	void	(*on_permission)(struct acp_session *,
		    const struct acp_permission *, void *);
	/*
	 * A permission was settled without us (cancel, turn end, exit, or
	 * the agent withdrew it): drop its card.
	 */
	void	(*on_permission_gone)(struct acp_session *, uint64_t id,
		    void *);
	void	(*on_turn_end)(struct acp_session *,
		    const struct acp_turn_end *, void *);
	void	(*on_agent_exit)(struct acp_agent *, const struct acp_exit *,
		    void *);
};

/*
 * The library. acp_init() registers a SIGCHLD handler on the base (only
 * our own children are reaped, by pid) and ignores SIGPIPE.
 */
int	 acp_init(struct event_base *);
void	 acp_shutdown(void);

/*
 * SS-5: at most max processes (0: ACP_DEFAULT_POOL_MAX); LRU eviction of
 * idle agents.
 */
#define ACP_DEFAULT_POOL_MAX	2
struct acp_pool	*acp_pool_new(int max);
void		 acp_pool_free(struct acp_pool *);
int		 acp_pool_running(struct acp_pool *);

/* The config is copied. pool may be NULL (no cap). */
struct acp_agent *acp_agent_new(struct acp_pool *,
		    const struct acp_agent_config *,
		    const struct acp_callbacks *, void *arg);
void		 acp_agent_free(struct acp_agent *);
/* Close stdin, SIGTERM, SIGKILL (grace periods between). */
void		 acp_agent_stop(struct acp_agent *);
/* Forget failures and the broken state (INVITE, config reload). */
void		 acp_agent_reset(struct acp_agent *);
/*
 * A config reload: cfg's command, cwd and env (copied) are what the next
 * process starts with; a running one keeps what it was started with, and
 * its sessions keep its cwd. The other fields of cfg are not read. -1,
 * and nothing changes, when the command cannot be parsed or cwd is not
 * absolute.
 */
int		 acp_agent_reconfigure(struct acp_agent *,
		    const struct acp_agent_config *);
/*
 * Backpressure: while held (on), nothing more the agent says is read or
 * passed on; it may be called from inside a callback, which then is the
 * last until released. Released (off), what was read is passed on, in
 * order, from a later loop turn. Nothing is blamed on the agent while it
 * waits for us: the turn watchdog, the cancel timeout and request timeouts
 * wait too, and its process ending is dealt with once released, after
 * what it said before.
 */
void		 acp_agent_hold(struct acp_agent *, int on);
const char	*acp_agent_name(struct acp_agent *);
int		 acp_agent_running(struct acp_agent *);	/* has a process */
int		 acp_agent_ready(struct acp_agent *);	/* initialized */
int		 acp_agent_broken(struct acp_agent *);
const char	*acp_agent_broken_reason(struct acp_agent *);
long		 acp_agent_pid(struct acp_agent *);	/* or -1 */
/* From initialize: agentInfo name/version, or NULL before. */
const char	*acp_agent_info(struct acp_agent *);
/* agentInfo.title (else its name) once initialized, or NULL before. */
const char	*acp_agent_title(struct acp_agent *);
/*
 * Closing a session loses nothing: the agent closes sessions
 * (session/close) and takes them back (session/load or resume).
 */
int		 acp_agent_can_reopen(struct acp_agent *);

/*
 * A session of agent a. id is a stored ACP session id to resume, or
 * NULL. Nothing is sent until acp_session_open() or a prompt.
 */
struct acp_session *acp_session_new(struct acp_agent *, const char *id,
		    void *arg);
/*
 * session/close where advertised (else session/cancel if a turn is on),
 * then free.
 */
void		 acp_session_free(struct acp_session *);
/*
 * The MCP servers the session offers the agent (a JSON array of ACP
 * McpServer objects), sent with session/new, load and resume; http_json
 * instead when the agent advertises mcpCapabilities.http. Copied.
 */
int		 acp_session_set_mcp(struct acp_session *, const char *json,
		    const char *http_json);
/* Open (start the agent if needed; load/resume or new); on_open tells. */
int		 acp_session_open(struct acp_session *);
int		 acp_session_is_open(struct acp_session *);
/* Neither open nor opening nor asked to open: the agent holds nothing. */
int		 acp_session_is_closed(struct acp_session *);
const char	*acp_session_id(struct acp_session *);	/* or NULL */
const char	*acp_session_mode(struct acp_session *);	/* or NULL */
size_t		 acp_session_modes(struct acp_session *,
		    const struct acp_mode **);
int		 acp_session_in_turn(struct acp_session *);

/* Prompt content: text and resource_link blocks. */
struct acp_prompt *acp_prompt_new(void);
int		 acp_prompt_text(struct acp_prompt *, const char *);
int		 acp_prompt_link(struct acp_prompt *, const char *uri,
		    const char *name);
void		 acp_prompt_free(struct acp_prompt *);

/*
 * Start a turn; takes the prompt. -1 if a turn is on (the caller
 * queues: one turn per session at a time) or the agent is broken.
 * Opens the session first when needed. on_turn_end always follows a 0.
 */
int		 acp_session_prompt(struct acp_session *, struct acp_prompt *);
/*
 * session/cancel with its duties: pending permissions answered
 * "cancelled", watchdog: no answer in cancel_timeout, the process is
 * killed and the turn ends. 0 if a turn was on.
 */
int		 acp_session_cancel(struct acp_session *);
/* option_id NULL: outcome "cancelled". -1 if the id is not pending. */
int		 acp_session_permit(struct acp_session *, uint64_t id,
		    const char *option_id);
/*
 * Remembered, and set again each time the session opens (SS-4). A value
 * "true" or "false" is sent as a boolean option, any other as a select.
 */
int		 acp_session_set_mode(struct acp_session *, const char *);
int		 acp_session_set_config(struct acp_session *,
		    const char *config_id, const char *value);

#endif
