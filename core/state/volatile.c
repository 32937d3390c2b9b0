/* <state_dir>/pqtpm.volatile: what the TPM holds in RAM (PCRs, the NULL hierarchy, saved
 * sessions, orderly counters, power and startup state: volatile_codec.c), so that the next
 * process to own the directory finds the TPM as a machine that was never rebooted would.
 *
 * It must survive the death of the process (kill -9), not a crash of the host (a reboot is a
 * TPM Reset anyway): written with pwrite into the page cache, never fsynced, before the answer
 * to the command that changed it leaves. Two fixed slots, written in turn, each
 *   "PQTPMVO\0"  u32 version  u64 sequence  u32 body length  body  slot_sum(all before it)
 * so that a write torn by the process's death leaves the other slot, one command older, whose
 * answer was never delivered. The file is allocated at its full size when made, so that a full
 * disk never fails a later write. The body carries the host's boot id: a file from an earlier
 * boot is a power loss (nothing restored). Two damaged slots, or a slot whose checksum holds
 * but whose body does not parse, are refused with a message naming the file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/owner.h"
#include "state/store.h"
#include "state_int.h"

static const uint8_t magic[8] = "PQTPMVO";
#define VOLATILE_VERSION 1u
#define HEADER_SIZE (sizeof(magic) + 4u + 8u + 4u)
#define CHECKSUM_SIZE 16u
#define SLOT_SIZE 65536u
_Static_assert(HEADER_SIZE + VOLATILE_MAX_BODY + CHECKSUM_SIZE <= SLOT_SIZE,
	       "a volatile slot holds the largest body");
#define BOOT_ID_FILE "/proc/sys/kernel/random/boot_id"

struct volatile_file {
	int fd;
	char path[PATH_MAX];
	uint8_t boot_id[VOLATILE_BOOT_ID_SIZE];
	uint64_t seq;		/* of the newest slot, read or written */
	bool restored_unclean;
	size_t last_len;	/* the body last written (or read) */
	uint8_t last[VOLATILE_MAX_BODY];
	uint8_t slot[SLOT_SIZE]; /* the slot being built or read */
};

/* The kernel's id of this boot (36 characters of hex and dashes) as 16 bytes; zeros if the
 * kernel does not say. */
static void read_boot_id(uint8_t *out)
{
	char text[64];
	size_t n, k = 0;
	FILE *f = fopen(BOOT_ID_FILE, "re");

	memset(out, 0, VOLATILE_BOOT_ID_SIZE);
	if (!f)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	(void)fclose(f); /* read-only */
	text[n] = '\0'; /* sscanf reads up to a terminator */
	for (size_t i = 0; i + 1 < n && k < VOLATILE_BOOT_ID_SIZE; i++) {
		unsigned v;

		if (text[i] == '-')
			continue;
		if (sscanf(&text[i], "%2x", &v) != 1)
			break;
		out[k++] = (uint8_t)v;
		i++;
	}
}

static bool all_zero(const uint8_t *b, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

/* Catches a write torn by the process's death and a damaged file, not an attacker (one who
 * can write here can write the state file too; the directory is 0700), so a cryptographic
 * hash is not needed, and SHA-256 would cost more than the rest of a PCR_Extend: Fletcher's
 * two sums over 64-bit words in host order (the file never leaves this boot of this host). */
static void slot_sum(const uint8_t *b, size_t n, uint64_t sum[2])
{
	uint64_t w;
	size_t i;

	sum[0] = 1;
	sum[1] = 0;
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, &b[i], 8);
		sum[0] += w;
		sum[1] += sum[0];
	}
	w = 0;
	memcpy(&w, &b[i], n - i);
	sum[0] += w;
	sum[1] += sum[0];
}

enum slot_kind { SLOT_EMPTY, SLOT_DAMAGED, SLOT_VALID };

/* Check a slot's frame: its sequence number and body (inside buf) if valid. */
static enum slot_kind slot_check(const uint8_t *buf, size_t len, uint64_t *seq,
				 const uint8_t **body, uint32_t *body_len)
{
	uint64_t sum[2], stored[2];
	const uint8_t *head;
	uint32_t version;
	struct rd r;

	if (len < sizeof(magic) || all_zero(buf, HEADER_SIZE < len ? HEADER_SIZE : len))
		return SLOT_EMPTY;
	rd_init(&r, buf, len);
	if (rd_view(&r, sizeof(magic), &head) != TPM_RC_SUCCESS ||
	    memcmp(head, magic, sizeof(magic)) != 0 || rd_u32(&r, &version) != TPM_RC_SUCCESS ||
	    version != VOLATILE_VERSION || rd_u64(&r, seq) != TPM_RC_SUCCESS ||
	    rd_u32(&r, body_len) != TPM_RC_SUCCESS || *body_len > VOLATILE_MAX_BODY ||
	    rd_view(&r, *body_len, body) != TPM_RC_SUCCESS ||
	    rd_u64(&r, &stored[0]) != TPM_RC_SUCCESS || rd_u64(&r, &stored[1]) != TPM_RC_SUCCESS)
		return SLOT_DAMAGED;
	slot_sum(buf, HEADER_SIZE + *body_len, sum);
	return sum[0] == stored[0] && sum[1] == stored[1] ? SLOT_VALID : SLOT_DAMAGED;
}

/* Read slot i into v->slot; the bytes read. */
static ssize_t slot_read(struct volatile_file *v, unsigned i)
{
	ssize_t n;

	do
		n = pread(v->fd, v->slot, SLOT_SIZE, (off_t)i * SLOT_SIZE);
	while (n < 0 && errno == EINTR);
	return n;
}

static int slot_write(struct volatile_file *v, size_t len, unsigned i)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(v->fd, &v->slot[done], len - done,
				   (off_t)i * SLOT_SIZE + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

static void apply(struct pqtpm_engine *e, const struct vstate *s)
{
	e->powered = s->powered;
	e->started = s->started;
	e->nv_available = s->nv_available;
	e->phys_presence = s->phys_presence;
	e->ph_enable = s->ph_enable;
	e->sh_enable = s->sh_enable;
	e->eh_enable = s->eh_enable;
	e->self_tested = s->self_tested;
	e->self_test_failed = s->self_test_failed;
	e->hcrtm_pre_startup = s->hcrtm_pre_startup;
	e->startup_locality = s->startup_locality;
	e->power_on_ms = s->power_on_ms;
	e->clock_ppm = s->clock_ppm;
	e->context_counter = s->context_counter;
	e->pcr_update_counter = s->pcr_update_counter;
	memcpy(e->null_seed, s->null_seed, sizeof(e->null_seed));
	memcpy(e->null_proof, s->null_proof, sizeof(e->null_proof));
	e->next_session = s->next_session;
	e->exclusive_audit = s->exclusive_audit;
	e->nbanks = s->nbanks;
	memcpy(e->banks, s->banks, sizeof(e->banks));
	e->cmd_audit_digest = s->cmd_audit_digest;
	e->commit = s->commit;
	e->pcr_group_auth = s->pcr_group_auth;
}

/* What apply cannot do without memory: the orderly counters and the saved sessions. */
static int apply_alloc(struct pqtpm_engine *e, const struct vstate *s)
{
	if (s->nram) {
		e->nv_ram = calloc(1, sizeof(*e->nv_ram));
		if (!e->nv_ram)
			return -ENOMEM;
		for (unsigned i = 0; i < s->nram; i++) {
			e->nv_ram->handle[i] = s->ram_handle[i];
			e->nv_ram->value[i] = s->ram_value[i];
		}
	}
	for (unsigned i = 0; i < s->nsessions; i++) {
		e->saved_sessions[i] = malloc(sizeof(struct session));
		if (!e->saved_sessions[i])
			return -ENOMEM;
		*e->saved_sessions[i] = s->sessions[i];
	}
	return 0;
}

/* The newest valid slot into v->slot (its body at *body); 0 if there is none. */
static int newest_slot(struct volatile_file *v, const uint8_t **body, uint32_t *body_len,
		       char *err, size_t errlen)
{
	enum slot_kind kind[2];
	uint64_t seq[2] = { 0, 0 };
	int best = -1;
	ssize_t n;

	for (unsigned i = 0; i < 2; i++) {
		n = slot_read(v, i);
		if (n < 0) {
			int rc = -errno;

			snprintf(err, errlen, "%s: %s", v->path, strerror(-rc));
			return rc;
		}
		kind[i] = slot_check(v->slot, (size_t)n, &seq[i], body, body_len);
		if (kind[i] == SLOT_VALID && (best < 0 || seq[i] > seq[best]))
			best = (int)i;
	}
	if (best < 0) {
		if (kind[0] == SLOT_EMPTY && kind[1] == SLOT_EMPTY)
			return 0;
		snprintf(err, errlen,
			 "%s: damaged (no slot with a valid checksum); the TPM's volatile state "
			 "(PCRs, saved contexts) is lost: remove the file to power the TPM on afresh",
			 v->path);
		return -EBADMSG;
	}
	if (kind[best ^ 1] == SLOT_DAMAGED)
		pqtpm_log(PQTPM_LOG_INFO, "%s: one slot torn by an interrupted write; using the "
					  "other", v->path);
	v->seq = seq[best];
	n = slot_read(v, (unsigned)best);
	if (n < 0 || slot_check(v->slot, (size_t)n, &seq[best], body, body_len) != SLOT_VALID) {
		snprintf(err, errlen, "%s: changed while being read", v->path);
		return -EIO;
	}
	return 1;
}

static int restore(struct pqtpm_engine *e, char *err, size_t errlen)
{
	struct volatile_file *v = e->vol;
	const uint8_t *body;
	uint32_t body_len;
	struct vstate *s;
	const char *what;
	struct rd r;
	int rc = newest_slot(v, &body, &body_len, err, errlen);

	if (rc <= 0)
		return rc;
	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	rd_init(&r, body, body_len);
	if (volatile_decode(&r, s, &what) != TPM_RC_SUCCESS) {
		snprintf(err, errlen, "%s: %s at byte %zu of the newest slot; remove the file to "
				      "power the TPM on afresh",
			 v->path, what, HEADER_SIZE + r.off);
		free(s);
		return -EBADMSG;
	}
	if (memcmp(s->boot_id, v->boot_id, sizeof(s->boot_id)) != 0) {
		pqtpm_log(PQTPM_LOG_INFO, "%s: from an earlier boot of the host: the TPM lost power",
			  v->path);
		rc = 0;
	} else {
		apply(e, s);
		rc = apply_alloc(e, s);
		if (rc == 0) {
			v->restored_unclean = !s->clean;
			memcpy(v->last, body, body_len);
			v->last_len = body_len;
			rc = 1;
		}
	}
	crypto_wipe(s, sizeof(*s));
	free(s);
	return rc;
}

int volatile_open(struct pqtpm_engine *e, char *err, size_t errlen)
{
	struct volatile_file *v;
	struct stat st;
	int rc;

	if (!e->state_dir)
		return 0;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->fd = -1;
	e->vol = v;
	if (state_path(v->path, sizeof(v->path), e->state_dir, VOLATILE_FILE) < 0) {
		snprintf(err, errlen, "%s: name too long", e->state_dir);
		return -ENAMETOOLONG;
	}
	v->fd = open(v->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (v->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", v->path, strerror(-rc));
		return rc;
	}
	read_boot_id(v->boot_id);
	/* the first update writes: a restored slot says clean, or the TPM is new */
	volatile_dirty(e);
	if (fstat(v->fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", v->path, strerror(-rc));
		return rc;
	}
	if (st.st_size < (off_t)(2 * SLOT_SIZE)) {
		rc = -posix_fallocate(v->fd, 0, 2 * SLOT_SIZE);
		if (rc < 0) {
			snprintf(err, errlen, "%s: cannot allocate it: %s", v->path, strerror(-rc));
			return rc;
		}
	}
	return restore(e, err, errlen);
}

void volatile_discard(struct pqtpm_engine *e)
{
	char path[PATH_MAX];

	if (state_path(path, sizeof(path), e->state_dir, VOLATILE_FILE) == 0 &&
	    unlink(path) == 0)
		pqtpm_log(PQTPM_LOG_WARN, "%s: left by another TPM (the state file is new); removed",
			  path);
}

#ifdef PQTPM_CHECK_STATE
/* Check builds without a state directory: the body kept in memory after each command, so that
 * the many tests that run an engine in memory find a change made without volatile_dirty too. */
static void check_in_memory(struct pqtpm_engine *e, bool clean)
{
	static const uint8_t no_boot[VOLATILE_BOOT_ID_SIZE];
	struct volatile_file *v = e->vol_check;
	bool first = !v;
	struct wr w;

	if (first) {
		v = e->vol_check = calloc(1, sizeof(*v));
		if (!v)
			abort();
	}
	wr_init(&w, v->slot, VOLATILE_MAX_BODY);
	if (volatile_encode(e, no_boot, false, &w) != TPM_RC_SUCCESS)
		abort();
	if (!first && !e->volatile_changed && !clean &&
	    (w.off != v->last_len || memcmp(v->slot, v->last, w.off) != 0)) {
		pqtpm_log(PQTPM_LOG_ERROR, "the volatile state changed without volatile_dirty");
		abort();
	}
	memcpy(v->last, v->slot, w.off);
	v->last_len = w.off;
	e->volatile_changed = false;
}
#endif

void volatile_update(struct pqtpm_engine *e, bool clean)
{
	struct volatile_file *v = e->vol;
	uint64_t sum[2];
	size_t len;
	struct wr w;
	int rc;

#ifdef PQTPM_CHECK_STATE
	if (!v)
		check_in_memory(e, clean);
#endif
	if (!v)
		return;
#ifndef PQTPM_CHECK_STATE
	/* nothing marked (volatile_dirty): the file has it; the encoding costs more than the rest
	 * of a GetRandom */
	if (!e->volatile_changed && !clean)
		return;
#endif
	wr_init(&w, &v->slot[HEADER_SIZE], VOLATILE_MAX_BODY);
	if (volatile_encode(e, v->boot_id, clean, &w) != TPM_RC_SUCCESS) {
		pqtpm_log(PQTPM_LOG_ERROR, "%s: the volatile state does not fit", v->path);
		return;
	}
	len = w.off;
	if (len == v->last_len && memcmp(&v->slot[HEADER_SIZE], v->last, len) == 0) {
		e->volatile_changed = false;
		return;
	}
#ifdef PQTPM_CHECK_STATE
	/* check builds encode every time, to find a change that was not marked */
	if (!e->volatile_changed && !clean) {
		pqtpm_log(PQTPM_LOG_ERROR, "%s: the volatile state changed without volatile_dirty",
			  v->path);
		abort();
	}
#endif
	wr_init(&w, v->slot, HEADER_SIZE);
	wr_bytes(&w, magic, sizeof(magic));
	wr_u32(&w, VOLATILE_VERSION);
	wr_u64(&w, v->seq + 1);
	wr_u32(&w, (uint32_t)len);
	slot_sum(v->slot, HEADER_SIZE + len, sum);
	wr_init(&w, &v->slot[HEADER_SIZE + len], CHECKSUM_SIZE);
	wr_u64(&w, sum[0]);
	wr_u64(&w, sum[1]);
	rc = slot_write(v, HEADER_SIZE + len + CHECKSUM_SIZE, (unsigned)((v->seq + 1) & 1));
	if (rc < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "%s: cannot write the volatile state: %s", v->path,
			  strerror(-rc));
		return;
	}
	v->seq++;
	memcpy(v->last, &v->slot[HEADER_SIZE], len);
	v->last_len = len;
	e->volatile_changed = false;
}

bool volatile_restored_unclean(const struct pqtpm_engine *e)
{
	return e->vol && e->vol->restored_unclean;
}

void volatile_close(struct pqtpm_engine *e)
{
	struct volatile_file *v = e->vol;

#ifdef PQTPM_CHECK_STATE
	if (e->vol_check)
		crypto_wipe(e->vol_check, sizeof(*e->vol_check));
	free(e->vol_check);
	e->vol_check = NULL;
#endif
	if (!v)
		return;
	if (v->fd >= 0)
		(void)close(v->fd); /* nothing to flush: the page cache has every write */
	crypto_wipe(v, sizeof(*v));
	free(v);
	e->vol = NULL;
}
