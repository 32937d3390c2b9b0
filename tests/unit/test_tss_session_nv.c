/* Sessions of the client library on an NV index (tss/names.c): the index's Name changes when
 * it is first written (TPMA_NV_WRITTEN), so the library asks NV_ReadPublic for it at each
 * use. NV_DefineSpace, NV_Write and NV_Read are built here with the library's internal
 * builder (tss_int.h), with the first parameter encrypted both ways. */
#include <string.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "../../tss/tss_int.h"
#include "tss_util.h"
#include "unit_main.h"

#define RC_S(rc, n) ((rc) | TPM_RC_S | ((n) << 8))
#define INDEX 0x01500001u
#define CONT TPMA_SESSION_CONTINUESESSION

static struct tss_env env;
static struct pqtpm_tss *t;

static void setup(void)
{
	struct tss_cmd c;
	size_t mark;

	tss_env_open(&env);
	t = env.t;
	tss_begin(&c, t, TPM_CC_NV_DefineSpace);
	tss_handle(&c, TPM_RH_OWNER);
	tss_auth(&c, "");
	tss_tpm2b_str(&c, "nv-auth");
	CU_ASSERT_EQUAL_FATAL(wr_size_begin(&c.p, &mark), 0); /* TPM2B_NV_PUBLIC */
	tss_u32(&c, INDEX);
	tss_u16(&c, TPM_ALG_SHA256);
	tss_u32(&c, TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD);
	tss_u16(&c, 0); /* authPolicy */
	tss_u16(&c, 16);
	CU_ASSERT_EQUAL_FATAL(wr_size_end(&c.p, mark), 0);
	CU_ASSERT_EQUAL_FATAL(tss_run(&c, NULL, NULL), 0);
}

static void teardown(void)
{
	tss_env_close(&env);
}

static TPM_RC nv_write(struct pqtpm_tss_session *s, const char *auth, const char *data)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_NV_Write);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, INDEX);
	tss_handle(&c, INDEX);
	tss_auth(&c, auth);
	tss_tpm2b_str(&c, data);
	tss_u16(&c, 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

static TPM_RC nv_read(struct pqtpm_tss_session *s, const char *auth, uint8_t *out,
		      uint16_t *len)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_NV_Read);
	tss_param_enc(&c, TSS_ENC_OUT);
	tss_handle(&c, INDEX);
	tss_handle(&c, INDEX);
	tss_auth(&c, auth);
	tss_u16(&c, 16);
	tss_u16(&c, 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, out, 16, len));
	return tss_rd_end(&r);
}

static void test_written(void)
{
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .sym = TPM_ALG_AES, .sym_bits = 128,
		.attrs = CONT | TPMA_SESSION_DECRYPT,
	};
	struct pqtpm_tss_session *s = tss_session(t, &p);
	uint8_t out[16];
	uint16_t len = 0;

	/* the first write names the index without TPMA_NV_WRITTEN, the second with it */
	CU_ASSERT_EQUAL(nv_write(s, "nv-auth", "0123456789abcdef"), 0);
	CU_ASSERT_EQUAL(nv_write(s, "nv-auth", "fedcba9876543210"), 0);
	pqtpm_tss_session_set_attrs(s, CONT | TPMA_SESSION_ENCRYPT);
	CU_ASSERT_EQUAL(nv_read(s, "nv-auth", out, &len), 0);
	CU_ASSERT(len == 16 && memcmp(out, "fedcba9876543210", 16) == 0);
	CU_ASSERT_EQUAL(nv_read(s, "nv-Auth", out, &len), RC_S(TPM_RC_AUTH_FAIL, 1));
	pqtpm_tss_session_free(s);
}

/* Bound to the index before it is written: the Name it was bound with is not the index's
 * Name any more, so the session counts as bound to another entity and puts the authValue in
 * (Part 1 §19.6.11), which the TPM agrees with. */
static void test_bound_before_written(void)
{
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .bind = INDEX, .bind_auth = "nv-auth", .attrs = CONT,
	};
	struct pqtpm_tss_session *s = tss_session(t, &p);
	uint8_t out[16];
	uint16_t len = 0;

	CU_ASSERT_EQUAL(nv_write(s, "nv-auth", "0123456789abcdef"), 0);
	CU_ASSERT_EQUAL(nv_read(s, "nv-auth", out, &len), 0);
	CU_ASSERT(len == 16 && memcmp(out, "0123456789abcdef", 16) == 0);
	pqtpm_tss_session_free(s);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "an index's Name after it is written", test_written },
		{ "bound to an index before it is written", test_bound_before_written },
	};

	return UNIT_RUN("tss_session_nv", tests, setup, teardown);
}
