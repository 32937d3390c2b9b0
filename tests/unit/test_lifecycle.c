/* The TPM lifecycle and durable state around NV (core/startup.c, core/cmd/startup.c,
 * core/cmd/clock.c, core/cmd/hierarchy.c, core/dispatch.c, core/state): resetCount,
 * restartCount and Clock safe through TPM Reset, Restart, Resume and power loss; ClockSet,
 * ClockRateAdjust, Clear; SetPrimaryPolicy, ChangeEPS, ChangePPS; the state surviving a new
 * engine with PCRs for a Resume; a failed save rolled back; two engines on one directory.
 * Helpers: nv_util.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "nv/nv.h"
#include "nv_util.h"
#include "pcr.h"
#include "state/store.h"

static void test_lifecycle_counts(void)
{
	uint64_t clock, clock2;
	uint32_t resets, restarts, r2, s2;
	uint8_t safe;
	struct cmdbuf b;

	nvt_read_clock(&clock, &resets, &restarts, &safe);
	CU_ASSERT_EQUAL(safe, 1);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS); /* Resume */
	nvt_read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets);
	CU_ASSERT_EQUAL(s2, restarts + 1);
	CU_ASSERT(clock2 >= clock);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_CLEAR), TPM_RC_SUCCESS); /* Restart */
	nvt_read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets);
	CU_ASSERT_EQUAL(s2, restarts + 2);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS); /* Reset */
	nvt_read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets + 1);
	CU_ASSERT_EQUAL(s2, 0);
	CU_ASSERT_EQUAL(safe, 1);
	/* Startup(STATE) needs Shutdown(STATE) */
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_CLEAR, TPM_SU_STATE), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nvt_su(TPM_CC_Startup, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	/* a power loss: a TPM Reset, and Clock is not safe */
	CU_ASSERT_EQUAL(nvt_cycle(LOSS, TPM_SU_STATE), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nvt_su(TPM_CC_Startup, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	nvt_read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets + 3);
	CU_ASSERT_EQUAL(safe, 0);
	/* ClockSet moves Clock forward only, and makes it safe */
	cmd_begin(&b, TPM_CC_ClockSet);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u64(&b.params, 0xFFFF000000000001ull);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 1));
	cmd_begin(&b, TPM_CC_ClockSet);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u64(&b.params, 1000000000ull);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	nvt_read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT(clock2 >= 1000000000ull && clock2 < 1000000000ull + 60000);
	CU_ASSERT_EQUAL(safe, 1);
	cmd_begin(&b, TPM_CC_ClockSet);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u64(&b.params, 999999999ull);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 1));
	cmd_begin(&b, TPM_CC_ClockRateAdjust);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, 4);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 1));
	cmd_begin(&b, TPM_CC_ClockRateAdjust);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, (uint8_t)-3);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	/* Clear: Clock and the counts start over */
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	nvt_read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT(clock2 < 60000);
	CU_ASSERT_EQUAL(r2, 0);
	CU_ASSERT_EQUAL(s2, 0);
}

static void test_primary_policy_and_seeds(void)
{
	uint8_t pol[DSIZE] = { 3 };
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_SetPrimaryPolicy);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pol, 20);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	cmd_begin(&b, TPM_CC_SetPrimaryPolicy);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pol, DSIZE);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvh.e->ps.hier[HIER_OWNER].policy_alg, TPM_ALG_SHA256);
	CU_ASSERT(memcmp(nvh.e->ps.hier[HIER_OWNER].policy.b, pol, DSIZE) == 0);
	cmd_begin(&b, TPM_CC_SetPrimaryPolicy);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pol, 0);
	wr_u16(&b.params, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvh.e->ps.hier[HIER_OWNER].policy.size, 0);

	{
		uint8_t eps[PRIMARY_SEED_SIZE], pps[PRIMARY_SEED_SIZE];

		memcpy(eps, nvh.e->ps.hier[HIER_ENDORSEMENT].seed, sizeof(eps));
		memcpy(pps, nvh.e->ps.hier[HIER_PLATFORM].seed, sizeof(pps));
		cmd_begin(&b, TPM_CC_ChangeEPS);
		cmd_handle(&b, TPM_RH_PLATFORM);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
		cmd_begin(&b, TPM_CC_ChangePPS);
		cmd_handle(&b, TPM_RH_PLATFORM);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
		CU_ASSERT(memcmp(eps, nvh.e->ps.hier[HIER_ENDORSEMENT].seed, sizeof(eps)) != 0);
		CU_ASSERT(memcmp(pps, nvh.e->ps.hier[HIER_PLATFORM].seed, sizeof(pps)) != 0);
		cmd_begin(&b, TPM_CC_ChangeEPS);
		cmd_handle(&b, TPM_RH_OWNER);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_H(TPM_RC_VALUE, 1));
	}
}

/* ---- on a state directory ---- */

/* Everything survives a new engine; a Resume in a new process finds PCRs 0-15. */
static void test_persistence(void)
{
	char dir[256];
	uint8_t d[16] = "persisted value", buf[16];
	uint8_t pcr_before[DSIZE];
	struct cmdbuf b;

	harness_close(&nvh);
	nvt_new_dir(dir, sizeof(dir));
	harness_open_dir(&nvh, dir);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | AUTH_RW, 16), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(IDX, IDX, "pw", d, 16, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 5);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, d, 16);
	wr_bytes(&b.params, d, 16);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	memcpy(pcr_before, pcr_value(nvh.e, TPM_ALG_SHA256, 5), DSIZE);
	CU_ASSERT_EQUAL(nvt_su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	harness_close(&nvh);

	nvt_open_raw(&nvh, dir);
	CU_ASSERT_EQUAL(nvt_su(TPM_CC_Startup, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(pcr_value(nvh.e, TPM_ALG_SHA256, 5), pcr_before, DSIZE) == 0);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 16, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d, 16) == 0);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 1, ""), 1);
	harness_close(&nvh);
	harness_open(&nvh);
}

/* A save that fails (the temp file is /dev/full) fails the command and leaves memory as the
 * disk has it. */
static void test_failed_save_rolls_back(void)
{
	char dir[256], tmp[512];
	uint8_t d1[8] = "first", d2[8] = "second", buf[8];

	harness_close(&nvh);
	nvt_new_dir(dir, sizeof(dir));
	harness_open_dir(&nvh, dir);
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, STATE_TMP_FILE);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX, "", d1, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);

	/* a failed save removes the temp file: the disk is made full again each time */
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX, "", d2, 8, 0), TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 1, ""),
			TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW, 8), TPM_RC_NV_SPACE);
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, IDX), TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d1, 8) == 0);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 1, ""), 1);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX + 2, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_FATAL(unlink(tmp) != 0); /* gone with the failed save */

	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX, "", d2, 8, 0), TPM_RC_SUCCESS);
	harness_close(&nvh);
	harness_open_dir(&nvh, dir);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d2, 8) == 0);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 1, ""), 1);
	harness_close(&nvh);
	harness_open(&nvh);
}

/* Two users of one directory: the engine that owns it and a client of its socket (a second
 * engine is refused). Each sees what the other did before it acts; indices defined
 * alternately are all there, and on disk for the next engine. */
static void test_two_engines_one_dir(void)
{
	char dir[256], err[512];
	struct harness a, b2;
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR };
	struct pqtpm_engine *second = NULL;
	uint8_t buf[8], d[8] = "shared";
	unsigned i;

	nvt_new_dir(dir, sizeof(dir));
	harness_close(&nvh);
	harness_open_dir(&a, dir);
	cfg.state_dir = dir;
	CU_ASSERT_EQUAL(pqtpm_engine_open(&second, &cfg, err, sizeof(err)), -EBUSY);
	harness_open_socket(&b2, dir);
	for (i = 0; i < 20; i++) {
		nvh = i % 2 ? b2 : a;
		CU_ASSERT_EQUAL(nvt_define(IDX + i, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""),
				TPM_RC_SUCCESS);
	}
	nvh = a;
	CU_ASSERT_EQUAL(nvt_define(IDX + 100, OWNER_RW, 8), TPM_RC_SUCCESS);
	nvh = b2;
	CU_ASSERT_EQUAL(nvt_define(IDX + 100, OWNER_RW, 8), TPM_RC_NV_DEFINED);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 100, "", d, 8, 0), TPM_RC_SUCCESS);
	nvh = a;
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 100, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d, 8) == 0);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), 20);
	for (i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(nvt_readpublic(IDX + i, NULL, NULL), TPM_RC_SUCCESS);
	harness_close(&b2);
	harness_close(&a);
	/* and a third engine finds all of it on disk */
	harness_open_dir(&nvh, dir);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), 20);
	harness_close(&nvh);
	harness_open(&nvh);
}

/* ReadClock's time (from _TPM_Init, unadjusted) and clock (adjusted). */
static void read_time_clock(uint64_t *time, uint64_t *clock)
{
	struct cmdbuf b;
	struct rd rsp;

	cmd_begin(&b, TPM_CC_ReadClock);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u64(&rsp, time), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u64(&rsp, clock), TPM_RC_SUCCESS);
}

static TPM_RC rate_adjust(int8_t adjust)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_ClockRateAdjust);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, (uint8_t)adjust);
	return harness_run(&nvh, &b, NULL, NULL);
}

/* Ten coarse steps faster: Clock runs 10% ahead of time; a power cycle restores the rate. */
static void test_clock_rate(void)
{
	uint64_t t0, c0, t1, c1, gain;

	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(rate_adjust(3), TPM_RC_SUCCESS);
	read_time_clock(&t0, &c0);
	usleep(300000);
	read_time_clock(&t1, &c1);
	gain = (c1 - c0) - (t1 - t0);
	/* 10% of >= 300 ms, give or take the millisecond rounding of two readings */
	CU_ASSERT(gain >= 28 && gain <= (t1 - t0) / 10 + 2);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(nvh.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL(nvh.e->clock_ppm, 0);
}

/* A forked child (an application that loaded the PKCS#11 module, then forked) takes the
 * directory's lock as its own process; what it defines, the parent sees. */
static void test_forked_child(void)
{
	char dir[256];
	int status = -1;
	pid_t pid;

	nvt_new_dir(dir, sizeof(dir));
	harness_close(&nvh);
	harness_open_dir(&nvh, dir);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(nvt_define(IDX + 1, OWNER_RW, 8) == TPM_RC_SUCCESS ? 0 : 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX + 1, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW, 8), TPM_RC_SUCCESS);
	harness_close(&nvh);
	harness_open(&nvh);
}

static void add_tests(CU_pSuite s)
{
	nvt_add(s, "resetCount, restartCount, Clock, ClockSet, Clear", test_lifecycle_counts);
	nvt_add(s, "ClockRateAdjust changes the rate of Clock", test_clock_rate);
	nvt_add(s, "SetPrimaryPolicy, ChangeEPS, ChangePPS", test_primary_policy_and_seeds);
	nvt_add(s, "state survives a new engine, Resume finds PCRs", test_persistence);
	nvt_add(s, "a failed save fails the command and rolls back", test_failed_save_rolls_back);
	nvt_add(s, "two engines on one state directory", test_two_engines_one_dir);
	nvt_add(s, "a forked child on the parent's directory", test_forked_child);
}

int main(void)
{
	return nvt_run_suite("lifecycle", add_tests);
}
