/*
 * mkcert.c: agentircd --mkcert DIR writes a self-signed certificate and
 * key for a quick TLS start, and prints the fingerprint clients can pin.
 */
#include "compat.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ircd/mkcert.h"

/*
 * SEC-5, L7: path gets mode and fn's contents through a new file of its
 * own (O_EXCL, 0600 until fchmod) renamed over it: a symlink at path is
 * replaced, never followed, and an old file's looser mode is not kept.
 */
static int
mkcert_write(const char *path, int mode, int (*fn)(FILE *, void *), void *arg)
{
	char tmp[PATH_MAX];
	int fd;
	FILE *fp;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, "agentircd: %s: name too long\n", path);
		return -1;
	}
	if ((fd = mkstemp(tmp)) == -1) {
		fprintf(stderr, "agentircd: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	if (fchmod(fd, (mode_t)mode) == -1 || (fp = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "agentircd: %s: %s\n", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (!fn(fp, arg) || fflush(fp) != 0 || fsync(fileno(fp)) == -1) {
		fclose(fp);
		unlink(tmp);
		fprintf(stderr, "agentircd: cannot write %s\n", path);
		return -1;
	}
	if (fclose(fp) != 0 || rename(tmp, path) == -1) {
		fprintf(stderr, "agentircd: %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int
write_key(FILE *fp, void *arg)
{
	return PEM_write_PrivateKey(fp, arg, NULL, NULL, 0, NULL, NULL);
}

static int
write_cert(FILE *fp, void *arg)
{
	return PEM_write_X509(fp, arg);
}

/* mkdir -p */
static int
mkcert_mkdirs(const char *dir)
{
	char path[PATH_MAX], *p;

	if (strlcpy(path, dir, sizeof(path)) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(path, 0755) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
mkcert_run(const char *dir, const char *cn)
{
	char keypath[PATH_MAX + 32], certpath[PATH_MAX + 32];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n, i;
	EVP_PKEY *key = NULL;
	X509 *x = NULL;
	X509_NAME *name;
	int rc = 1;

	char abs[PATH_MAX];

	if (mkcert_mkdirs(dir) == -1 || realpath(dir, abs) == NULL) {
		fprintf(stderr, "agentircd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* Absolute paths: the config reads paths relative to itself. */
	snprintf(keypath, sizeof(keypath), "%s/agentircd.key", abs);
	snprintf(certpath, sizeof(certpath), "%s/agentircd.crt", abs);
	/*
	 * A certificate there may be pinned by clients: a new one would lock
	 * them out without a word. Making another is removing this one first.
	 */
	if (access(certpath, F_OK) == 0) {
		fprintf(stderr, "agentircd: %s exists already; clients that "
		    "pinned its fingerprint would refuse a new one: remove it "
		    "first to make another\n", certpath);
		return 2;
	}
	/* P-256: fast handshakes, and every client supports it. */
	if ((key = EVP_EC_gen("P-256")) == NULL || (x = X509_new()) == NULL)
		goto out;
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), (long)time(NULL));
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 10L * 365 * 24 * 3600);
	X509_set_pubkey(x, key);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, name);
	if (!X509_sign(x, key, EVP_sha256()))
		goto out;
	if (mkcert_write(keypath, 0600, write_key, key) == -1 ||
	    mkcert_write(certpath, 0644, write_cert, x) == -1)
		goto out;
	if (!X509_digest(x, EVP_sha256(), md, &n))
		goto out;
	printf("tls-cert = %s\ntls-key = %s\n", certpath, keypath);
	printf("SHA-256 fingerprint: ");
	for (i = 0; i < n; i++)
		printf("%02X%s", md[i], i + 1 < n ? ":" : "\n");
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "agentircd: cannot make a certificate in %s\n", dir);
	X509_free(x);
	EVP_PKEY_free(key);
	return rc;
}
