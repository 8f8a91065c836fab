/*
 * passwd.h: password hashes for the config (SEC-2). crypt(3) with a
 * random salt; verification in constant time.
 */
#ifndef IRCD_PASSWD_H
#define IRCD_PASSWD_H

/* Hash password (of any length); returns a malloc'd crypt string ("$y$..." or "$6$..."), NULL on error. */
char	*passwd_hash(const char *password);
/* 1 if password matches hash, else 0. A hash that is not a crypt string never matches. */
int	 passwd_verify(const char *password, const char *hash);
/* 1 if s looks like a hash crypt(3) can verify. */
int	 passwd_is_hash(const char *s);

#endif
