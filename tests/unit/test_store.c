/*
 * test_store.c: the store API on temporary databases: migrations, every
 * CHATHISTORY direction, private keys, targets, retention, channels and
 * bans, key/value, the agent transcript, sessions, memberships and
 * mentions, the batch of a loop turn (seen from a second connection),
 * and writes and reads that fail without crashing.
 */
#include "compat.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"
/* Only for the busy timeout of the lock test: 5 s would slow it down. */
#include "store/store-int.h"
#include "tests/unit/tap.h"

static char dir[64];
static char err[512];
static char last_log[1024];
static int n_errors;

static void
capture_log(int is_error, const char *msg)
{
	strlcpy(last_log, msg, sizeof(last_log));
	if (is_error)
		n_errors++;
}

static const char *
path_in(const char *name)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
add(struct store *s, const char *conv, const char *target, const char *nick,
    const char *msgid, int64_t t)
{
	struct store_msg m;
	char prefix[64];

	memset(&m, 0, sizeof(m));
	strlcpy(m.msgid, msgid, sizeof(m.msgid));
	m.time = t;
	m.conv = conv;
	m.target = target;
	m.kind = "PRIVMSG";
	snprintf(prefix, sizeof(prefix), "%s!u@h", nick);
	m.prefix = prefix;
	m.nick = nick;
	m.account = NULL;
	m.text = msgid;
	m.tags = NULL;
	return store_history_add(s, &m);
}

/* Collects "msgid,msgid,..." and checks the ascending order. */
struct seen {
	char	ids[1024];
	int64_t	last_time, last_id;
	int	unordered;
};

static void
collect(const struct store_msg *m, void *arg)
{
	struct seen *sn = arg;

	if (m->time < sn->last_time ||
	    (m->time == sn->last_time && m->id <= sn->last_id))
		sn->unordered = 1;
	sn->last_time = m->time;
	sn->last_id = m->id;
	if (sn->ids[0] != '\0')
		strlcat(sn->ids, ",", sizeof(sn->ids));
	strlcat(sn->ids, m->msgid, sizeof(sn->ids));
}

static struct seen sn;

static int
count_ids(const char *s)
{
	int n;

	if (*s == '\0')
		return 0;
	for (n = 1; *s != '\0'; s++)
		if (*s == ',')
			n++;
	return n;
}

/*
 * Runs a query as who (NULL: anyone); returns the ids seen ("" for
 * none), "-1"/"-2" on errors.
 */
static const char *
qas(struct store *s, const char *conv, const struct store_who *who,
    enum store_dir dir_, const struct store_ref *r1,
    const struct store_ref *r2, int limit)
{
	static char out[1100];
	int n;

	memset(&sn, 0, sizeof(sn));
	sn.last_time = INT64_MIN;
	sn.last_id = INT64_MIN;
	n = store_history_query_as(s, conv, who, dir_, r1, r2, limit, collect,
	    &sn);
	if (n < 0) {
		snprintf(out, sizeof(out), "%d", n);
		return out;
	}
	if (sn.unordered)
		return "(not ascending)";
	if (n != count_ids(sn.ids))
		return "(count mismatch)";
	snprintf(out, sizeof(out), "%s", sn.ids);
	return out;
}

static const char *
q(struct store *s, const char *conv, enum store_dir dir_,
    const struct store_ref *r1, const struct store_ref *r2, int limit)
{
	return qas(s, conv, NULL, dir_, r1, r2, limit);
}

static struct store_ref *
id(const char *msgid)
{
	static struct store_ref r[4];
	static int i;

	i = (i + 1) % 4;
	r[i].msgid = msgid;
	r[i].time = 0;
	return &r[i];
}

static struct store_ref *
at(int64_t t)
{
	static struct store_ref r[4];
	static int i;

	i = (i + 1) % 4;
	r[i].msgid = NULL;
	r[i].time = t;
	return &r[i];
}

static int
raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/* The single integer a query on the file gives, or -1. */
static long long
raw_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

static void
test_open(void)
{
	struct store *s;
	FILE *f;

	is_int(store_version_latest(), 8, "this build knows schema version 8");
	s = store_open(path_in("a.db"), err, sizeof(err));
	ok(s != NULL, "open creates a new database");
	if (s == NULL) {
		printf("# %s\n", err);
		exit(1);
	}
	is_int(store_version(s), store_version_latest(),
	    "a new database is at the latest version");
	is_int(add(s, "#keep", "#Keep", "alice", "keep1", 1000), 0,
	    "add a message");
	store_close(s);

	s = store_open(path_in("a.db"), err, sizeof(err));
	ok(s != NULL, "reopen");
	is_str(q(s, "#keep", STORE_LATEST, NULL, NULL, 10), "keep1",
	    "reopen keeps the data");
	is_int(store_version(s), store_version_latest(),
	    "reopen stays at the latest version");
	store_close(s);

	/* An empty file is a database at user_version 0 with no tables. */
	f = fopen(path_in("empty.db"), "w");
	if (f != NULL)
		fclose(f);
	s = store_open(path_in("empty.db"), err, sizeof(err));
	ok(s != NULL, "an empty file opens");
	is_int(s != NULL ? store_version(s) : -1, store_version_latest(),
	    "an empty file migrates to the latest version");
	is_int(s != NULL ? add(s, "#x", "#x", "a", "e1", 1) : -1, 0,
	    "and takes messages");
	store_close(s);

	/* A database at 0 that some tool already touched (a page exists). */
	ok(raw_exec(path_in("zero.db"),
	    "CREATE TABLE unrelated (x); PRAGMA user_version = 0") == 0,
	    "make a version 0 database");
	s = store_open(path_in("zero.db"), err, sizeof(err));
	is_int(s != NULL ? store_version(s) : -1, store_version_latest(),
	    "a version 0 database migrates");
	store_close(s);

	ok(raw_exec(path_in("future.db"), "PRAGMA user_version = 99") == 0,
	    "make a version 99 database");
	s = store_open(path_in("future.db"), err, sizeof(err));
	ok(s == NULL, "a newer schema is refused");
	ok(strstr(err, "newer") != NULL && strstr(err, "99") != NULL,
	    "with a clear error");
	printf("# %s\n", err);
	store_close(s);

	f = fopen(path_in("junk.db"), "w");
	if (f != NULL) {
		fputs("this is not a database, not at all, not even close\n"
		    "padding padding padding padding padding padding\n", f);
		fclose(f);
	}
	s = store_open(path_in("junk.db"), err, sizeof(err));
	ok(s == NULL, "a file that is not a database is refused");
	ok(strstr(err, "junk.db") != NULL, "the error names the file");
	printf("# %s\n", err);
	store_close(s);
}

/*
 * #chan: m1@1000 m2@2000 m3@2000 m4@3000 m5@4000 m6@4000 m7@4000
 * m8@5000 m9@6000 m10@7000, with #other interleaved at the same times.
 */
static void
fill_chan(struct store *s)
{
	static const int64_t t[] = { 1000, 2000, 2000, 3000, 4000, 4000, 4000,
	    5000, 6000, 7000 };
	char msgid[16];
	int i, fail = 0;

	for (i = 0; i < 10; i++) {
		snprintf(msgid, sizeof(msgid), "m%d", i + 1);
		fail |= add(s, "#chan", "#Chan", "alice", msgid, t[i]);
		snprintf(msgid, sizeof(msgid), "o%d", i + 1);
		fail |= add(s, "#other", "#other", "bob", msgid, t[i]);
	}
	is_int(fail, 0, "add 20 messages");
}

static void
first_fields(const struct store_msg *m, void *arg)
{
	struct store_msg *out = arg;
	static char text[64], prefix[64], tags[64], conv[64], target[64];
	static char kind[16], nick[32], account[32];

	if (out->id != 0)
		return;
	*out = *m;
	strlcpy(text, m->text, sizeof(text));
	strlcpy(prefix, m->prefix, sizeof(prefix));
	strlcpy(conv, m->conv, sizeof(conv));
	strlcpy(target, m->target, sizeof(target));
	strlcpy(tags, m->tags != NULL ? m->tags : "(null)", sizeof(tags));
	out->text = text;
	out->prefix = prefix;
	out->conv = conv;
	out->target = target;
	out->tags = tags;
	strlcpy(kind, m->kind, sizeof(kind));
	strlcpy(nick, m->nick, sizeof(nick));
	strlcpy(account, m->account != NULL ? m->account : "(null)",
	    sizeof(account));
	out->kind = kind;
	out->nick = nick;
	out->account = account;
}

static void
test_history(void)
{
	struct store *s;
	struct store_msg m, got;
	int n;

	s = store_open(path_in("h.db"), err, sizeof(err));
	if (s == NULL) {
		printf("# %s\n", err);
		exit(1);
	}
	fill_chan(s);

	memset(&m, 0, sizeof(m));
	strlcpy(m.msgid, "full", sizeof(m.msgid));
	m.time = 8000;
	m.conv = "#fields";
	m.target = "#Fields";
	m.kind = "NOTICE";
	m.prefix = "carol!c@host";
	m.nick = "carol";
	m.account = "carolacct";
	m.text = "hello \x01" "ACTION waves\x01";
	m.tags = "+reply=m1";
	is_int(store_history_add(s, &m), 0, "add a message with every field");
	ok(m.id > 0, "add sets the id");
	memset(&got, 0, sizeof(got));
	n = store_history_query(s, "#fields", STORE_LATEST, NULL, NULL, 5,
	    first_fields, &got);
	is_int(n, 1, "query returns it");
	is_int(got.id, m.id, "same id");
	is_str(got.msgid, "full", "msgid");
	is_int(got.time, 8000, "time");
	is_str(got.kind, "NOTICE", "kind");
	is_str(got.prefix, "carol!c@host", "prefix");
	is_str(got.nick, "carol", "nick");
	is_str(got.account, "carolacct", "account");
	is_str(got.conv, "#fields", "conv");
	is_str(got.target, "#Fields", "target");
	is_str(got.text, "hello \x01" "ACTION waves\x01", "text");
	is_str(got.tags, "+reply=m1", "tags");

	is_int(store_history_has(s, "full"), 1, "has: a stored msgid");
	is_int(store_history_has(s, "fulll"), 0, "has: not another");
	is_int(store_history_has(s, "ful"), 0, "has: nor a prefix of it");
	n_errors = 0;
	is_int(store_history_add(s, &m), -1, "a duplicate msgid is refused");
	ok(n_errors == 1 && strstr(last_log, "UNIQUE") != NULL,
	    "with a log line");
	printf("# %s\n", last_log);
	strlcpy(m.msgid, "join", sizeof(m.msgid));
	m.kind = "JOIN";
	is_int(store_history_add(s, &m), -1, "kind must be PRIVMSG or NOTICE");

	is_str(q(s, "#chan", STORE_LATEST, NULL, NULL, 3), "m8,m9,m10",
	    "LATEST * 3");
	is_str(q(s, "#chan", STORE_LATEST, NULL, NULL, 100),
	    "m1,m2,m3,m4,m5,m6,m7,m8,m9,m10", "LATEST * 100");
	is_str(q(s, "#chan", STORE_LATEST, NULL, NULL, 8),
	    "m3,m4,m5,m6,m7,m8,m9,m10", "LATEST cuts a tie by id");
	is_str(q(s, "#chan", STORE_LATEST, NULL, NULL, 0), "", "limit 0");
	is_str(q(s, "#nothing", STORE_LATEST, NULL, NULL, 10), "",
	    "an unknown conversation is empty");
	is_str(q(s, "#chan", STORE_LATEST, id("m7"), NULL, 2), "m9,m10",
	    "LATEST after a msgid, newest");
	is_str(q(s, "#chan", STORE_LATEST, id("m7"), NULL, 10), "m8,m9,m10",
	    "LATEST after a msgid");
	is_str(q(s, "#chan", STORE_LATEST, id("m5"), NULL, 10),
	    "m6,m7,m8,m9,m10", "LATEST after a msgid within a tie");
	is_str(q(s, "#chan", STORE_LATEST, at(4000), NULL, 10), "m8,m9,m10",
	    "LATEST after a time is exclusive");
	is_str(q(s, "#chan", STORE_LATEST, id("m10"), NULL, 10), "",
	    "LATEST after the newest is empty");

	is_str(q(s, "#chan", STORE_BEFORE, id("m6"), NULL, 3), "m3,m4,m5",
	    "BEFORE a msgid: the 3 just before");
	is_str(q(s, "#chan", STORE_BEFORE, id("m3"), NULL, 10), "m1,m2",
	    "BEFORE a msgid within a tie");
	is_str(q(s, "#chan", STORE_BEFORE, at(4000), NULL, 10),
	    "m1,m2,m3,m4", "BEFORE a time is exclusive");
	is_str(q(s, "#chan", STORE_BEFORE, at(4001), NULL, 2), "m6,m7",
	    "BEFORE a time, limited");
	is_str(q(s, "#chan", STORE_BEFORE, id("m1"), NULL, 10), "",
	    "BEFORE the oldest is empty");

	is_str(q(s, "#chan", STORE_AFTER, id("m2"), NULL, 2), "m3,m4",
	    "AFTER a msgid: the 2 just after");
	is_str(q(s, "#chan", STORE_AFTER, at(2000), NULL, 3), "m4,m5,m6",
	    "AFTER a time is exclusive");
	is_str(q(s, "#chan", STORE_AFTER, at(0), NULL, 100),
	    "m1,m2,m3,m4,m5,m6,m7,m8,m9,m10", "AFTER the epoch: everything");

	is_str(q(s, "#chan", STORE_AROUND, id("m6"), NULL, 5),
	    "m4,m5,m6,m7,m8", "AROUND a msgid includes it");
	is_str(q(s, "#chan", STORE_AROUND, id("m6"), NULL, 1), "m6",
	    "AROUND limit 1 is the message itself");
	is_str(q(s, "#chan", STORE_AROUND, id("m6"), NULL, 4),
	    "m4,m5,m6,m7", "AROUND an even limit");
	is_str(q(s, "#chan", STORE_AROUND, id("m1"), NULL, 4), "m1,m2",
	    "AROUND the oldest");
	is_str(q(s, "#chan", STORE_AROUND, at(4000), NULL, 4),
	    "m3,m4,m5,m6", "AROUND a time");

	is_str(q(s, "#chan", STORE_BETWEEN, id("m2"), id("m8"), 10),
	    "m3,m4,m5,m6,m7", "BETWEEN two msgids, exclusive");
	is_str(q(s, "#chan", STORE_BETWEEN, id("m2"), id("m8"), 2), "m3,m4",
	    "BETWEEN ascending keeps the oldest");
	is_str(q(s, "#chan", STORE_BETWEEN, id("m8"), id("m2"), 2), "m6,m7",
	    "BETWEEN descending keeps the newest");
	is_str(q(s, "#chan", STORE_BETWEEN, id("m8"), id("m2"), 10),
	    "m3,m4,m5,m6,m7", "BETWEEN descending, all, ascending order");
	is_str(q(s, "#chan", STORE_BETWEEN, at(2000), at(5000), 10),
	    "m4,m5,m6,m7", "BETWEEN two times, exclusive");
	is_str(q(s, "#chan", STORE_BETWEEN, at(5000), id("m2"), 10),
	    "m3,m4,m5,m6,m7", "BETWEEN a time and a msgid");
	is_str(q(s, "#chan", STORE_BETWEEN, id("m5"), id("m7"), 10), "m6",
	    "BETWEEN inside a tie");
	is_str(q(s, "#chan", STORE_BETWEEN, id("m5"), id("m5"), 10), "",
	    "BETWEEN a message and itself is empty");

	is_str(q(s, "#chan", STORE_BEFORE, id("nope"), NULL, 10), "-2",
	    "an unknown msgid is -2");
	is_str(q(s, "#chan", STORE_AFTER, id("o3"), NULL, 10), "-2",
	    "a msgid of another conversation is -2");
	is_str(q(s, "#chan", STORE_BETWEEN, id("m1"), id("nope"), 10), "-2",
	    "an unknown second msgid is -2");
	is_str(q(s, "#other", STORE_LATEST, NULL, NULL, 3), "o8,o9,o10",
	    "conversations do not mix");
	n_errors = 0;
	is_str(q(s, "#chan", STORE_BEFORE, NULL, NULL, 10), "-1",
	    "BEFORE without a reference is an error");
	is_int(n_errors, 1, "that logs");
	store_close(s);
}

static void
test_private(void)
{
	struct store *s;
	char key[128], ab[128], ac[128], a7[128];

	store_private_key(key, sizeof(key), "c:5", "a:bob");
	is_str(key, "a:bob c:5", "private key sorts");
	store_private_key(key, sizeof(key), "a:bob", "c:5");
	is_str(key, "a:bob c:5", "private key is symmetric");
	store_private_key(key, sizeof(key), "g:claude", "g:claude");
	is_str(key, "g:claude g:claude", "private key with oneself");

	s = store_open(path_in("p.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	store_private_key(ab, sizeof(ab), "a:alice", "a:bob");
	store_private_key(ac, sizeof(ac), "g:claude", "a:alice");
	store_private_key(a7, sizeof(a7), "a:alice", "c:7");
	add(s, ab, "Bob", "Alice", "p1", 1000);
	add(s, ab, "Alice", "Bob", "p2", 2000);
	add(s, ac, "Claude", "Alice", "p3", 3000);
	add(s, "#chan", "#chan", "Bob", "p4", 3500);

	ok(store_private_find(s, "a:alice", "bob", key, sizeof(key)) == 0 &&
	    strcmp(key, ab) == 0, "find a peer by the nick it used");
	ok(store_private_find(s, "a:bob", "alice", key, sizeof(key)) == 0 &&
	    strcmp(key, ab) == 0, "from the other side");
	ok(store_private_find(s, "a:alice", "claude", key, sizeof(key)) == 0 &&
	    strcmp(key, ac) == 0, "as a recipient");
	ok(store_private_find(s, "a:alice", "BOB", key, sizeof(key)) == 0 &&
	    strcmp(key, ab) == 0, "case-insensitively");
	is_int(store_private_find(s, "a:carol", "bob", key, sizeof(key)), -1,
	    "not someone else's conversation");
	is_int(store_private_find(s, "a:ali", "bob", key, sizeof(key)), -1,
	    "a principal is matched whole, not as a prefix");
	is_int(store_private_find(s, "a:alice", "dave", key, sizeof(key)), -1,
	    "an unknown nick");
	add(s, a7, "bob", "Alice", "p5", 4000);
	ok(store_private_find(s, "a:alice", "bob", key, sizeof(key)) == 0 &&
	    strcmp(key, a7) == 0, "the newest conversation wins");
	ok(store_private_find(s, "c:7", "alice", key, sizeof(key)) == 0 &&
	    strcmp(key, a7) == 0, "a connection principal");
	is_str(q(s, ab, STORE_LATEST, NULL, NULL, 10), "p1,p2",
	    "private history by key");
	ok(store_private_find(s, "g:claude", "alice", key, sizeof(key)) ==
	    0 && strcmp(key, ac) == 0, "by the side that sorts second");
	store_private_key(key, sizeof(key), "g:claude", "g:claude");
	add(s, key, "claude", "claude", "p6", 5000);
	ok(store_private_find(s, "g:claude", "claude", key, sizeof(key)) ==
	    0 && strcmp(key, "g:claude g:claude") == 0,
	    "a conversation with oneself");
	store_close(s);
	is_int(raw_int(path_in("p.db"), "SELECT count(*) FROM private_convs"),
	    4, "one private_convs row per private conversation, no channel");

	/*
	 * Schema v4 on a file of v3: private_convs is filled from the
	 * messages already stored.
	 */
	ok(raw_exec(path_in("p.db"), "DROP TRIGGER messages_private;"
	    "DROP TABLE private_convs; DROP TABLE channel_ops;"
	    "DROP TABLE memberships; DROP TABLE channel_emptied;"
	    "DROP TABLE tasks; DROP TABLE read_markers;"
	    "PRAGMA user_version = 3") == 0,
	    "make the file a version 3 file");
	s = store_open(path_in("p.db"), err, sizeof(err));
	ok(s != NULL, "it migrates to the latest version");
	if (s == NULL)
		return;
	ok(store_private_find(s, "a:alice", "bob", key, sizeof(key)) == 0 &&
	    strcmp(key, a7) == 0, "conversations stored before v4 are found");
	ok(store_private_find(s, "a:bob", "alice", key, sizeof(key)) == 0 &&
	    strcmp(key, ab) == 0, "from either side");

	/* Pruning drops the rows of conversations left empty. */
	is_int(store_history_prune(s, 0, 2), 0, "prune to the last 2 messages");
	is_int(store_private_find(s, "a:bob", "alice", key, sizeof(key)), -1,
	    "a pruned conversation is not found");
	store_close(s);
	is_int(raw_int(path_in("p.db"), "SELECT count(*) FROM private_convs"),
	    2, "and its private_convs row is gone");
}

struct tseen {
	char	out[512];
};

static int
keep_not_secret(const char *conv, void *arg)
{
	return strcmp(conv, "#secret") != 0;
}

static void
tcollect(const char *conv, const char *target, const char *nick, int64_t t,
    void *arg)
{
	struct tseen *ts = arg;
	char buf[128];

	(void)nick;
	snprintf(buf, sizeof(buf), "%s%s=%s@%lld", ts->out[0] ? "," : "",
	    conv, target, (long long)t);
	strlcat(ts->out, buf, sizeof(ts->out));
}

static const char *
tq(struct store *s, int64_t t1, int64_t t2, int limit)
{
	static struct tseen ts;
	int n;

	memset(&ts, 0, sizeof(ts));
	n = store_history_targets(s, t1, t2, limit, keep_not_secret, tcollect,
	    &ts);
	if (n < 0)
		return "error";
	return ts.out;
}

static void
test_targets(void)
{
	struct store *s;

	s = store_open(path_in("t.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	add(s, "#a", "#a", "x", "t1", 1000);
	add(s, "#b", "#b", "x", "t2", 2000);
	add(s, "#secret", "#secret", "x", "t3", 3000);
	add(s, "#a", "#A", "x", "t4", 4000);
	add(s, "#c", "#c", "x", "t5", 5000);
	add(s, "#d", "#d", "x", "t6", 6000);

	is_str(tq(s, 0, 10000, 10), "#b=#b@2000,#a=#A@4000,#c=#c@5000,"
	    "#d=#d@6000", "TARGETS: latest per conv, oldest first, filtered");
	is_str(tq(s, 0, 10000, 2), "#b=#b@2000,#a=#A@4000",
	    "TARGETS ascending keeps the oldest");
	is_str(tq(s, 10000, 0, 2), "#c=#c@5000,#d=#d@6000",
	    "TARGETS descending keeps the newest, delivered oldest first");
	is_str(tq(s, 0, 3500, 10), "#a=#a@1000,#b=#b@2000",
	    "TARGETS: the latest message within the range");
	is_str(tq(s, 2000, 5000, 10), "#b=#b@2000,#a=#A@4000,#c=#c@5000",
	    "TARGETS: the range is inclusive");
	is_str(tq(s, 0, 3000, 1), "#a=#a@1000",
	    "keep() applies before the limit");
	is_str(tq(s, 3000, 0, 1), "#b=#b@2000",
	    "keep() applies before the limit, descending");
	is_str(tq(s, 0, 10000, 0), "", "TARGETS limit 0");
	store_close(s);
}

static int64_t
count_rows(struct store *s, const char *conv)
{
	return store_history_query(s, conv, STORE_LATEST, NULL, NULL,
	    1000000, collect, &sn);
}

static void
test_prune(void)
{
	struct store *s;
	int64_t now = now_ms();
	char msgid[32];
	int i, fail = 0;

	s = store_open(path_in("r.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	for (i = 0; i < 10; i++) {
		snprintf(msgid, sizeof(msgid), "d%d", i);
		/* d0 is 10 days old ... d9 1 day old. */
		fail |= add(s, "#r", "#r", "x", msgid,
		    now - (int64_t)(10 - i) * 86400000 + 60000);
	}
	is_int(fail, 0, "add 10 days of messages");
	is_int(store_history_prune(s, 0, 0), 0, "prune with nothing to do");
	is_int(count_rows(s, "#r"), 10, "keeps all");
	is_int(store_history_prune(s, 5, 0), 0, "prune by days");
	is_str(q(s, "#r", STORE_LATEST, NULL, NULL, 100), "d5,d6,d7,d8,d9",
	    "keeps the last 5 days");
	is_int(store_history_prune(s, 0, 3), 0, "prune by rows");
	is_str(q(s, "#r", STORE_LATEST, NULL, NULL, 100), "d7,d8,d9",
	    "keeps the newest 3");

	for (i = 0; i < 2500; i++) {
		snprintf(msgid, sizeof(msgid), "b%d", i);
		fail |= add(s, "#big", "#big", "x", msgid, now + i);
	}
	is_int(fail, 0, "add 2500 messages");
	is_int(store_history_prune(s, 0, 100), 0,
	    "prune more than a batch by rows");
	is_int(count_rows(s, "#big"), 100, "100 rows left");
	is_int(count_rows(s, "#r"), 0, "the oldest went first");
	is_str(q(s, "#big", STORE_LATEST, NULL, NULL, 1), "b2499",
	    "the newest stays");
	is_str(q(s, "#big", STORE_AFTER, at(0), NULL, 1), "b2400",
	    "the oldest kept");
	fail = add(s, "#new", "#new", "x", "after-prune", now + 5000);
	is_int(fail, 0, "adding after pruning works");
	store_close(s);
}

struct chans {
	char	out[1024];
	char	modes[32];
	int	nchan, nban;
};

static void
ccollect(const struct store_channel *c, void *arg)
{
	struct chans *cs = arg;
	char buf[256];

	snprintf(buf, sizeof(buf), "%s[%s|%s|%s|%lld|%lld|%s|%s|%u]",
	    cs->out[0] ? " " : "", c->conv, c->name,
	    c->topic ? c->topic : "-", (long long)c->topic_time,
	    (long long)c->created, c->modes ? c->modes : "-",
	    c->key ? c->key : "-", c->limit);
	strlcat(cs->out, buf, sizeof(cs->out));
	cs->nchan++;
}

static void
bcollect(const char *conv, const struct store_ban *b, void *arg)
{
	struct chans *cs = arg;
	char buf[256];

	snprintf(buf, sizeof(buf), " %s+%c:%s:%s:%lld", conv, b->list, b->mask,
	    b->setter, (long long)b->time);
	strlcat(cs->out, buf, sizeof(cs->out));
	cs->nban++;
}

static const char *
load(struct store *s)
{
	static struct chans cs;

	memset(&cs, 0, sizeof(cs));
	if (store_channel_load_all(s, ccollect, bcollect, &cs) == -1)
		return "error";
	return cs.out;
}

static void
test_channels(void)
{
	struct store *s;
	struct store_channel c;
	struct store_ban b;

	s = store_open(path_in("c.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	is_str(load(s), "", "no channels yet");
	memset(&b, 0, sizeof(b));

	memset(&c, 0, sizeof(c));
	c.conv = "#general";
	c.name = "#General";
	c.topic = "hello";
	c.topic_who = "alice";
	c.topic_time = 100;
	c.created = 50;
	c.modes = "ntk";
	c.key = "sesame";
	c.limit = 0;
	is_int(store_channel_save(s, &c), 0, "save a channel");
	b.mask = "*!*@evil";
	b.setter = "alice";
	b.time = 200;
	is_int(store_ban_add(s, "#general", &b), 0, "add a ban");
	b.mask = "bad!*@*";
	b.time = 300;
	is_int(store_ban_add(s, "#general", &b), 0, "add another ban");
	is_int(store_ban_add(s, "#general", &b), 0, "add it again");
	is_str(load(s), "[#general|#General|hello|100|50|ntk|sesame|0]"
	    " #general+b:*!*@evil:alice:200 #general+b:bad!*@*:alice:300",
	    "load the channel and its bans");

	c.topic = NULL;
	c.topic_time = 0;
	c.modes = "nt";
	c.key = NULL;
	c.limit = 10;
	is_int(store_channel_save(s, &c), 0, "save it again");
	is_str(load(s), "[#general|#General|-|0|50|nt|-|10]"
	    " #general+b:*!*@evil:alice:200 #general+b:bad!*@*:alice:300",
	    "saving again replaces the row and keeps the bans");
	/* The exception lists (+e, +I), with a mask that is a ban too. */
	b.list = 'e';
	is_int(store_ban_add(s, "#general", &b), 0, "add a ban exception");
	b.list = 'I';
	b.mask = "R:alice";
	b.time = 400;
	is_int(store_ban_add(s, "#general", &b), 0, "add an invite exception");
	is_str(load(s), "[#general|#General|-|0|50|nt|-|10]"
	    " #general+b:*!*@evil:alice:200 #general+b:bad!*@*:alice:300"
	    " #general+e:bad!*@*:alice:300 #general+I:R:alice:alice:400",
	    "each list keeps its masks");
	is_int(store_ban_del(s, "#general", 'e', "bad!*@*"), 0,
	    "delete the exception");
	is_int(store_ban_del(s, "#general", 'I', "R:alice"), 0,
	    "delete the invite exception");
	b.list = 0;
	is_int(store_ban_del(s, "#general", 'b', "*!*@evil"), 0, "delete a ban");
	is_str(load(s), "[#general|#General|-|0|50|nt|-|10]"
	    " #general+b:bad!*@*:alice:300", "one ban left, no exceptions");
	store_close(s);

	s = store_open(path_in("c.db"), err, sizeof(err));
	is_str(load(s), "[#general|#General|-|0|50|nt|-|10]"
	    " #general+b:bad!*@*:alice:300", "channels survive a reopen");

	/* Channels known only from history. */
	add(s, "#hist", "#hist", "x", "h1", 1234567);
	add(s, "#hist", "#Hist", "x", "h2", 2345678);
	add(s, "a:x a:y", "y", "x", "h3", 3000000);
	is_str(load(s), "[#general|#General|-|0|50|nt|-|10]"
	    " #general+b:bad!*@*:alice:300 [#hist|#Hist|-|0|1234|-|-|0]",
	    "a channel with history reappears, named by its latest target");

	is_int(store_channel_delete(s, "#general"), 0, "delete a channel");
	is_str(load(s), "[#hist|#Hist|-|0|1234|-|-|0]",
	    "its bans went with it");
	add(s, "#general", "#GENERAL", "x", "g1", 5000);
	is_str(load(s), "[#general|#GENERAL|-|0|5|-|-|0]"
	    " [#hist|#Hist|-|0|1234|-|-|0]",
	    "a deleted channel with history comes back from history");

	/* A ban on a channel without a row makes a minimal row. */
	b.mask = "*!*@spam";
	b.setter = "op";
	b.time = 400;
	is_int(store_ban_add(s, "#hist", &b), 0,
	    "a ban on a history-only channel");
	is_int(store_ban_add(s, "#fresh", &b), 0,
	    "a ban on an unknown channel");
	ok(strstr(load(s),
	    "[#hist|#Hist|-|0|1234|-|-|0] #hist+b:*!*@spam:op:400") != NULL, "the minimal row keeps history's name and date");
	ok(strstr(load(s), "#fresh+b:*!*@spam:op:400") != NULL,
	    "the unknown channel has its row and ban");
	store_close(s);
}

static void
opcollect(const char *conv, const char *account, void *arg)
{
	char *out = arg;

	if (out[0] != '\0')
		strlcat(out, ",", 256);
	strlcat(out, conv, 256);
	strlcat(out, "=", 256);
	strlcat(out, account, 256);
}

/* HS-3: where a principal's last stay ended, for what it missed. */
static void
test_member_left(void)
{
	struct store *s;
	int fail = 0;

	s = store_open(path_in("left.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	fail |= add(s, "#y", "#y", "bob", "y1", 1000);
	fail |= store_member_join(s, "#y", "a:alice");
	fail |= add(s, "#y", "#y", "bob", "y2", 2000);
	is_int(fail, 0, "bob talks, alice joins");
	is_int(store_member_left(s, "#y", "a:alice"), -1,
	    "no end while the stay is open");
	is_int(store_member_left(s, "#y", "a:carol"), -1,
	    "no end for one never in");
	fail = store_member_part(s, "#y", "a:alice");
	fail |= add(s, "#y", "#y", "bob", "y3", 3000);
	is_int(fail, 0, "alice leaves; bob talks");
	is_int(store_member_left(s, "#y", "a:alice"),
	    raw_int(path_in("left.db"), "SELECT id FROM messages WHERE msgid = 'y2'"),
	    "the last stay ended at the newest message then");
	is_int(store_member_join(s, "#y", "a:alice"), 0, "alice comes back");
	is_int(store_member_left(s, "#y", "a:alice"), -1,
	    "in again: no end");
	store_close(s);
}

/* AU-7: stays bound what a reader sees; a retired channel starts empty. */
static void
test_stays(void)
{
	struct store_who alice = { "a:alice", "c:r.1" };
	struct store_who bob = { "a:bob", NULL };
	struct store_who conn = { "a:carol", "c:r.2" };
	struct store_channel c;
	struct store *s;
	char ops[256] = "";
	int fail = 0;

	s = store_open(path_in("stays.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	fail |= add(s, "#x", "#x", "alice", "x1", 1000);
	fail |= store_member_join(s, "#x", "a:alice");
	fail |= add(s, "#x", "#x", "alice", "x2", 2000);
	fail |= store_member_join(s, "#x", "c:r.2");
	fail |= add(s, "#x", "#x", "alice", "x3", 3000);
	fail |= store_member_part(s, "#x", "a:alice");
	fail |= add(s, "#x", "#x", "bob", "x4", 4000);
	fail |= store_member_join(s, "#x", "a:alice");
	fail |= add(s, "#x", "#x", "alice", "x5", 5000);
	is_int(fail, 0, "messages, joins and parts");
	is_str(qas(s, "#x", &alice, STORE_LATEST, NULL, NULL, 10), "x2,x3,x5",
	    "a reader sees only what was said while it was in");
	is_str(qas(s, "#x", &bob, STORE_LATEST, NULL, NULL, 10), "",
	    "one never in sees nothing");
	is_str(qas(s, "#x", &conn, STORE_LATEST, NULL, NULL, 10), "x3,x4,x5",
	    "a connection's stay counts for it after it logs in");
	is_str(qas(s, "#x", &alice, STORE_BEFORE, id("x5"), NULL, 10), "x2,x3",
	    "and every direction is bounded");
	is_str(q(s, "#x", STORE_LATEST, NULL, NULL, 10), "x1,x2,x3,x4,x5",
	    "without a reader, everything");
	ok(store_member_since(s, "#x", "a:alice") > 0,
	    "an open stay has a start");
	is_int(store_member_since(s, "#x", "a:bob"), -1, "none has none");

	/* A JOIN/PART loop with nothing said adds no rows. */
	fail = 0;
	for (int i = 0; i < 50; i++)
		fail |= store_member_part(s, "#x", "a:alice") |
		    store_member_join(s, "#x", "a:alice");
	is_int(fail, 0, "50 parts and joins");
	is_int(raw_int(path_in("stays.db"), "SELECT count(*) FROM memberships "
	    "WHERE principal = 'a:alice'"), 2, "still two stays");

	/* Operators need the row, and go with it. */
	memset(&c, 0, sizeof(c));
	c.conv = "#x";
	c.name = "#x";
	c.created = 1;
	c.emptied = 12345;
	is_int(store_channel_save(s, &c), 0, "save the row");
	is_int(raw_int(path_in("stays.db"), "SELECT time FROM channel_emptied "
	    "WHERE conv = '#x'"), 12345, "when it emptied is kept");
	is_int(store_channel_op_add(s, "#x", "alice") |
	    store_channel_op_add(s, "#x", "alice") |
	    store_channel_op_add(s, "#x", "bob"), 0, "remember operators");
	is_int(store_channel_op_del(s, "#x", "bob"), 0, "forget one");
	store_channel_ops(s, opcollect, ops);
	is_str(ops, "#x=alice", "the operators are listed");

	/* A restart ends open stays and forgets connections. */
	is_int(store_members_reset(s), 0, "reset at start");
	is_int(store_member_since(s, "#x", "a:alice"), -1,
	    "no stay is open after it");
	is_str(qas(s, "#x", &conn, STORE_LATEST, NULL, NULL, 10), "",
	    "a connection of the last run is nobody");
	is_str(qas(s, "#x", &alice, STORE_LATEST, NULL, NULL, 10), "x2,x3,x5",
	    "an account keeps its stays");

	is_int(store_channel_retire(s, "#x", "77"), 0, "retire the channel");
	is_str(q(s, "#x", STORE_LATEST, NULL, NULL, 10), "",
	    "its name starts empty");
	is_str(q(s, "~#x@77", STORE_LATEST, NULL, NULL, 10), "x1,x2,x3,x4,x5",
	    "the history is set aside, not deleted");
	is_str(load(s), "", "no row comes back, from history either");
	ops[0] = '\0';
	store_channel_ops(s, opcollect, ops);
	is_str(ops, "", "nor operators");
	is_int(raw_int(path_in("stays.db"), "SELECT count(*) FROM memberships"),
	    0, "nor stays");
	store_close(s);
}

struct schedseen {
	char	out[512];
	int	n;
};

static void
sched_collect(const struct store_schedule *sc, void *arg)
{
	struct schedseen *ss = arg;
	char buf[160];

	snprintf(buf, sizeof(buf), "%s%lld:%s:%s:%lld:%d:%s:%s", ss->n ? "," : "",
	    (long long)sc->id, sc->agent, sc->name, (long long)sc->next, sc->every,
	    sc->target_name, sc->state);
	strlcat(ss->out, buf, sizeof(ss->out));
	ss->n++;
}

static void
test_schedules(void)
{
	struct store *s;
	struct store_schedule sc;
	struct schedseen ss;
	int64_t first;

	s = store_open(path_in("sc.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	memset(&sc, 0, sizeof(sc));
	sc.agent = "alice";
	sc.name = "standup";
	sc.prompt = "what changed?";
	sc.next = 1000;
	sc.every = 5;
	sc.target = "#dev";
	sc.target_name = "#dev";
	sc.creator = "#dev";
	sc.creator_name = "#dev";
	sc.created = 10;
	is_int(store_schedule_add(s, &sc), 0, "schedule: add");
	ok(sc.id > 0, "schedule: add sets the id");
	first = sc.id;
	sc.name = "once";
	sc.every = 0;
	sc.state = "pending";
	sc.target = "a:bob c:1";
	sc.target_name = "bob";
	sc.target_private = 1;
	is_int(store_schedule_add(s, &sc), 0, "schedule: a second, private, pending");
	memset(&ss, 0, sizeof(ss));
	is_int(store_schedule_list(s, sched_collect, &ss), 2, "schedule: list both");
	is_int(store_schedule_update(s, first, 2000, "held"), 0, "schedule: update");
	store_close(s);
	s = store_open(path_in("sc.db"), err, sizeof(err));
	memset(&ss, 0, sizeof(ss));
	store_schedule_list(s, sched_collect, &ss);
	ok(strstr(ss.out, ":alice:standup:2000:5:#dev:held") != NULL,
	    "schedule: the update survives a reopen");
	ok(strstr(ss.out, ":once:1000:0:bob:pending") != NULL,
	    "schedule: every field of the second");
	is_int(store_schedule_delete(s, first), 0, "schedule: delete");
	memset(&ss, 0, sizeof(ss));
	is_int(store_schedule_list(s, sched_collect, &ss), 1, "schedule: one left");
	store_close(s);
}

/* A store_task_get/list callback: "id:state:result," onto the string. */
static void
task_collect(const struct store_task *t, void *arg)
{
	struct schedseen *ss = arg;
	char buf[160];

	snprintf(buf, sizeof(buf), "%lld:%s:%s:%s,", (long long)t->id, t->kind,
	    t->state, t->result != NULL ? t->result : "-");
	strlcat(ss->out, buf, sizeof(ss->out));
	ss->n++;
}

/* MN-7: tasks are stored, listed newest first, and interrupted at start. */
static void
test_tasks(void)
{
	struct store *s;
	struct store_task t;
	struct schedseen ss;
	int64_t first;

	s = store_open(path_in("tk.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	memset(&t, 0, sizeof(t));
	t.kind = "ask";
	t.from_agent = "alice";
	t.from_conv = "#dev";
	t.from_name = "#dev";
	t.to_agent = "bob";
	t.conv = "#dev";
	t.conv_name = "#dev";
	t.text = "why?";
	t.state = "waiting";
	t.created = 5;
	is_int(store_task_add(s, &t), 0, "task: add");
	first = t.id;
	t.kind = "delegate";
	is_int(store_task_add(s, &t), 0, "task: a second");
	is_int(store_task_set(s, first, "done", "because", 9), 0, "task: end one");
	memset(&ss, 0, sizeof(ss));
	is_int(store_task_list(s, "#dev", 10, task_collect, &ss), 2,
	    "task: list both");
	ok(strstr(ss.out, ":delegate:waiting:-,") < strstr(ss.out, ":ask:done:"
	    "because,"), "task: newest first, the result kept");
	is_int(store_task_interrupt(s, 10), 1, "task: the one in flight is "
	    "interrupted");
	memset(&ss, 0, sizeof(ss));
	is_int(store_task_get(s, first + 1, task_collect, &ss), 1, "task: get");
	ok(strstr(ss.out, ":delegate:interrupted:-,") != NULL,
	    "task: get says interrupted");
	memset(&ss, 0, sizeof(ss));
	is_int(store_task_get(s, first + 7, task_collect, &ss), 0,
	    "task: get of none");
	store_close(s);
}

/* A store_kv_list callback: "key=value;" onto the string, the key deleted. */
struct kv_seen {
	struct store	*s;
	char		 all[128];
};

static void
kv_collect(const char *key, const char *value, void *arg)
{
	struct kv_seen *ks = arg;

	strlcat(ks->all, key, sizeof(ks->all));
	strlcat(ks->all, "=", sizeof(ks->all));
	strlcat(ks->all, value, sizeof(ks->all));
	strlcat(ks->all, ";", sizeof(ks->all));
	store_kv_set(ks->s, key, NULL);
}

static void
test_kv(void)
{
	struct store *s;
	struct kv_seen ks;
	char buf[16];

	s = store_open(path_in("k.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	is_int(store_kv_get(s, "k", buf, sizeof(buf)), 1, "kv: not found");
	is_int(store_kv_set(s, "k", "v1"), 0, "kv: set");
	is_int(store_kv_get(s, "k", buf, sizeof(buf)), 0, "kv: found");
	is_str(buf, "v1", "kv: the value");
	is_int(store_kv_set(s, "k", "v2"), 0, "kv: overwrite");
	store_kv_get(s, "k", buf, sizeof(buf));
	is_str(buf, "v2", "kv: the new value");
	is_int(store_kv_set(s, "long", "0123456789abcdefXYZ"), 0,
	    "kv: a long value");
	n_errors = 0;
	is_int(store_kv_get(s, "long", buf, sizeof(buf)), -1,
	    "kv: a value too long for the buffer is an error");
	is_int(n_errors, 1, "kv: and logs");
	is_int(store_kv_set(s, "k", NULL), 0, "kv: delete");
	is_int(store_kv_get(s, "k", buf, sizeof(buf)), 1, "kv: gone");

	/* AU-1: the stored policies are listed at start, and may be changed. */
	store_kv_set(s, "policy.b.#x", "ask");
	store_kv_set(s, "policy.a.a:bob", "allow-all");
	store_kv_set(s, "policyx", "no");
	store_kv_set(s, "mode.a.#x", "code");
	memset(&ks, 0, sizeof(ks));
	ks.s = s;
	is_int(store_kv_list(s, "policy.", kv_collect, &ks), 2,
	    "kv: list by prefix");
	is_str(ks.all, "policy.a.a:bob=allow-all;policy.b.#x=ask;",
	    "kv: the keys of the prefix, in order");
	is_int(store_kv_list(s, "policy.", kv_collect, &ks), 0,
	    "kv: the callback deleted them");
	is_int(store_kv_get(s, "policyx", buf, sizeof(buf)), 0,
	    "kv: a key that only looks alike is kept");
	is_int(store_kv_get(s, "mode.a.#x", buf, sizeof(buf)), 0,
	    "kv: another prefix is kept");
	store_close(s);
}

/* Writes that fail (full disk, corruption...) report, roll back, go on. */
static void
test_failures(void)
{
	struct store *s;
	struct store_ban b;

	memset(&b, 0, sizeof(b));
	s = store_open(path_in("f.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	add(s, "#f", "#f", "x", "f1", 1000);
	/* Another connection makes every write fail, as a full disk would. */
	ok(raw_exec(path_in("f.db"),
	    "CREATE TRIGGER full BEFORE INSERT ON messages\n"
	    "BEGIN SELECT RAISE(ABORT, 'simulated disk full'); END;\n"
	    "CREATE TRIGGER full2 BEFORE INSERT ON bans\n"
	    "BEGIN SELECT RAISE(ABORT, 'simulated disk full'); END") == 0,
	    "install failing triggers");
	n_errors = 0;
	last_log[0] = '\0';
	is_int(add(s, "#f", "#f", "x", "f2", 2000), -1, "a failed add is -1");
	is_int(n_errors, 1, "with one error logged");
	ok(strstr(last_log, "simulated disk full") != NULL &&
	    strstr(last_log, "f.db") != NULL,
	    "the log line has the reason and the file");
	printf("# %s\n", last_log);
	b.mask = "*!*@x";
	b.setter = "op";
	b.time = 1;
	is_int(store_ban_add(s, "#nochan", &b), -1, "a failed ban add is -1");
	is_str(load(s), "[#f|#f|-|0|1|-|-|0]",
	    "the transaction rolled back: no half-made channel row");
	is_str(q(s, "#f", STORE_LATEST, NULL, NULL, 10), "f1",
	    "reads still work");
	ok(raw_exec(path_in("f.db"),
	    "DROP TRIGGER full; DROP TRIGGER full2") == 0, "drop the triggers");
	is_int(add(s, "#f", "#f", "x", "f2", 2000), 0,
	    "the same handle writes again");
	store_close(s);
}

/*
 * The version 1 schema as released, by hand: a v1 file as an older
 * agentircd left it. test_migrate checks that it matches what this build
 * creates for those tables, so the copy cannot drift from migrate.c.
 */
static const char v1_schema[] =
	"CREATE TABLE messages (\n"
	"	id	INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	msgid	TEXT NOT NULL UNIQUE,\n"
	"	time	INTEGER NOT NULL,\n"
	"	conv	TEXT NOT NULL,\n"
	"	target	TEXT NOT NULL,\n"
	"	kind	TEXT NOT NULL CHECK (kind IN ('PRIVMSG', 'NOTICE')),\n"
	"	prefix	TEXT NOT NULL,\n"
	"	nick	TEXT NOT NULL,\n"
	"	account	TEXT,\n"
	"	text	TEXT NOT NULL,\n"
	"	tags	TEXT\n"
	");\n"
	"CREATE INDEX messages_conv_time ON messages (conv, time, id);\n"
	"CREATE INDEX messages_time ON messages (time);\n"
	"CREATE TABLE channels (\n"
	"	conv		TEXT PRIMARY KEY,\n"
	"	name		TEXT NOT NULL,\n"
	"	topic		TEXT,\n"
	"	topic_who	TEXT,\n"
	"	topic_time	INTEGER NOT NULL DEFAULT 0,\n"
	"	created		INTEGER NOT NULL DEFAULT 0,\n"
	"	modes		TEXT,\n"
	"	key		TEXT,\n"
	"	lim		INTEGER NOT NULL DEFAULT 0\n"
	");\n"
	"CREATE TABLE bans (\n"
	"	conv	TEXT NOT NULL\n"
	"		REFERENCES channels (conv) ON DELETE CASCADE,\n"
	"	mask	TEXT NOT NULL,\n"
	"	setter	TEXT NOT NULL,\n"
	"	time	INTEGER NOT NULL,\n"
	"	PRIMARY KEY (conv, mask)\n"
	");\n"
	"CREATE TABLE kv (\n"
	"	key	TEXT PRIMARY KEY,\n"
	"	value	TEXT NOT NULL\n"
	");\n";

/* Some data as an older agentircd wrote it, and the version stamp. */
static const char v1_data[] =
	"INSERT INTO messages (msgid, time, conv, target, kind, prefix, nick,\n"
	"    text) VALUES\n"
	"    ('v1a', 1000, '#old', '#Old', 'PRIVMSG', 'a!u@h', 'a', 'one'),\n"
	"    ('v1b', 2000, '#old', '#Old', 'PRIVMSG', 'b!u@h', 'b', 'two'),\n"
	"    ('v1c', 3000, '#old', '#Old', 'NOTICE', 'a!u@h', 'a', 'three');\n"
	"INSERT INTO channels (conv, name, topic, modes) VALUES\n"
	"    ('#old', '#Old', 'old topic', 'nt');\n"
	"INSERT INTO bans VALUES ('#old', '*!*@old', 'op', 7);\n"
	"INSERT INTO kv VALUES ('old', 'value');\n"
	"PRAGMA user_version = 1;\n";

/* Every schema object of the file, "name:sql;" in name order, into buf. */
static const char *
schema_of(const char *path, const char *names, char *buf, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	const char *sql;

	buf[0] = '\0';
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
	    "SELECT name, sql FROM sqlite_master\n"
	    "WHERE instr(?1, ' ' || name || ' ') > 0 ORDER BY name",
	    -1, &st, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return "error";
	}
	sqlite3_bind_text(st, 1, names, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		strlcat(buf, (const char *)sqlite3_column_text(st, 0), len);
		strlcat(buf, ":", len);
		sql = (const char *)sqlite3_column_text(st, 1);
		strlcat(buf, sql != NULL ? sql : "(auto)", len);
		strlcat(buf, ";", len);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

static void
ncollect(const char *conv, const char *name, void *arg)
{
	char *out = arg;

	if (out[0] != '\0')
		strlcat(out, ",", 256);
	strlcat(out, conv, 256);
	strlcat(out, "=", 256);
	strlcat(out, name, 256);
}

static const char *
agent_chans(struct store *s, const char *agent)
{
	static char out[256];

	out[0] = '\0';
	if (store_agent_channels(s, agent, ncollect, out) == -1)
		return "error";
	return out;
}

static void
test_migrate(void)
{
	/* v1's tables but bans, which v8 made again with a list column. */
	static const char v1_names[] = " messages messages_conv_time "
	    "messages_time channels kv sqlite_autoindex_messages_1 "
	    "sqlite_autoindex_channels_1 sqlite_autoindex_kv_1 ";
	static char fresh[4096], made[4096];
	struct store *s;
	char buf[32], sid[32];
	int64_t seen;

	/* A fresh file, for what this build's v1 tables look like. */
	s = store_open(path_in("fresh.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	store_close(s);
	ok(raw_exec(path_in("v1.db"), v1_schema) == 0 &&
	    raw_exec(path_in("v1.db"), v1_data) == 0, "make a version 1 file");
	schema_of(path_in("fresh.db"), v1_names, fresh, sizeof(fresh));
	schema_of(path_in("v1.db"), v1_names, made, sizeof(made));
	ok(strstr(fresh, "messages:CREATE TABLE") != NULL,
	    "read the fresh schema");
	is_str(made, fresh, "the hand-made v1 schema is the released one");

	s = store_open(path_in("v1.db"), err, sizeof(err));
	ok(s != NULL, "open a version 1 file");
	if (s == NULL) {
		printf("# %s\n", err);
		exit(1);
	}
	is_int(store_version(s), store_version_latest(),
	    "it is migrated to the latest version");
	is_str(q(s, "#old", STORE_LATEST, NULL, NULL, 10), "v1a,v1b,v1c",
	    "its history is intact");
	is_str(load(s), "[#old|#Old|old topic|0|0|nt|-|0] #old+b:*!*@old:op:7",
	    "its channels and bans are intact");
	ok(store_kv_get(s, "old", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "value") == 0, "its key/value is intact");
	is_int(store_history_last_id(s, "#old"), 3,
	    "last_id on a migrated conversation");
	memset(&sn, 0, sizeof(sn));
	is_int(store_history_since(s, "#old", 1, NULL, 10, collect, &sn), 2,
	    "since on migrated history (the new index covers old rows)");
	is_str(sn.ids, "v1b,v1c", "the right ones");
	is_int(add(s, "#old", "#Old", "c", "v2a", 4000), 0,
	    "add after the migration");
	is_int(store_history_last_id(s, "#old"), 4, "ids go on from the old");
	is_int(store_session_set(s, "claude", "#old", "s1", 4), 0,
	    "the new tables take rows");
	is_int(store_agent_join(s, "claude", "#old", "#Old"), 0,
	    "agent_channels too");
	store_close(s);

	s = store_open(path_in("v1.db"), err, sizeof(err));
	is_int(s != NULL ? store_version(s) : -1, store_version_latest(),
	    "reopen: still the latest");
	ok(s != NULL && store_session_get(s, "claude", "#old", sid,
	    sizeof(sid), &seen) == 0 && strcmp(sid, "s1") == 0 && seen == 4,
	    "reopen: the session is there");
	is_str(s != NULL ? agent_chans(s, "claude") : "", "#old=#Old",
	    "reopen: the membership is there");
	store_close(s);
	ok(strstr(schema_of(path_in("v1.db"), " messages_conv_id mentions "
	    "mentions_account agent_sessions agent_channels ", made,
	    sizeof(made)), "messages_conv_id:CREATE INDEX") != NULL &&
	    strstr(made, "mentions_account:") != NULL &&
	    strstr(made, "agent_sessions:") != NULL &&
	    strstr(made, "agent_channels:") != NULL,
	    "v2 made its tables and indexes");

	/* A v2 step that fails leaves the file at 1, whole. */
	ok(raw_exec(path_in("v1bad.db"), v1_schema) == 0 &&
	    raw_exec(path_in("v1bad.db"), v1_data) == 0 &&
	    raw_exec(path_in("v1bad.db"), "CREATE TABLE mentions (x)") == 0,
	    "make a version 1 file that v2 cannot migrate");
	s = store_open(path_in("v1bad.db"), err, sizeof(err));
	ok(s == NULL, "opening it fails");
	ok(strstr(err, "migration") != NULL && strstr(err, "mentions") != NULL,
	    "with the reason");
	printf("# %s\n", err);
	store_close(s);
	ok(strstr(schema_of(path_in("v1bad.db"), " messages_conv_id "
	    "agent_sessions ", made, sizeof(made)), "CREATE") == NULL,
	    "v2 was rolled back as a whole");
	ok(raw_exec(path_in("v1bad.db"), "DROP TABLE mentions") == 0,
	    "remove the obstacle");
	s = store_open(path_in("v1bad.db"), err, sizeof(err));
	is_int(s != NULL ? store_version(s) : -1, store_version_latest(),
	    "then it migrates");
	is_str(s != NULL ? q(s, "#old", STORE_LATEST, NULL, NULL, 10) : "",
	    "v1a,v1b,v1c", "with its history");
	store_close(s);
}

static int
addn(struct store *s, const char *conv, const char *nick, const char *msgid,
    int64_t t, int64_t *idp)
{
	struct store_msg m;

	memset(&m, 0, sizeof(m));
	strlcpy(m.msgid, msgid, sizeof(m.msgid));
	m.time = t;
	m.conv = conv;
	m.target = conv;
	m.kind = "PRIVMSG";
	m.prefix = nick;
	m.nick = nick;
	m.text = msgid;
	if (store_history_add(s, &m) == -1)
		return -1;
	if (idp != NULL)
		*idp = m.id;
	return 0;
}

/* Like q(), for store_history_since; ascending means by id here. */
static const char *
since(struct store *s, const char *conv, int64_t after, const char *excl,
    int limit)
{
	static char out[1100];
	int n;

	memset(&sn, 0, sizeof(sn));
	n = store_history_since(s, conv, after, excl, limit, collect, &sn);
	if (n < 0) {
		snprintf(out, sizeof(out), "%d", n);
		return out;
	}
	if (n != count_ids(sn.ids))
		return "(count mismatch)";
	snprintf(out, sizeof(out), "%s", sn.ids);
	return out;
}

static void
idcollect(const struct store_msg *m, void *arg)
{
	int64_t *last = arg;

	if (m->id <= *last)
		*last = INT64_MAX;	/* not ascending by id */
	else
		*last = m->id;
}

static void
test_since(void)
{
	struct store *s;
	int64_t id[8], x1, last;
	int fail = 0;

	s = store_open(path_in("since.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	is_int(store_history_last_id(s, "#s"), 0,
	    "last_id of an empty database is 0");
	is_str(since(s, "#s", 0, NULL, 10), "", "since on nothing");

	fail |= addn(s, "#s", "alice", "s1", 1000, &id[1]);
	fail |= addn(s, "#other", "alice", "x1", 1500, &x1);
	fail |= addn(s, "#s", "Claude", "s2", 2000, &id[2]);
	fail |= addn(s, "#s", "bob", "s3", 3000, &id[3]);
	fail |= addn(s, "#s", "claude", "s4", 4000, &id[4]);
	fail |= addn(s, "#s", "alice", "s5", 5000, &id[5]);
	fail |= addn(s, "#other", "alice", "x2", 5500, NULL);
	is_int(fail, 0, "add messages");

	is_int(store_history_last_id(s, "#s"), id[5],
	    "last_id is the newest message's id");
	is_int(store_history_last_id(s, "#empty"), 0,
	    "last_id of a conversation without messages is 0");
	is_int(store_history_last_id(s, "#S"), 0,
	    "conv is compared exactly (the caller casefolds)");

	is_str(since(s, "#s", 0, NULL, 100), "s1,s2,s3,s4,s5",
	    "since 0: everything, ascending");
	is_str(since(s, "#s", id[2], NULL, 100), "s3,s4,s5",
	    "since an id excludes it");
	is_str(since(s, "#s", x1, NULL, 100), "s2,s3,s4,s5",
	    "since an id of another conversation");
	is_str(since(s, "#s", id[5], NULL, 100), "",
	    "since the newest: nothing");
	is_str(since(s, "#s", 0, NULL, 2), "s4,s5",
	    "a limit keeps the newest, delivered ascending");
	is_str(since(s, "#s", id[1], "claude", 100), "s3,s5",
	    "exclude a sender");
	is_str(since(s, "#s", id[1], "CLAUDE", 100), "s3,s5",
	    "the exclusion is case-insensitive");
	is_str(since(s, "#s", 0, "claude", 2), "s3,s5",
	    "the limit counts after the exclusion");
	is_str(since(s, "#s", 0, "nobody", 100), "s1,s2,s3,s4,s5",
	    "excluding an absent nick changes nothing");
	is_str(since(s, "#s", 0, "", 100), "s1,s2,s3,s4,s5",
	    "excluding \"\" changes nothing");
	is_str(since(s, "#s", 0, NULL, 0), "", "limit 0");
	is_str(since(s, "#s", 0, NULL, -1), "", "a negative limit");
	is_str(since(s, "#s", -5, NULL, 100), "s1,s2,s3,s4,s5",
	    "a negative after_id is from the start");
	is_str(since(s, "#nothing", 0, NULL, 100), "",
	    "an unknown conversation");
	is_str(since(s, "#other", id[1], "ALICE", 100), "",
	    "conversations do not mix");

	/* The clock stepped back: the order is the order of storing. */
	fail = addn(s, "#s", "bob", "s6", 500, &id[6]);
	is_int(fail, 0, "add a message with an older time");
	is_int(store_history_last_id(s, "#s"), id[6],
	    "last_id follows ids, not times");
	last = 0;
	is_int(store_history_since(s, "#s", id[4], NULL, 100, idcollect,
	    &last), 2, "since after a clock step");
	is_int(last, id[6], "delivered by id: the step-back message last");
	is_str(since(s, "#s", 0, NULL, 1), "s6", "and it is the newest");
	store_close(s);
}

static void
test_sessions(void)
{
	struct store *s;
	char sid[16], small[4];
	int64_t seen;

	s = store_open(path_in("sess.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	seen = 99;
	strlcpy(sid, "junk", sizeof(sid));
	is_int(store_session_get(s, "claude", "#a", sid, sizeof(sid), &seen),
	    1, "session: not found");
	is_int(store_session_set(s, "claude", "#a", NULL, 7), 0,
	    "session: create without an id");
	seen = 99;
	is_int(store_session_get(s, "claude", "#a", sid, sizeof(sid), &seen),
	    0, "session: found");
	is_str(sid, "", "session: no id yet is \"\"");
	is_int(seen, 7, "session: seen_id");

	is_int(store_session_set(s, "claude", "#a", "sess-1", -1), 0,
	    "session: set the id, keep seen_id");
	store_session_get(s, "claude", "#a", sid, sizeof(sid), &seen);
	is_str(sid, "sess-1", "session: the id");
	is_int(seen, 7, "session: seen_id kept (negative)");
	is_int(store_session_set(s, "claude", "#a", NULL, 42), 0,
	    "session: advance seen_id, keep the id");
	store_session_get(s, "claude", "#a", sid, sizeof(sid), &seen);
	is_str(sid, "sess-1", "session: the id kept (NULL)");
	is_int(seen, 42, "session: seen_id advanced");
	is_int(store_session_set(s, "claude", "#a", "sess-2", 0), 0,
	    "session: both at once");
	store_session_get(s, "claude", "#a", sid, sizeof(sid), &seen);
	ok(strcmp(sid, "sess-2") == 0 && seen == 0,
	    "session: new id, seen_id 0 is a value, not a keep");
	is_int(store_session_set(s, "claude", "#a", "", -1), 0,
	    "session: clear the id with \"\"");
	store_session_get(s, "claude", "#a", sid, sizeof(sid), &seen);
	ok(sid[0] == '\0' && seen == 0, "session: cleared");

	is_int(store_session_set(s, "claude", "#b", "other", -1), 0,
	    "session: a new one with seen_id < 0");
	store_session_get(s, "claude", "#b", sid, sizeof(sid), &seen);
	ok(strcmp(sid, "other") == 0 && seen == 0,
	    "session: starts at seen_id 0");
	is_int(store_session_get(s, "gemini", "#a", sid, sizeof(sid), &seen),
	    1, "session: keyed by agent too");
	is_int(store_session_get(s, "claude", "#b", NULL, 0, &seen), 0,
	    "session: sid buffer optional");
	is_int(store_session_get(s, "claude", "#b", sid, sizeof(sid), NULL), 0,
	    "session: seen_id optional");

	n_errors = 0;
	is_int(store_session_get(s, "claude", "#b", small, sizeof(small),
	    &seen), -1, "session: an id too long for the buffer is an error");
	is_int(n_errors, 1, "session: and logs");

	is_int(store_session_delete(s, "claude", "#a"), 0, "session: delete");
	is_int(store_session_get(s, "claude", "#a", sid, sizeof(sid), &seen),
	    1, "session: gone");
	is_int(store_session_get(s, "claude", "#b", sid, sizeof(sid), &seen),
	    0, "session: the other stays");
	is_int(store_session_delete(s, "claude", "#zz"), 0,
	    "session: deleting a missing one is fine");
	n_errors = 0;
	is_int(store_session_set(s, NULL, "#a", "x", 1), -1,
	    "session: a NULL agent is refused");
	is_int(n_errors, 1, "session: and logs");
	store_close(s);

	s = store_open(path_in("sess.db"), err, sizeof(err));
	ok(s != NULL && store_session_get(s, "claude", "#b", sid, sizeof(sid),
	    &seen) == 0 && strcmp(sid, "other") == 0,
	    "session: survives a reopen");
	store_close(s);
}

static void
test_agent_channels(void)
{
	struct store *s;

	s = store_open(path_in("ag.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	is_str(agent_chans(s, "claude"), "", "memberships: none");
	is_int(store_agent_join(s, "claude", "#b", "#B"), 0, "join #b");
	is_int(store_agent_join(s, "claude", "#a", "#a"), 0, "join #a");
	is_int(store_agent_join(s, "claude", "#c", "#c"), 0, "join #c");
	is_int(store_agent_join(s, "gemini", "#a", "#a"), 0,
	    "another agent joins #a");
	is_str(agent_chans(s, "claude"), "#b=#B,#a=#a,#c=#c",
	    "memberships: in the order joined (within one second too)");
	is_str(agent_chans(s, "gemini"), "#a=#a", "memberships: per agent");
	is_int(store_agent_join(s, "claude", "#b", "#bee"), 0, "join #b again");
	is_str(agent_chans(s, "claude"), "#b=#bee,#a=#a,#c=#c",
	    "joining again renames and keeps the place");
	is_int(store_agent_part(s, "claude", "#a"), 0, "part #a");
	is_str(agent_chans(s, "claude"), "#b=#bee,#c=#c", "#a is gone");
	is_str(agent_chans(s, "gemini"), "#a=#a",
	    "the other agent is still in #a");
	is_int(store_agent_join(s, "claude", "#a", "#A"), 0, "rejoin #a");
	is_str(agent_chans(s, "claude"), "#b=#bee,#c=#c,#a=#A",
	    "a rejoin goes last");
	is_int(store_agent_part(s, "claude", "#nope"), 0,
	    "parting a channel not joined is fine");
	is_int(store_agent_join(s, "claude", "#d", NULL), 0,
	    "join without a name");
	is_str(agent_chans(s, "claude"), "#b=#bee,#c=#c,#a=#A,#d=#d",
	    "the name defaults to conv");
	n_errors = 0;
	is_int(store_agent_join(s, "claude", NULL, "#x"), -1,
	    "a NULL conv is refused");
	is_int(n_errors, 1, "and logs");
	store_close(s);

	s = store_open(path_in("ag.db"), err, sizeof(err));
	is_str(s != NULL ? agent_chans(s, "claude") : "",
	    "#b=#bee,#c=#c,#a=#A,#d=#d", "memberships survive a reopen");
	store_close(s);
}

struct mseen {
	char	out[4096];
	int	n;
	char	first[64], last[64];
};

static void
mcollect(const struct store_mention *m, void *arg)
{
	struct mseen *ms = arg;
	char buf[256];

	snprintf(buf, sizeof(buf), "%s%s|%s|%s|%lld|%s", ms->out[0] ? "," : "",
	    m->account, m->target ? m->target : "-", m->from ? m->from : "-",
	    (long long)m->time, m->text ? m->text : "-");
	strlcat(ms->out, buf, sizeof(ms->out));
	if (ms->n == 0)
		strlcpy(ms->first, m->text ? m->text : "-", sizeof(ms->first));
	strlcpy(ms->last, m->text ? m->text : "-", sizeof(ms->last));
	ms->n++;
}

static int
mention(struct store *s, const char *account, const char *target,
    const char *from, int64_t t, const char *text)
{
	struct store_mention m;

	m.account = account;
	m.target = target;
	m.from = from;
	m.time = t;
	m.text = text;
	return store_mention_add(s, &m);
}

static int
take(struct store *s, const char *account, struct mseen *ms)
{
	memset(ms, 0, sizeof(*ms));
	return store_mention_take(s, account, mcollect, ms);
}

static void
test_mentions(void)
{
	struct store *s;
	struct mseen ms;
	char text[32];
	int i, fail = 0;

	s = store_open(path_in("men.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	is_int(take(s, "alice", &ms), 0, "mentions: none to take");
	is_int(mention(s, "alice", "#a", "bob", 1000, "hi @alice"), 0,
	    "mentions: add");
	is_int(mention(s, "bob", "#a", "carol", 1500, "bob?"), 0,
	    "mentions: add for another account");
	is_int(mention(s, "alice", "#b", "carol", 2000, "alice: look"), 0,
	    "mentions: add a second");
	is_int(mention(s, "alice", NULL, NULL, 3000, NULL), 0,
	    "mentions: add with only the account");
	is_int(take(s, "alice", &ms), 3, "mentions: take gives all three");
	is_str(ms.out, "alice|#a|bob|1000|hi @alice,"
	    "alice|#b|carol|2000|alice: look,alice|-|-|3000|-",
	    "mentions: oldest first, every field");
	is_int(take(s, "alice", &ms), 0, "mentions: taken means deleted");
	is_int(take(s, "ALICE", &ms), 0,
	    "mentions: accounts compare exactly (the caller casefolds)");
	is_int(take(s, "bob", &ms), 1, "mentions: the other account's stays");
	is_str(ms.out, "bob|#a|carol|1500|bob?", "mentions: and is intact");

	for (i = 0; i < 105; i++) {
		snprintf(text, sizeof(text), "c%d", i);
		fail |= mention(s, "carol", "#c", "x", i, text);
	}
	fail |= mention(s, "dave", "#c", "x", 1, "d0");
	is_int(fail, 0, "mentions: add 105 for one account");
	is_int(take(s, "carol", &ms), 100, "mentions: at most 100 are kept");
	is_str(ms.first, "c5", "mentions: the oldest five went");
	is_str(ms.last, "c104", "mentions: the newest stayed");
	is_int(take(s, "dave", &ms), 1,
	    "mentions: the bound is per account");

	n_errors = 0;
	is_int(mention(s, NULL, "#a", "bob", 1, "x"), -1,
	    "mentions: a NULL account is refused");
	is_int(n_errors, 1, "mentions: and logs");
	is_int(mention(s, "erin", "#a", "bob", 1, "after"), 0,
	    "mentions: adding works after a failure");
	store_close(s);

	s = store_open(path_in("men.db"), err, sizeof(err));
	is_int(s != NULL ? take(s, "erin", &ms) : -1, 1,
	    "mentions: survive a reopen");
	store_close(s);
}

/* The v2 writes and reads that fail: logged, rolled back, no crash. */
static void
test_agent_failures(void)
{
	struct store *s;
	struct mseen ms;
	char sid[16], text[32];
	int64_t seen;
	int i, fail = 0;

	s = store_open(path_in("af.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	for (i = 0; i < 100; i++) {
		snprintf(text, sizeof(text), "e%d", i);
		fail |= mention(s, "erin", "#e", "x", i, text);
	}
	is_int(fail, 0, "add 100 mentions");
	store_session_set(s, "claude", "#e", "s", 5);
	ok(raw_exec(path_in("af.db"),
	    "CREATE TRIGGER nodel BEFORE DELETE ON mentions\n"
	    "BEGIN SELECT RAISE(ABORT, 'simulated disk full'); END;\n"
	    "CREATE TRIGGER noupd BEFORE UPDATE ON agent_sessions\n"
	    "BEGIN SELECT RAISE(ABORT, 'simulated disk full'); END;\n"
	    "CREATE TRIGGER nojoin BEFORE INSERT ON agent_channels\n"
	    "BEGIN SELECT RAISE(ABORT, 'simulated disk full'); END") == 0,
	    "install failing triggers");

	n_errors = 0;
	last_log[0] = '\0';
	is_int(mention(s, "erin", "#e", "x", 100, "e100"), -1,
	    "a mention whose bound fails is -1");
	ok(n_errors == 1 && strstr(last_log, "simulated") != NULL,
	    "one error logged");
	printf("# %s\n", last_log);
	n_errors = 0;
	is_int(take(s, "erin", &ms), -1, "a take whose delete fails is -1");
	is_int(n_errors, 1, "one error logged");
	is_int(ms.n, 100, "it had handed them out");
	n_errors = 0;
	is_int(store_session_set(s, "claude", "#e", NULL, 9), -1,
	    "a failed session update is -1");
	is_int(n_errors, 1, "one error logged");
	is_int(store_agent_join(s, "claude", "#e", "#e"), -1,
	    "a failed join is -1");
	ok(raw_exec(path_in("af.db"),
	    "DROP TRIGGER nodel; DROP TRIGGER noupd; DROP TRIGGER nojoin") == 0,
	    "drop the triggers");
	is_int(take(s, "erin", &ms), 100,
	    "nothing was lost: the take comes again");
	is_str(ms.last, "e99", "and the failed add was rolled back");
	ok(store_session_get(s, "claude", "#e", sid, sizeof(sid), &seen) == 0 &&
	    seen == 5, "the session is as it was");
	is_int(store_session_set(s, "claude", "#e", NULL, 9), 0,
	    "the same handle writes again");

	/* Reads fail too: another process broke the schema under us. */
	ok(raw_exec(path_in("af.db"),
	    "DROP TABLE agent_channels; DROP TABLE mentions;\n"
	    "DROP INDEX messages_conv_id") == 0, "break the schema");
	n_errors = 0;
	is_str(agent_chans(s, "claude"), "error",
	    "listing memberships fails with -1");
	is_int(take(s, "erin", &ms), -1, "taking mentions fails with -1");
	is_str(since(s, "#e", 0, NULL, 10), "-1",
	    "since without its index fails with -1, not a slow scan");
	is_int(store_history_last_id(s, "#e"), -1, "last_id too");
	is_int(n_errors, 4, "each logged once");
	printf("# %s\n", last_log);
	store_close(s);
}

/* ---- batches: one transaction per loop turn ---- */

/* A second connection, as another process (or a backup) would have. */
static sqlite3 *
other_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		printf("# other_open: %s\n", db != NULL ?
		    sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 1000);
	return db;
}

/* The first column of the first row of sql, -1 on error (or no row). */
static int64_t
other_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (db == NULL)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		printf("# other_int: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int
other_exec(sqlite3 *db, const char *sql)
{
	if (db == NULL || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		printf("# other_exec: %s\n", db != NULL ? sqlite3_errmsg(db) :
		    "no connection");
		return -1;
	}
	return 0;
}

/* add(), giving the row id (-1 on error). */
static int64_t
add_id(struct store *s, const char *conv, const char *msgid, int64_t t)
{
	struct store_msg m;

	memset(&m, 0, sizeof(m));
	strlcpy(m.msgid, msgid, sizeof(m.msgid));
	m.time = t;
	m.conv = conv;
	m.target = conv;
	m.kind = "PRIVMSG";
	m.prefix = "b!u@h";
	m.nick = "b";
	m.text = msgid;
	if (store_history_add(s, &m) == -1)
		return -1;
	return m.id;
}

static int
ban(struct store *s, const char *conv, const char *mask)
{
	struct store_ban b;

	b.mask = mask;
	b.setter = "op";
	b.time = 1;
	return store_ban_add(s, conv, &b);
}

/* A mention callback that tries to begin a batch (it must not). */
struct inside {
	struct store	*s;
	int		 rc;
};

static void
begin_inside(const struct store_mention *m, void *arg)
{
	struct inside *in = arg;

	(void)m;
	in->rc = store_batch_begin(in->s);
}

static void
test_batch(void)
{
	struct store *s;
	struct store_mention mn;
	struct mseen ms;
	struct inside in;
	sqlite3 *db2;
	int64_t id1, id2, id3, id4;

	s = store_open(path_in("batch.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	db2 = other_open(path_in("batch.db"));
	ok(db2 != NULL, "batch: a second connection opens");

	is_int(store_batch_open(s), 0, "batch: none open at first");
	is_int(store_batch_commit(s), 0,
	    "batch: committing none is a no-op");
	is_int(store_batch_begin(s), 0, "batch: begin");
	is_int(store_batch_open(s), 1, "batch: it is open");
	is_int(store_batch_begin(s), 0, "batch: begin again does nothing");
	id1 = add_id(s, "#b", "b1", 1000);
	id2 = add_id(s, "#b", "b2", 2000);
	id3 = add_id(s, "#b", "b3", 3000);
	ok(id1 > 0 && id2 == id1 + 1 && id3 == id2 + 1,
	    "batch: three adds, each with its own id");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 0,
	    "batch: another connection sees none before the commit");
	is_str(q(s, "#b", STORE_LATEST, NULL, NULL, 10), "b1,b2,b3",
	    "batch: this connection reads its own writes");
	is_int(store_batch_commit(s), 0, "batch: commit");
	is_int(store_batch_open(s), 0, "batch: closed after the commit");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 3,
	    "batch: the other connection sees all three after it");
	is_int(other_int(db2, "SELECT id FROM messages WHERE msgid = 'b2'"),
	    id2, "batch: the id given by add is the stored row's");
	id4 = add_id(s, "#b", "b4", 4000);
	is_int(id4, id3 + 1, "batch: autocommit after it goes on counting");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 4,
	    "batch: and without a batch a write is visible at once");

	/* store_begin changes nest as savepoints and wait for the batch. */
	is_int(store_batch_begin(s), 0, "nest: begin a batch");
	is_int(add_id(s, "#n", "n1", 1000) > 0, 1, "nest: add a message");
	is_int(ban(s, "#n", "a!*@*"), 0,
	    "nest: a ban (store_begin/commit) inside the batch");
	memset(&mn, 0, sizeof(mn));
	mn.account = "alice";
	mn.target = "#n";
	mn.from = "b";
	mn.time = 1;
	mn.text = "hi";
	is_int(store_mention_add(s, &mn), 0, "nest: and a mention");
	memset(&ms, 0, sizeof(ms));
	is_int(store_mention_take(s, "nobody", mcollect, &ms), 0,
	    "nest: an empty take (store_begin/rollback) inside the batch");
	is_int(add_id(s, "#n", "n2", 2000) > 0, 1, "nest: add another");
	is_int(other_int(db2, "SELECT count(*) FROM bans"), 0,
	    "nest: a released savepoint is not committed yet");
	is_int(store_batch_commit(s), 0, "nest: commit the batch");
	is_int(other_int(db2, "SELECT count(*) FROM messages WHERE conv = '#n'"),
	    2, "nest: both messages are stored");
	is_int(other_int(db2, "SELECT count(*) FROM bans WHERE conv = '#n'"), 1,
	    "nest: the ban is stored");
	is_int(other_int(db2, "SELECT count(*) FROM channels WHERE conv = '#n'"),
	    1, "nest: with its channel row");
	is_int(other_int(db2, "SELECT count(*) FROM mentions"), 1,
	    "nest: the mention is stored");

	/*
	 * An inner change that fails: its first statement (the channel row)
	 * is undone, the batch's rows before and after it are kept.
	 */
	ok(other_exec(db2,
	    "CREATE TRIGGER noban BEFORE INSERT ON bans\n"
	    "WHEN NEW.mask = 'bad!*@*'\n"
	    "BEGIN SELECT RAISE(ABORT, 'simulated ban failure'); END") == 0,
	    "inner: install a failing trigger");
	is_int(store_batch_begin(s), 0, "inner: begin a batch");
	is_int(add_id(s, "#i", "i1", 1000) > 0, 1, "inner: add a message");
	n_errors = 0;
	is_int(ban(s, "#inew", "bad!*@*"), -1, "inner: a failing ban is -1");
	is_int(n_errors, 1, "inner: one error logged");
	is_int(store_batch_open(s), 1, "inner: the batch is still open");
	is_int(ban(s, "#i", "ok!*@*"), 0, "inner: a later ban works");
	is_int(add_id(s, "#i", "i2", 2000) > 0, 1, "inner: add another");
	is_int(store_batch_commit(s), 0, "inner: commit the batch");
	is_int(other_int(db2, "SELECT count(*) FROM messages WHERE conv = '#i'"),
	    2, "inner: the messages before and after are stored");
	is_int(other_int(db2,
	    "SELECT count(*) FROM channels WHERE conv = '#inew'"), 0,
	    "inner: the failed change's channel row is undone");
	is_int(other_int(db2, "SELECT count(*) FROM bans WHERE conv = '#i'"), 1,
	    "inner: the later change is stored");
	ok(other_exec(db2, "DROP TRIGGER noban") == 0, "inner: drop the trigger");

	/* Outside a batch store_begin is still a transaction of its own. */
	is_int(ban(s, "#solo", "s!*@*"), 0, "solo: a ban without a batch");
	is_int(other_int(db2, "SELECT count(*) FROM bans WHERE conv = '#solo'"),
	    1, "solo: visible at once");

	/* BEGIN cannot nest: no batch inside a transaction of store_begin. */
	in.s = s;
	in.rc = 0;
	n_errors = 0;
	memset(&ms, 0, sizeof(ms));
	is_int(store_mention_take(s, "alice", begin_inside, &in), 1,
	    "solo: a take outside a batch");
	is_int(in.rc, -1, "solo: a batch begin inside it is -1");
	is_int(n_errors, 1, "solo: and logged");
	is_int(store_batch_open(s), 0, "solo: no batch is open");
	is_int(other_int(db2, "SELECT count(*) FROM mentions"), 0,
	    "solo: the take itself was committed");

	store_close(s);
	sqlite3_close(db2);
}

/* SQLite rolls the whole batch back: the commit must say so. */
static void
test_batch_lost(void)
{
	struct store *s;
	sqlite3 *db2;

	s = store_open(path_in("lost.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	db2 = other_open(path_in("lost.db"));
	ok(other_exec(db2,
	    "CREATE TRIGGER boom BEFORE INSERT ON messages\n"
	    "WHEN NEW.msgid = 'boom'\n"
	    "BEGIN SELECT RAISE(ROLLBACK, 'simulated disk full'); END;\n"
	    "CREATE TRIGGER boomban BEFORE INSERT ON bans\n"
	    "WHEN NEW.mask = 'boom'\n"
	    "BEGIN SELECT RAISE(ROLLBACK, 'simulated disk full'); END") == 0,
	    "lost: install triggers that roll the transaction back");

	is_int(store_batch_begin(s), 0, "lost: begin a batch");
	is_int(add_id(s, "#l", "l1", 1000) > 0, 1, "lost: add a message");
	n_errors = 0;
	is_int(add_id(s, "#l", "boom", 2000), -1,
	    "lost: an add that rolls everything back is -1");
	is_int(store_batch_open(s), 1,
	    "lost: the batch still awaits its commit");
	is_int(add_id(s, "#l", "l2", 3000), -1,
	    "lost: a later add of the turn is refused");
	is_int(store_batch_begin(s), -1, "lost: so is a begin");
	ok(n_errors >= 3, "lost: each logged");
	is_int(store_batch_commit(s), -1, "lost: the commit is -1");
	is_int(store_batch_open(s), 0, "lost: and closes it");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 0,
	    "lost: nothing of the turn is stored");
	is_int(store_batch_begin(s), 0, "lost: the next turn begins afresh");
	is_int(add_id(s, "#l", "l3", 4000) > 0, 1, "lost: and adds");
	is_int(store_batch_commit(s), 0, "lost: and commits");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 1,
	    "lost: its message is stored");

	/* The same from inside a store_begin savepoint. */
	is_int(store_batch_begin(s), 0, "lost inner: begin a batch");
	is_int(add_id(s, "#l", "l4", 5000) > 0, 1, "lost inner: add");
	is_int(ban(s, "#l", "boom"), -1,
	    "lost inner: a ban that rolls everything back is -1");
	is_int(store_batch_commit(s), -1, "lost inner: the commit is -1");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 1,
	    "lost inner: the turn's message is not stored");
	is_int(other_int(db2, "SELECT count(*) FROM channels"), 0,
	    "lost inner: nor the ban's channel row");
	is_int(ban(s, "#l", "fine"), 0,
	    "lost inner: a ban without a batch works again");

	/* A lost batch at close: nothing to commit, nothing to crash on. */
	is_int(store_batch_begin(s), 0, "lost close: begin a batch");
	add_id(s, "#l", "boom", 6000);
	store_close(s);
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 1,
	    "lost close: closing with a lost batch stores nothing more");
	sqlite3_close(db2);
}

/* Another process holds the write lock: begin fails, and fails fast. */
static void
test_batch_busy(void)
{
	struct store *s;
	sqlite3 *db2;
	int64_t t0, waited;

	s = store_open(path_in("busy.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	sqlite3_busy_timeout(s->db, 100);
	db2 = other_open(path_in("busy.db"));
	ok(other_exec(db2, "BEGIN IMMEDIATE") == 0,
	    "busy: another connection takes the write lock");
	n_errors = 0;
	last_log[0] = '\0';
	t0 = now_ms();
	is_int(store_batch_begin(s), -1, "busy: batch begin is -1");
	waited = now_ms() - t0;
	ok(waited >= 50 && waited < 3000, "busy: after the busy timeout");
	printf("# waited %lld ms\n", (long long)waited);
	is_int(store_batch_open(s), 0, "busy: no batch is open");
	ok(n_errors == 1 && strstr(last_log, "locked") != NULL,
	    "busy: one error logged, saying locked");
	printf("# %s\n", last_log);
	is_int(store_batch_commit(s), 0, "busy: commit has nothing to do");
	ok(other_exec(db2, "COMMIT") == 0, "busy: the other lets go");
	is_int(store_batch_begin(s), 0, "busy: now a batch begins");
	is_int(add_id(s, "#k", "k1", 1000) > 0, 1, "busy: adds");
	is_int(store_batch_commit(s), 0, "busy: and commits");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 1,
	    "busy: the message is stored");

	/* A batch holds the lock: the other side cannot write meanwhile. */
	is_int(store_batch_begin(s), 0, "busy: begin a batch again");
	sqlite3_busy_timeout(db2, 10);
	ok(sqlite3_exec(db2, "BEGIN IMMEDIATE", NULL, NULL, NULL) ==
	    SQLITE_BUSY, "busy: the batch holds the write lock");
	is_int(store_batch_commit(s), 0, "busy: commit it");

	/* Shutdown with a batch open keeps its rows. */
	is_int(store_batch_begin(s), 0, "close: begin a batch");
	is_int(add_id(s, "#k", "k2", 2000) > 0, 1, "close: add");
	is_int(add_id(s, "#k", "k3", 3000) > 0, 1, "close: add another");
	n_errors = 0;
	store_close(s);
	is_int(n_errors, 0, "close: without an error");
	is_int(other_int(db2, "SELECT count(*) FROM messages"), 3,
	    "close: the batch was committed");
	sqlite3_close(db2);

	s = store_open(path_in("busy.db"), err, sizeof(err));
	is_str(s != NULL ? q(s, "#k", STORE_LATEST, NULL, NULL, 10) : "-",
	    "k1,k2,k3", "close: and a reopen reads them");
	store_close(s);
}

/*
 * A read-only database file. Root ignores file modes, so as root the
 * check runs in a child that drops to nobody first; the child reports
 * through its exit status.
 */
static void
test_readonly(void)
{
	struct store *s;
	pid_t pid;
	int status, bits = 0;

	s = store_open(path_in("ro/ro.db"), err, sizeof(err));
	ok(s == NULL, "a database in a missing directory is refused");
	printf("# %s\n", err);
	mkdir(path_in("ro"), 0755);
	s = store_open(path_in("ro/ro.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	add(s, "#ro", "#ro", "x", "r1", 1000);
	store_close(s);

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (geteuid() == 0) {
			if (chown(path_in("ro"), 65534, 65534) == -1 ||
			    chown(path_in("ro/ro.db"), 65534, 65534) == -1 ||
			    setgid(65534) == -1 || setuid(65534) == -1)
				_exit(64);
		}
		if (chmod(path_in("ro/ro.db"), 0400) == -1)
			_exit(65);
		n_errors = 0;
		s = store_open(path_in("ro/ro.db"), err, sizeof(err));
		if (s == NULL) {
			fprintf(stderr, "# open: %s\n", err);
			_exit(66);
		}
		bits |= 1;
		if (add(s, "#ro", "#ro", "x", "r2", 2000) == -1)
			bits |= 2;
		if (n_errors == 1 && strstr(last_log, "readonly") != NULL)
			bits |= 4;
		fprintf(stderr, "# %s\n", last_log);
		if (strcmp(q(s, "#ro", STORE_LATEST, NULL, NULL, 10), "r1") == 0)
			bits |= 8;
		store_close(s);
		_exit(bits);
	}
	waitpid(pid, &status, 0);
	bits = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	ok(bits < 64 && (bits & 1), "a read-only database file opens");
	ok(bits < 64 && (bits & 2), "adding to it is -1, no crash");
	ok(bits < 64 && (bits & 4), "with a log line saying read-only");
	ok(bits < 64 && (bits & 8), "it still reads");
}

static off_t
file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? sb.st_size : 0;
}

/*
 * The WAL is checkpointed off the caller's thread (store/checkpoint.c),
 * and still it stays bounded: without checkpoints 6000 messages, one
 * commit each, leave about 150 MiB of WAL and nothing in the database
 * file. The thread alone never catches up with commits this fast, so
 * this also checks that the loop waits for it at 16,000 pages (64 MiB).
 */
static void
test_checkpoint(void)
{
	struct store *s;
	char id[32];
	off_t db0, wal, walmax = 0;
	int i, added = 0, waited;

	if ((s = store_open(path_in("ck.db"), err, sizeof(err))) == NULL) {
		ok(0, "open ck.db");
		printf("# %s\n", err);
		return;
	}
	db0 = file_size(path_in("ck.db"));
	for (i = 0; i < 6000; i++) {
		snprintf(id, sizeof(id), "ck%d", i);
		added += add(s, "#ck", "#ck", "x", id, 1000 + i) == 0;
		if ((wal = file_size(path_in("ck.db-wal"))) > walmax)
			walmax = wal;
	}
	is_int(added, 6000, "6000 messages, one commit each");
	for (waited = 0; waited < 1000 && store_checkpoints(s) == 0; waited++)
		usleep(10000);
	ok(store_checkpoints(s) > 0, "the checkpoint thread ran");
	for (waited = 0; waited < 1000 &&
	    file_size(path_in("ck.db")) <= db0; waited++)
		usleep(10000);
	printf("# database file %lld -> %lld bytes, WAL at most %lld\n",
	    (long long)db0, (long long)file_size(path_in("ck.db")),
	    (long long)walmax);
	ok(file_size(path_in("ck.db")) > db0,
	    "the pages reached the database file");
	ok(walmax < 80 * 1024 * 1024, "the WAL stayed under 80 MiB");
	/*
	 * Once a checkpoint has copied it all, the next commit restarts it.
	 * The first checkpoint after the burst syncs tens of MiB of WAL:
	 * that may take seconds on a slow disk, hence up to 10 s.
	 */
	for (waited = 0; waited < 1000 &&
	    file_size(path_in("ck.db-wal")) > 16 * 1024 * 1024; waited++) {
		usleep(10000);
		snprintf(id, sizeof(id), "ck-more%d", waited);
		add(s, "#ck2", "#ck2", "x", id, 1000);
	}
	printf("# WAL cut back after %d commits\n", waited);
	ok(file_size(path_in("ck.db-wal")) <= 16 * 1024 * 1024,
	    "after the burst the WAL file is cut back to 16 MiB");
	store_close(s);
	ok(file_size(path_in("ck.db-wal")) == 0,
	    "closing checkpoints the rest and removes the WAL");
	if ((s = store_open(path_in("ck.db"), err, sizeof(err))) == NULL) {
		ok(0, "reopen ck.db");
		printf("# %s\n", err);
		return;
	}
	is_str(q(s, "#ck", STORE_LATEST, NULL, NULL, 1), "ck5999",
	    "every message is there after a reopen");
	store_close(s);
}

static void
rm_tree(void)
{
	char cmd[128];

	/* Only our own mkdtemp directory. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

/* draft/read-marker (schema v7): forward only, per account and target. */
static void
test_markers(void)
{
	struct store *s;
	int64_t t;
	char target[32];
	int i;

	s = store_open(path_in("rm.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	ok(store_marker_get(s, "a:alice", "#c", &t) == 0 && t == 0,
	    "marker: none is 0");
	is_int(store_marker_set(s, "a:alice", "#c", 2000), 0, "marker: set");
	ok(store_marker_get(s, "a:alice", "#c", &t) == 0 && t == 2000,
	    "marker: read back");
	store_marker_set(s, "a:alice", "#c", 1000);
	ok(store_marker_get(s, "a:alice", "#c", &t) == 0 && t == 2000,
	    "marker: an older time does not move it back");
	store_marker_set(s, "a:alice", "#c", 3000);
	ok(store_marker_get(s, "a:alice", "#c", &t) == 0 && t == 3000,
	    "marker: a newer one moves it");
	ok(store_marker_get(s, "a:bob", "#c", &t) == 0 && t == 0,
	    "marker: another account's is its own");
	for (i = 0; i < 501; i++) {
		snprintf(target, sizeof(target), "#m%d", i);
		store_marker_set(s, "a:bob", target, 10000 + i);
	}
	store_close(s);
	is_int(raw_int(path_in("rm.db"),
	    "SELECT count(*) FROM read_markers WHERE account = 'a:bob'"), 500,
	    "marker: at most 500 per account");
	is_int(raw_int(path_in("rm.db"), "SELECT count(*) FROM read_markers "
	    "WHERE account = 'a:bob' AND target = '#m0'"), 0,
	    "marker: the oldest goes first");
}

/* draft/message-redaction: the row goes, and a kept mention's copy of it. */
static void
test_redact(void)
{
	struct store *s;
	struct store_mention sm;
	struct seen got;

	s = store_open(path_in("rd.db"), err, sizeof(err));
	if (s == NULL)
		exit(1);
	add(s, "#c", "#c", "alice", "r1", 1000);
	add(s, "#c", "#c", "alice", "r2", 2000);
	memset(&sm, 0, sizeof(sm));
	sm.account = "bob";
	sm.target = "#c";
	sm.from = "alice";
	sm.time = 2000;
	sm.text = "r2";
	store_mention_add(s, &sm);
	sm.time = 1000;
	sm.text = "r1";
	store_mention_add(s, &sm);
	memset(&got, 0, sizeof(got));
	is_int(store_history_get(s, "r2", collect, &got), 1, "redact: get finds it");
	is_int(store_history_redact(s, "r2"), 0, "redact");
	is_int(store_history_redact(s, "nosuch"), 0, "redact: an unknown msgid");
	memset(&got, 0, sizeof(got));
	is_int(store_history_get(s, "r2", collect, &got), 0, "redact: gone");
	is_str(q(s, "#c", STORE_LATEST, NULL, NULL, 10), "r1",
	    "redact: the others stay");
	store_close(s);
	is_int(raw_int(path_in("rd.db"), "SELECT count(*) FROM mentions "
	    "WHERE text = 'r2'"), 0, "redact: the mention's copy goes");
	is_int(raw_int(path_in("rd.db"), "SELECT count(*) FROM mentions "
	    "WHERE text = 'r1'"), 1, "redact: another mention stays");
}

int
main(void)
{
	strlcpy(dir, "/tmp/test_store.XXXXXX", sizeof(dir));
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	chmod(dir, 0755);
	store_set_log(capture_log);
	test_open();
	test_schedules();
	test_tasks();
	test_history();
	test_private();
	test_targets();
	test_prune();
	test_channels();
	test_stays();
	test_member_left();
	test_kv();
	test_markers();
	test_redact();
	test_failures();
	test_migrate();
	test_since();
	test_sessions();
	test_agent_channels();
	test_mentions();
	test_agent_failures();
	test_batch();
	test_batch_lost();
	test_batch_busy();
	test_readonly();
	test_checkpoint();
	if (getenv("KEEP_DB") == NULL)
		rm_tree();
	else
		printf("# kept %s\n", dir);
	return tap_done();
}
