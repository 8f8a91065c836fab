/*
 * isupport.c: the 005 tokens, built once from the config so that every
 * registration sends the same lines without formatting them again.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/banmask.h"
#include "ircd/casemap.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/isupport.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/* At most 13 tokens per line, as RFC 2812 clients expect. */
#define TOKENS_PER_LINE	13

static char	**lines;
static size_t	  nlines;

void
isupport_build(void)
{
	const struct conf *cf = ircd.conf;
	char tok[40][128], buf[IRC_LINELEN];
	size_t n = 0, i;

	isupport_free();
#define T(...) snprintf(tok[n++], sizeof(tok[0]), __VA_ARGS__)
	T("AWAYLEN=%d", AWAYLEN);
	T("BOT=B");
	T("CASEMAPPING=%s", CASEMAPPING);
	T("CHANLIMIT=#:%d", cf->max_channels);
	T("CHANMODES=Ibe,k,l,Cimnst");
	T("CHANNELLEN=%d", CHANNELLEN);
	T("CHANTYPES=#");
	T("CHATHISTORY=100");
	if (cf->client_tag_deny != NULL)
		T("CLIENTTAGDENY=%s", cf->client_tag_deny);
	T("ELIST=CMNTU");
	T("EXCEPTS=e");
	T("EXTBAN=,%s", BANMASK_EXTBANS);
	T("HOSTLEN=%d", HOSTLEN);
	T("INVEX=I");
	T("KICKLEN=%d", KICKLEN);
	T("MAXLIST=beI:%d", cf->max_bans);
	T("MAXTARGETS=%d", cf->max_targets);
	T("MODES=%d", MAXMODES);
	T("MONITOR=%d", cf->max_monitor);
	T("MSGREFTYPES=timestamp,msgid");
	T("NAMELEN=%d", REALLEN);
	T("NETWORK=%s", cf->network);
	T("NICKLEN=%d", NICKLEN);
	T("PREFIX=(ov)@+");
	T("SAFELIST");
	T("STATUSMSG=@+");
	T("TARGMAX=JOIN:,KICK:%d,LIST:,NAMES:%d,NOTICE:%d,PART:,PRIVMSG:%d,TAGMSG:%d,WHOIS:%d",
	    cf->max_targets, cf->max_targets, cf->max_targets, cf->max_targets,
	    cf->max_targets, cf->max_targets);
	T("TOPICLEN=%d", TOPICLEN);
	T("USERLEN=%d", USERLEN);
	T("WHOX");
#undef T
	for (i = 0; i < n; i += TOKENS_PER_LINE) {
		size_t j;

		buf[0] = '\0';
		for (j = i; j < n && j < i + TOKENS_PER_LINE; j++) {
			if (j > i)
				strlcat(buf, " ", sizeof(buf));
			strlcat(buf, tok[j], sizeof(buf));
		}
		lines = xreallocarray(lines, nlines + 1, sizeof(*lines));
		lines[nlines++] = xstrdup(buf);
	}
}

void
isupport_send(struct client *c)
{
	size_t i;

	for (i = 0; i < nlines; i++)
		reply(c, RPL_ISUPPORT, lines[i]);
}

void
isupport_free(void)
{
	size_t i;

	for (i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	lines = NULL;
	nlines = 0;
}
