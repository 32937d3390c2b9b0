/* PCRs (core/pcr.c, core/cmd/pcr.c): reset values, extend and event known answers, the
 * 8-digest limit of PCR_Read, PC Client locality rules, PCR_Allocate across a TPM Reset, the
 * H-CRTM and D-RTM hash sequences, and pcr_digest. Banks by default: SHA-1 and SHA-256. */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "pcr.h"
#include "unit_main.h"

#define RC_P1(rc) ((rc) | TPM_RC_P | TPM_RC_1)

static struct harness h;
static struct cmdbuf b;

/* ---- command helpers ---- */

static void sel_one(struct wr *w, TPM_ALG_ID alg, uint32_t map)
{
	wr_u16(w, alg);
	wr_u8(w, 3);
	wr_u8(w, (uint8_t)map);
	wr_u8(w, (uint8_t)(map >> 8));
	wr_u8(w, (uint8_t)(map >> 16));
}

static TPM_RC extend(TPM_HANDLE pcr, TPM_ALG_ID alg, const uint8_t *digest)
{
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, pcr);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, alg);
	wr_bytes(&b.params, digest, crypto_hash_size(alg));
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC reset(TPM_HANDLE pcr)
{
	cmd_begin(&b, TPM_CC_PCR_Reset);
	cmd_handle(&b, pcr);
	cmd_auth_pw(&b, "");
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC startup_clear(void)
{
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	return harness_run(&h, &b, NULL, NULL);
}

/* Read one PCR of one bank: its size, 0 if the bank is not allocated. */
static size_t read1(TPM_ALG_ID alg, unsigned pcr, uint8_t *out, uint32_t *counter)
{
	struct rd r;
	uint32_t c, count, n;
	uint16_t hash, size = 0;
	uint8_t sos, sel[3];

	cmd_begin(&b, TPM_CC_PCR_Read);
	wr_u32(&b.params, 1);
	sel_one(&b.params, alg, 1u << pcr);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &c), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &count), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(count, 1);
	CU_ASSERT_EQUAL(rd_u16(&r, &hash), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(hash, alg);
	CU_ASSERT_EQUAL(rd_u8(&r, &sos), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_bytes(&r, sel, sizeof(sel)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	if (n == 1)
		CU_ASSERT_EQUAL(rd_tpm2b(&r, out, MAX_DIGEST_SIZE, &size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	if (counter)
		*counter = c;
	return size;
}

/* H(old || digest) for the bank alg */
static void expect_extend(TPM_ALG_ID alg, const uint8_t *old, const uint8_t *digest,
			  uint8_t *out)
{
	uint8_t cat[2 * MAX_DIGEST_SIZE];
	size_t n = crypto_hash_size(alg);

	memcpy(cat, old, n);
	memcpy(cat + n, digest, n);
	CU_ASSERT_EQUAL(crypto_hash(alg, cat, 2 * n, out), TPM_RC_SUCCESS);
}

static bool all_bytes(const uint8_t *v, size_t n, uint8_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != x)
			return false;
	return true;
}

/* ---- tests ---- */

static void test_startup_values(void)
{
	static const TPM_ALG_ID banks[] = { TPM_ALG_SHA1, TPM_ALG_SHA256 };
	uint8_t v[MAX_DIGEST_SIZE];

	harness_open(&h);
	for (size_t i = 0; i < 2; i++) {
		size_t n = crypto_hash_size(banks[i]);

		for (unsigned pcr = 0; pcr < 24; pcr++) {
			CU_ASSERT_EQUAL(read1(banks[i], pcr, v, NULL), n);
			CU_ASSERT(all_bytes(v, n, pcr >= 17 && pcr <= 22 ? 0xFF : 0x00));
		}
	}
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA384, 0, v, NULL), 0);
	harness_close(&h);
}

static void test_extend_known_answer(void)
{
	uint8_t d1[20], d256[32], old1[20], old256[32], want[32], got[MAX_DIGEST_SIZE];
	uint32_t c0, c1;

	harness_open(&h);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA1, "event", 5, d1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, "event", 5, d256), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA1, 16, old1, &c0), 20);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, old256, NULL), 32);

	/* both banks in one command */
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 16);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 2);
	wr_u16(&b.params, TPM_ALG_SHA1);
	wr_bytes(&b.params, d1, sizeof(d1));
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, d256, sizeof(d256));
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);

	expect_extend(TPM_ALG_SHA256, old256, d256, want);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, got, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
	expect_extend(TPM_ALG_SHA1, old1, d1, want);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA1, 16, got, &c1), 20);
	CU_ASSERT_EQUAL(memcmp(got, want, 20), 0);
	CU_ASSERT_EQUAL(c1, c0 + 2); /* one per bank changed */

	/* again, on top of the new value */
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, old256, NULL), 32);
	CU_ASSERT_EQUAL(extend(16, TPM_ALG_SHA256, d256), TPM_RC_SUCCESS);
	expect_extend(TPM_ALG_SHA256, old256, d256, want);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, got, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
	harness_close(&h);
}

static void test_extend_inputs(void)
{
	uint8_t d[MAX_DIGEST_SIZE] = { 1 }, before[32], after[32];
	uint32_t c0, c1;

	harness_open(&h);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 23, before, &c0), 32);
	/* a bank that is not allocated, and a hash without a bank: skipped */
	CU_ASSERT_EQUAL(extend(23, TPM_ALG_SHA384, d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend(23, TPM_ALG_SHA512, d), TPM_RC_SUCCESS);
	/* TPM_RH_NULL: accepted, nothing changes */
	CU_ASSERT_EQUAL(extend(TPM_RH_NULL, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 23, after, &c1), 32);
	CU_ASSERT_EQUAL(memcmp(before, after, 32), 0);
	CU_ASSERT_EQUAL(c1, c0);

	/* unknown hash */
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 23);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SM3_256);
	wr_bytes(&b.params, d, 32);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_HASH));
	/* more digests than hashes */
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 23);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 5);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_SIZE));
	/* digest cut short */
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 23);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, d, 31);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_INSUFFICIENT));
	/* a byte too many */
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 23);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 0);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SIZE);
	/* PCR 24 does not exist */
	CU_ASSERT_EQUAL(extend(24, TPM_ALG_SHA256, d), TPM_RC_VALUE | TPM_RC_1);
	/* no authorization */
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 23);
	wr_u32(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_AUTH_MISSING);
	harness_close(&h);
}

static void test_extend_localities(void)
{
	uint8_t d[32] = { 7 }, ff[32], want[32], got[32];
	uint32_t c0, c1;

	harness_open(&h);
	memset(ff, 0xFF, sizeof(ff));
	CU_ASSERT_EQUAL(extend(17, TPM_ALG_SHA256, d), TPM_RC_LOCALITY);
	CU_ASSERT_EQUAL(extend(20, TPM_ALG_SHA256, d), TPM_RC_LOCALITY);
	CU_ASSERT_EQUAL(extend(0, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);

	h.locality = 2;
	CU_ASSERT_EQUAL(extend(17, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	expect_extend(TPM_ALG_SHA256, ff, d, want);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 17, got, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
	/* PCRs 20-22 do not move pcrUpdateCounter */
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 21, got, &c0), 32);
	CU_ASSERT_EQUAL(extend(21, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 21, got, &c1), 32);
	CU_ASSERT_EQUAL(c1, c0);
	CU_ASSERT_FALSE(all_bytes(got, 32, 0xFF));

	h.locality = 1;
	CU_ASSERT_EQUAL(extend(20, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend(21, TPM_ALG_SHA256, d), TPM_RC_LOCALITY);
	h.locality = 3;
	CU_ASSERT_EQUAL(extend(19, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	h.locality = 4;
	CU_ASSERT_EQUAL(extend(19, TPM_ALG_SHA256, d), TPM_RC_LOCALITY);
	CU_ASSERT_EQUAL(extend(18, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend(5, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	h.locality = 0x20; /* extended locality */
	CU_ASSERT_EQUAL(extend(16, TPM_ALG_SHA256, d), TPM_RC_LOCALITY);
	harness_close(&h);
}

static void test_event(void)
{
	static const TPM_ALG_ID algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					   TPM_ALG_SHA512 };
	static uint8_t big[1025];
	uint8_t d[MAX_DIGEST_SIZE], got[MAX_DIGEST_SIZE], old[32], want[32];
	struct rd r;
	uint32_t count;

	harness_open(&h);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, old, NULL), 32);
	cmd_begin(&b, TPM_CC_PCR_Event);
	cmd_handle(&b, 16);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "hello", 5);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &count), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(count, 4);
	for (size_t i = 0; i < 4; i++) {
		uint16_t alg = 0;
		size_t n = crypto_hash_size(algs[i]);

		CU_ASSERT_EQUAL(rd_u16(&r, &alg), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(alg, algs[i]);
		CU_ASSERT_EQUAL(rd_bytes(&r, got, n), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash(algs[i], "hello", 5, d), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, d, n), 0);
	}
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, "hello", 5, d), TPM_RC_SUCCESS);
	expect_extend(TPM_ALG_SHA256, old, d, want);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, got, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);

	/* TPM_RH_NULL: digests only */
	cmd_begin(&b, TPM_CC_PCR_Event);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "x", 1);
	CU_ASSERT_EQUAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, d, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, d, 32), 0);

	/* an event larger than TPM2B_EVENT */
	cmd_begin(&b, TPM_CC_PCR_Event);
	cmd_handle(&b, 16);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, big, sizeof(big));
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_SIZE));
	/* locality */
	cmd_begin(&b, TPM_CC_PCR_Event);
	cmd_handle(&b, 22);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "x", 1);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_LOCALITY);
	harness_close(&h);
}

/* A PCR_Read answer: counter, selection, digests. */
struct read_answer {
	uint32_t nsel;
	struct tpms_pcr_selection sel[4];
	uint32_t ndigests;
	uint16_t sizes[8];
};

static void parse_read(struct rd *r, struct read_answer *a)
{
	uint32_t counter;
	uint8_t buf[MAX_DIGEST_SIZE];

	memset(a, 0, sizeof(*a));
	CU_ASSERT_EQUAL(rd_u32(r, &counter), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(r, &a->nsel), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(a->nsel <= 4);
	for (uint32_t i = 0; i < a->nsel; i++) {
		CU_ASSERT_EQUAL(rd_u16(r, &a->sel[i].hash), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_u8(r, &a->sel[i].size_of_select), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_bytes(r, a->sel[i].select, 3), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(rd_u32(r, &a->ndigests), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(a->ndigests <= 8);
	for (uint32_t i = 0; i < a->ndigests; i++)
		CU_ASSERT_EQUAL(rd_tpm2b(r, buf, sizeof(buf), &a->sizes[i]), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(r), 0);
}

static void test_read_many(void)
{
	struct read_answer a;
	struct rd r;

	harness_open(&h);
	cmd_begin(&b, TPM_CC_PCR_Read);
	wr_u32(&b.params, 3);
	sel_one(&b.params, TPM_ALG_SHA1, 0xFFFFFF);
	sel_one(&b.params, TPM_ALG_SHA384, 0xFFFFFF);
	sel_one(&b.params, TPM_ALG_SHA256, 0xFFFFFF);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	parse_read(&r, &a);
	CU_ASSERT_EQUAL(a.nsel, 3);
	CU_ASSERT_EQUAL(a.ndigests, 8);
	CU_ASSERT_EQUAL(a.sizes[7], 20);
	/* the first eight SHA-1 PCRs went out; the rest is cleared */
	CU_ASSERT_EQUAL(a.sel[0].hash, TPM_ALG_SHA1);
	CU_ASSERT(a.sel[0].select[0] == 0xFF && a.sel[0].select[1] == 0 && a.sel[0].select[2] == 0);
	CU_ASSERT_EQUAL(a.sel[1].hash, TPM_ALG_SHA384);
	CU_ASSERT(all_bytes(a.sel[1].select, 3, 0));
	CU_ASSERT_EQUAL(a.sel[2].hash, TPM_ALG_SHA256);
	CU_ASSERT(all_bytes(a.sel[2].select, 3, 0));

	/* a small selection across banks comes back whole, in order */
	cmd_begin(&b, TPM_CC_PCR_Read);
	wr_u32(&b.params, 2);
	sel_one(&b.params, TPM_ALG_SHA256, 1u << 3 | 1u << 5);
	sel_one(&b.params, TPM_ALG_SHA1, 1u << 23);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	parse_read(&r, &a);
	CU_ASSERT_EQUAL(a.ndigests, 3);
	CU_ASSERT(a.sizes[0] == 32 && a.sizes[1] == 32 && a.sizes[2] == 20);
	CU_ASSERT_EQUAL(a.sel[1].select[2], 0x80);

	/* malformed selections */
	cmd_begin(&b, TPM_CC_PCR_Read);
	wr_u32(&b.params, 5);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_SIZE));
	cmd_begin(&b, TPM_CC_PCR_Read);
	wr_u32(&b.params, 1);
	sel_one(&b.params, TPM_ALG_SM3_256, 1);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_HASH));
	harness_close(&h);
}

static void test_reset_rules(void)
{
	uint8_t d[32] = { 3 }, v[32];
	uint32_t c0, c1;

	harness_open(&h);
	CU_ASSERT_EQUAL(extend(16, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, v, &c0), 32);
	CU_ASSERT_FALSE(all_bytes(v, 32, 0));
	CU_ASSERT_EQUAL(reset(16), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, v, &c1), 32);
	CU_ASSERT(all_bytes(v, 32, 0));
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA1, 16, v, NULL), 20);
	CU_ASSERT(all_bytes(v, 20, 0));
	CU_ASSERT_EQUAL(c1, c0 + 1);

	for (unsigned pcr = 0; pcr < 16; pcr++)
		CU_ASSERT_EQUAL(reset(pcr), TPM_RC_LOCALITY);
	for (unsigned pcr = 17; pcr < 23; pcr++)
		CU_ASSERT_EQUAL(reset(pcr), TPM_RC_LOCALITY);
	CU_ASSERT_EQUAL(reset(23), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(reset(TPM_RH_NULL), TPM_RC_VALUE | TPM_RC_1);

	h.locality = 2;
	CU_ASSERT_EQUAL(reset(20), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 20, v, NULL), 32);
	CU_ASSERT(all_bytes(v, 32, 0));
	CU_ASSERT_EQUAL(reset(21), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(reset(17), TPM_RC_LOCALITY);
	h.locality = 3;
	CU_ASSERT_EQUAL(reset(23), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(reset(22), TPM_RC_LOCALITY);
	/* locality 4 resets only through the D-RTM sequence */
	h.locality = 4;
	CU_ASSERT_EQUAL(reset(16), TPM_RC_LOCALITY);
	CU_ASSERT_EQUAL(reset(17), TPM_RC_LOCALITY);
	harness_close(&h);
}

static TPM_RC allocate(const uint32_t *maps, uint8_t *success, uint32_t *needed)
{
	static const TPM_ALG_ID algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					   TPM_ALG_SHA512 };
	uint32_t max = 0, available = 0;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_PCR_Allocate);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 4);
	for (size_t i = 0; i < 4; i++)
		sel_one(&b.params, algs[i], maps[i]);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_u8(&r, success), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &max), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, needed), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &available), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(max, 24);
	CU_ASSERT_EQUAL(available, 24 * (20 + 32 + 48 + 64));
	return rc;
}

static void test_allocate(void)
{
	static const uint32_t sha256_only[] = { 0, 0xFFFFFF, 0, 0 };
	static const uint32_t partial[] = { 0, 0x020001, 0, 0 };
	static const uint32_t no_drtm[] = { 0, 0x00FFFF, 0, 0 };
	static const uint32_t sha384_only[] = { 0, 0, 0xFFFFFF, 0 };
	static const uint32_t sha256_sha512[] = { 0, 0xFFFFFF, 0, 0xFFFFFF };
	uint8_t ok = 9, v[MAX_DIGEST_SIZE], d[64], in[128], want[64];
	uint32_t needed = 0;

	harness_open(&h);
	CU_ASSERT_EQUAL(allocate(sha256_only, &ok, &needed), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_EQUAL(needed, 24 * 32);
	/* nothing changes before the next TPM Reset */
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA1, 0, v, NULL), 20);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL(startup_clear(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA1, 0, v, NULL), 0);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 0, v, NULL), 32);

	/* banks are allocated whole */
	CU_ASSERT_EQUAL(allocate(partial, &ok, &needed), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ok, 0);
	CU_ASSERT_EQUAL(needed, 2 * 32);
	/* some bank must hold PCR 0 and PCR 17 */
	CU_ASSERT_EQUAL(allocate(no_drtm, &ok, &needed), TPM_RC_PCR);

	CU_ASSERT_EQUAL(allocate(sha384_only, &ok, &needed), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL(startup_clear(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 0, v, NULL), 0);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA384, 17, v, NULL), 48);
	CU_ASSERT(all_bytes(v, 48, 0xFF));

	/* a SHA-512 bank: extended as the others, value = SHA-512(0^64 || digest) */
	CU_ASSERT_EQUAL(allocate(sha256_sha512, &ok, &needed), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_EQUAL(needed, 24 * (32 + 64));
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL(startup_clear(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA384, 0, v, NULL), 0);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA512, 16, v, NULL), 64);
	CU_ASSERT(all_bytes(v, 64, 0));
	memset(d, 0xA5, sizeof(d));
	CU_ASSERT_EQUAL(extend(16, TPM_ALG_SHA512, d), TPM_RC_SUCCESS);
	memset(in, 0, 64);
	memcpy(in + 64, d, 64);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA512, in, sizeof(in), want), 0);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA512, 16, v, NULL), 64);
	CU_ASSERT(memcmp(v, want, 64) == 0);
	harness_close(&h);
}

static void test_hcrtm(void)
{
	uint8_t d[32], pcr0[32] = { 0 }, want[32], got[32];

	harness_open(&h);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_START), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_hash_data(h.e, (const uint8_t *)"cr", 2), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_hash_data(h.e, (const uint8_t *)"tm", 2), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_END), 0);
	CU_ASSERT_EQUAL(startup_clear(), TPM_RC_SUCCESS);

	/* PCR 0 = H(0...04 || H(data)) */
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, "crtm", 4, d), TPM_RC_SUCCESS);
	pcr0[31] = 4;
	expect_extend(TPM_ALG_SHA256, pcr0, d, want);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 0, got, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);

	/* the next TPM Reset without a sequence gives PCR 0 its plain value again */
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL(startup_clear(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 0, got, NULL), 32);
	CU_ASSERT(all_bytes(got, 32, 0));

	/* data or end without a start */
	CU_ASSERT_NOT_EQUAL(pqtpm_engine_hash_data(h.e, (const uint8_t *)"x", 1), 0);
	CU_ASSERT_NOT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_END), 0);
	harness_close(&h);
}

static void test_drtm(void)
{
	uint8_t d[32], zero[32] = { 0 }, want[32], got[32], pcr16[32];

	harness_open(&h);
	h.locality = 4;
	CU_ASSERT_EQUAL(extend(18, TPM_ALG_SHA256, zero), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend(16, TPM_ALG_SHA256, zero), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, pcr16, NULL), 32);

	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_START), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_hash_data(h.e, (const uint8_t *)"drtm", 4), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_END), 0);

	/* PCR 17 = H(0 || H(data)); 18-22 zero; others untouched */
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, "drtm", 4, d), TPM_RC_SUCCESS);
	expect_extend(TPM_ALG_SHA256, zero, d, want);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 17, got, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
	for (unsigned pcr = 18; pcr <= 22; pcr++) {
		CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, pcr, got, NULL), 32);
		CU_ASSERT(all_bytes(got, 32, 0));
	}
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 16, got, NULL), 32);
	CU_ASSERT_EQUAL(memcmp(got, pcr16, 32), 0);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA1, 17, got, NULL), 20);
	CU_ASSERT_FALSE(all_bytes(got, 20, 0xFF));
	harness_close(&h);
}

/* A D-RTM sequence's restartCount is saved with it: another process reading the state file
 * (or this one after a crash) sees it at once. */
static void test_drtm_restart_saved(void)
{
	struct pqtpm_engine *disk;
	char dir[] = "/tmp/pqtpm-test-drtm-XXXXXX";
	uint32_t before;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	harness_open_dir(&h, dir);
	before = h.e->ps.restart_count;
	h.locality = 4;
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_START), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_hash_data(h.e, (const uint8_t *)"drtm", 4), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_END), 0);
	CU_ASSERT_EQUAL(h.e->ps.restart_count, before + 1);
	disk = harness_disk_open(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(disk);
	CU_ASSERT_EQUAL(disk->ps.restart_count, before + 1);
	harness_disk_close(disk);
	harness_close(&h);
	harness_rm_tree(dir);
}

static void test_digest(void)
{
	struct tpml_pcr_selection sel = { 0 };
	uint8_t v[2][32], cat[64], want[48], got[64], d[32] = { 9 };
	size_t len = 0;

	harness_open(&h);
	CU_ASSERT_EQUAL(extend(1, TPM_ALG_SHA256, d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 0, v[0], NULL), 32);
	CU_ASSERT_EQUAL(read1(TPM_ALG_SHA256, 1, v[1], NULL), 32);
	memcpy(cat, v[0], 32);
	memcpy(cat + 32, v[1], 32);

	/* an unallocated bank's bits add nothing */
	sel.count = 2;
	sel.sel[0] = (struct tpms_pcr_selection){ TPM_ALG_SHA384, 3, { 0xFF, 0xFF, 0xFF } };
	sel.sel[1] = (struct tpms_pcr_selection){ TPM_ALG_SHA256, 3, { 0x03, 0, 0 } };
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA384, cat, sizeof(cat), want), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pcr_digest(h.e, &sel, TPM_ALG_SHA384, got, &len), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(len, 48);
	CU_ASSERT_EQUAL(memcmp(got, want, 48), 0);

	/* one PCR: the hash of its value */
	sel.count = 1;
	sel.sel[0] = (struct tpms_pcr_selection){ TPM_ALG_SHA256, 3, { 0x02, 0, 0 } };
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, v[1], 32, want), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pcr_digest(h.e, &sel, TPM_ALG_SHA256, got, &len), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(len, 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
	CU_ASSERT_EQUAL(pcr_digest(h.e, &sel, TPM_ALG_SM3_256, got, &len), TPM_RC_HASH);
	harness_close(&h);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "startup values", test_startup_values },
		{ "extend known answer", test_extend_known_answer },
		{ "extend inputs", test_extend_inputs },
		{ "extend localities", test_extend_localities },
		{ "event", test_event },
		{ "read many", test_read_many },
		{ "reset rules", test_reset_rules },
		{ "allocate", test_allocate },
		{ "H-CRTM", test_hcrtm },
		{ "D-RTM", test_drtm },
		{ "D-RTM restartCount saved", test_drtm_restart_saved },
		{ "pcr_digest", test_digest },
	};

	return UNIT_RUN("pcr", tests, NULL, NULL);
}
