/* Policy sessions of the client library (tss/policy.c) against the engine in process: a key
 * whose authPolicy is PolicyOR of three branches computed with trial sessions
 * (PolicyCommandCode + PolicyAuthValue, PolicyPCR + PolicyPassword, PolicySecret), each
 * branch satisfied by a policy session that then authorizes Create under the key;
 * PolicyGetDigest against the trial digests, and both against the digests computed without
 * a TPM (tss/policy_calc.c); a salted, encrypting policy session; a wrong authValue and a
 * wrong command refused. */
#include <string.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "crypto/crypto.h"
#include "tss_util.h"
#include "unit_main.h"

#define RC_S(rc, n) ((rc) | TPM_RC_S | ((n) << 8))
#define CONT TPMA_SESSION_CONTINUESESSION

static struct tss_env env;
static struct pqtpm_tss *t;
static struct pqtpm_tss_key parent, key;
static struct pqtpm_tss_digest branch[3], root;
static const struct pqtpm_tss_pcr_select pcr16 = { TPM_ALG_SHA256, 1u << 16 };

static void branch_auth_value(struct pqtpm_tss_session *s)
{
	CU_ASSERT_EQUAL(pqtpm_tss_policy_command_code(s, TPM_CC_Create), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_auth_value(s), 0);
}

static void branch_password(struct pqtpm_tss_session *s)
{
	CU_ASSERT_EQUAL(pqtpm_tss_policy_pcr(s, NULL, &pcr16, 1), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_password(s), 0);
}

static void branch_secret(struct pqtpm_tss_session *s)
{
	CU_ASSERT_EQUAL(pqtpm_tss_policy_secret(s, TPM_RH_OWNER, ""), 0);
}

static void (*const branches[3])(struct pqtpm_tss_session *) = {
	branch_auth_value, branch_password, branch_secret
};

/* The branch's steps on s, its digest checked, then the PolicyOR and the root checked. */
static void satisfy(struct pqtpm_tss_session *s, unsigned b)
{
	struct pqtpm_tss_digest d;

	branches[b](s);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_get_digest(s, &d), 0);
	CU_ASSERT(d.size == 32 && memcmp(d.b, branch[b].b, 32) == 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_or(s, branch, 3), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_get_digest(s, &d), 0);
	CU_ASSERT(d.size == 32 && memcmp(d.b, root.b, 32) == 0);
}

static void setup(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_TRIAL };
	struct pqtpm_tss_session *s;
	static const struct pqtpm_tss_digest zero = { 32, { 0 } };

	tss_env_open(&env);
	t = env.t;
	CU_ASSERT_EQUAL_FATAL(tss_primary(t, TPM_ALG_ECC, TSS_STORAGE, "parent", &parent), 0);
	for (unsigned b = 0; b < 3; b++) {
		s = tss_session(t, &p);
		branches[b](s);
		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_policy_get_digest(s, &branch[b]), 0);
		CU_ASSERT(branch[b].size == 32 && memcmp(branch[b].b, zero.b, 32) != 0);
		pqtpm_tss_session_free(s);
	}
	s = tss_session(t, &p);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_policy_or(s, branch, 3), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_policy_get_digest(s, &root), 0);
	pqtpm_tss_session_free(s);
	/* policy only: no userWithAuth */
	CU_ASSERT_EQUAL_FATAL(tss_child(t, parent.handle, "parent", TPM_ALG_ECC,
					TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT, &root, "pk",
					&key),
			      0);
}

static int same(const struct pqtpm_tss_digest *a, const struct pqtpm_tss_digest *b)
{
	return a->size == b->size && memcmp(a->b, b->b, a->size) == 0;
}

/* The branches and the root computed here equal the trial sessions' digests. */
static void test_calculated(void)
{
	static const struct pqtpm_tss_name owner = { 4, { 0x40, 0x00, 0x00, 0x01 } };
	struct pqtpm_tss_digest d[3], r, pcr_digest;
	uint8_t pcr[32];
	size_t len;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_pcr_read(t, TPM_ALG_SHA256, pcr16.pcrs, pcr, sizeof(pcr),
					       &len),
			      0);
	CU_ASSERT_EQUAL_FATAL(crypto_hash(TPM_ALG_SHA256, pcr, len, pcr_digest.b), 0);
	pcr_digest.size = 32;
	for (unsigned b = 0; b < 3; b++)
		CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_start(TPM_ALG_SHA256, &d[b]), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_command_code(&d[0], TPM_ALG_SHA256, TPM_CC_Create),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_auth_value(&d[0], TPM_ALG_SHA256), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_pcr(&d[1], TPM_ALG_SHA256, &pcr16, 1, &pcr_digest),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_auth_value(&d[1], TPM_ALG_SHA256), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_secret(&d[2], TPM_ALG_SHA256, &owner, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_or(&r, TPM_ALG_SHA256, d, 3), 0);
	for (unsigned b = 0; b < 3; b++)
		CU_ASSERT(same(&d[b], &branch[b]));
	CU_ASSERT(same(&r, &root));
	/* a digest of the wrong size for the hash, too few branches */
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_auth_value(&d[0], TPM_ALG_SHA384),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_calc_or(&r, TPM_ALG_SHA256, d, 1),
			PQTPM_TSS_RC_BAD_VALUE);
}

static void teardown(void)
{
	tss_env_close(&env);
}

/* Create under the policy key with session s and key password pw. */
static TPM_RC create_under(struct pqtpm_tss_session *s, const char *pw)
{
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_key k;

	tss_template(TPM_ALG_ECC, TSS_STORAGE, NULL, &tmpl);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	return pqtpm_tss_create(t, key.handle, pw, &tmpl, "", &k);
}

static void test_each_branch(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_POLICY, .attrs = CONT };
	struct pqtpm_tss_session *s = tss_session(t, &p);

	/* the key takes no password */
	CU_ASSERT_NOT_EQUAL(create_under(NULL, "pk"), 0);
	/* one session, used again and again: the TPM starts its policy over after each use */
	for (unsigned b = 0; b < 3; b++) {
		satisfy(s, b);
		CU_ASSERT_EQUAL(create_under(s, "pk"), 0);
	}
	pqtpm_tss_session_free(s);
}

static void test_wrong_auth_value(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_POLICY, .attrs = CONT };
	struct pqtpm_tss_session *s = tss_session(t, &p);

	satisfy(s, 0); /* PolicyAuthValue: the HMAC carries it */
	CU_ASSERT_EQUAL(create_under(s, "pK"), RC_S(TPM_RC_AUTH_FAIL, 1));
	/* a failed command leaves the policy as it was: the right value goes through */
	CU_ASSERT_EQUAL(create_under(s, "pk"), 0);
	satisfy(s, 1); /* PolicyPassword: the password in clear */
	CU_ASSERT_EQUAL(create_under(s, "pK"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(create_under(s, "pk"), 0);
	pqtpm_tss_session_free(s);
}

/* PolicyCommandCode(Create) does not allow Load. */
static void test_wrong_command(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_POLICY, .attrs = CONT };
	struct pqtpm_tss_session *s = tss_session(t, &p);
	static struct pqtpm_tss_key k;

	CU_ASSERT_EQUAL_FATAL(tss_child(t, parent.handle, "parent", TPM_ALG_ECC, TSS_STORAGE, NULL,
					"", &k),
			      0);
	satisfy(s, 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_load(t, key.handle, "pk", &k), RC_S(TPM_RC_POLICY_CC, 1));
	pqtpm_tss_session_free(s);
}

/* A policy session salted with ML-KEM and encrypting both ways: the encryption key includes
 * the authValue of the key it authorizes (here one with userWithAuth as well, whose
 * authValue Part 1 makes available to a policy session: the reference implementation and
 * ESAPI agree on that case); PolicySecret itself authorized by an HMAC session. */
static void test_salted_policy(void)
{
	static struct pqtpm_tss_key salt, both;
	struct pqtpm_tss_session *s, *h;
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_key k, gk;

	CU_ASSERT_EQUAL_FATAL(tss_primary(t, TPM_ALG_MLKEM, TPMA_OBJECT_DECRYPT |
					  TPMA_OBJECT_USERWITHAUTH, "", &salt),
			      0);
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_POLICY, .salt_key = salt.handle, .salt_pub = &salt.pub,
		.sym = TPM_ALG_AES, .sym_bits = 128,
		.attrs = CONT | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT,
	};
	CU_ASSERT_EQUAL_FATAL(tss_child(t, parent.handle, "parent", TPM_ALG_ECC, TSS_STORAGE, &root,
					"pk", &both),
			      0);
	s = tss_session(t, &p);
	satisfy(s, 0);
	tss_template(TPM_ALG_ECC, TSS_STORAGE, NULL, &tmpl);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_create(t, both.handle, "pk", &tmpl, "child", &k), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_load(t, both.handle, "pk", &k), 0); /* outPrivate decrypted */
	/* and the child's authValue was decrypted right by the TPM */
	CU_ASSERT_EQUAL(tss_child(t, k.handle, "child", TPM_ALG_ECC, TSS_STORAGE, NULL, "", &gk),
			0);
	pqtpm_tss_session_set_attrs(s, CONT);
	h = tss_session(t, &(struct pqtpm_tss_session_params){ .type = TPM_SE_HMAC,
							      .attrs = CONT });
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, h, NULL, NULL), 0);
	satisfy(s, 2);
	CU_ASSERT_EQUAL(create_under(s, "pk"), 0);
	pqtpm_tss_session_free(h);
	pqtpm_tss_session_free(s);
}

static void test_arguments(void)
{
	struct pqtpm_tss_session *h = tss_session(t, &(struct pqtpm_tss_session_params){
							     .type = TPM_SE_HMAC });
	struct pqtpm_tss_session *s = tss_session(t, &(struct pqtpm_tss_session_params){
							     .type = TPM_SE_POLICY });
	struct pqtpm_tss_digest d;

	CU_ASSERT_EQUAL(pqtpm_tss_policy_auth_value(h), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_get_digest(NULL, &d), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_or(s, branch, 1), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_or(s, branch, 9), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_pcr(s, NULL, &pcr16, 0), PQTPM_TSS_RC_BAD_VALUE);
	/* a policy session ended by its use: no more policy commands on it */
	satisfy(s, 1);
	CU_ASSERT_EQUAL(create_under(s, "pk"), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_session_handle(s), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_policy_password(s), PQTPM_TSS_RC_BAD_VALUE);
	pqtpm_tss_session_free(s);
	pqtpm_tss_session_free(h);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "each PolicyOR branch authorizes", test_each_branch },
		{ "digests computed without a TPM", test_calculated },
		{ "wrong authValue", test_wrong_auth_value },
		{ "wrong command", test_wrong_command },
		{ "salted encrypting policy session", test_salted_policy },
		{ "argument checks", test_arguments },
	};

	return UNIT_RUN("tss_session_policy", tests, setup, teardown);
}
