/* GetRandom and StirRandom (core/cmd/random.c), and the small commands that sit beside them:
 * SelfTest, IncrementalSelfTest, GetTestResult (core/cmd/testing.c), ReadClock
 * (core/cmd/clock.c). */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "unit_main.h"

#define RC_P1(rc) ((rc) | TPM_RC_P | TPM_RC_1)

static struct harness h;
static struct cmdbuf b;

/* GetRandom; returns the size of the answer (-1 on error). */
static int get_random(uint16_t want, uint8_t *out)
{
	struct rd r;
	uint16_t size = 0;

	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, want);
	if (harness_run(&h, &b, &r, NULL) != TPM_RC_SUCCESS)
		return -1;
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out, 64, &size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return size;
}

static void test_get_random(void)
{
	uint8_t a[64], c[64];

	harness_open(&h);
	CU_ASSERT_EQUAL(get_random(0, a), 0);
	CU_ASSERT_EQUAL(get_random(1, a), 1);
	CU_ASSERT_EQUAL(get_random(32, a), 32);
	CU_ASSERT_EQUAL(get_random(64, a), 64);
	CU_ASSERT_EQUAL(get_random(100, a), 64);
	CU_ASSERT_EQUAL(get_random(0xFFFF, a), 64);
	CU_ASSERT_EQUAL(get_random(32, a), 32);
	CU_ASSERT_EQUAL(get_random(32, c), 32);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, 32), 0);

	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_INSUFFICIENT));
	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 8);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SIZE);
	harness_close(&h);
}

static void test_stir_random(void)
{
	static const uint8_t seed[128] = { 1, 2, 3 };
	uint8_t a[32];

	harness_open(&h);
	cmd_begin(&b, TPM_CC_StirRandom);
	wr_tpm2b(&b.params, seed, 16);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_StirRandom);
	wr_tpm2b(&b.params, seed, sizeof(seed));
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_StirRandom);
	wr_u16(&b.params, sizeof(seed) + 1);
	wr_bytes(&b.params, seed, sizeof(seed));
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_SIZE));
	CU_ASSERT_EQUAL(get_random(32, a), 32);
	harness_close(&h);
}

/* GetTestResult: returns testResult; outData must be well formed. */
static TPM_RC test_result(void)
{
	uint8_t out[MAX_BUFFER];
	uint16_t size;
	uint32_t result = ~0u;
	struct rd r;

	cmd_begin(&b, TPM_CC_GetTestResult);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out, sizeof(out), &size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &result), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return result;
}

static TPM_RC self_test(uint8_t full)
{
	cmd_begin(&b, TPM_CC_SelfTest);
	wr_u8(&b.params, full);
	return harness_run(&h, &b, NULL, NULL);
}

static void test_self_test(void)
{
	/* right after Startup: the tests run now and pass, as peers answer success there */
	harness_open(&h);
	CU_ASSERT_FALSE(h.e->self_tested);
	CU_ASSERT_EQUAL(test_result(), TPM_RC_SUCCESS);
	CU_ASSERT(h.e->self_tested);
	harness_close(&h);

	harness_open(&h);
	CU_ASSERT_EQUAL(self_test(2), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(self_test(1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_result(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(self_test(0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(self_test(1), TPM_RC_SUCCESS);
	CU_ASSERT(h.e->self_tested);
	CU_ASSERT_FALSE(h.e->self_test_failed);
	harness_close(&h);
}

static TPM_RC incremental(const uint16_t *algs, uint32_t n, uint32_t *todo)
{
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_IncrementalSelfTest);
	wr_u32(&b.params, n);
	for (uint32_t i = 0; i < n; i++)
		wr_u16(&b.params, algs[i]);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_u32(&r, todo), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_left(&r), 0);
	}
	return rc;
}

static void test_incremental_self_test(void)
{
	static const uint16_t good[] = { TPM_ALG_SHA256, TPM_ALG_AES, TPM_ALG_ECDSA };
	static const uint16_t bad[] = { TPM_ALG_SHA256, TPM_ALG_SM4 };
	uint32_t todo = 9;

	harness_open(&h);
	CU_ASSERT_EQUAL(incremental(good, 0, &todo), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(todo, 0);
	CU_ASSERT_FALSE(h.e->self_tested);
	CU_ASSERT_EQUAL(incremental(bad, 2, &todo), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(incremental(good, 3, &todo), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(todo, 0);
	CU_ASSERT(h.e->self_tested);
	CU_ASSERT_EQUAL(test_result(), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_IncrementalSelfTest);
	wr_u32(&b.params, 65);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_SIZE));
	harness_close(&h);
}

/* ReadClock: TPMS_TIME_INFO */
struct time_info {
	uint64_t time, clock;
	uint32_t resets, restarts;
	uint8_t safe;
};

static void read_clock(struct time_info *t)
{
	struct rd r;

	cmd_begin(&b, TPM_CC_ReadClock);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u64(&r, &t->time), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u64(&r, &t->clock), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &t->resets), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &t->restarts), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u8(&r, &t->safe), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
}

static void test_read_clock(void)
{
	struct time_info a, c;

	harness_open(&h);
	read_clock(&a);
	read_clock(&c);
	CU_ASSERT(c.clock >= a.clock);
	CU_ASSERT(c.time >= a.time);
	CU_ASSERT(a.clock >= a.time);
	CU_ASSERT_EQUAL(a.safe, 1);
	CU_ASSERT_EQUAL(c.resets, a.resets);
	CU_ASSERT_EQUAL(c.restarts, a.restarts);

	/* a D-RTM sequence counts as a restart */
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_START), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_HASH_END), 0);
	read_clock(&c);
	CU_ASSERT_EQUAL(c.restarts, a.restarts + 1);

	/* a TPM Reset counts as a reset */
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	read_clock(&c);
	CU_ASSERT_EQUAL(c.resets, a.resets + 1);
	CU_ASSERT_EQUAL(c.restarts, 0);
	CU_ASSERT(c.clock >= a.clock);
	harness_close(&h);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "GetRandom", test_get_random },
		{ "StirRandom", test_stir_random },
		{ "SelfTest", test_self_test },
		{ "IncrementalSelfTest", test_incremental_self_test },
		{ "ReadClock", test_read_clock },
	};

	return UNIT_RUN("random, testing, clock", tests, NULL, NULL);
}
