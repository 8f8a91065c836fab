/*
 * dict.h: a hash table of strings to pointers, keyed by the casefolded
 * name so that NICK and JOIN look ups are one probe, whatever the case.
 */
#ifndef IRCD_DICT_H
#define IRCD_DICT_H

#include <stddef.h>

struct dict;

struct dict	*dict_new(void);
void		 dict_free(struct dict *);
/* key is casefolded by the caller; the dict copies it. Replaces any old value. */
void		 dict_set(struct dict *, const char *key, void *value);
void		*dict_get(const struct dict *, const char *key);
void		*dict_del(struct dict *, const char *key);
size_t		 dict_count(const struct dict *);
/* Iterate: start with *pos = 0; returns the next value or NULL at the end. */
void		*dict_next(const struct dict *, size_t *pos, const char **key);

#endif
