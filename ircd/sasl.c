/*
 * sasl.c: AUTHENTICATE, for SASL PLAIN (RFC 4616) against the config's
 * password hashes and EXTERNAL (RFC 4422) by TLS client certificate
 * fingerprint. The exchange is client-first: one empty challenge, then
 * the response in 400-byte base64 chunks.
 */
#include "compat.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ircd/account.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/sasl.h"
#include "ircd/verify.h"
#include "ircd/xmalloc.h"

#define SASL_CHUNK	400
/* PLAIN with a long password fits in far less; more is an attack. */
#define SASL_MAX	8192

enum sasl_mech { SASL_PLAIN = 1, SASL_EXTERNAL };

struct sasl {
	enum sasl_mech	 mech;
	char		*buf;		/* base64 collected so far */
	size_t		 len;
};

void
sasl_free(struct client *c)
{
	if (c->sasl == NULL)
		return;
	if (c->sasl->buf != NULL) {
		OPENSSL_cleanse(c->sasl->buf, c->sasl->len);
		free(c->sasl->buf);
	}
	free(c->sasl);
	c->sasl = NULL;
}

void
sasl_abort(struct client *c)
{
	if (c->sasl == NULL)
		return;
	sasl_free(c);
	reply(c, ERR_SASLABORTED);
}

/* 904; name: the account tried, if any (SEC-6 counts it too). */
static void
sasl_fail(struct client *c, const char *name)
{
	sasl_free(c);
	reply(c, ERR_SASLFAIL);
	account_failed(c, LOGIN_ACCOUNT, name);
}

int
sasl_decode(const char *in, size_t inlen, unsigned char **out)
{
	int n, pad = 0;

	if (inlen % 4 != 0)
		return -1;
	*out = xmalloc(inlen / 4 * 3 + 1);
	n = EVP_DecodeBlock(*out, (const unsigned char *)in, (int)inlen);
	if (n < 0) {
		free(*out);
		return -1;
	}
	/* EVP_DecodeBlock counts padding as zero bytes: take them off. */
	if (inlen >= 1 && in[inlen - 1] == '=')
		pad++;
	if (inlen >= 2 && in[inlen - 2] == '=')
		pad++;
	n -= pad;
	(*out)[n] = '\0';
	return n;
}

int
sasl_plain_split(const unsigned char *raw, size_t n, const char **authzid,
    const char **authcid, const char **password)
{
	const unsigned char *p1, *p2;

	if (raw == NULL || (p1 = memchr(raw, '\0', n)) == NULL ||
	    (p2 = memchr(p1 + 1, '\0', n - (size_t)(p1 - raw) - 1)) == NULL)
		return -1;
	/* The password runs to the end: a third NUL is no part of PLAIN. */
	if (memchr(p2 + 1, '\0', n - (size_t)(p2 - raw) - 1) != NULL)
		return -1;
	*authzid = (const char *)raw;
	*authcid = (const char *)p1 + 1;
	*password = (const char *)p2 + 1;
	return 0;
}

/* The end of a PLAIN exchange, once the password is checked (verify.c). */
static void
sasl_plain_checked(struct client *c, int ok, const char *authcid)
{
	const char *account = ok ? account_with_password(authcid) : NULL;

	if (account == NULL) {
		sasl_fail(c, authcid);
		return;
	}
	sasl_free(c);
	account_login(c, account);
	reply(c, RPL_SASLSUCCESS);
}

static void
sasl_finish(struct client *c)
{
	struct sasl *s = c->sasl;
	unsigned char *raw = NULL;
	const char *account = NULL, *authzid, *authcid, *password;
	const char *tried = NULL;	/* the account tried, for SEC-6 */
	int n = 0;

	if (s->len > 0 && (n = sasl_decode(s->buf, s->len, &raw)) < 0) {
		sasl_fail(c, NULL);
		return;
	}
	if (s->mech == SASL_PLAIN) {
		if (sasl_plain_split(raw, (size_t)n, &authzid, &authcid,
		    &password) == -1)
			goto fail;
		/*
		 * SEC-6: an account tried too often waits, from anywhere; the
		 * try is refused unchecked, and not counted again.
		 */
		if (account_may_try(c, LOGIN_ACCOUNT, authcid) > 0) {
			sasl_free(c);
			reply(c, ERR_SASLFAIL);
			goto done;
		}
		tried = authcid;
		if (authzid[0] != '\0' && strcasecmp(authzid, authcid) != 0)
			goto fail;	/* no acting as someone else */
		/* SEC-6: hashed off the loop; c's lines wait for the answer. */
		if (verify_start(c, password, account_password_hash(authcid),
		    sasl_plain_checked, authcid) == -1) {
			sasl_free(c);
			reply(c, ERR_SASLFAIL);
			client_send(c, ":%s NOTICE %s :The server is busy checking "
			    "passwords; try again in a moment", ircd.conf->name,
			    c->nick[0] != '\0' ? c->nick : "*");
		}
		goto done;
	} else {
		/* The identity is the certificate; an authzid must name it. */
		account = account_check_certfp(c->certfp);
		if (account != NULL && raw != NULL && raw[0] != '\0' &&
		    strcasecmp((const char *)raw, account) != 0)
			account = NULL;
	}
	if (account == NULL)
		goto fail;
	sasl_free(c);
	account_login(c, account);
	reply(c, RPL_SASLSUCCESS);
	goto done;
fail:
	sasl_fail(c, tried);
done:
	if (raw != NULL) {
		OPENSSL_cleanse(raw, (size_t)n);
		free(raw);
	}
}

void
cmd_authenticate(struct client *c, struct message *m)
{
	const char *arg = m->params[0];
	struct sasl *s = c->sasl;
	size_t len = strlen(arg);

	if (!account_any()) {
		reply(c, ERR_SASLFAIL);
		return;
	}
	if (strcmp(arg, "*") == 0) {
		if (s != NULL)
			sasl_abort(c);
		else
			reply(c, ERR_SASLABORTED);
		return;
	}
	if (len > SASL_CHUNK) {
		/* IRCv3 sasl-3.1: a parameter over 400 bytes is 905. */
		sasl_free(c);
		reply(c, ERR_SASLTOOLONG);
		return;
	}
	if (s == NULL) {
		if (c->account != NULL) {
			reply(c, ERR_SASLALREADY);
			return;
		}
		s = xcalloc(1, sizeof(*s));
		if (strcasecmp(arg, "PLAIN") == 0)
			s->mech = SASL_PLAIN;
		else if (strcasecmp(arg, "EXTERNAL") == 0 && c->certfp != NULL)
			s->mech = SASL_EXTERNAL;
		else {
			free(s);
			reply(c, RPL_SASLMECHS, c->certfp != NULL ?
			    "PLAIN,EXTERNAL" : "PLAIN");
			reply(c, ERR_SASLFAIL);
			return;
		}
		c->sasl = s;
		client_send(c, "AUTHENTICATE +");
		return;
	}
	if (strcmp(arg, "+") != 0) {
		if (s->len + len > SASL_MAX) {
			/*
			 * Too much in all is a failed login; 905 is for one
			 * line over 400 bytes (IRCv3 sasl-3.1).
			 */
			sasl_fail(c, NULL);
			return;
		}
		s->buf = xreallocarray(s->buf, s->len + len + 1, 1);
		memcpy(s->buf + s->len, arg, len);
		s->len += len;
		s->buf[s->len] = '\0';
	}
	/* A full chunk means more follows (or "+" to end it). */
	if (len == SASL_CHUNK)
		return;
	sasl_finish(c);
}
