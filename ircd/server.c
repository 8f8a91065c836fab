/*
 * server.c: the server around the loop: set up from the config, signals
 * (SIGTERM quits, SIGHUP reloads), message ids, and an orderly shutdown
 * that tells every client why.
 */
#include "compat.h"

#include <event2/event.h>

#include <openssl/rand.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ircd/account.h"
#include "ircd/cap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/hook.h"
#include "ircd/isupport.h"
#include "ircd/listen.h"
#include "ircd/log.h"
#include "ircd/reply.h"
#include "ircd/verify.h"
#include "ircd/whowas.h"

struct ircd ircd;

static struct event *sig_term, *sig_int, *sig_hup;

static void
server_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	if (sig == SIGHUP) {
		log_info("SIGHUP: reloading");
		server_rehash();
		return;
	}
	log_info("signal %d: shutting down", (int)sig);
	server_shutdown("Server shutting down");
}

/* Channels named in the config exist from the start and never die empty. */
static void
server_conf_channels(void)
{
	size_t i;

	for (i = 0; i < ircd.conf->nchannels; i++) {
		const struct conf_channel *cc = &ircd.conf->channels[i];
		struct channel *ch = channel_find(cc->name);
		const char *p;
		int dir = '+';

		if (ch == NULL)
			ch = channel_create(cc->name);
		ch->permanent = 1;
		if (cc->topic != NULL && ch->topic == NULL)
			channel_set_topic(ch, cc->topic, ircd.conf->name, time(NULL));
		if (cc->modes == NULL)
			continue;
		/* "+ntk key +l 10" style: flags, then k and l arguments in order. */
		{
			char buf[256], *words[8], *save = NULL, *w;
			int nw = 0, arg = 1;

			strlcpy(buf, cc->modes, sizeof(buf));
			for (w = strtok_r(buf, " ", &save); w != NULL && nw < 8;
			    w = strtok_r(NULL, " ", &save))
				words[nw++] = w;
			ch->modes = 0;
			for (p = nw > 0 ? words[0] : ""; *p != '\0'; p++) {
				unsigned bit = mode_chan_flag(*p);

				switch (*p) {
				case '+': case '-': dir = *p; continue;
				case 'k':
					if (dir == '+' && arg < nw)
						strlcpy(ch->key, words[arg++], sizeof(ch->key));
					continue;
				case 'l':
					if (dir == '+' && arg < nw)
						ch->limit = (unsigned)strtoul(words[arg++], NULL, 10);
					continue;
				}
				if (dir == '+')
					ch->modes |= bit;
				else
					ch->modes &= ~bit;
			}
		}
	}
}

int
server_init(struct conf *cf)
{
	time_t now = time(NULL);

	ircd.conf = cf;
	ircd.started = now;
	clock_utc(ircd.created, sizeof(ircd.created),
	    "%a %b %d %Y at %H:%M:%S UTC", now);
	{
		unsigned char rnd[4];

		/* Start time and randomness: ids never repeat across restarts. */
		if (RAND_bytes(rnd, sizeof(rnd)) != 1)
			memset(rnd, 0, sizeof(rnd));
		snprintf(ircd.msgid_base, sizeof(ircd.msgid_base), "%llx%02x%02x%02x%02x",
		    (unsigned long long)now, rnd[0], rnd[1], rnd[2], rnd[3]);
	}
	TAILQ_INIT(&ircd.all);
	if ((ircd.base = event_base_new()) == NULL) {
		log_warnx("event_base_new failed");
		return -1;
	}
	ircd.clients = dict_new();
	ircd.channels = dict_new();
	whowas_init(cf->whowas);
	(void)verify_init();	/* without its thread, hashes run in the loop */
	isupport_build();
	motd_load();
	if (history_open() == -1)
		return -1;
	server_conf_channels();
	if (listen_start(cf) == -1)
		return -1;

	signal(SIGPIPE, SIG_IGN);
	sig_term = evsignal_new(ircd.base, SIGTERM, server_signal_cb, NULL);
	sig_int = evsignal_new(ircd.base, SIGINT, server_signal_cb, NULL);
	sig_hup = evsignal_new(ircd.base, SIGHUP, server_signal_cb, NULL);
	evsignal_add(sig_term, NULL);
	evsignal_add(sig_int, NULL);
	evsignal_add(sig_hup, NULL);
	log_info("%s started as %s", IRCD_VERSION, cf->name);
	return 0;
}

void
server_run(void)
{
	struct client *c;

	event_base_dispatch(ircd.base);
	ircd.stopping = 1;

	/* Tear down in order so leak checkers see a clean exit; hooks first. */
	hook_stopping();
	while ((c = TAILQ_FIRST(&ircd.all)) != NULL)
		client_exit(c, "Server shutting down");
	/*
	 * Let closing connections flush their ERROR lines and free themselves;
	 * each has a linger timer, so this ends within a few seconds.
	 */
	while (ircd.nconns > 0)
		event_base_loop(ircd.base, EVLOOP_ONCE);
	conn_shutdown();
	client_reap();
}

void
server_free(void)
{
	struct channel *ch;
	size_t pos = 0;

	/* Everyone has gone: every channel is freed, its state stays stored. */
	while ((ch = dict_next(ircd.channels, &pos, NULL)) != NULL) {
		if (ch->nmembers > 0)
			continue;
		channel_destroy(ch);
		pos = 0;
	}
	listen_stop();
	history_close();
	verify_shutdown();
	account_shutdown();
	event_free(sig_term);
	event_free(sig_int);
	event_free(sig_hup);
	client_shutdown();
	dict_free(ircd.clients);
	dict_free(ircd.channels);
	whowas_free();
	isupport_free();
	motd_free();
	event_base_free(ircd.base);
	ircd.base = NULL;
}

void
server_shutdown(const char *reason)
{
	struct client *c, *tc;

	ircd.stopping = 1;
	listen_stop();
	/*
	 * The hooks go first: agents' processes may still answer while the
	 * loop runs below, and an answer must not find its users already gone.
	 */
	hook_stopping();
	TAILQ_FOREACH_SAFE(c, &ircd.all, entry, tc)
		client_exit(c, reason);
	/* Give the ERROR lines a moment to leave, then stop. */
	{
		struct timeval tv = { 0, 200000 };

		event_base_loopexit(ircd.base, &tv);
	}
}

/*
 * SIGHUP and REHASH: accounts, operators, the server's password and the
 * MOTD come from the file again, and TLS listeners load their
 * certificates again; the [agent] sections are the rehash hook's (the bridge adds, removes and changes
 * agents, and says so). Connected clients stay; a config with an error
 * changes nothing, and the operators are told why.
 */
void
server_rehash(void)
{
	struct conf *nc;
	char err[1024];
	unsigned before = cap_offered();

	if ((nc = conf_load(ircd.conf->path, err, sizeof(err))) == NULL) {
		log_warnx("rehash: %s; keeping the running configuration", err);
		reply_opers("Rehash refused, nothing changed: %s", err);
		return;
	}
	hook_rehash(ircd.conf, nc);
#define SWAP(f) do {							\
	__typeof__(ircd.conf->f) t_ = ircd.conf->f;			\
	ircd.conf->f = nc->f;						\
	nc->f = t_;							\
} while (0)
	SWAP(accounts);
	SWAP(naccounts);
	SWAP(opers);
	SWAP(nopers);
	SWAP(motd);
	SWAP(password);		/* checked as a client registers */
	/* The hook has pointed what it keeps of [agent] at the new array. */
	SWAP(agents);
	SWAP(nagents);
#undef SWAP
	conf_free(nc);
	motd_load();
	listen_reload_tls();
	cap_notify_change(before, cap_offered());
	log_info("rehashed: accounts, operators, MOTD and certificates reloaded");
}

uint64_t
server_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *
server_msgid(char *buf, size_t len)
{
	snprintf(buf, len, "%s-%llx", ircd.msgid_base,
	    (unsigned long long)++ircd.msgid_seq);
	return buf;
}
