/*
 * hook.c: the registered hook tables (hook.h), called in order. A handful
 * of tables at most, so a small array: a call is a short loop of tests
 * for NULL, cheap enough for every channel message.
 */
#include "compat.h"

#include <stddef.h>

#include "ircd/hook.h"

static const struct ircd_hooks *hooks[HOOK_MAX];
static size_t nhooks;

int
hook_register(const struct ircd_hooks *h)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i] == h)
			return 0;
	if (nhooks == HOOK_MAX)
		return -1;
	hooks[nhooks++] = h;
	return 0;
}

void
hook_unregister(const struct ircd_hooks *h)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i] == h) {
			for (; i + 1 < nhooks; i++)
				hooks[i] = hooks[i + 1];
			hooks[--nhooks] = NULL;
			return;
		}
}

/* Call fn with the arguments in every table that has it. */
#define HOOK_EACH(fn, ...) do {						\
	size_t i_;							\
									\
	for (i_ = 0; i_ < nhooks; i_++)					\
		if (hooks[i_]->fn != NULL)				\
			hooks[i_]->fn(__VA_ARGS__);			\
} while (0)

void
hook_channel_message(struct client *from, struct channel *ch, struct outmsg *om)
{
	HOOK_EACH(channel_message, from, ch, om);
}

void
hook_channel_gone(const struct channel *ch)
{
	HOOK_EACH(channel_gone, ch);
}

void
hook_user_joined(struct client *c, struct channel *ch)
{
	HOOK_EACH(user_joined, c, ch);
}

void
hook_logged_in(struct client *c)
{
	HOOK_EACH(logged_in, c);
}

int
hook_help(struct client *c, const char *subject)
{
	size_t i;

	/* The first table that knows the subject answers it. */
	for (i = 0; i < nhooks; i++)
		if (hooks[i]->help != NULL && hooks[i]->help(c, subject))
			return 1;
	return 0;
}

void
hook_rehash(const struct conf *old, const struct conf *new)
{
	HOOK_EACH(rehash, old, new);
}

void
hook_stopping(void)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i]->stopping != NULL)
			hooks[i]->stopping();
}

void
hook_user_new(struct client *c)
{
	HOOK_EACH(user_new, c);
}

void
hook_user_nick(struct client *c, const char *oldnick)
{
	HOOK_EACH(user_nick, c, oldnick);
}

void
hook_user_quit(struct client *c, const char *reason)
{
	HOOK_EACH(user_quit, c, reason);
}

void
hook_channel_mode(struct channel *ch, struct client *from, const char *change)
{
	HOOK_EACH(channel_mode, ch, from, change);
}

void
hook_topic(struct channel *ch, struct client *from)
{
	HOOK_EACH(topic, ch, from);
}

void
hook_user_parted(struct client *c, struct channel *ch, const char *reason)
{
	HOOK_EACH(user_parted, c, ch, reason);
}

void
hook_user_kicked(struct client *from, struct channel *ch,
    struct client *target, const char *reason)
{
	HOOK_EACH(user_kicked, from, ch, target, reason);
}

void
hook_user_away(struct client *c)
{
	HOOK_EACH(user_away, c);
}

void
hook_servers(hook_server_fn *fn, void *arg)
{
	HOOK_EACH(servers, fn, arg);
}

void
hook_user_oper(struct client *c)
{
	HOOK_EACH(user_oper, c);
}

void
hook_user_realname(struct client *c)
{
	HOOK_EACH(user_realname, c);
}
