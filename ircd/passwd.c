/*
 * passwd.c: crypt(3) password hashes for the config (SEC-2). Hashing
 * uses libxcrypt with a random salt; checks compare in constant time.
 */
#include "compat.h"

#include <crypt.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "ircd/passwd.h"
#include "ircd/xmalloc.h"

/*
 * SHA-512 crypt is only the fallback for a libxcrypt built without
 * yescrypt; raise its cost well above the historical 5000 rounds.
 */
#define PASSWD_SHA512_ROUNDS	100000

/* Longest hash we accept in a config; real ones are under 150 bytes. */
#define PASSWD_HASH_MAX		(CRYPT_OUTPUT_SIZE - 1)

/*
 * Prefixes of the methods we accept, with the shortest plausible full
 * hash for each, so a truncated paste is caught at config load.
 */
static const struct {
	const char	*prefix;
	size_t		 minlen;
} passwd_methods[] = {
	{ "$y$",	50 },	/* yescrypt */
	{ "$gy$",	50 },	/* gost-yescrypt */
	{ "$7$",	50 },	/* scrypt */
	{ "$6$",	90 },	/* sha512crypt */
	{ "$5$",	45 },	/* sha256crypt */
	{ "$2b$",	60 },	/* bcrypt */
};

/*
 * crypt(3) refuses a passphrase of CRYPT_MAX_PASSPHRASE_SIZE (512) bytes
 * or more, and a SASL PLAIN password may be longer (PASS's fits in a
 * line). Such a password is digested first (SHA-512, in base64, after
 * this prefix), and crypt sees the digest, which is short: shorter
 * passwords go to crypt as they are, so every hash made before stays
 * good. The digest could be typed as a password of its own, but only by
 * someone who knows the long password's SHA-512 already.
 */
#define PASSWD_PREHASH		"agentircd-sha512:"
#define PASSWD_PREHASH_LEN	(sizeof(PASSWD_PREHASH) - 1 + 88 + 1)

/* What crypt is given for password: itself, or its digest in buf. */
static const char *
passwd_input(const char *password, char *buf)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t len = strlen(password), plen = sizeof(PASSWD_PREHASH) - 1;

	if (len < CRYPT_MAX_PASSPHRASE_SIZE)
		return password;
	if (EVP_Digest(password, len, md, &mdlen, EVP_sha512(), NULL) != 1)
		return NULL;
	memcpy(buf, PASSWD_PREHASH, plen);
	/* 64 bytes are 88 base64 characters and a NUL. */
	EVP_EncodeBlock((unsigned char *)buf + plen, md, (int)mdlen);
	OPENSSL_cleanse(md, sizeof(md));
	return buf;
}

/* Run crypt_rn on heap state that is wiped before it is freed. */
static char *
passwd_crypt(const char *password, const char *setting)
{
	struct crypt_data *cd;
	char buf[PASSWD_PREHASH_LEN];
	const char *input;
	char *out = NULL;

	if ((input = passwd_input(password, buf)) == NULL)
		return NULL;
	/* struct crypt_data is ~32 KiB: too big for an event loop's stack. */
	cd = xcalloc(1, sizeof(*cd));
	if (crypt_rn(input, setting, cd, sizeof(*cd)) != NULL &&
	    cd->output[0] != '*')
		out = xstrdup(cd->output);
	OPENSSL_cleanse(cd, sizeof(*cd));
	OPENSSL_cleanse(buf, sizeof(buf));
	free(cd);
	return out;
}

char *
passwd_hash(const char *password)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];

	if (password == NULL)
		return NULL;
	/* NULL random bytes: libxcrypt reads the kernel's random source. */
	if (crypt_gensalt_rn("$y$", 0, NULL, 0, salt, sizeof(salt)) == NULL &&
	    crypt_gensalt_rn("$6$", PASSWD_SHA512_ROUNDS, NULL, 0, salt,
	    sizeof(salt)) == NULL)
		return NULL;
	return passwd_crypt(password, salt);
}

int
passwd_verify(const char *password, const char *hash)
{
	char *computed;
	size_t len;
	int match;

	if (password == NULL || !passwd_is_hash(hash))
		return 0;
	if ((computed = passwd_crypt(password, hash)) == NULL)
		return 0;
	/* Length is not secret: every hash of this method has the same one. */
	len = strlen(hash);
	match = strlen(computed) == len &&
	    CRYPTO_memcmp(computed, hash, len) == 0;
	OPENSSL_cleanse(computed, strlen(computed));
	free(computed);
	return match;
}

int
passwd_is_hash(const char *s)
{
	size_t i, len, dollars = 0;

	if (s == NULL)
		return 0;
	len = strlen(s);
	if (len > PASSWD_HASH_MAX)
		return 0;
	/* The crypt alphabet, "$" separators and "=" of "rounds=N". */
	for (i = 0; i < len; i++) {
		if (s[i] == '$')
			dollars++;
		else if (strchr("./=,", s[i]) == NULL &&
		    !((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	}
	if (dollars < 3)
		return 0;
	for (i = 0; i < sizeof(passwd_methods) / sizeof(passwd_methods[0]);
	    i++) {
		if (strncmp(s, passwd_methods[i].prefix,
		    strlen(passwd_methods[i].prefix)) == 0)
			return len >= passwd_methods[i].minlen;
	}
	return 0;
}
