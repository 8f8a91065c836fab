/*
 * proc.h: one agent process: spawned with pipes in its own process group,
 * stderr logged, stopped in steps, reaped by pid. Internal to acp/.
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

int		 proc_init(struct event_base *);
void		 proc_shutdown(void);
/* argv[0] is looked up in the PATH of the agent's environment. */
struct acp_proc	*proc_spawn(struct event_base *, const char *name,
		    char *const argv[], const char *cwd,
		    const char *const *env_add, const struct acp_proc_cbs *,
		    void *arg, char *err, size_t errlen);
int		 proc_write(struct acp_proc *, const char *, size_t);
/*
 * Stop (on) or go on (off) reading the agent's stdout: while held, the
 * pipe fills and the agent waits. Bytes read before stay in proc_stdout().
 */
void		 proc_hold(struct acp_proc *, int on);
struct evbuffer	*proc_stdout(struct acp_proc *);
/* Close stdin; after grace SIGTERM the group; after grace SIGKILL. */
void		 proc_stop(struct acp_proc *, int grace_ms);
void		 proc_kill(struct acp_proc *);
pid_t		 proc_pid(struct acp_proc *);
int		 proc_exited(struct acp_proc *);
/* No more callbacks; a live process is killed and reaped later. */
void		 proc_free(struct acp_proc *);
/* Describe a wait status for people. */
void		 proc_status_str(int status, char *, size_t);

#endif
