/*
 * sched-args.h: the arguments of the schedule tool, checked (SC-1). Pure:
 * fuzz_mcp drives it with what agents may send.
 */
#ifndef IRCD_BRIDGE_SCHED_ARGS_H
#define IRCD_BRIDGE_SCHED_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define SCHED_AHEAD_MAX_MS	(365LL * 24 * 3600 * 1000)	/* first firing */
#define SCHED_EVERY_MAX		525600		/* minutes: a year */
/*
 * A schedule's name is shown inside one NOTICE line, and its prompt is
 * sent as NOTICE lines and as one prompt: short, so a firing is not a
 * flood.
 */
#define SCHED_NAME_MAX		64
#define SCHED_PROMPT_MAX	4000

struct sched_args {
	const char	*name;		/* these point into the arguments */
	const char	*prompt;
	const char	*target;	/* NULL or "": the caller's conversation */
	int		 every;		/* minutes between firings, 0: once */
	int64_t		 next;		/* the first firing, ms */
};

/*
 * Check the schedule tool's arguments at now (ms), with minute_ms the
 * length of a minute (tests shorten it): 0, or -1 with why in out, for
 * the agent.
 */
int	sched_args_parse(const cJSON *args, int64_t now, int64_t minute_ms,
	    struct sched_args *, char *out, size_t len);
/* "2026-12-02T15:30:00Z" (fraction allowed, Z optional) as ms; -1 if not. */
int	sched_parse_time(const char *, int64_t *ms);

#endif
