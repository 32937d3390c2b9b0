/* The platform's management commands: PCR_SetAuthValue and PCR_SetAuthPolicy (the PCR group
 * 20-22 takes that value or policy for PCR_Extend; other PCRs have neither), PP_Commands and
 * TPM_RC_PP (a listed command authorized by the platform needs physical presence, PP_Commands
 * always; TPM_CAP_PP_COMMANDS lists them), SetAlgorithmSet (TPM_PT_ALGORITHM_SET). */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "sessions.h"
#include "unit_main.h"

static struct harness h;
static struct cmdbuf b;

static int setup(void)
{
	harness_open(&h);
	h.locality = 2; /* PCRs 20-22 may be extended from locality 2 */
	return 0;
}

static int teardown(void)
{
	harness_close(&h);
	return 0;
}

static void extend_begin(TPM_HANDLE pcr)
{
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, pcr);
}

static void extend_params(void)
{
	static const uint8_t digest[32] = { 0x5A };

	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, digest, sizeof(digest));
}

static TPM_RC extend_pw(TPM_HANDLE pcr, const char *pw)
{
	extend_begin(pcr);
	cmd_auth_pw(&b, pw);
	extend_params();
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC set_auth_value(TPM_HANDLE pcr, const char *auth)
{
	cmd_begin(&b, TPM_CC_PCR_SetAuthValue);
	cmd_handle(&b, pcr);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC set_auth_policy(const uint8_t *policy, uint16_t len, TPM_ALG_ID alg,
			      uint32_t pcr)
{
	cmd_begin(&b, TPM_CC_PCR_SetAuthPolicy);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, policy, len);
	wr_u16(&b.params, alg);
	wr_u32(&b.params, pcr);
	return harness_run(&h, &b, NULL, NULL);
}

/* PCR_Extend of pcr authorized by a policy session with PolicyCommandCode(PCR_Extend). */
static TPM_RC extend_policy(TPM_HANDLE pcr)
{
	struct tpm2b_digest nonce_tpm;
	struct tpm2b_name name;
	TPM_HANDLE s;
	TPM_RC rc;

	CU_ASSERT_EQUAL_FATAL(sess_start(&h, TPM_SE_POLICY, &s, &nonce_tpm), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(sess_policy_cc(&h, s, TPM_CC_PCR_Extend), TPM_RC_SUCCESS);
	sess_handle_name(pcr, &name);
	extend_begin(pcr);
	extend_params();
	sess_auth_policy(&b, s, &nonce_tpm, &name);
	rc = harness_run(&h, &b, NULL, NULL);
	if (rc != TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(sess_flush(&h, s), TPM_RC_SUCCESS);
	return rc;
}

/* A u32 property or the one PCR map of a PCR property. */
static uint32_t get_property(uint32_t cap, uint32_t pt)
{
	uint32_t count, tag, v = 0;
	uint8_t more, size, sel[3];
	struct rd r;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, cap);
	wr_u32(&b.params, pt);
	wr_u32(&b.params, 1);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u8(&r, &more), 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &tag), 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &count), 0);
	CU_ASSERT_EQUAL_FATAL(count, 1);
	CU_ASSERT_EQUAL(rd_u32(&r, &tag), 0);
	CU_ASSERT_EQUAL(tag, pt);
	if (cap == TPM_CAP_TPM_PROPERTIES) {
		CU_ASSERT_EQUAL(rd_u32(&r, &v), 0);
		return v;
	}
	CU_ASSERT_EQUAL(rd_u8(&r, &size), 0);
	CU_ASSERT_EQUAL_FATAL(size, 3);
	CU_ASSERT_EQUAL(rd_bytes(&r, sel, 3), 0);
	return sel[0] | (uint32_t)sel[1] << 8 | (uint32_t)sel[2] << 16;
}

/* The TPML_CC of TPM_CAP_PP_COMMANDS; returns the count. */
static uint32_t pp_list(TPM_CC *out, uint32_t max)
{
	uint32_t cap, count;
	uint8_t more;
	struct rd r;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_PP_COMMANDS);
	wr_u32(&b.params, 0);
	wr_u32(&b.params, max);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u8(&r, &more), 0);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &cap), 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &count), 0);
	CU_ASSERT_FATAL(count <= max);
	for (uint32_t i = 0; i < count; i++)
		CU_ASSERT_EQUAL(rd_u32(&r, &out[i]), 0);
	return count;
}

static TPM_RC pp_commands(const TPM_CC *set, uint32_t nset, const TPM_CC *clear,
			  uint32_t nclear)
{
	cmd_begin(&b, TPM_CC_PP_Commands);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, nset);
	for (uint32_t i = 0; i < nset; i++)
		wr_u32(&b.params, set[i]);
	wr_u32(&b.params, nclear);
	for (uint32_t i = 0; i < nclear; i++)
		wr_u32(&b.params, clear[i]);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC clear_pw(TPM_HANDLE auth, const char *pw)
{
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, auth);
	cmd_auth_pw(&b, pw);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC clear_by(TPM_HANDLE auth)
{
	return clear_pw(auth, "");
}

static void test_pcr_auth_value(void)
{
	CU_ASSERT_EQUAL(set_auth_value(20, "pcr secret"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend_pw(20, ""), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(extend_pw(20, "pcr secret"), TPM_RC_SUCCESS);
	/* one group: 21 and 22 take the same value, 16 is outside it */
	CU_ASSERT_EQUAL(extend_pw(21, "pcr secret"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend_pw(16, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(set_auth_value(16, "x"), RC_H(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(get_property(TPM_CAP_PCR_PROPERTIES, TPM_PT_PCR_AUTH), 0x700000u);
	/* a TPM Reset: EmptyAuth again */
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend_pw(20, ""), TPM_RC_SUCCESS);
}

static void test_pcr_auth_policy(void)
{
	uint8_t policy[SESS_DSIZE];

	sess_cc_policy(TPM_CC_PCR_Extend, policy);
	/* no policy yet: a policy session cannot authorize */
	CU_ASSERT_EQUAL(extend_policy(21), RC_S(TPM_RC_POLICY_FAIL, 1));
	CU_ASSERT_EQUAL(set_auth_policy(policy, SESS_DSIZE, TPM_ALG_SHA256, 16),
			RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(set_auth_policy(policy, 20, TPM_ALG_SHA256, 21), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(set_auth_policy(policy, SESS_DSIZE, TPM_ALG_SHA256, 21), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend_policy(21), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend_policy(22), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend_policy(16), RC_S(TPM_RC_POLICY_FAIL, 1));
	CU_ASSERT_EQUAL(get_property(TPM_CAP_PCR_PROPERTIES, TPM_PT_PCR_POLICY), 0x700000u);
	/* an empty policy with TPM_ALG_NULL takes it away */
	CU_ASSERT_EQUAL(set_auth_policy(NULL, 0, TPM_ALG_NULL, 20), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(extend_policy(21), RC_S(TPM_RC_POLICY_FAIL, 1));
}

static void test_pp_commands(void)
{
	static const TPM_CC set[] = { TPM_CC_Clear, TPM_CC_GetRandom, TPM_CC_PCR_Allocate };
	static const TPM_CC clear[] = { TPM_CC_PCR_Allocate, TPM_CC_PP_Commands };
	TPM_CC list[8];

	CU_ASSERT_EQUAL(pp_list(list, 8), 1);
	CU_ASSERT_EQUAL(list[0], TPM_CC_PP_Commands);
	/* PP_Commands itself needs physical presence */
	CU_ASSERT_EQUAL(pp_commands(set, 3, clear, 2), RC_S(TPM_RC_PP, 1));
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_ON), 0);
	CU_ASSERT_EQUAL(pp_commands(set, 3, clear, 2), TPM_RC_SUCCESS);
	/* GetRandom may not require it: ignored; PCR_Allocate set and cleared; PP_Commands stays */
	CU_ASSERT_EQUAL_FATAL(pp_list(list, 8), 2);
	CU_ASSERT_EQUAL(list[0], TPM_CC_Clear);
	CU_ASSERT_EQUAL(list[1], TPM_CC_PP_Commands);
	CU_ASSERT_EQUAL(clear_by(TPM_RH_PLATFORM), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_OFF), 0);
	CU_ASSERT_EQUAL(clear_by(TPM_RH_PLATFORM), RC_S(TPM_RC_PP, 1));
	/* checked before the authorization, as the reference implementation does */
	CU_ASSERT_EQUAL(clear_pw(TPM_RH_PLATFORM, "wrong"), RC_S(TPM_RC_PP, 1));
	/* only the platform's authorization needs it */
	CU_ASSERT_EQUAL(clear_by(TPM_RH_LOCKOUT), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_ON), 0);
	CU_ASSERT_EQUAL(pp_commands(NULL, 0, set, 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_OFF), 0);
	CU_ASSERT_EQUAL(clear_by(TPM_RH_PLATFORM), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pp_list(list, 8), 1);
}

static void test_set_algorithm_set(void)
{
	CU_ASSERT_EQUAL(get_property(TPM_CAP_TPM_PROPERTIES, TPM_PT_ALGORITHM_SET), 0);
	cmd_begin(&b, TPM_CC_SetAlgorithmSet);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 7);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_property(TPM_CAP_TPM_PROPERTIES, TPM_PT_ALGORITHM_SET), 7);
	/* the owner cannot */
	cmd_begin(&b, TPM_CC_SetAlgorithmSet);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 8);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_VALUE, 1));
}

static void run_fresh(void (*test)(void))
{
	setup();
	test();
	teardown();
}

static void t_auth_value(void) { run_fresh(test_pcr_auth_value); }
static void t_auth_policy(void) { run_fresh(test_pcr_auth_policy); }
static void t_pp(void) { run_fresh(test_pp_commands); }
static void t_alg_set(void) { run_fresh(test_set_algorithm_set); }

int main(void)
{
	static const struct unit_test tests[] = {
		{ "PCR_SetAuthValue: the group 20-22 takes the value", t_auth_value },
		{ "PCR_SetAuthPolicy: the group 20-22 takes the policy", t_auth_policy },
		{ "PP_Commands and TPM_RC_PP", t_pp },
		{ "SetAlgorithmSet", t_alg_set },
	};

	return UNIT_RUN("platform commands", tests, NULL, NULL);
}
