/* GetCapability and TestParms for the post-quantum algorithms (core/cmd/capability.c): the
 * three algorithms and their attributes, the v1.85 commands with their TPMA_CC, the parameter
 * sets (TPM_PT_ML_PARAMETER_SETS) and TestParms of the PQ parameter structures. */
#include <string.h>

#include <CUnit/Basic.h>

#include "pq_util.h"
#include "unit_main.h"

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

static TPM_RC get_cap(uint32_t cap, uint32_t prop, uint32_t count, struct rd *rsp)
{
	struct cmdbuf b;
	uint8_t more;
	uint32_t c;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, cap);
	wr_u32(&b.params, prop);
	wr_u32(&b.params, count);
	TRY(harness_run(&h, &b, rsp, NULL));
	TRY(rd_u8(rsp, &more));
	TRY(rd_u32(rsp, &c));
	return c == cap ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

static void test_algorithms(void)
{
	static const struct {
		TPM_ALG_ID alg;
		uint32_t attrs;
	} want[] = {
		{ TPM_ALG_MLKEM, TPMA_ALGORITHM_ASYMMETRIC | TPMA_ALGORITHM_OBJECT |
					 TPMA_ALGORITHM_ENCRYPTING },
		{ TPM_ALG_MLDSA, TPMA_ALGORITHM_ASYMMETRIC | TPMA_ALGORITHM_OBJECT |
					 TPMA_ALGORITHM_SIGNING },
		{ TPM_ALG_HASH_MLDSA, TPMA_ALGORITHM_ASYMMETRIC | TPMA_ALGORITHM_OBJECT |
					      TPMA_ALGORITHM_SIGNING },
	};
	struct rd rsp;
	uint32_t n, attrs;
	uint16_t alg;

	CU_ASSERT_EQUAL_FATAL(get_cap(TPM_CAP_ALGS, TPM_ALG_MLKEM, 10, &rsp), 0);
	CU_ASSERT_EQUAL_FATAL(rd_u32(&rsp, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (unsigned i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(rd_u16(&rsp, &alg), 0);
		CU_ASSERT_EQUAL(rd_u32(&rsp, &attrs), 0);
		CU_ASSERT_EQUAL(alg, want[i].alg);
		CU_ASSERT_EQUAL(attrs, want[i].attrs);
	}
}

static void test_commands(void)
{
	static const struct {
		TPM_CC cc;
		unsigned handles;
		bool rhandle, flushed;
	} want[] = {
		{ TPM_CC_ActivateCredential, 2, false, false },
		{ TPM_CC_MakeCredential, 1, false, false },
		{ TPM_CC_VerifySequenceComplete, 2, false, true },
		{ TPM_CC_SignSequenceComplete, 2, false, true },
		{ TPM_CC_VerifyDigestSignature, 1, false, false },
		{ TPM_CC_SignDigest, 1, false, false },
		{ TPM_CC_Encapsulate, 1, false, false },
		{ TPM_CC_Decapsulate, 1, false, false },
		{ TPM_CC_VerifySequenceStart, 1, true, false },
		{ TPM_CC_SignSequenceStart, 1, true, false },
	};

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct rd rsp;
		uint32_t n, a;

		CU_ASSERT_EQUAL_FATAL(get_cap(TPM_CAP_COMMANDS, want[i].cc, 1, &rsp), 0);
		CU_ASSERT_EQUAL(rd_u32(&rsp, &n), 0);
		CU_ASSERT_EQUAL_FATAL(n, 1);
		CU_ASSERT_EQUAL(rd_u32(&rsp, &a), 0);
		CU_ASSERT_EQUAL(a & TPMA_CC_COMMANDINDEX_MASK, want[i].cc);
		CU_ASSERT_EQUAL((a & TPMA_CC_CHANDLES_MASK) >> TPMA_CC_CHANDLES_SHIFT,
				want[i].handles);
		CU_ASSERT_EQUAL(!!(a & TPMA_CC_RHANDLE), want[i].rhandle);
		CU_ASSERT_EQUAL(!!(a & TPMA_CC_FLUSHED), want[i].flushed);
	}
}

static void test_parameter_sets(void)
{
	struct rd rsp;
	uint32_t n, pt, v;

	CU_ASSERT_EQUAL_FATAL(get_cap(TPM_CAP_TPM_PROPERTIES, TPM_PT_ML_PARAMETER_SETS, 1, &rsp),
			      0);
	CU_ASSERT_EQUAL(rd_u32(&rsp, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(rd_u32(&rsp, &pt), 0);
	CU_ASSERT_EQUAL(rd_u32(&rsp, &v), 0);
	CU_ASSERT_EQUAL(pt, TPM_PT_ML_PARAMETER_SETS);
	CU_ASSERT_EQUAL(v, 0x7F); /* ML-KEM-512/768/1024, ML-DSA-44/65/87, external mu */
	/* and the largest command and response hold an ML-DSA-87 signature */
	CU_ASSERT_EQUAL_FATAL(get_cap(TPM_CAP_TPM_PROPERTIES, TPM_PT_MAX_COMMAND_SIZE, 2, &rsp), 0);
	CU_ASSERT_EQUAL(rd_u32(&rsp, &n), 0);
	CU_ASSERT_EQUAL(rd_u32(&rsp, &pt), 0);
	CU_ASSERT_EQUAL(rd_u32(&rsp, &v), 0);
	CU_ASSERT(v >= 4627 + 1024);
}

static TPM_RC test_parms(const uint8_t *p, size_t len)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_TestParms);
	wr_bytes(&b.params, p, len);
	return harness_run(&h, &b, NULL, NULL);
}

static void test_testparms(void)
{
	static const uint8_t mldsa65[] = { 0x00, 0xA1, 0x00, 0x02, 0x01 };
	static const uint8_t mldsa4[] = { 0x00, 0xA1, 0x00, 0x04, 0x00 };
	static const uint8_t mldsa_mu2[] = { 0x00, 0xA1, 0x00, 0x01, 0x02 };
	static const uint8_t hash_mldsa[] = { 0x00, 0xA2, 0x00, 0x03, 0x00, 0x0D };
	static const uint8_t hash_mldsa_sha1[] = { 0x00, 0xA2, 0x00, 0x01, 0x00, 0x04 };
	static const uint8_t hash_mldsa_bad[] = { 0x00, 0xA2, 0x00, 0x01, 0x00, 0x99 };
	static const uint8_t mlkem768[] = { 0x00, 0xA0, 0x00, 0x10, 0x00, 0x02 };
	static const uint8_t mlkem_storage[] = { 0x00, 0xA0, 0x00, 0x06, 0x00, 0x80,
						 0x00, 0x43, 0x00, 0x03 };
	static const uint8_t mlkem0[] = { 0x00, 0xA0, 0x00, 0x10, 0x00, 0x00 };

	CU_ASSERT_EQUAL(test_parms(mldsa65, sizeof(mldsa65)), 0);
	CU_ASSERT_EQUAL(test_parms(mldsa4, sizeof(mldsa4)), RC_P(TPM_RC_PARMS, 1));
	CU_ASSERT_EQUAL(test_parms(mldsa_mu2, sizeof(mldsa_mu2)), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(test_parms(hash_mldsa, sizeof(hash_mldsa)), 0);
	CU_ASSERT_EQUAL(test_parms(hash_mldsa_sha1, sizeof(hash_mldsa_sha1)), RC_P(TPM_RC_HASH, 1));
	CU_ASSERT_EQUAL(test_parms(hash_mldsa_bad, sizeof(hash_mldsa_bad)), RC_P(TPM_RC_HASH, 1));
	CU_ASSERT_EQUAL(test_parms(mlkem768, sizeof(mlkem768)), 0);
	CU_ASSERT_EQUAL(test_parms(mlkem_storage, sizeof(mlkem_storage)), 0);
	CU_ASSERT_EQUAL(test_parms(mlkem0, sizeof(mlkem0)), RC_P(TPM_RC_PARMS, 1));
	/* a byte short */
	CU_ASSERT_EQUAL(test_parms(mlkem768, sizeof(mlkem768) - 1), RC_P(TPM_RC_INSUFFICIENT, 1));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "algorithms", test_algorithms },
		{ "commands", test_commands },
		{ "parameter sets", test_parameter_sets },
		{ "TestParms", test_testparms },
	};

	return UNIT_RUN("pq_cap", tests, setup, teardown);
}
