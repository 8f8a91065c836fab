/*
 * dict.c: open addressing with linear probing and tombstones; the table
 * doubles at 50% load, so a lookup is a probe or two at any size.
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/dict.h"
#include "ircd/xmalloc.h"

struct slot {
	char	*key;		/* NULL: empty; TOMBSTONE: deleted */
	void	*value;
	uint32_t hash;
};

struct dict {
	struct slot	*slots;
	size_t		 size;		/* a power of two */
	size_t		 count;
	size_t		 used;		/* count + tombstones */
};

static char tombstone_key;
#define TOMBSTONE (&tombstone_key)

static uint32_t
dict_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

struct dict *
dict_new(void)
{
	struct dict *d = xcalloc(1, sizeof(*d));

	d->size = 64;
	d->slots = xcalloc(d->size, sizeof(*d->slots));
	return d;
}

void
dict_free(struct dict *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->size; i++)
		if (d->slots[i].key != NULL && d->slots[i].key != TOMBSTONE)
			free(d->slots[i].key);
	free(d->slots);
	free(d);
}

static struct slot *
dict_lookup(const struct dict *d, const char *key, uint32_t h)
{
	size_t mask = d->size - 1, i = h & mask;
	struct slot *s;

	for (;;) {
		s = &d->slots[i];
		if (s->key == NULL)
			return NULL;
		if (s->key != TOMBSTONE && s->hash == h && strcmp(s->key, key) == 0)
			return s;
		i = (i + 1) & mask;
	}
}

static void
dict_insert(struct dict *d, char *key, void *value, uint32_t h)
{
	size_t mask = d->size - 1, i = h & mask;

	while (d->slots[i].key != NULL && d->slots[i].key != TOMBSTONE)
		i = (i + 1) & mask;
	if (d->slots[i].key == NULL)
		d->used++;
	d->slots[i].key = key;
	d->slots[i].value = value;
	d->slots[i].hash = h;
	d->count++;
}

static void
dict_grow(struct dict *d)
{
	struct slot *old = d->slots;
	size_t i, oldsize = d->size;

	/* Rehash into a table sized for the live entries; drops tombstones. */
	while (d->count * 4 >= d->size)
		d->size *= 2;
	if (d->size == oldsize)
		d->size *= 2;
	d->slots = xcalloc(d->size, sizeof(*d->slots));
	d->count = d->used = 0;
	for (i = 0; i < oldsize; i++)
		if (old[i].key != NULL && old[i].key != TOMBSTONE)
			dict_insert(d, old[i].key, old[i].value, old[i].hash);
	free(old);
}

void
dict_set(struct dict *d, const char *key, void *value)
{
	uint32_t h = dict_hash(key);
	struct slot *s = dict_lookup(d, key, h);

	if (s != NULL) {
		s->value = value;
		return;
	}
	if ((d->used + 1) * 2 > d->size)
		dict_grow(d);
	dict_insert(d, xstrdup(key), value, h);
}

void *
dict_get(const struct dict *d, const char *key)
{
	struct slot *s = dict_lookup(d, key, dict_hash(key));

	return s != NULL ? s->value : NULL;
}

void *
dict_del(struct dict *d, const char *key)
{
	struct slot *s = dict_lookup(d, key, dict_hash(key));
	void *value;

	if (s == NULL)
		return NULL;
	value = s->value;
	free(s->key);
	s->key = TOMBSTONE;
	s->value = NULL;
	d->count--;
	return value;
}

size_t
dict_count(const struct dict *d)
{
	return d->count;
}

void *
dict_next(const struct dict *d, size_t *pos, const char **key)
{
	while (*pos < d->size) {
		struct slot *s = &d->slots[(*pos)++];

		if (s->key != NULL && s->key != TOMBSTONE) {
			if (key != NULL)
				*key = s->key;
			return s->value;
		}
	}
	return NULL;
}
