/*
 * preflight.c: the config problems that conf_load cannot see because
 * they are outside the file (issue 24): a tls-key nobody can read was
 * found only by the first start, an agent's command not on PATH only
 * when someone first spoke to it, a cwd that does not exist only then.
 * -n reports them all as errors; a start logs them as warnings (the
 * server still serves the rest).
 */
#include "compat.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ircd/conf.h"
#include "ircd/listen.h"
#include "ircd/log.h"
#include "ircd/preflight.h"

/* execvp's search path when PATH is unset (glibc's confstr default). */
#define PREFLIGHT_DEFPATH	"/bin:/usr/bin"

struct pf {
	const struct conf	*cf;
	int			 check;
	size_t			 n;
};

static void __attribute__((format(printf, 3, 4)))
pf_say(struct pf *pf, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pf->check)
		fprintf(stderr, "%s:%d: %s\n", pf->cf->path, line, msg);
	else
		log_warnx("%s:%d: %s", pf->cf->path, line, msg);
	pf->n++;
}

static void
pf_readable(struct pf *pf, int line, const char *addr, const char *key,
    const char *file)
{
	if (file != NULL && access(file, R_OK) == -1)
		pf_say(pf, line, "[listen] %s: %s %s: %s", addr, key, file,
		    strerror(errno));
}

/*
 * Where execvp would find prog with search path path (NULL: the default
 * search path): into buf, 0; -1 when nowhere, errno saying why.
 */
static int
pf_find_prog(const char *prog, const char *path, char *buf, size_t len)
{
	const char *p, *end;
	int saved = ENOENT;

	if (strchr(prog, '/') != NULL) {
		snprintf(buf, len, "%s", prog);
		return access(prog, X_OK) == 0 ? 0 : -1;
	}
	if (path == NULL)
		path = PREFLIGHT_DEFPATH;
	for (p = path; ; p = end + 1) {
		struct stat sb;
		size_t n;

		end = strchr(p, ':');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		/* An empty entry is the current directory, as for execvp. */
		snprintf(buf, len, "%.*s%s%s", (int)n, n > 0 ? p : ".",
		    "/", prog);
		if (stat(buf, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    access(buf, X_OK) == 0)
			return 0;
		if (errno != ENOENT && errno != ENOTDIR)
			saved = errno;
		if (end == NULL)
			break;
	}
	errno = saved;
	return -1;
}

/* The PATH the agent's execvp searches: its env's, else the daemon's. */
static const char *
pf_agent_path(const struct conf_agent *ca)
{
	size_t i;

	for (i = 0; ca->env != NULL && ca->env[i] != NULL; i++)
		if (strncmp(ca->env[i], "PATH=", 5) == 0)
			return ca->env[i] + 5;
	return getenv("PATH");
}

/* The default cwd, <workspace>/<name>, is made when the agent starts. */
static int
pf_default_cwd(const struct conf *cf, const struct conf_agent *ca)
{
	size_t n;

	if (cf->workspace == NULL)
		return 0;
	n = strlen(cf->workspace);
	return strncmp(ca->cwd, cf->workspace, n) == 0 && ca->cwd[n] == '/' &&
	    strcmp(ca->cwd + n + 1, ca->name) == 0;
}

static void
pf_agent(struct pf *pf, const struct conf_agent *ca)
{
	char where[4096];
	struct stat sb;
	const char *prog = ca->argv[0];

	if (ca->cwd != NULL && !pf_default_cwd(pf->cf, ca)) {
		if (stat(ca->cwd, &sb) == -1)
			pf_say(pf, ca->line, "[agent %s]: cwd %s: %s", ca->name,
			    ca->cwd, strerror(errno));
		else if (!S_ISDIR(sb.st_mode))
			pf_say(pf, ca->line, "[agent %s]: cwd %s is not a "
			    "directory", ca->name, ca->cwd);
	}
	/*
	 * A relative path with a '/' is found from the agent's cwd, which
	 * may be made at its start: only an absolute one or a bare name.
	 */
	if (prog[0] != '/' && strchr(prog, '/') != NULL)
		return;
	if (pf_find_prog(prog, pf_agent_path(ca), where,
	    sizeof(where)) == -1) {
		if (prog[0] == '/')
			pf_say(pf, ca->line, "[agent %s]: command %s: %s",
			    ca->name, prog, strerror(errno));
		else
			pf_say(pf, ca->line, "[agent %s]: command %s: not found "
			    "on %s", ca->name, prog, pf_agent_path(ca) != NULL ?
			    "PATH" : "the default PATH " PREFLIGHT_DEFPATH);
	}
}

size_t
preflight_run(const struct conf *cf, int check)
{
	struct pf pf = { cf, check, 0 };
	size_t i, before;

	for (i = 0; i < cf->nlistens; i++) {
		const struct conf_listen *cl = &cf->listens[i];

		if (cl->tls_cert == NULL)
			continue;
		before = pf.n;
		pf_readable(&pf, cl->line, cl->address, "tls-cert", cl->tls_cert);
		pf_readable(&pf, cl->line, cl->address, "tls-key", cl->tls_key);
		pf_readable(&pf, cl->line, cl->address, "tls-client-ca",
		    cl->tls_client_ca);
		/* Readable, but do they load, and does the key match? */
		if (pf.n == before && listen_tls_usable(cl) == -1)
			pf_say(&pf, cl->line, "[listen] %s: its TLS files or "
			    "ciphers do not load (the reason is above)",
			    cl->address);
	}
	for (i = 0; i < cf->nagents; i++)
		pf_agent(&pf, &cf->agents[i]);
	return pf.n;
}
