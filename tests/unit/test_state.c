/* The state file (core/state): every field survives a save and a load; every kind of broken
 * file is refused with a message naming it and is left as it was; saves that cannot complete
 * fail cleanly and leave the old file; directory and file permissions; the lock. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine_int.h"
#include "harness.h"
#include "nv/nv.h"
#include "object/object.h"
#include "state/state_int.h"
#include "state/store.h"
#include "unit_main.h"

#define CHECKSUM_SIZE 32
#define HEADER_SIZE 16

static char tmp_root[] = "/tmp/pqtpm-test-state-XXXXXX";
static unsigned dir_seq;

/* ---- helpers: directories and files ---- */

/* A fresh, empty directory under tmp_root. */
static void new_dir(char *out, size_t cap)
{
	snprintf(out, cap, "%s/d%u", tmp_root, ++dir_seq);
	CU_ASSERT_FATAL(mkdir(out, 0700) == 0);
}

static void path_in(char *out, size_t cap, const char *dir, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

static uint8_t *read_bytes(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	FILE *f = fopen(path, "rb");

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fstat(fileno(f), &st) == 0);
	buf = malloc((size_t)st.st_size + 1);
	CU_ASSERT_FATAL(buf != NULL);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	CU_ASSERT_FATAL(*len == (size_t)st.st_size);
	fclose(f);
	return buf;
}

/* A new file each time: rewriting one in place makes ext4 flush it on close, slowly. */
static void write_bytes(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f;

	CU_ASSERT_FATAL(unlink(path) == 0 || errno == ENOENT);
	f = fopen(path, "wb");

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fwrite(buf, 1, len, f) == len);
	CU_ASSERT_FATAL(fclose(f) == 0);
}

static bool file_equals(const char *path, const uint8_t *buf, size_t len)
{
	size_t n;
	uint8_t *now = read_bytes(path, &n);
	bool same = n == len && memcmp(now, buf, len) == 0;

	free(now);
	return same;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* ---- helpers: engines and persistent state ---- */

static struct pqtpm_engine *engine_new(const char *dir)
{
	struct pqtpm_engine *e = calloc(1, sizeof(*e));

	CU_ASSERT_FATAL(e != NULL);
	if (dir) {
		e->state_dir = strdup(dir);
		CU_ASSERT_FATAL(e->state_dir != NULL);
	}
	return e;
}

static void engine_free(struct pqtpm_engine *e)
{
	state_free_persist(&e->ps);
	state_close(e);
	free(e->state_dir);
	free(e);
}

static void random_bytes(void *p, size_t n)
{
	CU_ASSERT_FATAL(crypto_random(p, n) == TPM_RC_SUCCESS);
}

static void random_digest(struct tpm2b_digest *d, uint16_t size)
{
	d->size = size;
	random_bytes(d->b, size);
}

/* A key as CreatePrimary would leave it: ECC P-256 signing, or ML-DSA-87 (the largest
 * public area there is). */
static struct object *make_object(TPM_HANDLE handle, TPM_HANDLE hierarchy, bool mldsa)
{
	struct object *o = calloc(1, sizeof(*o));
	struct tpmt_public *p;

	CU_ASSERT_FATAL(o != NULL);
	p = &o->pub;
	o->kind = OBJ_KEY;
	o->handle = handle;
	o->hierarchy = hierarchy;
	o->has_sensitive = true;
	o->is_primary = handle & 1;
	p->name_alg = TPM_ALG_SHA256;
	p->attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
			TPMA_OBJECT_SIGN_ENCRYPT;
	random_digest(&p->auth_policy, 32);
	p->symmetric.alg = TPM_ALG_NULL;
	p->scheme.scheme = p->scheme.hash_alg = p->scheme.kdf = TPM_ALG_NULL;
	p->kdf.scheme = p->kdf.hash_alg = p->kdf.kdf = TPM_ALG_NULL;
	p->pre_hash = TPM_ALG_NULL;
	if (mldsa) {
		p->type = TPM_ALG_MLDSA;
		p->parameter_set = TPM_MLDSA_87;
		p->unique.size = MAX_PQ_PUBLIC;
		random_bytes(p->unique.b, p->unique.size);
	} else {
		p->type = TPM_ALG_ECC;
		p->scheme.scheme = TPM_ALG_ECDSA;
		p->scheme.hash_alg = TPM_ALG_SHA256;
		p->curve_id = TPM_ECC_NIST_P256;
		p->x.size = p->y.size = 32;
		random_bytes(p->x.b, 32);
		random_bytes(p->y.b, 32);
	}
	o->sens.type = p->type;
	random_digest(&o->sens.auth_value, 20);
	random_digest(&o->sens.seed_value, 32);
	o->sens.sensitive.size = 32;
	random_bytes(o->sens.sensitive.b, 32);
	CU_ASSERT_FATAL(object_name(p, &o->name) == TPM_RC_SUCCESS);
	o->qualified_name.size = 34;
	random_bytes(o->qualified_name.b, 34);
	return o;
}

/* Every field set to something other than its zero value. Objects go into every other slot,
 * so that the gaps of the in-memory table are exercised too. */
static void fill_persist(struct persist *ps, unsigned nobj, bool mldsa)
{
	static const TPM_HANDLE hierarchies[] = { TPM_RH_OWNER, TPM_RH_ENDORSEMENT,
						  TPM_RH_PLATFORM };

	for (int i = 0; i < HIER_COUNT; i++) {
		if (i == HIER_NULL)
			continue;
		random_digest(&ps->hier[i].auth, (uint16_t)(10 + i));
		random_digest(&ps->hier[i].policy, 32);
		ps->hier[i].policy_alg = TPM_ALG_SHA256;
		random_bytes(ps->hier[i].seed, sizeof(ps->hier[i].seed));
		random_bytes(ps->hier[i].proof, sizeof(ps->hier[i].proof));
	}
	ps->disable_clear = true;
	ps->ph_enable_nv = true;
	ps->pcr_banks = PQTPM_BANK_SHA256 | PQTPM_BANK_SHA384;
	ps->pcr_banks_pending = PQTPM_BANK_SHA1;
	ps->clock = 0x0123456789ABCDEFull;
	ps->reset_count = 0x11223344;
	ps->restart_count = 0x55667788;
	ps->orderly = true;
	ps->saved_state_valid = true;
	random_bytes(&ps->context_epoch, sizeof(ps->context_epoch));
	ps->generation = 41;
	for (unsigned i = 0; i < nobj; i++) {
		unsigned slot = (2 * i) % MAX_PERSISTENT_OBJECTS + (2 * i) / MAX_PERSISTENT_OBJECTS;

		ps->persistent[slot] = make_object(0x81000100 + i, hierarchies[i % 3], mldsa);
	}
}

static size_t marshal(TPM_RC (*fn)(struct wr *, const void *), const void *v, uint8_t *buf)
{
	struct wr w;

	wr_init(&w, buf, 4096);
	CU_ASSERT_FATAL(fn(&w, v) == TPM_RC_SUCCESS);
	return w.off;
}

static TPM_RC wr_pub(struct wr *w, const void *v)
{
	return wr_tpm2b_public(w, v);
}

static TPM_RC wr_sens(struct wr *w, const void *v)
{
	return wr_sensitive(w, v);
}

static bool same_marshalled(TPM_RC (*fn)(struct wr *, const void *), const void *a,
			    const void *b)
{
	static uint8_t x[4096], y[4096];
	size_t nx = marshal(fn, a, x), ny = marshal(fn, b, y);

	return nx == ny && memcmp(x, y, nx) == 0;
}

static const struct object *find_object(const struct persist *ps, TPM_HANDLE h)
{
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		if (ps->persistent[i] && ps->persistent[i]->handle == h)
			return ps->persistent[i];
	return NULL;
}

static unsigned count_objects(const struct persist *ps)
{
	unsigned n = 0;

	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		n += ps->persistent[i] != NULL;
	return n;
}

static void assert_same_object(const struct object *a, const struct object *b)
{
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_EQUAL(b->kind, OBJ_KEY);
	CU_ASSERT_EQUAL(b->handle, a->handle);
	CU_ASSERT_EQUAL(b->hierarchy, a->hierarchy);
	CU_ASSERT_EQUAL(b->is_primary, a->is_primary);
	CU_ASSERT_TRUE(b->has_sensitive);
	CU_ASSERT_TRUE(same_marshalled(wr_pub, &a->pub, &b->pub));
	CU_ASSERT_TRUE(same_marshalled(wr_sens, &a->sens, &b->sens));
	CU_ASSERT_EQUAL(b->name.size, a->name.size);
	CU_ASSERT_EQUAL(memcmp(b->name.b, a->name.b, a->name.size), 0);
	CU_ASSERT_EQUAL(b->qualified_name.size, a->qualified_name.size);
	CU_ASSERT_EQUAL(memcmp(b->qualified_name.b, a->qualified_name.b, a->qualified_name.size),
			0);
}

static void assert_same_persist(const struct persist *a, const struct persist *b)
{
	for (int i = 0; i < HIER_COUNT; i++) {
		if (i == HIER_NULL)
			continue;
		CU_ASSERT_EQUAL(memcmp(&b->hier[i].auth, &a->hier[i].auth,
				       2 + a->hier[i].auth.size), 0);
		CU_ASSERT_EQUAL(memcmp(&b->hier[i].policy, &a->hier[i].policy,
				       2 + a->hier[i].policy.size), 0);
		CU_ASSERT_EQUAL(b->hier[i].policy_alg, a->hier[i].policy_alg);
		CU_ASSERT_EQUAL(memcmp(b->hier[i].seed, a->hier[i].seed, PRIMARY_SEED_SIZE), 0);
		CU_ASSERT_EQUAL(memcmp(b->hier[i].proof, a->hier[i].proof, PRIMARY_SEED_SIZE), 0);
	}
	CU_ASSERT_EQUAL(b->disable_clear, a->disable_clear);
	CU_ASSERT_EQUAL(b->ph_enable_nv, a->ph_enable_nv);
	CU_ASSERT_EQUAL(b->pcr_banks, a->pcr_banks);
	CU_ASSERT_EQUAL(b->pcr_banks_pending, a->pcr_banks_pending);
	CU_ASSERT_EQUAL(b->clock, a->clock);
	CU_ASSERT_EQUAL(b->reset_count, a->reset_count);
	CU_ASSERT_EQUAL(b->restart_count, a->restart_count);
	CU_ASSERT_EQUAL(b->orderly, a->orderly);
	CU_ASSERT_EQUAL(b->saved_state_valid, a->saved_state_valid);
	CU_ASSERT_EQUAL(b->context_epoch, a->context_epoch);
	CU_ASSERT_EQUAL(b->generation, a->generation);
	CU_ASSERT_EQUAL(count_objects(b), count_objects(a));
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		if (a->persistent[i])
			assert_same_object(a->persistent[i],
					   find_object(b, a->persistent[i]->handle));
}

/* A valid state file in dir with nobj objects; returns its bytes. */
static uint8_t *saved_file(const char *dir, unsigned nobj, size_t *len)
{
	char path[512];
	struct pqtpm_engine *e = engine_new(dir);

	fill_persist(&e->ps, nobj, false);
	CU_ASSERT_FATAL(state_save(e) == 0);
	engine_free(e);
	path_in(path, sizeof(path), dir, STATE_FILE);
	return read_bytes(path, len);
}

/* ---- round trip ---- */

static void round_trip(unsigned nobj, bool mldsa)
{
	char dir[256];
	struct pqtpm_engine *a, *b;
	char err[512] = "";

	new_dir(dir, sizeof(dir));
	a = engine_new(dir);
	b = engine_new(dir);
	fill_persist(&a->ps, nobj, mldsa);
	CU_ASSERT_EQUAL_FATAL(state_save(a), 0);
	CU_ASSERT_EQUAL(a->ps.generation, 42);
	CU_ASSERT_EQUAL(state_load(b, err, sizeof(err)), 0);
	if (err[0])
		fprintf(stderr, "\n  %s\n", err);
	assert_same_persist(&a->ps, &b->ps);

	/* a second save bumps the generation again; a reload replaces what was loaded */
	a->ps.reset_count++;
	CU_ASSERT_EQUAL_FATAL(state_save(a), 0);
	CU_ASSERT_EQUAL(a->ps.generation, 43);
	CU_ASSERT_EQUAL(state_load(b, err, sizeof(err)), 0);
	assert_same_persist(&a->ps, &b->ps);
	engine_free(a);
	engine_free(b);
}

static void test_round_trip(void)
{
	round_trip(0, false);
	round_trip(5, false);
}

static void test_round_trip_full_of_largest_objects(void)
{
	round_trip(MAX_PERSISTENT_OBJECTS, true);
}

static void test_no_file_is_enoent(void)
{
	char dir[256], err[512] = "";
	struct pqtpm_engine *e;

	new_dir(dir, sizeof(dir));
	e = engine_new(dir);
	CU_ASSERT_EQUAL(state_load(e, err, sizeof(err)), -ENOENT);
	engine_free(e);
}

static void test_no_state_dir(void)
{
	struct pqtpm_engine *e = engine_new(NULL);
	char err[64];

	CU_ASSERT_EQUAL(state_save(e), 0);
	CU_ASSERT_EQUAL(state_load(e, err, sizeof(err)), -ENOENT);
	engine_free(e);
}

/* ---- broken files ---- */

/* Write bytes as the state file of dir, load, and check: refused (not as a missing file),
 * the message names the file (and says phrase, if given), e->ps untouched, file untouched. */
static void expect_refused(const char *dir, const uint8_t *bytes, size_t len, const char *phrase)
{
	char path[512], err[512] = "";
	struct pqtpm_engine *e = engine_new(dir);
	int rc;

	path_in(path, sizeof(path), dir, STATE_FILE);
	write_bytes(path, bytes, len);
	e->ps.reset_count = 12345;
	e->ps.persistent[3] = make_object(0x81000003, TPM_RH_OWNER, false);
	rc = state_load(e, err, sizeof(err));
	CU_ASSERT(rc < 0 && rc != -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	if (phrase && !strstr(err, phrase)) {
		CU_FAIL("message does not say what is wrong");
		fprintf(stderr, "\n  expected '%s' in '%s'\n", phrase, err);
	}
	CU_ASSERT_EQUAL(e->ps.reset_count, 12345);
	CU_ASSERT_EQUAL(count_objects(&e->ps), 1);
	CU_ASSERT_TRUE(file_equals(path, bytes, len));
	engine_free(e);
}

/* Recompute the body length and checksum after editing a body, so only the edit is wrong. */
static void reseal(uint8_t *buf, size_t len)
{
	struct wr w;

	wr_init(&w, buf, len);
	wr_patch_u32(&w, 12, (uint32_t)(len - HEADER_SIZE - CHECKSUM_SIZE));
	CU_ASSERT_FATAL(crypto_hash(TPM_ALG_SHA256, buf, len - CHECKSUM_SIZE,
				    &buf[len - CHECKSUM_SIZE]) == TPM_RC_SUCCESS);
}

static void test_every_flipped_byte_refused(void)
{
	char dir[256];
	size_t len;
	uint8_t *good, *bad;

	new_dir(dir, sizeof(dir));
	good = saved_file(dir, 1, &len);
	bad = malloc(len);
	CU_ASSERT_FATAL(bad != NULL);
	for (size_t i = 0; i < len; i++) {
		const char *phrase = "bad checksum";

		if (i < 8)
			phrase = "not a pqtpm state file";
		else if (i < 12)
			phrase = "unsupported version";
		else if (i < HEADER_SIZE)
			phrase = NULL; /* the body length: truncated, trailing data or too long */
		memcpy(bad, good, len);
		bad[i] ^= 0x01;
		expect_refused(dir, bad, len, phrase);
		bad[i] ^= 0xFF;
		expect_refused(dir, bad, len, phrase);
	}
	free(bad);
	free(good);
}

static void test_truncated_refused(void)
{
	char dir[256], phrase[64];
	size_t len;
	uint8_t *good;

	new_dir(dir, sizeof(dir));
	good = saved_file(dir, 2, &len);
	const size_t cuts[] = { 0, 1, 7, 8, 11, 12, 15, 16, 17, len / 2, len - CHECKSUM_SIZE - 1,
				len - CHECKSUM_SIZE, len - 1 };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		snprintf(phrase, sizeof(phrase), "truncated at byte %zu", cuts[i]);
		expect_refused(dir, good, cuts[i], phrase);
	}
	free(good);
}

static void test_wrong_magic_version_trailing_refused(void)
{
	static const uint8_t text[] = "# not a state file\n";
	char dir[256];
	size_t len;
	uint8_t *good, *bad;

	new_dir(dir, sizeof(dir));
	good = saved_file(dir, 1, &len);
	bad = malloc(len + 3);
	CU_ASSERT_FATAL(bad != NULL);

	memcpy(bad, good, len);
	bad[6] = 'X';
	expect_refused(dir, bad, len, "not a pqtpm state file");
	expect_refused(dir, text, sizeof(text) - 1, "not a pqtpm state file");
	expect_refused(dir, (const uint8_t *)"PQ", 2, "truncated at byte 2");

	memcpy(bad, good, len);
	bad[11] = STATE_VERSION + 1;
	expect_refused(dir, bad, len, "unsupported version 3");
	bad[8] = 0x80;
	expect_refused(dir, bad, len, "unsupported version 2147483651");
	bad[8] = 0;
	bad[11] = 0;
	expect_refused(dir, bad, len, "unsupported version 0");
	/* a version 2 body under a version 1 header: what follows version 1's fields is extra */
	bad[11] = 1;
	reseal(bad, len);
	expect_refused(dir, bad, len, "unexpected bytes after the last field");

	memcpy(bad, good, len);
	memcpy(&bad[len], "xyz", 3);
	expect_refused(dir, bad, len + 3, "3 bytes of trailing data");

	/* a length far beyond anything we write */
	memcpy(bad, good, len);
	bad[12] = 0x7F;
	expect_refused(dir, bad, len, "exceeds the limit");
	free(bad);
	free(good);
}

/* Offset of disableClear in a file written from fill_persist's values. */
static size_t flags_offset(const struct persist *ps)
{
	size_t off = HEADER_SIZE;

	for (int i = 0; i < HIER_COUNT; i++)
		if (i != HIER_NULL)
			off += 2 + ps->hier[i].auth.size + 2 + ps->hier[i].policy.size + 2 +
			       2 * PRIMARY_SEED_SIZE;
	return off;
}

/* What version 2 adds after the objects when there is nothing to add: clockSafe, the DA
 * state, no saved PCR bank, NV maxCounter and no index. */
/* the "PLAT" section with nothing set: tag, audit hash and counter, two empty lists, the
 * algorithm set, no PCR policy */
#define PLATFORM_EMPTY (4 + 2 + 8 + 2 + 2 + 4 + 2 + 2)
#define V2_TAIL_EMPTY (1 + (4 + 1 + 4 + 4 + 4 + 8 + 1 + 8 + 8) + 1 + (8 + 2) + PLATFORM_EMPTY)

/* Bodies with a valid checksum that still do not parse: what an older or newer writer with
 * the same version number, or a bug, would leave. */
static void test_bad_body_refused(void)
{
	char dir[256], path[512];
	struct pqtpm_engine *e;
	size_t len, flags_at, count_at;
	uint8_t *good, *bad;

	new_dir(dir, sizeof(dir));
	e = engine_new(dir);
	fill_persist(&e->ps, 0, false);
	CU_ASSERT_FATAL(state_save(e) == 0);
	flags_at = flags_offset(&e->ps);
	count_at = flags_at + 1 + 1 + 4 + 4 + 8 + 4 + 4 + 1 + 1 + 8 + 8;
	engine_free(e);
	path_in(path, sizeof(path), dir, STATE_FILE);
	good = read_bytes(path, &len);
	CU_ASSERT_EQUAL_FATAL(count_at + 2 + V2_TAIL_EMPTY, len - CHECKSUM_SIZE);
	bad = malloc(len + 1);
	CU_ASSERT_FATAL(bad != NULL);

	memcpy(bad, good, len);
	bad[flags_at] = 2;
	reseal(bad, len);
	expect_refused(dir, bad, len, "bad boolean");

	memcpy(bad, good, len);
	bad[count_at + 1] = MAX_PERSISTENT_OBJECTS + 1;
	reseal(bad, len);
	expect_refused(dir, bad, len, "too many persistent objects");

	memcpy(bad, good, len);
	bad[count_at + 1] = 1; /* one object announced, none there: what follows is no object */
	reseal(bad, len);
	expect_refused(dir, bad, len, "bad persistent handle");

	/* one byte more in the body, length and checksum consistent */
	memcpy(bad, good, len - CHECKSUM_SIZE);
	bad[len - CHECKSUM_SIZE] = 0;
	reseal(bad, len + 1);
	expect_refused(dir, bad, len + 1, "unexpected bytes");
	free(bad);
	free(good);
}

static void test_bad_object_refused(void)
{
	char dir[256], path[512];
	struct pqtpm_engine *e;
	size_t len, obj_at;
	uint8_t *good, *bad;

	new_dir(dir, sizeof(dir));
	e = engine_new(dir);
	fill_persist(&e->ps, 0, false);
	e->ps.persistent[0] = make_object(0x81000001, TPM_RH_OWNER, false);
	CU_ASSERT_FATAL(state_save(e) == 0);
	obj_at = flags_offset(&e->ps) + 44 + 2;
	engine_free(e);
	path_in(path, sizeof(path), dir, STATE_FILE);
	good = read_bytes(path, &len);
	bad = malloc(len);
	CU_ASSERT_FATAL(bad != NULL);

	memcpy(bad, good, len);
	bad[obj_at] = 0x80; /* a transient handle */
	reseal(bad, len);
	expect_refused(dir, bad, len, "bad persistent handle");

	memcpy(bad, good, len);
	bad[obj_at + 7] = 0x07; /* TPM_RH_NULL */
	reseal(bad, len);
	expect_refused(dir, bad, len, "bad object hierarchy");

	memcpy(bad, good, len);
	bad[obj_at + 8 + 1 + 2 + 1] = 0x99; /* TPMT_PUBLIC type */
	reseal(bad, len);
	expect_refused(dir, bad, len, "malformed field");
	free(bad);
	free(good);
}


/* ---- version 2: NV store, DA, saved PCRs, clockSafe; version 1 files ---- */

#define NV_IDX 0x01500000u
#define COUNTER_ATTRS (TPMA_NV_OWNERREAD | TPMA_NV_OWNERWRITE | TPMA_NV_WRITTEN | \
		       (TPM_NT_COUNTER << TPMA_NV_TPM2_NT_SHIFT))

static void add_index(struct nv_store *s, TPM_HANDLE h, uint32_t attrs, uint16_t size,
		      const char *auth, uint8_t fill)
{
	struct nv_public pub = { .handle = h, .name_alg = TPM_ALG_SHA256, .attributes = attrs,
				 .size = size };
	struct tpm2b_digest a = { .size = (uint16_t)strlen(auth) };
	struct nv_index *idx;

	memcpy(a.b, auth, a.size);
	CU_ASSERT_FATAL(nv_add(s, &pub, &a, &idx) == TPM_RC_SUCCESS);
	memset(nv_data(s, idx), fill, size);
}

/* Everything version 2 adds, set to something else than zero. */
static void fill_v2(struct persist *ps)
{
	ps->clock_safe = false;
	ps->da.failed_tries = 2;
	ps->da.params_set = true;
	ps->da.max_tries = 7;
	ps->da.recovery_time = 60;
	ps->da.lockout_recovery = 600;
	ps->da.heal_from = 123456;
	ps->da.lockout_locked = true;
	ps->da.lockout_from = 99;
	ps->da.lockout_boot = 0x100000002ull;
	ps->pcr_saved.nbanks = 2;
	ps->pcr_saved.alg[0] = TPM_ALG_SHA1;
	ps->pcr_saved.alg[1] = TPM_ALG_SHA384;
	random_bytes(ps->pcr_saved.value, sizeof(ps->pcr_saved.value));
	ps->nv = nv_store_new();
	CU_ASSERT_FATAL(ps->nv != NULL);
	ps->nv->max_counter = 77;
	add_index(ps->nv, NV_IDX, COUNTER_ATTRS, 8, "", 1);
	add_index(ps->nv, NV_IDX + 1, TPMA_NV_AUTHREAD | TPMA_NV_AUTHWRITE, 2000, "secret", 2);
	add_index(ps->nv, NV_IDX + 2, TPMA_NV_OWNERREAD | TPMA_NV_OWNERWRITE |
				     (TPM_NT_EXTEND << TPMA_NV_TPM2_NT_SHIFT), 32, "", 3);
	ps->audit.alg = TPM_ALG_SHA384;
	ps->audit.counter = 0x0102030405060708ull;
	ps->audit.n = CMD_AUDIT_MAX;
	for (unsigned i = 0; i < CMD_AUDIT_MAX; i++)
		ps->audit.list[i] = TPM_CC_NV_UndefineSpaceSpecial + i;
	ps->pp.n = 2;
	ps->pp.list[0] = TPM_CC_Clear;
	ps->pp.list[1] = TPM_CC_HierarchyChangeAuth;
	ps->algorithm_set = 0xA5A5F00Du;
	ps->pcr_group_policy_alg = TPM_ALG_SHA256;
	random_digest(&ps->pcr_group_policy, 32);
	ps->ram_saved.valid = true;
	random_digest(&ps->ram_saved.cmd_audit_digest, 48);
	ps->ram_saved.commit.nonce_set = true;
	random_bytes(ps->ram_saved.commit.nonce, sizeof(ps->ram_saved.commit.nonce));
	ps->ram_saved.commit.counter = 0x1234567;
	random_bytes(ps->ram_saved.commit.pending, sizeof(ps->ram_saved.commit.pending));
	random_digest(&ps->ram_saved.pcr_group_auth, 5);
}

static void test_round_trip_v2(void)
{
	char dir[256], err[512] = "";
	struct pqtpm_engine *a, *b;
	struct nv_index *x, *y;

	new_dir(dir, sizeof(dir));
	a = engine_new(dir);
	b = engine_new(dir);
	fill_persist(&a->ps, 2, false);
	fill_v2(&a->ps);
	CU_ASSERT_EQUAL_FATAL(state_save(a), 0);
	CU_ASSERT_EQUAL_FATAL(state_load(b, err, sizeof(err)), 0);
	assert_same_persist(&a->ps, &b->ps);
	CU_ASSERT_EQUAL(b->ps.clock_safe, false);
	CU_ASSERT_EQUAL(memcmp(&b->ps.da, &a->ps.da, sizeof(a->ps.da)), 0);
	CU_ASSERT_EQUAL(b->ps.pcr_saved.nbanks, 2);
	CU_ASSERT_EQUAL(b->ps.pcr_saved.alg[1], TPM_ALG_SHA384);
	CU_ASSERT_EQUAL(memcmp(b->ps.pcr_saved.value[0][15], a->ps.pcr_saved.value[0][15], 20), 0);
	CU_ASSERT_EQUAL(memcmp(b->ps.pcr_saved.value[1][3], a->ps.pcr_saved.value[1][3], 48), 0);
	CU_ASSERT_EQUAL(b->ps.nv->max_counter, 77);
	CU_ASSERT_EQUAL(nv_count(b->ps.nv, -1), 3);
	for (unsigned i = 0; i < 3; i++) {
		x = nv_find(a->ps.nv, NV_IDX + i);
		y = nv_find(b->ps.nv, NV_IDX + i);
		CU_ASSERT_FATAL(x && y);
		CU_ASSERT_EQUAL(x->pub.handle, y->pub.handle);
		CU_ASSERT_EQUAL(x->pub.name_alg, y->pub.name_alg);
		CU_ASSERT_EQUAL(x->pub.attributes, y->pub.attributes);
		CU_ASSERT_EQUAL(x->pub.size, y->pub.size);
		CU_ASSERT_EQUAL(x->pub.policy.size, y->pub.policy.size);
		CU_ASSERT_EQUAL(x->auth.size, y->auth.size);
		CU_ASSERT_EQUAL(memcmp(x->auth.b, y->auth.b, x->auth.size), 0);
		CU_ASSERT_EQUAL(memcmp(nv_data(a->ps.nv, x), nv_data(b->ps.nv, y), x->pub.size), 0);
	}
	CU_ASSERT_EQUAL(memcmp(&b->ps.audit, &a->ps.audit, sizeof(a->ps.audit)), 0);
	CU_ASSERT_EQUAL(memcmp(&b->ps.pp, &a->ps.pp, sizeof(a->ps.pp)), 0);
	CU_ASSERT_EQUAL(b->ps.algorithm_set, a->ps.algorithm_set);
	CU_ASSERT_EQUAL(b->ps.pcr_group_policy_alg, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(memcmp(&b->ps.pcr_group_policy, &a->ps.pcr_group_policy, 2 + 32), 0);
	CU_ASSERT(b->ps.ram_saved.valid);
	CU_ASSERT_EQUAL(memcmp(&b->ps.ram_saved.cmd_audit_digest, &a->ps.ram_saved.cmd_audit_digest,
			       2 + 48), 0);
	CU_ASSERT_EQUAL(memcmp(&b->ps.ram_saved.commit, &a->ps.ram_saved.commit,
			       sizeof(a->ps.ram_saved.commit)), 0);
	CU_ASSERT_EQUAL(memcmp(&b->ps.ram_saved.pcr_group_auth, &a->ps.ram_saved.pcr_group_auth,
			       2 + 5), 0);
	engine_free(a);
	engine_free(b);
}

/* A version 2 file with no objects and one counter index; the offset where what version 2
 * adds begins, and the offset of the index's TPMS_NV_PUBLIC. */
static uint8_t *v2_file(const char *dir, size_t *len, size_t *tail_at, size_t *index_at)
{
	char path[512];
	struct pqtpm_engine *e = engine_new(dir);

	fill_persist(&e->ps, 0, false);
	e->ps.nv = nv_store_new();
	CU_ASSERT_FATAL(e->ps.nv != NULL);
	add_index(e->ps.nv, NV_IDX, COUNTER_ATTRS, 8, "pw", 5);
	CU_ASSERT_FATAL(state_save(e) == 0);
	*tail_at = flags_offset(&e->ps) + 44 + 2;
	*index_at = *tail_at + 1 + 42 + 1 + 8 + 2;
	engine_free(e);
	path_in(path, sizeof(path), dir, STATE_FILE);
	return read_bytes(path, len);
}

static void test_bad_v2_sections_refused(void)
{
	char dir[256];
	size_t len, tail, idx;
	uint8_t *good, *bad;

	new_dir(dir, sizeof(dir));
	good = v2_file(dir, &len, &tail, &idx);
	CU_ASSERT_EQUAL_FATAL(len - CHECKSUM_SIZE,
			      idx + 4 + 2 + 4 + 2 + 2 + 2 + 2 + 8 + PLATFORM_EMPTY);
	bad = malloc(len + 64);
	CU_ASSERT_FATAL(bad != NULL);

#define EDIT(off, val, phrase)                                                              \
	do {                                                                                \
		memcpy(bad, good, len);                                                     \
		bad[off] = (val);                                                           \
		reseal(bad, len);                                                           \
		expect_refused(dir, bad, len, phrase);                                      \
	} while (0)
	EDIT(tail, 2, "bad boolean");			 /* clockSafe */
	EDIT(tail + 1 + 4, 3, "bad boolean");		 /* DA paramsSet */
	EDIT(tail + 1 + 42, MAX_PCR_BANKS + 1, "too many saved PCR banks");
	EDIT(tail + 1 + 42, 1, "bad saved PCR bank");	 /* alg 0x0000 */
	EDIT(idx - 2, 0x01, "too many NV indices");	 /* count 0x0101 */
	EDIT(idx - 1, 2, "bad NV index");		 /* two announced, one there */
	EDIT(idx, 0x02, "bad NV index");		 /* handle 0x02500000 */
	EDIT(idx + 5, 0x99, "bad NV index");		 /* nameAlg 0x0099 */
	EDIT(idx + 8, 0x01, "bad NV index");		 /* reserved attribute bit 8 */
	EDIT(idx + 13, 7, "NV index with a bad size");	 /* a counter of 7 bytes */
	EDIT(idx + 9, 0x30, "NV index with a bad size"); /* type 3: none */
	EDIT(idx + 12, 0x40, "bad NV index");		 /* dataSize 0x4008 > NV_INDEX_MAX */
	EDIT(idx + 15, 40, "bad NV index");		 /* authValue past the end */
#undef EDIT

	/* the same index twice: count 2, the index repeated before the "PLAT" section */
	{
		size_t end = len - CHECKSUM_SIZE - PLATFORM_EMPTY, one = end - idx;

		memcpy(bad, good, end);
		memcpy(bad + end, good + idx, one);
		memcpy(bad + end + one, good + end, PLATFORM_EMPTY);
		bad[idx - 1] = 2;
		reseal(bad, len + one);
		expect_refused(dir, bad, len + one, "NV index defined twice");
	}
	free(bad);
	free(good);
}

/* A file written before the platform's settings were persistent (no "PLAT" section) loads
 * with their defaults; a "PLAT" section with a bad hash, an unsorted or too long list or a
 * policy of the wrong size is refused. */
static void test_platform_section(void)
{
	char dir[256], path[512], err[512] = "";
	size_t len, tail, idx, plat, oldlen;
	struct pqtpm_engine *e;
	uint8_t *good, *bad;

	new_dir(dir, sizeof(dir));
	good = v2_file(dir, &len, &tail, &idx);
	plat = len - CHECKSUM_SIZE - PLATFORM_EMPTY;
	CU_ASSERT_EQUAL_FATAL(good[plat], 'P');
	oldlen = plat + CHECKSUM_SIZE;
	bad = malloc(len + 64);
	CU_ASSERT_FATAL(bad != NULL);
	memcpy(bad, good, plat);
	reseal(bad, oldlen);
	path_in(path, sizeof(path), dir, STATE_FILE);
	write_bytes(path, bad, oldlen);
	e = engine_new(dir);
	CU_ASSERT_EQUAL_FATAL(state_load(e, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(e->ps.audit.alg, 0);
	CU_ASSERT_EQUAL(e->ps.audit.counter, 0);
	CU_ASSERT_EQUAL(e->ps.audit.n, 0);
	CU_ASSERT_EQUAL(e->ps.pp.n, 0);
	CU_ASSERT_EQUAL(e->ps.algorithm_set, 0);
	CU_ASSERT_EQUAL(e->ps.pcr_group_policy_alg, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(e->ps.pcr_group_policy.size, 0);
	engine_free(e);

#define EDIT(off, val, phrase)                                                              \
	do {                                                                                \
		memcpy(bad, good, len);                                                     \
		bad[off] = (val);                                                           \
		reseal(bad, len);                                                           \
		expect_refused(dir, bad, len, phrase);                                      \
	} while (0)
	EDIT(plat + 5, 0x99, "bad command audit hash");		/* alg 0x0099 */
	EDIT(plat + 4 + 2 + 8, 0x01, "bad audited command list"); /* 256 announced */
	EDIT(plat + 4 + 2 + 8 + 2 + 2 + 4 + 1, 0x0b, "bad PCR policy"); /* SHA-256, empty */
#undef EDIT
	/* an audited command list out of order */
	{
		size_t list = plat + 4 + 2 + 8, n = 2, extra = 4 * n;

		memcpy(bad, good, len - CHECKSUM_SIZE);
		memmove(bad + list + 2 + extra, bad + list + 2, len - CHECKSUM_SIZE - list - 2);
		bad[list + 1] = (uint8_t)n;
		memcpy(bad + list + 2, "\x00\x00\x01\x7b\x00\x00\x01\x44", extra);
		reseal(bad, len + extra);
		expect_refused(dir, bad, len + extra, "bad audited command list");
	}
	free(bad);
	free(good);
}

/* Shutdown(STATE)'s reset data ("RSET") only with a Shutdown(STATE), with an audit digest of
 * a hash's size. */
static void test_ram_saved_section(void)
{
	size_t cap = 16384;
	uint8_t *buf = malloc(cap);
	const char *what = NULL;
	struct persist ps, out;
	struct wr w;
	struct rd r;

	CU_ASSERT_FATAL(buf != NULL);
	memset(&ps, 0, sizeof(ps));
	ps.ram_saved.valid = true;
	ps.ram_saved.cmd_audit_digest.size = 32;
	wr_init(&w, buf, cap);
	CU_ASSERT_FATAL(state_encode(&ps, 1, &w) == TPM_RC_SUCCESS);
	rd_init(&r, buf, w.off);
	CU_ASSERT_NOT_EQUAL(state_decode(&r, &out, STATE_VERSION, &what), TPM_RC_SUCCESS);
	CU_ASSERT(what && strstr(what, "without a Shutdown(STATE)") != NULL);

	ps.saved_state_valid = true;
	wr_init(&w, buf, cap);
	CU_ASSERT_FATAL(state_encode(&ps, 1, &w) == TPM_RC_SUCCESS);
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL_FATAL(state_decode(&r, &out, STATE_VERSION, &what), TPM_RC_SUCCESS);
	CU_ASSERT(out.ram_saved.valid);
	CU_ASSERT_EQUAL(out.ram_saved.cmd_audit_digest.size, 32);
	state_free_persist(&out);

	ps.ram_saved.cmd_audit_digest.size = 31;
	wr_init(&w, buf, cap);
	CU_ASSERT_FATAL(state_encode(&ps, 1, &w) == TPM_RC_SUCCESS);
	rd_init(&r, buf, w.off);
	CU_ASSERT_NOT_EQUAL(state_decode(&r, &out, STATE_VERSION, &what), TPM_RC_SUCCESS);
	CU_ASSERT(what && strstr(what, "bad command audit digest") != NULL);
	free(buf);
}

/* A version 1 file (no version 2 sections) loads: no NV indices, Clock safe, no DA failures. */
static void test_version1_loads(void)
{
	char dir[256], path[512], err[512] = "";
	size_t len, tail, idx, v1len;
	struct pqtpm_engine *e;
	uint8_t *good, *v1;

	new_dir(dir, sizeof(dir));
	good = v2_file(dir, &len, &tail, &idx);
	v1len = tail + CHECKSUM_SIZE;
	v1 = malloc(v1len);
	CU_ASSERT_FATAL(v1 != NULL);
	memcpy(v1, good, tail);
	v1[11] = 1;
	reseal(v1, v1len);
	path_in(path, sizeof(path), dir, STATE_FILE);
	write_bytes(path, v1, v1len);
	e = engine_new(dir);
	CU_ASSERT_EQUAL(state_load(e, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->ps.nv);
	CU_ASSERT_EQUAL(nv_count(e->ps.nv, -1), 0);
	CU_ASSERT_EQUAL(e->ps.clock_safe, true);
	CU_ASSERT_EQUAL(e->ps.da.failed_tries, 0);
	CU_ASSERT_EQUAL(e->ps.reset_count, 0x11223344);
	/* saved again, it is a version 2 file */
	CU_ASSERT_EQUAL(state_save(e), 0);
	engine_free(e);
	free(v1);
	v1 = read_bytes(path, &v1len);
	CU_ASSERT_EQUAL(v1[11], STATE_VERSION);
	free(v1);
	free(good);
}

static void test_directory_as_state_file_refused(void)
{
	char dir[256], path[512], err[512] = "";
	struct pqtpm_engine *e;

	new_dir(dir, sizeof(dir));
	path_in(path, sizeof(path), dir, STATE_FILE);
	CU_ASSERT_FATAL(mkdir(path, 0700) == 0);
	e = engine_new(dir);
	CU_ASSERT(state_load(e, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	engine_free(e);
}

/* ---- saves that cannot complete ---- */

static void test_save_into_missing_dir_fails(void)
{
	char dir[256], missing[512];
	struct pqtpm_engine *e;

	new_dir(dir, sizeof(dir));
	path_in(missing, sizeof(missing), dir, "missing/sub");
	e = engine_new(missing);
	fill_persist(&e->ps, 1, false);
	CU_ASSERT_EQUAL(state_save(e), -ENOENT);
	CU_ASSERT_EQUAL(e->ps.generation, 41);
	engine_free(e);
}

static void test_save_into_read_only_dir_fails(void)
{
	char dir[256];
	struct pqtpm_engine *e;

	/* /proc refuses new files even to root */
	e = engine_new("/proc");
	CU_ASSERT(state_save(e) < 0);
	engine_free(e);
	if (geteuid() == 0)
		return; /* root writes into a 0500 directory anyway */
	new_dir(dir, sizeof(dir));
	e = engine_new(dir);
	CU_ASSERT_FATAL(chmod(dir, 0500) == 0);
	CU_ASSERT_EQUAL(state_save(e), -EACCES);
	CU_ASSERT_FATAL(chmod(dir, 0700) == 0);
	engine_free(e);
}

/* The temp file on a full disk (a symlink to /dev/full), and the temp file name taken by a
 * directory: the save fails with the errno, the old file stays, the temp file goes. */
static void test_failed_write_keeps_old_file(void)
{
	char dir[256], tmp[512], path[512];
	struct pqtpm_engine *e;
	size_t len;
	uint8_t *old;

	new_dir(dir, sizeof(dir));
	old = saved_file(dir, 2, &len);
	path_in(path, sizeof(path), dir, STATE_FILE);
	path_in(tmp, sizeof(tmp), dir, STATE_TMP_FILE);
	e = engine_new(dir);
	fill_persist(&e->ps, 3, false);

	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(state_save(e), -ENOSPC);
	CU_ASSERT_FALSE(exists(tmp));
	CU_ASSERT_TRUE(file_equals(path, old, len));
	CU_ASSERT_EQUAL(e->ps.generation, 41);

	CU_ASSERT_FATAL(mkdir(tmp, 0700) == 0);
	CU_ASSERT_EQUAL(state_save(e), -EISDIR);
	CU_ASSERT_TRUE(file_equals(path, old, len));
	CU_ASSERT_FATAL(rmdir(tmp) == 0);

	CU_ASSERT_EQUAL(state_save(e), 0);
	CU_ASSERT_FALSE(file_equals(path, old, len));
	CU_ASSERT_FALSE(exists(tmp));
	engine_free(e);
	free(old);
}

/* ---- permissions ---- */

static mode_t mode_of(const char *path)
{
	struct stat st;

	CU_ASSERT_FATAL(stat(path, &st) == 0);
	return st.st_mode & 07777;
}

static void test_dir_prepare_modes(void)
{
	char dir[256], a[512], abc[512], err[512] = "";
	mode_t old;

	new_dir(dir, sizeof(dir));
	path_in(a, sizeof(a), dir, "a");
	path_in(abc, sizeof(abc), dir, "a/b/c");
	/* a umask that takes the owner's write permission: created dirs are still 0700 */
	old = umask(0277);
	CU_ASSERT_EQUAL(state_dir_prepare(abc, err, sizeof(err)), 0);
	umask(old);
	CU_ASSERT_EQUAL(mode_of(a), 0700);
	CU_ASSERT_EQUAL(mode_of(abc), 0700);
	/* again: nothing to do */
	CU_ASSERT_EQUAL(state_dir_prepare(abc, err, sizeof(err)), 0);
	/* a directory we did not create keeps its mode */
	CU_ASSERT_FATAL(chmod(abc, 0750) == 0);
	CU_ASSERT_EQUAL(state_dir_prepare(abc, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(mode_of(abc), 0750);
}

static void test_dir_prepare_refuses_file(void)
{
	char dir[256], file[512], below[512], err[512] = "";

	new_dir(dir, sizeof(dir));
	path_in(file, sizeof(file), dir, "plain");
	path_in(below, sizeof(below), dir, "plain/sub");
	write_bytes(file, (const uint8_t *)"x", 1);
	CU_ASSERT_EQUAL(state_dir_prepare(file, err, sizeof(err)), -ENOTDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, file));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a directory"));
	err[0] = 0;
	CU_ASSERT(state_dir_prepare(below, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, file));
	CU_ASSERT(state_dir_prepare("", err, sizeof(err)) < 0);
}

static void test_file_modes(void)
{
	char dir[256], path[512], lock[512];
	mode_t old;
	size_t len;

	new_dir(dir, sizeof(dir));
	old = umask(0);
	free(saved_file(dir, 0, &len));
	umask(old);
	path_in(path, sizeof(path), dir, STATE_FILE);
	path_in(lock, sizeof(lock), dir, STATE_LOCK_FILE);
	CU_ASSERT_EQUAL(mode_of(path), 0600);
	CU_ASSERT_EQUAL(mode_of(lock), 0600);
}

/* ---- the lock ---- */

/* A child holds the lock (exclusive or shared) and writes a byte to a pipe just before it
 * lets go: when the parent's load or save returns, that byte must already be there. */
static void lock_blocks(bool child_exclusive, bool parent_saves)
{
	char dir[256], lock[512], err[512] = "";
	int held[2], released[2], status;
	struct pqtpm_engine *e;
	size_t len;
	pid_t pid;
	char ch;

	new_dir(dir, sizeof(dir));
	free(saved_file(dir, 1, &len));
	path_in(lock, sizeof(lock), dir, STATE_LOCK_FILE);
	CU_ASSERT_FATAL(pipe(held) == 0 && pipe(released) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fd = open(lock, O_RDONLY);

		if (fd < 0 || flock(fd, child_exclusive ? LOCK_EX : LOCK_SH) < 0 ||
		    write(held[1], "L", 1) != 1)
			_exit(1);
		usleep(100 * 1000);
		if (write(released[1], "U", 1) != 1)
			_exit(1);
		_exit(close(fd) == 0 ? 0 : 1);
	}
	CU_ASSERT_FATAL(read(held[0], &ch, 1) == 1);
	e = engine_new(dir);
	if (parent_saves) {
		CU_ASSERT_EQUAL(state_save(e), 0);
	} else {
		CU_ASSERT_EQUAL(state_load(e, err, sizeof(err)), 0);
	}
	CU_ASSERT_FATAL(fcntl(released[0], F_SETFL, O_NONBLOCK) == 0);
	CU_ASSERT_EQUAL(read(released[0], &ch, 1), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(held[0]);
	close(held[1]);
	close(released[0]);
	close(released[1]);
	engine_free(e);
}

static void test_lock_serializes(void)
{
	lock_blocks(true, false); /* a writer holds it: the load waits */
	lock_blocks(false, true); /* a reader holds it: the save waits */
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "round trip of every field", test_round_trip },
		{ "round trip, 32 ML-DSA-87 objects", test_round_trip_full_of_largest_objects },
		{ "no file: -ENOENT", test_no_file_is_enoent },
		{ "no state directory", test_no_state_dir },
		{ "every flipped byte refused", test_every_flipped_byte_refused },
		{ "truncated files refused", test_truncated_refused },
		{ "magic, version, trailing data", test_wrong_magic_version_trailing_refused },
		{ "bad bodies with good checksums", test_bad_body_refused },
		{ "bad objects with good checksums", test_bad_object_refused },
		{ "round trip of NV, DA, saved PCRs, clockSafe", test_round_trip_v2 },
		{ "bad version 2 sections with good checksums", test_bad_v2_sections_refused },
		{ "the platform's settings: old files load, bad ones refused",
		  test_platform_section },
		{ "Shutdown(STATE)'s reset data", test_ram_saved_section },
		{ "a version 1 file loads and is saved as version 2", test_version1_loads },
		{ "a directory as state file", test_directory_as_state_file_refused },
		{ "save into a missing directory", test_save_into_missing_dir_fails },
		{ "save into a read-only directory", test_save_into_read_only_dir_fails },
		{ "failed write keeps the old file", test_failed_write_keeps_old_file },
		{ "directory modes", test_dir_prepare_modes },
		{ "directory prepare refuses a file", test_dir_prepare_refuses_file },
		{ "file modes", test_file_modes },
		{ "lock serializes processes", test_lock_serializes },
	};
	int failed;

	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return 2;
	}
	failed = UNIT_RUN("state", tests, NULL, NULL);
	harness_rm_tree(tmp_root);
	return failed;
}
