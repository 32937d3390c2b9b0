/* Reading, checking and atomically replacing <state_dir>/pqtpm.state (format in store.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nv/nv.h"
#include "state/store.h"
#include "state_int.h"

static const uint8_t magic[8] = "PQTPMST";
#define HEADER_SIZE (sizeof(magic) + 4 + 4)
#define CHECKSUM_ALG TPM_ALG_SHA256
#define CHECKSUM_SIZE 32
#define MAX_FILE (HEADER_SIZE + STATE_MAX_BODY + CHECKSUM_SIZE)
/* What to do about a state file that does not load, after the message saying what is wrong. */
#define REMEDY                                                                               \
	"; the TPM state was not changed: restore the file from a backup, or move it aside to "  \
	"start a new, empty TPM (its keys, NV indices and counters are then gone)"

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- load ---- */

/* The whole file into a fresh buffer (*out, to wipe and free). */
static int read_all(int fd, uint8_t **out, size_t *len)
{
	struct stat st;
	size_t size, got = 0;
	uint8_t *buf;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size < 0 || (uint64_t)st.st_size > MAX_FILE)
		return -EFBIG;
	size = (size_t)st.st_size;
	buf = malloc(size ? size : 1);
	if (!buf)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = read(fd, &buf[got], size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int rc = -errno;

			free(buf);
			return rc;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	*out = buf;
	*len = got;
	return 0;
}

/* Check the frame and parse the body into ps. */
static int parse_file(const char *path, const uint8_t *buf, size_t len, struct persist *ps,
		      char *err, size_t errlen)
{
	struct rd r, body_rd;
	const uint8_t *head, *body, *stored;
	uint32_t version, body_len;
	uint8_t sum[CHECKSUM_SIZE];
	const char *what;
	size_t n = len < sizeof(magic) ? len : sizeof(magic);

	rd_init(&r, buf, len);
	if (rd_view(&r, n, &head) != TPM_RC_SUCCESS || memcmp(head, magic, n) != 0)
		return fail(err, errlen, -EBADMSG, "%s: not a pqtpm state file", path);
	if (n < sizeof(magic) || rd_u32(&r, &version) != TPM_RC_SUCCESS)
		return fail(err, errlen, -EBADMSG, "%s: truncated at byte %zu", path, len);
	if (version < STATE_VERSION_MIN || version > STATE_VERSION)
		return fail(err, errlen, -ENOTSUP,
			    "%s: unsupported version %u (this pqtpm reads versions %u to %u)", path, version,
			    STATE_VERSION_MIN, STATE_VERSION);
	if (rd_u32(&r, &body_len) != TPM_RC_SUCCESS)
		return fail(err, errlen, -EBADMSG, "%s: truncated at byte %zu", path, len);
	if (body_len > STATE_MAX_BODY)
		return fail(err, errlen, -EBADMSG, "%s: body length %u exceeds the limit %u", path,
			    body_len, STATE_MAX_BODY);
	if (rd_view(&r, body_len, &body) != TPM_RC_SUCCESS ||
	    rd_view(&r, CHECKSUM_SIZE, &stored) != TPM_RC_SUCCESS)
		return fail(err, errlen, -EBADMSG, "%s: truncated at byte %zu", path, len);
	if (rd_left(&r))
		return fail(err, errlen, -EBADMSG, "%s: %zu bytes of trailing data after byte %zu",
			    path, rd_left(&r), r.off);
	if (crypto_hash(CHECKSUM_ALG, buf, HEADER_SIZE + body_len, sum) != TPM_RC_SUCCESS)
		return fail(err, errlen, -EIO, "%s: cannot compute the checksum", path);
	if (!crypto_ct_equal(sum, stored, CHECKSUM_SIZE))
		return fail(err, errlen, -EBADMSG, "%s: bad checksum", path);
	rd_init(&body_rd, body, body_len);
	if (state_decode(&body_rd, ps, version, &what) != TPM_RC_SUCCESS)
		return fail(err, errlen, -EBADMSG, "%s: %s at byte %zu", path, what,
			    HEADER_SIZE + body_rd.off);
	return 0;
}

static void id_of(const struct stat *st, struct state_file_id *id)
{
	id->known = true;
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	id->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

static bool same_id(const struct state_file_id *a, const struct state_file_id *b)
{
	return a->known == b->known && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

static int load_locked(const char *path, struct persist *ps, struct state_file_id *id,
		       char *err, size_t errlen)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t len = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		return fail(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	if (fstat(fd, &st) == 0)
		id_of(&st, id);
	rc = read_all(fd, &buf, &len);
	/* read-only descriptor: a close error cannot lose data */
	(void)close(fd);
	if (rc == -EFBIG)
		return fail(err, errlen, rc, "%s: larger than any state file (%zu bytes)", path,
			    (size_t)MAX_FILE);
	if (rc < 0)
		return fail(err, errlen, rc, "%s: %s", path, strerror(-rc));
	rc = parse_file(path, buf, len, ps, err, errlen);
	crypto_wipe(buf, len);
	free(buf);
	if (rc == -EBADMSG || rc == -ENOTSUP || rc == -EFBIG) {
		size_t n = strnlen(err, errlen);

		if (n < errlen)
			snprintf(err + n, errlen - n, "%s", REMEDY);
	}
	return rc;
}

/* ---- the sequence counter: is e->ps still the newest state? ----
 *
 * <state_dir>/pqtpm.seq holds one 64-bit counter, mapped shared by every engine on the
 * directory. A writer bumps it, holding the lock, before it replaces the state file; an engine
 * notes its value when it loads or saves the file. So while the counter still has the noted
 * value, no process has begun to write since, and e->ps is the newest state: one memory read
 * for commands that only read, instead of the lock and a stat. A writer that dies between the
 * bump and the rename leaves the counter moved: the others then lock, stat as before and find
 * the file unchanged. Where the file cannot be made or mapped (a read-only directory), every
 * command locks and stats. A state file replaced by other means (a backup put back while
 * engines run) moves no counter: reading commands keep the state they have until the next
 * command that locks, which stats the file and loads it. */

static void seq_open(struct pqtpm_engine *e)
{
	char path[PATH_MAX];
	struct stat st;
	void *map;
	int fd;

	if (e->state_seq || state_path(path, sizeof(path), e->state_dir, STATE_SEQ_FILE) < 0)
		return;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	/* a new file is empty: give it its 8 bytes (zero) before mapping them */
	if (fstat(fd, &st) < 0 ||
	    (st.st_size < (off_t)sizeof(uint64_t) && ftruncate(fd, sizeof(uint64_t)) < 0)) {
		(void)close(fd); /* nothing written through it */
		return;
	}
	map = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	(void)close(fd); /* the mapping stays */
	if (map != MAP_FAILED)
		e->state_seq = map;
}

static uint64_t seq_read(const struct pqtpm_engine *e)
{
	return e->state_seq ? __atomic_load_n(e->state_seq, __ATOMIC_ACQUIRE) : 0;
}

/* e->ps is the state as of counter value seq */
static void seq_seen(struct pqtpm_engine *e, uint64_t seq)
{
	e->state_seq_seen = seq;
	e->state_seq_known = e->state_seq != NULL;
}

/* A writer, holding the lock, before it replaces the file. */
static uint64_t seq_bump(struct pqtpm_engine *e)
{
	return e->state_seq ? __atomic_add_fetch(e->state_seq, 1, __ATOMIC_SEQ_CST) : 0;
}

static bool seq_unchanged(const struct pqtpm_engine *e)
{
	return e->state_seq && e->state_seq_known && seq_read(e) == e->state_seq_seen;
}

bool state_fresh(const struct pqtpm_engine *e)
{
	return !e->state_dir || seq_unchanged(e);
}

void state_invalidate(struct pqtpm_engine *e)
{
	e->state_seq_known = false;
	e->state_id.known = false;
}

int state_load(struct pqtpm_engine *e, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct persist ps;
	struct state_file_id id = { 0 };
	uint64_t seq;
	int lock = -1, rc;

	if (!e->state_dir)
		return fail(err, errlen, -ENOENT, "no state directory");
	if (state_path(path, sizeof(path), e->state_dir, STATE_FILE) < 0)
		return fail(err, errlen, -ENAMETOOLONG, "%s: name too long", e->state_dir);
	if (!e->state_locked) {
		lock = state_lock(e->state_dir, false);
		if (lock < 0)
			return fail(err, errlen, lock, "%s/%s: cannot lock: %s", e->state_dir,
				    STATE_LOCK_FILE, strerror(-lock));
	}
	seq = seq_read(e); /* under the lock: no writer moves it until we are done */
	rc = load_locked(path, &ps, &id, err, errlen);
	if (lock >= 0)
		state_unlock(lock);
	if (rc < 0)
		return rc;
	state_free_persist(&e->ps);
	e->ps = ps;
	e->state_loads++;
	e->state_id = id;
	seq_seen(e, seq);
	crypto_wipe(&ps, sizeof(ps));
	return 0;
}

/* ---- save ---- */

static TPM_RC build_file(const struct persist *ps, uint64_t generation, struct wr *w)
{
	size_t len_at, body_start;
	uint8_t *sum;

	TRY(wr_bytes(w, magic, sizeof(magic)));
	TRY(wr_u32(w, STATE_VERSION));
	len_at = w->off;
	TRY(wr_u32(w, 0));
	body_start = w->off;
	TRY(state_encode(ps, generation, w));
	wr_patch_u32(w, len_at, (uint32_t)(w->off - body_start));
	TRY(wr_reserve(w, CHECKSUM_SIZE, &sum));
	return crypto_hash(CHECKSUM_ALG, w->buf, w->off - CHECKSUM_SIZE, sum);
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, &buf[done], len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		rc = -errno;
	(void)close(fd); /* read-only descriptor */
	return rc;
}

/* Temp file, fsync, rename over the state file, fsync the directory. On a failure before
 * the rename the temp file goes and the old state file stays as it was. A failed fsync of
 * the directory is reported too: then either file may be what a crash leaves, as if the
 * crash had come first. */
static int write_atomically(const char *dir, const uint8_t *buf, size_t len,
			    struct state_file_id *id)
{
	struct stat st;
	char tmp[PATH_MAX], final[PATH_MAX];
	int fd, rc;

	if (state_path(tmp, sizeof(tmp), dir, STATE_TMP_FILE) < 0 ||
	    state_path(final, sizeof(final), dir, STATE_FILE) < 0)
		return -ENAMETOOLONG;
	fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, buf, len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, final) < 0)
		rc = -errno;
	if (rc < 0) {
		/* best effort: a leftover temp file is truncated by the next save anyway */
		(void)unlink(tmp);
		return rc;
	}
	rc = sync_dir(dir);
	/* the file now in place: what state_begin compares with (renaming changed its ctime) */
	if (stat(final, &st) == 0)
		id_of(&st, id);
	else
		id->known = false;
	return rc;
}

int state_save(struct pqtpm_engine *e)
{
	uint64_t generation = e->ps.generation + 1, seq;
	struct wr w;
	uint8_t *buf;
	int lock, rc;

	if (!e->state_dir)
		return 0;
	buf = malloc(MAX_FILE);
	if (!buf)
		return -ENOMEM;
	wr_init(&w, buf, MAX_FILE);
	if (build_file(&e->ps, generation, &w) != TPM_RC_SUCCESS) {
		rc = -EOVERFLOW;
		goto out;
	}
	lock = e->state_locked ? -1 : state_lock(e->state_dir, true);
	if (!e->state_locked && lock < 0) {
		rc = lock;
		goto out;
	}
	/* Outside state_begin (a command that only read ps, and then did not): if another
	 * process wrote since ps was loaded, writing ps now would undo its change. */
	if (lock >= 0 && e->state_seq_known && !seq_unchanged(e)) {
		state_unlock(lock);
		rc = -EAGAIN;
		goto out;
	}
	seq = seq_bump(e);
	rc = write_atomically(e->state_dir, buf, w.off, &e->state_id);
	/* ours now, written or not (a failed write left the file as ps was before the
	 * change, and the caller takes the change back) */
	seq_seen(e, seq);
	if (lock >= 0)
		state_unlock(lock);
	if (rc == 0)
		e->ps.generation = generation;
out:
	crypto_wipe(buf, w.off);
	free(buf);
	return rc;
}

/* ---- commands on a shared directory ---- */

/* This process's id, without a getpid() system call on every locked command: kept once
 * asked, forgotten in the child of each fork (pthread_atfork). Where the handler cannot be
 * registered, every call asks. */
static pid_t known_pid;
static bool fork_watched;
static pthread_once_t fork_watch_once = PTHREAD_ONCE_INIT;

static void forget_pid(void)
{
	__atomic_store_n(&known_pid, 0, __ATOMIC_RELAXED);
}

static void watch_forks(void)
{
	fork_watched = pthread_atfork(NULL, NULL, forget_pid) == 0;
}

static pid_t self_pid(void)
{
	pid_t pid;

	(void)pthread_once(&fork_watch_once, watch_forks); /* fails only for a bad argument */
	if (!fork_watched)
		return getpid();
	pid = __atomic_load_n(&known_pid, __ATOMIC_RELAXED);
	if (pid == 0) {
		pid = getpid();
		__atomic_store_n(&known_pid, pid, __ATOMIC_RELAXED);
	}
	return pid;
}

int state_begin(struct pqtpm_engine *e, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct state_file_id now = { 0 };
	struct stat st;
	uint64_t clock, seq;
	int rc;

	if (!e->state_dir)
		return 0;
	/* A forked child shares the parent's open lock file, and with it the lock: its own */
	if (e->state_lock_open && e->state_lock_pid != (int)self_pid()) {
		state_unlock(e->state_lock_fd);
		e->state_lock_open = false;
	}
	if (!e->state_lock_open) {
		rc = state_lock(e->state_dir, true);
		if (rc < 0)
			return fail(err, errlen, rc, "%s/%s: cannot lock: %s", e->state_dir,
				    STATE_LOCK_FILE, strerror(-rc));
		e->state_lock_fd = rc;
		e->state_lock_pid = (int)self_pid();
		e->state_lock_open = true;
	} else {
		while (flock(e->state_lock_fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				rc = -errno;
				return fail(err, errlen, rc, "%s/%s: cannot lock: %s", e->state_dir,
					    STATE_LOCK_FILE, strerror(-rc));
			}
		}
	}
	e->state_locked = true;
	seq_open(e);
	/* A command that may write looks at the file itself too (one stat), not only at the
	 * counter: a file put back by hand (a backup restored) is then loaded, not overwritten. */
	seq = seq_read(e);
	if (state_path(path, sizeof(path), e->state_dir, STATE_FILE) < 0)
		return fail(err, errlen, -ENAMETOOLONG, "%s: name too long", e->state_dir);
	if (stat(path, &st) < 0) {
		/* none yet (a new TPM), or gone: the next save writes ours */
		if (errno != ENOENT)
			return fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
		seq_seen(e, seq);
		return 0;
	}
	id_of(&st, &now);
	if (same_id(&now, &e->state_id)) {
		seq_seen(e, seq);
		return 0;
	}
	/* Another process saved since: act on its state. Clock never goes back. */
	engine_clock_sync(e);
	clock = e->ps.clock;
	rc = state_load(e, err, errlen); /* notes seq on success */
	if (rc == 0 && e->ps.clock < clock)
		e->ps.clock = clock;
	if (rc < 0)
		e->state_seq_known = false;
	return rc;
}

void state_end(struct pqtpm_engine *e)
{
	if (!e->state_locked)
		return;
	/* unlocking a descriptor we hold cannot fail in a way that matters: closing it would */
	(void)flock(e->state_lock_fd, LOCK_UN);
	e->state_locked = false;
}

int state_sync(struct pqtpm_engine *e)
{
	char err[512];
	int rc;

	if (!e->state_dir)
		return 0;
	rc = state_begin(e, err, sizeof(err));
	if (rc < 0)
		engine_log(e, PQTPM_LOG_ERROR, "%s", err);
	else
		rc = state_save(e);
	state_end(e);
	return rc;
}

void state_close(struct pqtpm_engine *e)
{
	state_end(e);
	if (e->state_lock_open)
		state_unlock(e->state_lock_fd);
	e->state_lock_open = false;
	if (e->state_seq)
		(void)munmap(e->state_seq, sizeof(uint64_t)); /* fails only for a bad address */
	e->state_seq = NULL;
	e->state_seq_known = false;
	/* keys made from the seeds go with them */
	primary_cache_free(e);
}
