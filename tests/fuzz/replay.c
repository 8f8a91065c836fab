/*
 * replay.c: runs a fuzz target's LLVMFuzzerTestOneInput over files, so
 * that make check replays the seeds (under the sanitizers in CI) and a
 * crash libFuzzer found can be rerun by hand:
 *	tests/fuzz/fuzz_message [file-or-directory ...]
 * Without arguments it takes $SRCDIR/tests/fuzz/seeds/<target>, the
 * target named by the program ("fuzz_message": "message"). Prints
 * TAP, one test per file; a target that breaks its invariants aborts.
 * Built with -DFUZZ_LIBFUZZER (scripts/fuzz) it is empty, and libFuzzer
 * brings the main().
 */
#include "compat.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#ifndef FUZZ_LIBFUZZER

#define MAXFILES	4096

static char	*files[MAXFILES];
static size_t	 nfiles;

static void
add(const char *path)
{
	if (nfiles == MAXFILES) {
		fprintf(stderr, "replay: more than %d files\n", MAXFILES);
		exit(2);
	}
	if ((files[nfiles++] = strdup(path)) == NULL)
		exit(2);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory gives its regular files, sorted for a stable TAP order. */
static void
collect(const char *path)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	char sub[4096];

	if (stat(path, &st) == -1) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		add(path);
		return;
	}
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (stat(sub, &st) == 0 && S_ISREG(st.st_mode))
			add(sub);
	}
	closedir(d);
}

/* The seeds by their path under tests/fuzz/, other files as given. */
static const char *
shown(const char *path)
{
	const char *p = strstr(path, "tests/fuzz/seeds/");

	return p != NULL ? p + strlen("tests/fuzz/") : path;
}

static int
replay(const char *path)
{
	FILE *f;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if ((f = fopen(path, "rb")) == NULL)
		return -1;
	do {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			if ((buf = realloc(buf, cap)) == NULL)
				exit(2);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *srcdir = getenv("SRCDIR"), *target;
	char dflt[4096];
	size_t i;
	int bad = 0;

	if (argc > 1) {
		for (i = 1; i < (size_t)argc; i++)
			collect(argv[i]);
	} else {
		target = strrchr(argv[0], '/') != NULL ?
		    strrchr(argv[0], '/') + 1 : argv[0];
		if (strncmp(target, "fuzz_", 5) == 0)
			target += 5;
		snprintf(dflt, sizeof(dflt), "%s/tests/fuzz/seeds/%s",
		    srcdir ? srcdir : ".", target);
		collect(dflt);
	}
	qsort(files, nfiles, sizeof(files[0]), cmp);
	printf("1..%zu\n", nfiles);
	for (i = 0; i < nfiles; i++) {
		if (replay(files[i]) == -1) {
			printf("not ok %zu - %s: %s\n", i + 1, shown(files[i]),
			    strerror(errno));
			bad = 1;
		} else
			printf("ok %zu - %s\n", i + 1, shown(files[i]));
		fflush(stdout);
		free(files[i]);
	}
	return bad;
}

#endif /* FUZZ_LIBFUZZER */
