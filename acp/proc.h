/*
 * proc.h: one agent process: spawned with pipes in its own process group,
 * stderr logged, stopped in steps, reaped by pid. Internal to acp/, but
 * for acp_argv_split(), which the daemon's config check shares with the
 * launcher so that the two agree on what can run.
 */
#ifndef ACP_PROC_H
#define ACP_PROC_H

#include <stddef.h>
#include <sys/types.h>

struct event_base;
struct evbuffer;
struct acp_proc;

struct acp_proc_cbs {
	void	(*on_stdout)(struct evbuffer *, void *);	/* new bytes */
	void	(*on_eof)(struct evbuffer *, void *);	/* stdout closed */
	void	(*on_exit)(int status, void *);		/* reaped */
};

int		 acp_proc_init(struct event_base *);
void		 acp_proc_shutdown(void);
/*
 * argv[0] is looked up in the PATH of the agent's environment. env_add
 * holds NAME=VALUE to set and bare NAMEs to inherit from the daemon's
 * environment; besides those, only basics such as PATH and HOME pass
 * (AU-10). A cwd right under the workspace is made, mode 0700.
 */
struct acp_proc	*acp_proc_spawn(struct event_base *, const char *name,
		    char *const argv[], const char *cwd,
		    const char *const *env_add, const struct acp_proc_cbs *,
		    void *arg, char *err, size_t errlen);
/* Agents' own directories live under dir (absolute); NULL for none. */
void		 acp_proc_set_workspace(const char *dir);
int		 acp_proc_write(struct acp_proc *, const char *, size_t);
/*
 * Stop (on) or go on (off) reading the agent's stdout: while held, the
 * pipe fills and the agent waits. Bytes read before stay in acp_proc_stdout().
 */
void		 acp_proc_hold(struct acp_proc *, int on);
struct evbuffer	*acp_proc_stdout(struct acp_proc *);
/* Close stdin; after grace SIGTERM the group; after grace SIGKILL. */
void		 acp_proc_stop(struct acp_proc *, int grace_ms);
void		 acp_proc_kill(struct acp_proc *);
pid_t		 acp_proc_pid(struct acp_proc *);
/* No more callbacks; a live process is killed and reaped later. */
void		 acp_proc_free(struct acp_proc *);
/* Describe a wait status for people. */
void		 acp_proc_status_str(int status, char *, size_t);

/*
 * Why a command line cannot run. acp_argv_parse() words these for the
 * log; the config check words them its own way.
 */
enum acp_argv_error {
	ACP_ARGV_OK,
	ACP_ARGV_NOMEM,
	ACP_ARGV_EMPTY,		/* no word at all */
	ACP_ARGV_NOPROG,	/* the first word is empty: '' or "" */
	ACP_ARGV_SQUOTE,	/* a ' quote is not closed */
	ACP_ARGV_DQUOTE,	/* a " quote is not closed */
	ACP_ARGV_BACKSLASH	/* a backslash ends the line */
};

/* acp_argv_parse() with the reason as a code, in *why. */
char		**acp_argv_split(const char *, enum acp_argv_error *why);

#endif
