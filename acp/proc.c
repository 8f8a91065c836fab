/*
 * proc.c: agent processes. fork/exec without a shell, a new session (so
 * a process group to signal, grandchildren included), pipes for stdio,
 * every other fd closed, a controlled environment. stderr goes to the
 * log, stripped and rate-limited. Exits are reaped by pid on SIGCHLD.
 */
#include "compat.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "acp/acp.h"
#include "acp/log.h"
#include "acp/proc.h"

extern char **environ;

#define STDERR_LINE_MAX		1024	/* longer lines are cut */
#define STDERR_WINDOW_S		10
#define STDERR_WINDOW_LINES	40

#define PROC_STDIN_MAX	(64u << 20)	/* bytes the agent has not read */

struct acp_proc {
	TAILQ_ENTRY(acp_proc)	 entry;
	char			 name[64];
	pid_t			 pid;
	struct bufferevent	*in, *out, *err;
	struct event		*term_ev, *kill_ev;
	struct event_base	*base;
	struct acp_proc_cbs	 cbs;
	void			*arg;
	int			 grace_ms;
	int			 reaped;
	int			 status;
	int			 out_eof;	/* stdout closed */
	int			 detached;	/* freed by the owner */
	int			 overrun;	/* killed: its stdin backlog */
	time_t			 err_window;
	int			 err_lines;
	int			 err_dropped;
};
TAILQ_HEAD(acp_procs, acp_proc);

static struct acp_procs	 procs = TAILQ_HEAD_INITIALIZER(procs);
static struct event	*sigchld_ev;
static char		*workspace;	/* parent of the agents' own dirs */

/*
 * Inherited variables an agent needs to run, and nothing else. Not the
 * proxies (a proxy URL may hold a password) nor XDG_RUNTIME_DIR and its
 * kin (the user's session bus and sockets): env-inherit names them.
 */
static const char *env_keep[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR", "SHELL",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", NULL
};

/*
 * Does the agent get the daemon's variable e? The basics, and what its
 * config names (a bare NAME in add, from env-inherit). Secrets such as
 * *_API_KEY only when named (AU-10, L5): one agent's key is not every
 * agent's.
 */
static int
env_inherit(const char *e, const char *const *add)
{
	size_t i, n;
	const char *eq;

	if ((eq = strchr(e, '=')) == NULL)
		return 0;
	n = (size_t)(eq - e);
	for (i = 0; env_keep[i] != NULL; i++)
		if (strlen(env_keep[i]) == n && strncmp(e, env_keep[i], n) == 0)
			return 1;
	if (strncmp(e, "LC_", 3) == 0)
		return 1;
	for (i = 0; add != NULL && add[i] != NULL; i++)
		if (strchr(add[i], '=') == NULL && strlen(add[i]) == n &&
		    strncmp(e, add[i], n) == 0)
			return 1;
	return 0;
}

static void
env_free(char **env)
{
	size_t i;

	if (env == NULL)
		return;
	for (i = 0; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/*
 * The agent's environment: a kept subset, then the configured additions.
 * add holds NAME=VALUE to set and bare NAMEs to inherit.
 */
static char **
env_build(const char *const *add)
{
	char **env;
	size_t n = 0, i, k, na = 0, klen;

	for (i = 0; environ[i] != NULL; i++)
		n++;
	for (i = 0; add != NULL && add[i] != NULL; i++)
		na++;
	if ((env = calloc(n + na + 2, sizeof(*env))) == NULL)
		return NULL;
	n = 0;
	for (i = 0; environ[i] != NULL; i++) {
		if (!env_inherit(environ[i], add))
			continue;
		/* A configured value overrides the inherited one. */
		klen = strcspn(environ[i], "=") + 1;
		for (k = 0; k < na; k++)
			if (strncmp(add[k], environ[i], klen) == 0)
				break;
		if (k < na)
			continue;
		if ((env[n++] = strdup(environ[i])) == NULL)
			goto fail;
	}
	for (k = 0; k < na; k++)
		if (strchr(add[k], '=') != NULL &&
		    (env[n++] = strdup(add[k])) == NULL)
			goto fail;
	/* Agents see no TTY; ask them not to colour their logs. */
	if ((env[n++] = strdup("NO_COLOR=1")) == NULL)
		goto fail;
	env[n] = NULL;
	return env;
fail:
	env_free(env);
	return NULL;
}

/*
 * Blanks between words: sh's space and tab, and \r \f \v as well, so that
 * no word carries a control character nobody sees in the config.
 */
static int
argv_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

char **
acp_argv_split(const char *s, enum acp_argv_error *why)
{
	char **argv = NULL, **nv, *word;
	size_t n = 0, len, wl;
	int inword, q;

	*why = ACP_ARGV_OK;
	len = strlen(s);
	if ((word = malloc(len + 1)) == NULL) {
		*why = ACP_ARGV_NOMEM;
		return NULL;
	}
	for (;;) {
		while (argv_blank((unsigned char)*s))
			s++;
		if (*s == '\0')
			break;
		wl = 0;
		inword = 1;
		q = 0;
		while (*s != '\0' && inword) {
			if (q == '\'') {
				if (*s == '\'')
					q = 0;
				else
					word[wl++] = *s;
			} else if (q == '"') {
				if (*s == '"')
					q = 0;
				else if (*s == '\\' && (s[1] == '"' ||
				    s[1] == '\\' || s[1] == '$' ||
				    s[1] == '`')) {
					s++;
					word[wl++] = *s;
				} else
					word[wl++] = *s;
			} else if (argv_blank((unsigned char)*s)) {
				inword = 0;
				continue;
			} else if (*s == '\'' || *s == '"')
				q = *s;
			else if (*s == '\\') {
				if (s[1] == '\0') {
					*why = ACP_ARGV_BACKSLASH;
					goto fail;
				}
				s++;
				word[wl++] = *s;
			} else
				word[wl++] = *s;
			s++;
		}
		if (q != 0) {
			*why = q == '\'' ? ACP_ARGV_SQUOTE : ACP_ARGV_DQUOTE;
			goto fail;
		}
		word[wl] = '\0';
		if ((nv = reallocarray(argv, n + 2, sizeof(*argv))) == NULL)
			goto oom;
		argv = nv;
		if ((argv[n] = strdup(word)) == NULL)
			goto oom;
		argv[++n] = NULL;
	}
	free(word);
	if (n == 0) {
		*why = ACP_ARGV_EMPTY;
		free(argv);
		return NULL;
	}
	/* execvp("") finds nothing: say so now, not when the agent starts. */
	if (argv[0][0] == '\0') {
		*why = ACP_ARGV_NOPROG;
		acp_argv_free(argv);
		return NULL;
	}
	return argv;
oom:
	*why = ACP_ARGV_NOMEM;
fail:
	free(word);
	if (argv != NULL) {
		argv[n] = NULL;
		acp_argv_free(argv);
	}
	return NULL;
}

char **
acp_argv_parse(const char *s, const char **err)
{
	static const char *const why_str[] = {
		[ACP_ARGV_OK] = NULL,
		[ACP_ARGV_NOMEM] = "out of memory",
		[ACP_ARGV_EMPTY] = "empty command",
		[ACP_ARGV_NOPROG] = "empty program name",
		[ACP_ARGV_SQUOTE] = "unterminated quote",
		[ACP_ARGV_DQUOTE] = "unterminated quote",
		[ACP_ARGV_BACKSLASH] = "trailing backslash",
	};
	enum acp_argv_error why;
	char **argv;

	argv = acp_argv_split(s, &why);
	*err = why_str[why];
	return argv;
}

void
acp_argv_free(char **argv)
{
	size_t i;

	if (argv == NULL)
		return;
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

void
acp_proc_status_str(int status, char *buf, size_t len)
{
	if (status == -1)
		snprintf(buf, len, "exit status unknown");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d",
		    WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "stopped (status %#x)", status);
}

static void
proc_destroy(struct acp_proc *p)
{
	TAILQ_REMOVE(&procs, p, entry);
	if (p->in != NULL)
		bufferevent_free(p->in);
	if (p->out != NULL)
		bufferevent_free(p->out);
	if (p->err != NULL)
		bufferevent_free(p->err);
	if (p->term_ev != NULL)
		event_free(p->term_ev);
	if (p->kill_ev != NULL)
		event_free(p->kill_ev);
	free(p);
}

static void
reap(evutil_socket_t sig, short ev, void *arg)
{
	struct acp_proc *p, *tp;
	int status;
	pid_t r;

	(void)sig;
	(void)ev;
	(void)arg;
	/* By pid: children of the daemon that are not agents are not ours. */
	TAILQ_FOREACH_SAFE(p, &procs, entry, tp) {
		if (p->reaped)
			continue;
		r = waitpid(p->pid, &status, WNOHANG);
		if (r == 0 || (r == -1 && errno == EINTR))
			continue;
		p->reaped = 1;
		p->status = r == -1 ? -1 : status;
		/* Sweep what the agent left in its group (MCP servers...). */
		kill(-p->pid, SIGKILL);
		if (p->term_ev != NULL)
			event_del(p->term_ev);
		if (p->kill_ev != NULL)
			event_del(p->kill_ev);
		if (p->detached) {
			proc_destroy(p);
			continue;
		}
		if (p->cbs.on_exit != NULL)
			p->cbs.on_exit(p->status, p->arg);
	}
}

int
acp_proc_init(struct event_base *base)
{
	if (sigchld_ev != NULL)
		return 0;
	/* A write to a dead agent's stdin must be an error, not a death. */
	signal(SIGPIPE, SIG_IGN);
	if ((sigchld_ev = evsignal_new(base, SIGCHLD, reap, NULL)) == NULL ||
	    evsignal_add(sigchld_ev, NULL) == -1)
		return -1;
	return 0;
}

static int
proc_grace_ms(const struct acp_proc *p)
{
	return p->grace_ms > 0 ? p->grace_ms : ACP_DEFAULT_GRACE_MS;
}

/*
 * The daemon is going: every agent gets EOF and SIGTERM, and until its
 * grace is over to leave with its whole group, as agents save their
 * sessions on the way out (Claude Code writes its transcript then, from a
 * process of the group) so that a restart loads them. Then SIGKILL.
 */
void
acp_proc_shutdown(void)
{
	struct acp_proc *p;
	struct timespec ts;
	long long deadline = 0, now;
	int status, busy;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	TAILQ_FOREACH(p, &procs, entry) {
		if (p->in != NULL) {
			bufferevent_free(p->in);
			p->in = NULL;
		}
		if (!p->reaped)
			kill(-p->pid, SIGTERM);
		if (now + proc_grace_ms(p) > deadline)
			deadline = now + proc_grace_ms(p);
	}
	for (;;) {
		busy = 0;
		TAILQ_FOREACH(p, &procs, entry) {
			if (!p->reaped && waitpid(p->pid, &status, WNOHANG) ==
			    p->pid)
				p->reaped = 1;
			if (!p->reaped || kill(-p->pid, 0) == 0 ||
			    errno != ESRCH)
				busy = 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		if (!busy || now >= deadline)
			break;
		ts.tv_sec = 0;
		ts.tv_nsec = 20 * 1000 * 1000;
		nanosleep(&ts, NULL);
	}
	while ((p = TAILQ_FIRST(&procs)) != NULL) {
		kill(-p->pid, SIGKILL);		/* what is left of the group */
		if (!p->reaped) {
			while (waitpid(p->pid, &status, 0) == -1 &&
			    errno == EINTR)
				;
		}
		proc_destroy(p);
	}
	if (sigchld_ev != NULL) {
		event_free(sigchld_ev);
		sigchld_ev = NULL;
	}
}

/* Log one stderr line: no escapes, no control bytes, bounded, rate-limited. */
static void
err_line(struct acp_proc *p, const char *s, size_t len)
{
	char clean[STDERR_LINE_MAX + 1];
	size_t i, n = 0;
	time_t now = time(NULL);

	for (i = 0; i < len && n < STDERR_LINE_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0x1b) {
			/* CSI: ESC [ params final; OSC: ESC ] ... BEL. */
			if (i + 1 < len && s[i + 1] == '[') {
				for (i += 2; i < len &&
				    !((unsigned char)s[i] >= 0x40 &&
				    (unsigned char)s[i] <= 0x7e); i++)
					;
			} else if (i + 1 < len && s[i + 1] == ']') {
				for (i += 2; i < len && s[i] != '\a'; i++)
					;
			} else
				i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			c = c == '\t' ? ' ' : '?';
		clean[n++] = (char)c;
	}
	clean[n] = '\0';
	while (n > 0 && clean[n - 1] == ' ')
		clean[--n] = '\0';
	if (n == 0)
		return;
	if (now - p->err_window >= STDERR_WINDOW_S) {
		if (p->err_dropped > 0)
			acp_warn("%s: %d stderr lines not logged", p->name,
			    p->err_dropped);
		p->err_window = now;
		p->err_lines = 0;
		p->err_dropped = 0;
	}
	if (++p->err_lines > STDERR_WINDOW_LINES) {
		p->err_dropped++;
		return;
	}
	acp_info("%s: %s", p->name, clean);
}

static void
err_read(struct bufferevent *bev, void *arg)
{
	struct acp_proc *p = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char buf[STDERR_LINE_MAX];
	struct evbuffer_ptr nl;
	size_t len;

	for (;;) {
		nl = evbuffer_search(in, "\n", 1, NULL);
		len = evbuffer_get_length(in);
		if (nl.pos == -1 && len < sizeof(buf))
			break;
		if (nl.pos != -1 && (size_t)nl.pos < sizeof(buf)) {
			evbuffer_remove(in, buf, (size_t)nl.pos);
			evbuffer_drain(in, 1);
			err_line(p, buf, (size_t)nl.pos);
		} else {
			/* A very long line: log its start, skip the rest. */
			evbuffer_remove(in, buf, sizeof(buf));
			err_line(p, buf, sizeof(buf));
			if (nl.pos != -1)
				evbuffer_drain(in, (size_t)nl.pos + 1 -
				    sizeof(buf));
			else
				evbuffer_drain(in, len - sizeof(buf));
		}
	}
}

static void
err_event(struct bufferevent *bev, short what, void *arg)
{
	struct acp_proc *p = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char buf[STDERR_LINE_MAX];
	size_t len;

	(void)what;
	err_read(bev, arg);
	if ((len = evbuffer_get_length(in)) > 0) {
		evbuffer_remove(in, buf, len);
		err_line(p, buf, len);
	}
	bufferevent_disable(bev, EV_READ);
}

static void
out_read(struct bufferevent *bev, void *arg)
{
	struct acp_proc *p = arg;

	if (p->cbs.on_stdout != NULL)
		p->cbs.on_stdout(bufferevent_get_input(bev), p->arg);
}

static void
out_event(struct bufferevent *bev, short what, void *arg)
{
	struct acp_proc *p = arg;

	if (what & BEV_EVENT_ERROR)
		acp_debug("%s: stdout: %s", p->name, strerror(errno));
	p->out_eof = 1;
	bufferevent_disable(bev, EV_READ);
	if (p->cbs.on_eof != NULL)
		p->cbs.on_eof(bufferevent_get_input(bev), p->arg);
}

void
acp_proc_hold(struct acp_proc *p, int on)
{
	/* After EOF there is nothing more to read, and reading again would
	 * report the EOF twice. */
	if (p->out_eof)
		return;
	if (on)
		bufferevent_disable(p->out, EV_READ);
	else
		bufferevent_enable(p->out, EV_READ);
}

struct evbuffer *
acp_proc_stdout(struct acp_proc *p)
{
	return bufferevent_get_input(p->out);
}

static void
in_event(struct bufferevent *bev, short what, void *arg)
{
	struct acp_proc *p = arg;

	/* EPIPE: the agent is going; stdout's EOF tells the rest. */
	(void)what;
	acp_debug("%s: stdin closed by the agent", p->name);
	bufferevent_disable(bev, EV_WRITE);
}

/*
 * In the child: every descriptor from lowfd up but keep is closed, so
 * that an agent inherits nothing of the server's (I4). The server's own
 * are close-on-exec already; this is for any that are not. close_range()
 * closes them all, however high the limit; the loop is for kernels and
 * libcs without it, and stops at 65536.
 */
static void
close_fds_from(int lowfd, int keep)
{
	long max, fd;
#ifdef HAVE_CLOSE_RANGE
	int below = 0;

	if (keep > lowfd)
		below = close_range((unsigned)lowfd, (unsigned)keep - 1, 0);
	if (below == 0 && close_range((unsigned)(keep >= lowfd ? keep + 1 :
	    lowfd), ~0U, 0) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = lowfd; fd < max; fd++)
		if (fd != keep)
			(void)close((int)fd);
}

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void
acp_proc_set_workspace(const char *dir)
{
	free(workspace);
	workspace = dir != NULL ? strdup(dir) : NULL;
}

/*
 * Make dir and its missing parents, mode 0700. Existing parents are the
 * administrator's; only dir itself (and the workspace above it) must be a
 * real directory: a symlink there could point an agent anywhere.
 */
static int
workspace_make(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	char *path, *s;
	size_t n = strlen(workspace);
	int rc = -1, last;

	if ((path = strdup(dir)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (s = path + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		last = *s == '\0';
		*s = '\0';
		if (mkdir(path, 0700) == -1 && errno != EEXIST) {
			snprintf(err, errlen, "workspace %s: %s", path,
			    strerror(errno));
			goto done;
		}
		if ((size_t)(s - path) >= n &&
		    (lstat(path, &st) == -1 || !S_ISDIR(st.st_mode))) {
			snprintf(err, errlen, "workspace %s: not a directory "
			    "(a symlink is refused)", path);
			goto done;
		}
		if (last)
			break;
		*s = '/';
	}
	rc = 0;
done:
	free(path);
	return rc;
}

/* Is cwd an agent's own directory, right under the workspace? */
static int
workspace_holds(const char *cwd)
{
	size_t n;

	if (workspace == NULL || cwd == NULL)
		return 0;
	n = strlen(workspace);
	return strncmp(cwd, workspace, n) == 0 && cwd[n] == '/' &&
	    cwd[n + 1] != '\0' && strchr(cwd + n + 1, '/') == NULL;
}

struct acp_proc *
acp_proc_spawn(struct event_base *base, const char *name, char *const argv[],
    const char *cwd, const char *const *env_add,
    const struct acp_proc_cbs *cbs, void *arg, char *err, size_t errlen)
{
	struct acp_proc *p;
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int pexec[2] = { -1, -1 }, cerr, i;
	char **env;
	ssize_t r;
	pid_t pid;
	sigset_t all;

	/* AU-10, L6: an agent's own workspace is made when it first starts. */
	if (workspace_holds(cwd) && workspace_make(cwd, err, errlen) == -1)
		return NULL;
	if ((env = env_build(env_add)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		env_free(env);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	strlcpy(p->name, name, sizeof(p->name));
	p->base = base;
	if (pipe2(pin, O_CLOEXEC) == -1 || pipe2(pout, O_CLOEXEC) == -1 ||
	    pipe2(perr, O_CLOEXEC) == -1 || pipe2(pexec, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	switch (pid = fork()) {
	case -1:
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto fail;
	case 0:
		/* The child: own session and group, plain signals, pipes. */
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		for (i = 1; i < NSIG; i++)
			if (i != SIGKILL && i != SIGSTOP)
				signal(i, SIG_DFL);
		setsid();
		if (dup2(pin[0], 0) == -1 || dup2(pout[1], 1) == -1 ||
		    dup2(perr[1], 2) == -1)
			goto child_fail;
		close_fds_from(3, pexec[1]);
		if (cwd != NULL && chdir(cwd) == -1)
			goto child_fail;
		execvpe(argv[0], argv, env);
	child_fail:
		cerr = errno;
		(void)write(pexec[1], &cerr, sizeof(cerr));
		_exit(127);
	}
	p->pid = pid;
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	close(pexec[1]);
	pin[0] = pout[1] = perr[1] = pexec[1] = -1;
	env_free(env);
	env = NULL;
	/* exec succeeded iff the CLOEXEC pipe closes without a word. */
	while ((r = read(pexec[0], &cerr, sizeof(cerr))) == -1 &&
	    errno == EINTR)
		;
	close(pexec[0]);
	pexec[0] = -1;
	TAILQ_INSERT_TAIL(&procs, p, entry);
	if (r == (ssize_t)sizeof(cerr)) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0],
		    strerror(cerr));
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		p->detached = 1;	/* reaped on SIGCHLD, then freed */
		return NULL;
	}
	set_nonblock(pin[1]);
	set_nonblock(pout[0]);
	set_nonblock(perr[0]);
	p->cbs = *cbs;
	p->arg = arg;
	p->in = bufferevent_socket_new(base, pin[1], BEV_OPT_CLOSE_ON_FREE);
	p->out = bufferevent_socket_new(base, pout[0], BEV_OPT_CLOSE_ON_FREE);
	p->err = bufferevent_socket_new(base, perr[0], BEV_OPT_CLOSE_ON_FREE);
	if (p->in == NULL || p->out == NULL || p->err == NULL) {
		snprintf(err, errlen, "out of memory");
		if (p->in == NULL)
			close(pin[1]);
		if (p->out == NULL)
			close(pout[0]);
		if (p->err == NULL)
			close(perr[0]);
		acp_proc_free(p);
		return NULL;
	}
	bufferevent_setcb(p->in, NULL, NULL, in_event, p);
	bufferevent_enable(p->in, EV_WRITE);
	bufferevent_setcb(p->out, out_read, NULL, out_event, p);
	bufferevent_enable(p->out, EV_READ);
	bufferevent_setcb(p->err, err_read, NULL, err_event, p);
	bufferevent_enable(p->err, EV_READ);
	acp_info("%s: started, pid %ld", p->name, (long)pid);
	return p;
fail:
	for (i = 0; i < 2; i++) {
		if (pin[i] != -1)
			close(pin[i]);
		if (pout[i] != -1)
			close(pout[i]);
		if (perr[i] != -1)
			close(perr[i]);
		if (pexec[i] != -1)
			close(pexec[i]);
	}
	env_free(env);
	free(p);
	return NULL;
}

/*
 * An agent that stops reading its stdin but keeps sending requests (each
 * answered) would grow this buffer for ever: past the cap it is killed,
 * and its death is handled as a crash.
 */
int
acp_proc_write(struct acp_proc *p, const char *buf, size_t len)
{
	if (p->in == NULL)
		return -1;
	if (evbuffer_get_length(bufferevent_get_output(p->in)) + len >
	    PROC_STDIN_MAX) {
		if (!p->reaped && !p->overrun) {
			acp_warn("%s: does not read its input (%u MiB waiting); "
			    "killing it", p->name, PROC_STDIN_MAX >> 20);
			p->overrun = 1;
			acp_proc_kill(p);
		}
		return -1;
	}
	return bufferevent_write(p->in, buf, len);
}

static void
kill_step(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_proc *p = arg;

	(void)fd;
	(void)ev;
	if (p->reaped)
		return;
	acp_warn("%s: still running after SIGTERM, SIGKILL", p->name);
	kill(-p->pid, SIGKILL);
}

static void
term_step(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_proc *p = arg;
	struct timeval tv = { p->grace_ms / 1000,
	    (p->grace_ms % 1000) * 1000 };

	(void)fd;
	(void)ev;
	if (p->reaped)
		return;
	/* Some agents ignore EOF on stdin (claude, codex). */
	acp_info("%s: still running after EOF, SIGTERM", p->name);
	kill(-p->pid, SIGTERM);
	evtimer_add(p->kill_ev, &tv);
}

void
acp_proc_stop(struct acp_proc *p, int grace_ms)
{
	struct timeval tv = { grace_ms / 1000, (grace_ms % 1000) * 1000 };

	if (p->reaped)
		return;
	/* Flush what is queued, then EOF: SDK agents exit on it. */
	if (p->in != NULL) {
		bufferevent_free(p->in);
		p->in = NULL;
	}
	if (p->term_ev != NULL)
		return;		/* already stopping */
	p->grace_ms = grace_ms;
	p->term_ev = evtimer_new(p->base, term_step, p);
	p->kill_ev = evtimer_new(p->base, kill_step, p);
	if (p->term_ev == NULL || p->kill_ev == NULL) {
		acp_proc_kill(p);
		return;
	}
	evtimer_add(p->term_ev, &tv);
}

void
acp_proc_kill(struct acp_proc *p)
{
	if (!p->reaped)
		kill(-p->pid, SIGKILL);
}

pid_t
acp_proc_pid(struct acp_proc *p)
{
	return p->pid;
}

void
acp_proc_free(struct acp_proc *p)
{
	struct timeval tv;

	if (p == NULL)
		return;
	if (p->reaped) {
		proc_destroy(p);
		return;
	}
	/*
	 * Still alive: EOF and SIGTERM, SIGKILL after its grace; reaped
	 * later, calling nobody. Not SIGKILL at once: an agent saves its
	 * sessions on the way out (acp_proc_shutdown).
	 */
	p->detached = 1;
	if (p->in != NULL) {
		bufferevent_free(p->in);
		p->in = NULL;
	}
	if (p->out != NULL) {
		bufferevent_free(p->out);
		p->out = NULL;
	}
	kill(-p->pid, SIGTERM);
	if (p->term_ev != NULL)
		event_del(p->term_ev);
	if (p->kill_ev == NULL)
		p->kill_ev = evtimer_new(p->base, kill_step, p);
	tv.tv_sec = proc_grace_ms(p) / 1000;
	tv.tv_usec = (proc_grace_ms(p) % 1000) * 1000;
	if (p->kill_ev == NULL || evtimer_add(p->kill_ev, &tv) == -1)
		kill(-p->pid, SIGKILL);
}
