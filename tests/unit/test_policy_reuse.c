/* A policy session used again after PolicyPassword (issue 3): ESAPI and tpm2-tools keep
 * sending what they sent for PolicyPassword (an empty nonceCaller, the password in the hmac
 * field) after the session authorized a command or after PolicyRestart. The TPM answers what
 * the policy says: TPM_RC_POLICY_FAIL while the policy digest does not match, success once it
 * does. The hmac field of a policy session is the password after PolicyPassword, an HMAC keyed
 * with the authValue after PolicyAuthValue, and otherwise an HMAC keyed with the session key,
 * which for an unbound, unsalted session is empty and may then be an empty buffer (Part 1
 * §19.6.5, the reference's ComputeCommandHMAC). */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "harness.h"
#include "keys.h"
#include "sessions.h"
#include "unit_main.h"

#define DSIZE 32

static struct harness h;

/* A sealed primary (keyedHash with data, userWithAuth clear) with this policy and auth. */
static TPM_HANDLE sealed(const uint8_t policy[DSIZE], const char *auth, struct tpm2b_name *name)
{
	struct tpmt_public t;
	struct key k;

	key_template(&t, TPM_ALG_KEYEDHASH, TPMA_OBJECT_NODA);
	t.attributes &= ~TPMA_OBJECT_USERWITHAUTH;
	t.auth_policy.size = DSIZE;
	memcpy(t.auth_policy.b, policy, DSIZE);
	CU_ASSERT_EQUAL_FATAL(key_primary_in(&h, TPM_RH_OWNER, &t, auth, "secret", 6, &k),
			      TPM_RC_SUCCESS);
	*name = k.name;
	return k.handle;
}

static TPM_HANDLE start_policy(struct tpm2b_digest *nonce_tpm)
{
	TPM_HANDLE s = 0;

	CU_ASSERT_EQUAL_FATAL(sess_start(&h, TPM_SE_POLICY, &s, nonce_tpm), TPM_RC_SUCCESS);
	return s;
}

static TPM_RC assert0(TPM_HANDLE s, TPM_CC cc)
{
	struct cmdbuf b;

	cmd_begin(&b, cc);
	cmd_handle(&b, s);
	return harness_run(&h, &b, NULL, NULL);
}

/* Unseal obj with policy session s: nonce_len bytes of nonceCaller and this hmac field. The
 * session continues. On success *nonce_tpm becomes the response's nonceTPM. */
static TPM_RC unseal(TPM_HANDLE obj, TPM_HANDLE s, const uint8_t *nonce, uint16_t nonce_len,
		     const void *hmac, uint16_t hmac_len)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, obj);
	wr_u32(&b.auth, s);
	wr_tpm2b(&b.auth, nonce, nonce_len);
	wr_u8(&b.auth, TPMA_SESSION_CONTINUESESSION);
	wr_tpm2b(&b.auth, hmac, hmac_len);
	b.nauth = 1;
	return harness_run(&h, &b, NULL, NULL);
}

/* The nonceTPM of the last response's first session (after its parameters). */
static void rsp_nonce(struct tpm2b_digest *nonce_tpm)
{
	struct rd r;
	uint16_t tag;
	uint32_t size, rc, psize;
	const uint8_t *params;

	rd_init(&r, h.rsp, h.rsp_len);
	rd_u16(&r, &tag);
	rd_u32(&r, &size);
	rd_u32(&r, &rc);
	CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &psize), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_view(&r, psize, &params), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, nonce_tpm), TPM_RC_SUCCESS);
}

/* HMAC(empty key, cpHash(Unseal obj) || nonceCaller || nonceTPM || attrs) */
static void empty_key_hmac(const struct tpm2b_name *name, const uint8_t *nonce,
			   const struct tpm2b_digest *nonce_tpm, uint8_t out[DSIZE])
{
	struct tpm2b_digest caller = { .size = DSIZE };
	uint8_t cp[DSIZE];

	memcpy(caller.b, nonce, DSIZE);
	sess_cp_hash(TPM_CC_Unseal, name, 1, "", 0, cp);
	sess_hmac(NULL, 0, NULL, cp, &caller, nonce_tpm, TPMA_SESSION_CONTINUESESSION, out);
}

static void test_reuse_after_password(void)
{
	uint8_t with_pw[DSIZE] = { 0 }, cc_only[DSIZE] = { 0 }, code[4];
	uint8_t nonce[DSIZE], mac[DSIZE];
	struct tpm2b_name name_pw, name_cc;
	struct tpm2b_digest nonce_tpm;
	TPM_HANDLE a, b, s;

	sess_be32(code, TPM_CC_Unseal);
	sess_policy_extend(cc_only, TPM_CC_PolicyCommandCode, code, 4);
	memcpy(with_pw, cc_only, DSIZE);
	sess_policy_extend(with_pw, TPM_CC_PolicyAuthValue, "", 0); /* PolicyPassword extends the same */
	a = sealed(with_pw, "pw", &name_pw);
	b = sealed(cc_only, "pw", &name_cc);
	CU_ASSERT_EQUAL(crypto_random(nonce, sizeof(nonce)), TPM_RC_SUCCESS);

	s = start_policy(&nonce_tpm);
	CU_ASSERT_EQUAL(sess_policy_cc(&h, s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(assert0(s, TPM_CC_PolicyPassword), TPM_RC_SUCCESS);
	/* as ESAPI sends it: no nonce, the password */
	CU_ASSERT_EQUAL(unseal(a, s, NULL, 0, "pw", 2), TPM_RC_SUCCESS);
	/* the session started over: the digest no longer matches */
	CU_ASSERT_EQUAL(unseal(a, s, NULL, 0, "pw", 2), RC_S(TPM_RC_POLICY_FAIL, 1));
	/* PolicyPassword, then PolicyRestart: nothing asserted any more */
	CU_ASSERT_EQUAL(assert0(s, TPM_CC_PolicyPassword), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(assert0(s, TPM_CC_PolicyRestart), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(a, s, NULL, 0, "pw", 2), RC_S(TPM_RC_POLICY_FAIL, 1));
	/* a policy that needs no authValue, satisfied after the restart: the HMAC key is empty,
	 * so an empty hmac field does; a non-empty one is an HMAC and is checked */
	CU_ASSERT_EQUAL(sess_policy_cc(&h, s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(b, s, NULL, 0, "pw", 2), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(unseal(b, s, NULL, 0, NULL, 0), TPM_RC_SUCCESS);
	rsp_nonce(&nonce_tpm);
	CU_ASSERT_EQUAL(sess_policy_cc(&h, s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	empty_key_hmac(&name_cc, nonce, &nonce_tpm, mac);
	CU_ASSERT_EQUAL(unseal(b, s, nonce, DSIZE, mac, DSIZE), TPM_RC_SUCCESS);
	/* and the password policy again on the same session */
	CU_ASSERT_EQUAL(sess_policy_cc(&h, s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(assert0(s, TPM_CC_PolicyPassword), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(a, s, NULL, 0, "bad", 3), RC_S(TPM_RC_BAD_AUTH, 1));
	/* a failed authorization leaves the assertions in place */
	CU_ASSERT_EQUAL(unseal(a, s, NULL, 0, "pw", 2), TPM_RC_SUCCESS);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "policy session reused after PolicyPassword / PolicyRestart",
		  test_reuse_after_password },
	};
	int failed;

	harness_open(&h);
	failed = UNIT_RUN("policy_reuse", tests, NULL, NULL);
	harness_close(&h);
	return failed;
}
