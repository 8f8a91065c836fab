/*
 * main.c: command line, and the one place that wires the layers together:
 * the IRC core (server_*), then the agent bridge on top of it (bridge_*,
 * which hooks into the core). Runs the server in the foreground with its
 * log on stderr, checks a config (-n), or hashes a password for the config.
 */
#include "compat.h"

#include <openssl/crypto.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>

#include "acp/proc.h"
#include "ircd/bridge/bridge.h"
#include "ircd/bridge/mcp.h"
#include "ircd/link/link.h"
#include "ircd/conf.h"
#include "ircd/hook.h"
#include "ircd/ircd.h"
#include "ircd/log.h"
#include "ircd/mkcert.h"
#include "ircd/passwd.h"
#include "ircd/preflight.h"
#include "ircd/sysexits.h"
#include "ircd/trust.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: agentircd [-dn] [-f file]\n"
	    "       agentircd --hash-password < password\n"
	    "       agentircd --mkcert dir\n"
	    "       agentircd --mcp-bridge socket   (run by agents)\n"
	    "       agentircd --version\n");
	exit(EX_USAGE);
}

/* path as the kernel resolves it, or as written if it does not exist. */
static char *
main_realpath(const char *path)
{
	char *r;

	if ((r = realpath(path, NULL)) == NULL)
		r = strdup(path);
	return r;
}

/* Is dir the directory held, or one above it? */
static int
main_dir_holds(const char *dir, const char *held)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(dir, held, n) == 0 &&
	    (held[n] == '\0' || held[n] == '/');
}

/*
 * AU-10, L6: an agent whose cwd holds the config or the database can
 * read the password hashes and keys, or edit the config to run any
 * command at the next restart. Say so; the administrator decides.
 */
static void
main_warn_cwds(const struct conf *cf)
{
	char *confdir, *dbdir = NULL, *cwd, *slash;
	size_t i;

	if ((confdir = main_realpath(cf->dir)) == NULL)
		return;
	if (strcmp(cf->database, ":memory:") != 0 &&
	    (dbdir = strdup(cf->database)) != NULL &&
	    (slash = strrchr(dbdir, '/')) != NULL) {
		*slash = '\0';
		cwd = main_realpath(dbdir[0] != '\0' ? dbdir : "/");
		free(dbdir);
		dbdir = cwd;
	}
	for (i = 0; i < cf->nagents; i++) {
		if (cf->agents[i].cwd == NULL ||
		    (cwd = main_realpath(cf->agents[i].cwd)) == NULL)
			continue;
		if (main_dir_holds(cwd, confdir))
			log_warnx("agent %s: cwd %s holds the configuration "
			    "file's directory %s: the agent can read and edit "
			    "the config (AU-10)", cf->agents[i].name,
			    cf->agents[i].cwd, confdir);
		else if (dbdir != NULL && main_dir_holds(cwd, dbdir))
			log_warnx("agent %s: cwd %s holds the database's "
			    "directory %s: the agent can read the database "
			    "(AU-10)", cf->agents[i].name, cf->agents[i].cwd,
			    dbdir);
		free(cwd);
	}
	free(confdir);
	free(dbdir);
}

/* AU-10: the new file's agents' cwds are checked as at start. */
static void
main_rehash(const struct conf *old, const struct conf *new)
{
	(void)old;
	main_warn_cwds(new);
}

static const struct ircd_hooks main_hooks = {
	.rehash = main_rehash,
};

/*
 * One line of standard input into *line (its ending cut): its length, or
 * -1 at the end of input. On a terminal, prompt first, without echo
 * (SEC-8, I3): nobody reads the password over one's shoulder or in a
 * terminal's scrollback.
 */
static ssize_t
read_password(const char *prompt, char **line, size_t *cap)
{
	struct termios old, quiet;
	int tty = isatty(STDIN_FILENO), echo_off = 0;
	ssize_t n;

	if (tty) {
		/*
		 * The echo goes off before the prompt shows: what is typed
		 * after it is never echoed, nor flushed away.
		 */
		if (tcgetattr(STDIN_FILENO, &old) == 0) {
			quiet = old;
			quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
			echo_off = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0;
		}
		fprintf(stderr, "%s", prompt);
	}
	n = getline(line, cap, stdin);
	if (echo_off) {
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
		fprintf(stderr, "\n");
	}
	if (n <= 0)
		return -1;
	while (n > 0 && ((*line)[n - 1] == '\n' || (*line)[n - 1] == '\r'))
		(*line)[--n] = '\0';
	return n;
}

/*
 * --hash-password: a password on standard input, its hash on standard
 * output. On a terminal it is asked for twice, and the two must agree.
 */
static int
hash_password(void)
{
	char *line = NULL, *again = NULL, *hash = NULL;
	size_t cap = 0, acap = 0;
	ssize_t n;
	int ret = EX_OK;

	if ((n = read_password("Password: ", &line, &cap)) == -1) {
		fprintf(stderr, "agentircd: no password on standard input\n");
		ret = EX_USAGE;
	} else if (n == 0) {
		fprintf(stderr, "agentircd: empty password\n");
		ret = EX_USAGE;
	} else if (isatty(STDIN_FILENO) && (read_password("Again: ", &again,
	    &acap) == -1 || strcmp(line, again) != 0)) {
		fprintf(stderr, "agentircd: the passwords differ\n");
		ret = EX_USAGE;
	} else if ((hash = passwd_hash(line)) == NULL) {
		fprintf(stderr, "agentircd: cannot hash the password\n");
		ret = EX_SOFTWARE;
	} else
		printf("%s\n", hash);
	if (line != NULL)
		OPENSSL_cleanse(line, cap);
	if (again != NULL)
		OPENSSL_cleanse(again, acap);
	free(line);
	free(again);
	free(hash);
	return ret;
}

/* Every client is a descriptor: take all the kernel allows us. */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_warn("setrlimit(RLIMIT_NOFILE)");
	}
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "hash-password", no_argument, NULL, 'H' },
		{ "mkcert", required_argument, NULL, 'M' },
		{ "mcp-bridge", required_argument, NULL, 'B' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = "agentircd.conf";
	char err[1024];
	struct conf *cf;
	int ch, check = 0, debug = 0;

	while ((ch = getopt_long(argc, argv, "df:nh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'f':
			file = optarg;
			break;
		case 'n':
			check = 1;
			break;
		case 'H':
			return hash_password();
		case 'B':
			return mcp_bridge_main(optarg);
		case 'M':
			switch (mkcert_run(optarg, "agentircd")) {
			case 0:
				return EX_OK;
			case 2:
				return EX_CANTCREAT;
			default:
				return EX_SOFTWARE;
			}
		case 'V':
			printf("%s\n", IRCD_VERSION);
			return EX_OK;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_init(debug);

	if (access(file, R_OK) == -1) {
		fprintf(stderr, "agentircd: %s: %s\n", file, strerror(errno));
		return EX_NOINPUT;
	}
	if ((cf = conf_load(file, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return EX_CONFIG;
	}
	/* SEC-5, M5: nobody else may write what the server trusts. */
	if (trust_check(cf, file, err, sizeof(err)) == -1) {
		fprintf(stderr, "agentircd: %s\n", err);
		conf_free(cf);
		return EX_CONFIG;
	}
	/* What would fail at start or at first use: errors for -n. */
	if (check) {
		if (preflight_run(cf, 1) > 0) {
			conf_free(cf);
			return EX_CONFIG;
		}
		fprintf(stderr, "%s: configuration OK\n", file);
		conf_free(cf);
		return EX_OK;
	}
	preflight_run(cf, 0);
	raise_nofile();
	acp_proc_set_workspace(cf->workspace);
	main_warn_cwds(cf);
	hook_register(&main_hooks);
	if (server_init(cf) == -1 || bridge_init() == -1 ||
	    link_init() == -1) {
		conf_free(cf);
		return EX_OSERR;
	}
	server_run();
	link_shutdown();
	bridge_shutdown();
	hook_unregister(&main_hooks);
	acp_proc_set_workspace(NULL);
	server_free();
	conf_free(cf);
	log_info("exiting");
	return EX_OK;
}
