/*
 * convkey.c: conversation keys, built and read (convkey.h has their
 * forms). The joining of a private key is the store's own primitive,
 * store_private_key, since the store's schema reads the two sides back.
 */
#include "compat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ircd/casemap.h"
#include "ircd/convkey.h"
#include "store/store.h"

/*
 * What is kept of an account's or a service's name, casefolded: twice
 * NICKLEN, the cut keys have always had (CONVKEY_LEN is two of these).
 */
#define CONVKEY_NAMELEN	((CONVKEY_LEN - 2) / 2 - 2)

static void
convkey_named(struct convkey *k, const char *kind, const char *name)
{
	char folded[CONVKEY_NAMELEN + 1];

	casemap_fold(folded, name, sizeof(folded));
	snprintf(k->s, sizeof(k->s), "%s:%s", kind, folded);
}

void
convkey_channel(struct convkey *k, const char *name)
{
	casemap_fold(k->s, name, sizeof(k->s));
}

void
convkey_account(struct convkey *k, const char *account)
{
	convkey_named(k, "a", account);
}

void
convkey_service(struct convkey *k, const char *nick)
{
	convkey_named(k, "g", nick);
}

void
convkey_connection(struct convkey *k, const char *start, uint64_t id)
{
	/* The run's id too: connection ids begin again at 1 at each start. */
	snprintf(k->s, sizeof(k->s), "c:%s.%" PRIu64, start, id);
}

void
convkey_private(struct convkey *k, const struct convkey *p1,
    const struct convkey *p2)
{
	store_private_key(k->s, sizeof(k->s), p1->s, p2->s);
}

int
convkey_is_channel(const char *key)
{
	return key[0] == '#';
}

int
convkey_is_connection(const char *key)
{
	return strncmp(key, "c:", 2) == 0;
}

int
convkey_side(const char *key, const char *principal)
{
	size_t lk = strlen(key), lp = strlen(principal);

	/* A principal has no space: the key's one space parts the sides. */
	if (lk <= lp)
		return 0;
	if (strncmp(key, principal, lp) == 0 && key[lp] == ' ')
		return 1;
	return key[lk - lp - 1] == ' ' && strcmp(key + lk - lp, principal) == 0;
}

int
convkey_involves(const char *key, const char *principal)
{
	return strcmp(key, principal) == 0 || convkey_side(key, principal);
}

int
convkey_other(const char *key, const char *principal, struct convkey *other)
{
	size_t lk = strlen(key), lp = strlen(principal);

	if (!convkey_side(key, principal))
		return -1;
	/* Either side may be principal (both, for a key of one with itself). */
	if (strncmp(key, principal, lp) == 0 && key[lp] == ' ')
		strlcpy(other->s, key + lp + 1, sizeof(other->s));
	else
		snprintf(other->s, sizeof(other->s), "%.*s", (int)(lk - lp - 1),
		    key);
	return 0;
}
