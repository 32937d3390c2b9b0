/* Policy sessions (core/policy.c, core/cmd/policy.c, core/cmd/policy_auth.c, the policy checks
 * of core/auth.c): the digest of every assertion against H(old || commandCode || arguments)
 * computed here, policy sessions unsealing sealed objects whose authPolicy needs them
 * (userWithAuth clear), PolicyOR, PolicyAuthorize, PolicySigned and tickets, PolicyTemplate on
 * Create, and the refusals:
 * a changed PCR, another command, a trial session used for authorization, expiry, locality,
 * physical presence, bad arguments with their numbers. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "harness.h"
#include "keys.h"
#include "pcr.h"
#include "sessions.h"
#include "unit_main.h"

#define DSIZE 32 /* SHA-256: every session here */
#define FIXED (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT)
/* noDA: this file tries wrong authValues; the dictionary-attack logic is test_da's */
#define SEALED (FIXED | TPMA_OBJECT_NODA)
#define PCR_TEST 16 /* resettable and extendable from locality 0 */
#define EO_UNSIGNED_GT 3
#define EO_UNSIGNED_LT 5

static struct harness h;
static TPM_HANDLE parent;		/* a storage primary for the sealed objects */
static TPM_HANDLE signer;		/* an ECDSA P-256 key in the owner hierarchy */
static struct tpm2b_name signer_name;

/* ---- the client's view of a policy session: its handle, nonce and expected digest ---- */

struct psess {
	TPM_HANDLE handle;
	struct tpm2b_digest nonce_tpm;
	uint8_t expect[DSIZE];
};

/* expect = H(expect || ref), the second step of PolicySigned/Secret/Ticket/Authorize */
static void expect_ref(uint8_t expect[DSIZE], const char *ref)
{
	sess_sha256(expect, DSIZE, ref, strlen(ref), "", 0, expect);
}

static TPM_RC start(struct psess *s, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	return sess_start(&h, type, &s->handle, &s->nonce_tpm);
}

static void start_ok(struct psess *s, uint8_t type)
{
	CU_ASSERT_EQUAL_FATAL(start(s, type), TPM_RC_SUCCESS);
}

static void flush(TPM_HANDLE handle)
{
	CU_ASSERT_EQUAL(sess_flush(&h, handle), TPM_RC_SUCCESS);
}

/* PolicyGetDigest equals what the client expects */
static void check_digest(const struct psess *s)
{
	uint8_t d[DSIZE];

	sess_policy_digest(&h, s->handle, d);
	CU_ASSERT(memcmp(d, s->expect, DSIZE) == 0);
}

/* ---- policy commands ---- */

static TPM_RC run_simple(struct psess *s, TPM_CC cc, const void *params, size_t len)
{
	struct cmdbuf b;

	cmd_begin(&b, cc);
	cmd_handle(&b, s->handle);
	wr_bytes(&b.params, params, len);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC policy0(struct psess *s, TPM_CC cc)
{
	return run_simple(s, cc, "", 0);
}

static TPM_RC policy_cc(struct psess *s, TPM_CC code)
{
	uint8_t p[4];

	sess_be32(p, code);
	return run_simple(s, TPM_CC_PolicyCommandCode, p, 4);
}

/* PolicyCpHash, PolicyNameHash, PolicyTemplate */
static TPM_RC policy_digest_arg(struct psess *s, TPM_CC cc, const uint8_t *d, uint16_t len)
{
	uint8_t p[2 + 64];

	p[0] = (uint8_t)(len >> 8);
	p[1] = (uint8_t)len;
	memcpy(p + 2, d, len);
	return run_simple(s, cc, p, 2u + len);
}

/* TPML_PCR_SELECTION of one SHA-256 PCR, as marshalled */
static size_t pcr_sel(unsigned pcr, uint8_t out[10])
{
	struct wr w;

	wr_init(&w, out, 10);
	wr_u32(&w, 1);
	wr_u16(&w, TPM_ALG_SHA256);
	wr_u8(&w, 3);
	for (unsigned i = 0; i < 3; i++)
		wr_u8(&w, i == pcr / 8 ? (uint8_t)(1u << (pcr % 8)) : 0);
	return w.off;
}

static TPM_RC policy_pcr(struct psess *s, const uint8_t *digest, uint16_t len)
{
	struct cmdbuf b;
	uint8_t sel[10];
	size_t n = pcr_sel(PCR_TEST, sel);

	cmd_begin(&b, TPM_CC_PolicyPCR);
	cmd_handle(&b, s->handle);
	wr_tpm2b(&b.params, digest, len);
	wr_bytes(&b.params, sel, n);
	return harness_run(&h, &b, NULL, NULL);
}

/* H(selection || H(PCR value)): what PolicyPCR adds for PCR_TEST now */
static void expect_pcr(uint8_t expect[DSIZE])
{
	uint8_t sel[10], args[10 + DSIZE];
	size_t n = pcr_sel(PCR_TEST, sel);

	memcpy(args, sel, n);
	sess_sha256(pcr_value(h.e, TPM_ALG_SHA256, PCR_TEST), DSIZE, "", 0, "", 0, args + n);
	sess_policy_extend(expect, TPM_CC_PolicyPCR, args, n + DSIZE);
}

static void pcr_extend(void)
{
	struct cmdbuf b;
	uint8_t d[DSIZE] = { 1 };

	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, PCR_TEST);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, d, sizeof(d));
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

static TPM_RC policy_or(struct psess *s, uint8_t (*list)[DSIZE], uint32_t count)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyOR);
	cmd_handle(&b, s->handle);
	wr_u32(&b.params, count);
	for (uint32_t i = 0; i < count; i++)
		wr_tpm2b(&b.params, list[i], DSIZE);
	return harness_run(&h, &b, NULL, NULL);
}

static void expect_or(uint8_t expect[DSIZE], uint8_t (*list)[DSIZE], uint32_t count)
{
	memset(expect, 0, DSIZE);
	sess_policy_extend(expect, TPM_CC_PolicyOR, list, count * DSIZE);
}

/* PolicySecret on auth (password pw); timeout and ticket when rsp is given */
static TPM_RC policy_secret(struct psess *s, TPM_HANDLE auth, const char *pw, bool nonce,
			    int32_t expiration, const char *ref, struct tpm2b_digest *timeout,
			    struct tpmt_ticket *ticket)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_PolicySecret);
	cmd_handle(&b, auth);
	cmd_handle(&b, s->handle);
	cmd_auth_pw(&b, pw);
	wr_tpm2b(&b.params, s->nonce_tpm.b, nonce ? s->nonce_tpm.size : 0);
	wr_u16(&b.params, 0); /* cpHashA */
	wr_tpm2b(&b.params, ref, (uint16_t)strlen(ref));
	wr_u32(&b.params, (uint32_t)expiration);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS && timeout) {
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, timeout), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_ticket(&rsp, ticket), TPM_RC_SUCCESS);
	}
	return rc;
}

static TPM_RC policy_ticket(struct psess *s, const struct tpm2b_digest *timeout, const char *ref,
			    const struct tpm2b_name *name, const struct tpmt_ticket *t)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyTicket);
	cmd_handle(&b, s->handle);
	wr_tpm2b_digest(&b.params, timeout);
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, ref, (uint16_t)strlen(ref));
	wr_tpm2b_name(&b.params, name);
	wr_ticket(&b.params, t);
	return harness_run(&h, &b, NULL, NULL);
}

/* Sign a digest with the signer, and the VerifySignature ticket for it */
static void sign(const uint8_t digest[DSIZE], struct tpmt_signature *sig, struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, signer);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, digest, DSIZE);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ST_HASHCHECK);
	wr_u32(&b.params, TPM_RH_NULL);
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_signature(&rsp, sig), TPM_RC_SUCCESS);
	if (!t)
		return;
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, signer);
	wr_tpm2b(&b.params, digest, DSIZE);
	wr_signature(&b.params, sig);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_ticket(&rsp, t), TPM_RC_SUCCESS);
}

static TPM_RC policy_signed(struct psess *s, const struct tpmt_signature *sig, bool nonce,
			    int32_t expiration, const char *ref, struct tpm2b_digest *timeout,
			    struct tpmt_ticket *ticket)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_PolicySigned);
	cmd_handle(&b, signer);
	cmd_handle(&b, s->handle);
	wr_tpm2b(&b.params, s->nonce_tpm.b, nonce ? s->nonce_tpm.size : 0);
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, ref, (uint16_t)strlen(ref));
	wr_u32(&b.params, (uint32_t)expiration);
	wr_signature(&b.params, sig);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS && timeout) {
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, timeout), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_ticket(&rsp, ticket), TPM_RC_SUCCESS);
	}
	return rc;
}

/* aHash = H(nonceTPM || expiration || cpHashA || policyRef), what PolicySigned's key signs */
static void signed_ahash(const struct psess *s, bool nonce, int32_t expiration, const char *ref,
			 uint8_t out[DSIZE])
{
	uint8_t exp[4];

	sess_be32(exp, (uint32_t)expiration);
	sess_sha256(s->nonce_tpm.b, nonce ? s->nonce_tpm.size : 0, exp, 4, ref, strlen(ref), out);
}

static TPM_RC policy_authorize(struct psess *s, const uint8_t approved[DSIZE], const char *ref,
			       const struct tpmt_ticket *t)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyAuthorize);
	cmd_handle(&b, s->handle);
	wr_tpm2b(&b.params, approved, DSIZE);
	wr_tpm2b(&b.params, ref, (uint16_t)strlen(ref));
	wr_tpm2b_name(&b.params, &signer_name);
	wr_ticket(&b.params, t);
	return harness_run(&h, &b, NULL, NULL);
}

/* ---- objects ---- */

static TPM_HANDLE create_primary(const struct tpmt_public *t, struct tpm2b_name *name)
{
	struct key k;

	CU_ASSERT_EQUAL_FATAL(key_primary_in(&h, TPM_RH_OWNER, t, "", NULL, 0, &k),
			      TPM_RC_SUCCESS);
	*name = k.name;
	return k.handle;
}

struct sealed {
	TPM_HANDLE handle;
	struct tpm2b_name name;
};

/* A sealed object under parent with this authPolicy and authValue, loaded. */
static void seal(const uint8_t policy[DSIZE], uint32_t attrs, const char *auth, struct sealed *o)
{
	struct tpmt_public t, pub;
	struct tpm2b_private priv;

	key_template_attrs(&t, TPM_ALG_KEYEDHASH, attrs);
	t.auth_policy.size = DSIZE;
	memcpy(t.auth_policy.b, policy, DSIZE);
	CU_ASSERT_EQUAL_FATAL(key_create(&h, parent, &t, auth, "sealed secret", 13, &priv, &pub),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(key_load(&h, parent, &priv, &pub, &o->handle, &o->name),
			      TPM_RC_SUCCESS);
}

/* cpHash of Unseal(o) */
static void unseal_cp_hash(const struct sealed *o, uint8_t out[DSIZE])
{
	uint8_t code[4];

	sess_be32(code, TPM_CC_Unseal);
	sess_sha256(code, 4, o->name.b, o->name.size, "", 0, out);
}

/* Unseal o with policy session s. auth: the authValue that goes into the HMAC key (after
 * PolicyAuthValue) or, with password, the password (after PolicyPassword); NULL for none. The
 * session ends with the command. */
static TPM_RC unseal(struct psess *s, const struct sealed *o, const char *auth, bool password)
{
	uint8_t cp[DSIZE], mac[DSIZE], nonce[DSIZE], attrs = 0;
	struct tpm2b_sensitive_data out;
	struct crypto_hmac_ctx ctx;
	size_t alen = auth ? strlen(auth) : 0;
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	CU_ASSERT_EQUAL(crypto_random(nonce, sizeof(nonce)), TPM_RC_SUCCESS);
	unseal_cp_hash(o, cp);
	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, o->handle);
	wr_u32(&b.auth, s->handle);
	/* after PolicyPassword ESAPI sends no nonce: the password goes in clear */
	wr_tpm2b(&b.auth, nonce, password ? 0 : sizeof(nonce));
	wr_u8(&b.auth, attrs);
	if (password) {
		wr_tpm2b(&b.auth, auth, (uint16_t)alen);
	} else {
		/* HMAC(sessionKey (empty: unbound, unsalted) || authValue, cpHash || nonces || attrs) */
		crypto_hmac_start(&ctx, TPM_ALG_SHA256, (const uint8_t *)(auth ? auth : ""), alen);
		crypto_hmac_update(&ctx, cp, DSIZE);
		crypto_hmac_update(&ctx, nonce, DSIZE);
		crypto_hmac_update(&ctx, s->nonce_tpm.b, s->nonce_tpm.size);
		crypto_hmac_update(&ctx, &attrs, 1);
		crypto_hmac_finish(&ctx, mac);
		wr_tpm2b(&b.auth, mac, DSIZE);
	}
	b.nauth = 1;
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_tpm2b(&r, out.b, sizeof(out.b), &out.size), TPM_RC_SUCCESS);
		CU_ASSERT(out.size == 13 && memcmp(out.b, "sealed secret", 13) == 0);
	} else {
		flush(s->handle); /* the session lives on after a failure */
	}
	return rc;
}

/* ---- tests ---- */

static void setup_keys(void)
{
	struct tpmt_public t;
	struct tpm2b_name name;

	key_storage_template(&t, TPM_ALG_ECC,
			     FIXED | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
				     TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT);
	parent = create_primary(&t, &name);
	key_template_attrs(&t, TPM_ALG_ECC,
			   FIXED | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
				   TPMA_OBJECT_SIGN_ENCRYPT);
	t.scheme.scheme = TPM_ALG_ECDSA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	signer = create_primary(&t, &signer_name);
}

/* Every assertion in a trial session, each digest checked against H(old || CC || args). */
static void test_digests(void)
{
	/* a known value: PolicyAuthValue from the zero digest (tpm2-tools' policyauthvalue) */
	static const uint8_t auth_value[DSIZE] = {
		0x8f, 0xcd, 0x21, 0x69, 0xab, 0x92, 0x69, 0x4e, 0x0c, 0x63, 0x3f, 0x1a, 0xb7, 0x72, 0x84, 0x2b,
		0x82, 0x41, 0xbb, 0xc2, 0x02, 0x88, 0x98, 0x1f, 0xc7, 0xac, 0x1e, 0xdd, 0xc1, 0xfd, 0xdb, 0x0e,
	};
	uint8_t x[DSIZE], y[DSIZE], list[3][DSIZE], a_hash[DSIZE], code[4], owner[4], arg[8 + 4];
	uint8_t operand[8] = { 0 }, loc = TPMA_LOCALITY_TPM2_LOC_ZERO | TPMA_LOCALITY_TPM2_LOC_ONE;
	struct tpmt_signature sig;
	struct tpmt_ticket null_ticket = { .tag = TPM_ST_VERIFIED, .hierarchy = TPM_RH_NULL };
	struct psess s;

	memset(x, 0x11, sizeof(x));
	memset(y, 0x22, sizeof(y));
	start_ok(&s, TPM_SE_TRIAL);
	check_digest(&s); /* all zero */

	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicyAuthValue, "", 0);
	CU_ASSERT(memcmp(s.expect, auth_value, DSIZE) == 0);
	check_digest(&s);
	/* PolicyPassword adds what PolicyAuthValue adds */
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyPassword), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicyAuthValue, "", 0);
	check_digest(&s);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyPhysicalPresence), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicyPhysicalPresence, "", 0);
	check_digest(&s);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	sess_be32(code, TPM_CC_Unseal);
	sess_policy_extend(s.expect, TPM_CC_PolicyCommandCode, code, 4);
	check_digest(&s);
	CU_ASSERT_EQUAL(run_simple(&s, TPM_CC_PolicyLocality, &loc, 1), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicyLocality, &loc, 1);
	check_digest(&s);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyCpHash, x, DSIZE), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicyCpHash, x, DSIZE);
	check_digest(&s);

	/* PolicyPCR: the digest of the PCRs now, or in a trial the one given */
	CU_ASSERT_EQUAL(policy_pcr(&s, NULL, 0), TPM_RC_SUCCESS);
	expect_pcr(s.expect);
	check_digest(&s);
	CU_ASSERT_EQUAL(policy_pcr(&s, y, DSIZE), TPM_RC_SUCCESS);
	{
		uint8_t args[10 + DSIZE];
		size_t n = pcr_sel(PCR_TEST, args);

		memcpy(args + n, y, DSIZE);
		sess_policy_extend(s.expect, TPM_CC_PolicyPCR, args, n + DSIZE);
	}
	check_digest(&s);

	/* PolicyCounterTimer: H(operandB || offset || operation) goes in */
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&h, s.handle, operand, 8, 8, EO_UNSIGNED_GT),
			TPM_RC_SUCCESS);
	memcpy(arg, operand, 8);
	arg[8] = 0;
	arg[9] = 8;
	arg[10] = 0;
	arg[11] = EO_UNSIGNED_GT;
	sess_sha256(arg, sizeof(arg), "", 0, "", 0, a_hash);
	sess_policy_extend(s.expect, TPM_CC_PolicyCounterTimer, a_hash, DSIZE);
	check_digest(&s);

	/* PolicyOR starts from zero; a trial need not be in the list */
	memcpy(list[0], x, DSIZE);
	memcpy(list[1], s.expect, DSIZE);
	memcpy(list[2], y, DSIZE);
	CU_ASSERT_EQUAL(policy_or(&s, list, 3), TPM_RC_SUCCESS);
	expect_or(s.expect, list, 3);
	check_digest(&s);

	/* PolicySecret: owner's name (its handle), then the policyRef */
	CU_ASSERT_EQUAL(policy_secret(&s, TPM_RH_OWNER, "", false, 0, "ref", NULL, NULL),
			TPM_RC_SUCCESS);
	sess_be32(owner, TPM_RH_OWNER);
	sess_policy_extend(s.expect, TPM_CC_PolicySecret, owner, 4);
	expect_ref(s.expect, "ref");
	check_digest(&s);

	/* PolicySigned: a trial does not check the signature */
	sign(x, &sig, NULL);
	CU_ASSERT_EQUAL(policy_signed(&s, &sig, false, 0, "", NULL, NULL), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicySigned, signer_name.b, signer_name.size);
	expect_ref(s.expect, "");
	check_digest(&s);

	/* PolicyAuthorize: from zero, keySign's name, policyRef; a trial takes any ticket */
	CU_ASSERT_EQUAL(policy_authorize(&s, x, "approved", &null_ticket), TPM_RC_SUCCESS);
	memset(s.expect, 0, DSIZE);
	sess_policy_extend(s.expect, TPM_CC_PolicyAuthorize, signer_name.b, signer_name.size);
	expect_ref(s.expect, "approved");
	check_digest(&s);

	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyRestart), TPM_RC_SUCCESS);
	memset(s.expect, 0, DSIZE);
	check_digest(&s);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyNameHash, y, DSIZE), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicyNameHash, y, DSIZE);
	check_digest(&s);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyRestart), TPM_RC_SUCCESS);
	memset(s.expect, 0, DSIZE);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyTemplate, x, DSIZE), TPM_RC_SUCCESS);
	sess_policy_extend(s.expect, TPM_CC_PolicyTemplate, x, DSIZE);
	check_digest(&s);
	flush(s.handle);
}

/* The digest a fresh session reaches with one assertion (no arguments) */
static void digest_of(TPM_CC cc, uint8_t out[DSIZE])
{
	memset(out, 0, DSIZE);
	sess_policy_extend(out, cc, "", 0);
}

static void cc_digest(TPM_CC code, uint8_t out[DSIZE])
{
	uint8_t b[4];

	sess_be32(b, code);
	memset(out, 0, DSIZE);
	sess_policy_extend(out, TPM_CC_PolicyCommandCode, b, 4);
}

static void test_auth_value_password(void)
{
	uint8_t policy[DSIZE];
	struct sealed o;
	struct psess s;

	digest_of(TPM_CC_PolicyAuthValue, policy);
	seal(policy, SEALED, "objpw", &o);
	/* userWithAuth clear: the password alone does not do */
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_Unseal);
		cmd_handle(&b, o.handle);
		cmd_auth_pw(&b, "objpw");
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_AUTH_UNAVAILABLE);
	}
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, "objpw", false), TPM_RC_SUCCESS);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, "wrong", false), RC_S(TPM_RC_BAD_AUTH, 1));
	/* without the authValue in the HMAC key */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), RC_S(TPM_RC_BAD_AUTH, 1));

	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyPassword), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, "objpw", true), TPM_RC_SUCCESS);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyPassword), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, "wrong", true), RC_S(TPM_RC_BAD_AUTH, 1));
	/* no assertion at all: the digest does not match */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), RC_S(TPM_RC_POLICY_FAIL, 1));
	/* a trial session never authorizes */
	start_ok(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, "objpw", false), RC_S(TPM_RC_ATTRIBUTES, 1));
	flush(o.handle);
}

static void test_command_code(void)
{
	uint8_t policy[DSIZE];
	struct sealed o;
	struct psess s;

	cc_digest(TPM_CC_Unseal, policy);
	seal(policy, SEALED, "", &o);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	/* a second command code in the same session must be the same one */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_Sign), RC_P(TPM_RC_VALUE, 1));
	flush(s.handle);
	/* a command this TPM does not have */
	start_ok(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(policy_cc(&s, 0x1FF), RC_P(TPM_RC_POLICY_CC, 1));
	flush(s.handle);
	flush(o.handle);

	/* the digest matches but the session is for another command */
	cc_digest(TPM_CC_ObjectChangeAuth, policy);
	seal(policy, SEALED, "", &o);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_ObjectChangeAuth), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), RC_S(TPM_RC_POLICY_CC, 1));
	flush(o.handle);
}

static void test_pcr(void)
{
	uint8_t policy[DSIZE] = { 0 }, wrong[DSIZE] = { 0xEE };
	struct sealed o;
	struct psess s;

	expect_pcr(policy);
	seal(policy, SEALED, "", &o);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_pcr(&s, NULL, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	/* a pcrDigest that is not the PCRs' */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_pcr(&s, wrong, DSIZE), RC_P(TPM_RC_VALUE, 1));
	/* a PCR changes between PolicyPCR and the use */
	CU_ASSERT_EQUAL(policy_pcr(&s, NULL, 0), TPM_RC_SUCCESS);
	pcr_extend();
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_PCR_CHANGED);
	/* after the change the policy no longer holds */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_pcr(&s, NULL, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), RC_S(TPM_RC_POLICY_FAIL, 1));
	flush(o.handle);
}

static void test_or(void)
{
	uint8_t branches[2][DSIZE], policy[DSIZE], list[9][DSIZE] = { { 0 } };
	struct sealed o;
	struct psess s;

	digest_of(TPM_CC_PolicyAuthValue, branches[0]);
	cc_digest(TPM_CC_Unseal, branches[1]);
	expect_or(policy, branches, 2);
	seal(policy, SEALED, "pw", &o);
	/* either branch */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_or(&s, branches, 2), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_or(&s, branches, 2), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, "pw", false), TPM_RC_SUCCESS);
	/* a digest in neither branch */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyPhysicalPresence), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_or(&s, branches, 2), RC_P(TPM_RC_VALUE, 1));
	/* one branch or nine */
	CU_ASSERT_EQUAL(policy_or(&s, list, 1), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(policy_or(&s, list, 9), RC_P(TPM_RC_SIZE, 1));
	flush(s.handle);
	flush(o.handle);
}

static void test_secret_and_ticket(void)
{
	uint8_t policy[DSIZE] = { 0 }, owner[4];
	struct tpm2b_name owner_name = { 4, { 0 } };
	struct tpm2b_digest timeout;
	struct tpmt_ticket t;
	struct cmdbuf b;
	struct sealed o;
	struct psess s;

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "ownerpw", 7);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);

	sess_be32(owner, TPM_RH_OWNER);
	memcpy(owner_name.b, owner, 4);
	sess_policy_extend(policy, TPM_CC_PolicySecret, owner, 4);
	expect_ref(policy, "sec");
	seal(policy, SEALED, "", &o);

	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_secret(&s, TPM_RH_OWNER, "ownerpw", true, 0, "sec", &timeout, &t),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(timeout.size, 0);
	CU_ASSERT(t.tag == TPM_ST_AUTH_SECRET && t.hierarchy == TPM_RH_NULL && t.digest.size == 0);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	/* the owner is not DA-protected: a wrong password is a BAD_AUTH */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_secret(&s, TPM_RH_OWNER, "nope", false, 0, "sec", NULL, NULL),
			RC_S(TPM_RC_BAD_AUTH, 1));
	/* a nonceTPM that is not the session's */
	s.nonce_tpm.b[0] ^= 1;
	CU_ASSERT_EQUAL(policy_secret(&s, TPM_RH_OWNER, "ownerpw", true, 0, "sec", NULL, NULL),
			RC_P(TPM_RC_NONCE, 1));
	flush(s.handle);

	/* a negative expiration gives a ticket, which another session can use */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_secret(&s, TPM_RH_OWNER, "ownerpw", true, -100, "sec", &timeout, &t),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(timeout.size, 8);
	CU_ASSERT(t.tag == TPM_ST_AUTH_SECRET && t.hierarchy == TPM_RH_OWNER && t.digest.size);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_ticket(&s, &timeout, "sec", &owner_name, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	/* tampered: the ticket, its timeout, its policyRef */
	start_ok(&s, TPM_SE_POLICY);
	t.digest.b[3] ^= 1;
	CU_ASSERT_EQUAL(policy_ticket(&s, &timeout, "sec", &owner_name, &t),
			RC_P(TPM_RC_TICKET, 5));
	t.digest.b[3] ^= 1;
	timeout.b[7] ^= 1;
	CU_ASSERT_EQUAL(policy_ticket(&s, &timeout, "sec", &owner_name, &t),
			RC_P(TPM_RC_TICKET, 5));
	timeout.b[7] ^= 1;
	CU_ASSERT_EQUAL(policy_ticket(&s, &timeout, "sex", &owner_name, &t),
			RC_P(TPM_RC_TICKET, 5));
	/* the ticket expires with its timeout */
	h.e->ps.clock += 101 * 1000;
	CU_ASSERT_EQUAL(policy_ticket(&s, &timeout, "sec", &owner_name, &t),
			RC_P(TPM_RC_EXPIRED, 1));
	flush(s.handle);

	/* a positive expiration bounds the session's use */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_secret(&s, TPM_RH_OWNER, "ownerpw", true, 10, "sec", &timeout, &t),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(timeout.size, 0);
	h.e->ps.clock += 11 * 1000;
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), RC_S(TPM_RC_EXPIRED, 1));

	flush(o.handle);

	/* PolicySecret authorized by a policy without PolicyAuthValue proves no secret */
	cc_digest(TPM_CC_PolicySecret, policy);
	seal(policy, SEALED, "", &o);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_PolicySecret), TPM_RC_SUCCESS);
	{
		struct psess target;
		uint8_t nonce[DSIZE] = { 0 };

		start_ok(&target, TPM_SE_POLICY);
		cmd_begin(&b, TPM_CC_PolicySecret);
		cmd_handle(&b, o.handle);
		cmd_handle(&b, target.handle);
		wr_u32(&b.auth, s.handle);
		wr_tpm2b(&b.auth, nonce, DSIZE);
		wr_u8(&b.auth, 0);
		wr_tpm2b(&b.auth, nonce, DSIZE); /* refused before the HMAC is looked at */
		b.nauth = 1;
		wr_u16(&b.params, 0);
		wr_u16(&b.params, 0);
		wr_u16(&b.params, 0);
		wr_u32(&b.params, 0);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_S(TPM_RC_MODE, 1));
		flush(target.handle);
	}
	flush(s.handle);
	flush(o.handle);

	/* the owner's authValue back to empty */
	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "ownerpw");
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

static void test_signed(void)
{
	uint8_t policy[DSIZE] = { 0 }, a_hash[DSIZE];
	struct tpm2b_digest timeout;
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct sealed o;
	struct psess s;

	sess_policy_extend(policy, TPM_CC_PolicySigned, signer_name.b, signer_name.size);
	expect_ref(policy, "go");
	seal(policy, SEALED, "", &o);

	start_ok(&s, TPM_SE_POLICY);
	signed_ahash(&s, true, 0, "go", a_hash);
	sign(a_hash, &sig, NULL);
	CU_ASSERT_EQUAL(policy_signed(&s, &sig, true, 0, "go", &timeout, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	/* signed over something else */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_signed(&s, &sig, true, 0, "go", NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	/* with a ticket for later */
	signed_ahash(&s, true, -60, "go", a_hash);
	sign(a_hash, &sig, NULL);
	CU_ASSERT_EQUAL(policy_signed(&s, &sig, true, -60, "go", &timeout, &t), TPM_RC_SUCCESS);
	CU_ASSERT(t.tag == TPM_ST_AUTH_SIGNED && t.hierarchy == TPM_RH_OWNER && timeout.size == 8);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_ticket(&s, &timeout, "go", &signer_name, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	flush(o.handle);
}

static void test_authorize(void)
{
	uint8_t approved[DSIZE], policy[DSIZE] = { 0 }, a_hash[DSIZE];
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct sealed o;
	struct psess s;

	/* the key approves "Unseal only", the object trusts what the key approves */
	cc_digest(TPM_CC_Unseal, approved);
	sess_sha256(approved, DSIZE, "v1", 2, "", 0, a_hash);
	sign(a_hash, &sig, &t);
	sess_policy_extend(policy, TPM_CC_PolicyAuthorize, signer_name.b, signer_name.size);
	expect_ref(policy, "v1");
	seal(policy, SEALED, "", &o);

	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "v1", &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	/* the session's digest is not the approved one */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "v1", &t), RC_P(TPM_RC_VALUE, 1));
	/* a ticket for another policyRef or altered */
	CU_ASSERT_EQUAL(policy_cc(&s, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "v2", &t), RC_P(TPM_RC_VALUE, 4));
	t.digest.b[0] ^= 1;
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "v1", &t), RC_P(TPM_RC_VALUE, 4));
	flush(s.handle);
	flush(o.handle);
}

/* A policy approved by the signer: ticket for H(approved || ref) */
static void approve(const uint8_t approved[DSIZE], const char *ref, struct tpmt_ticket *t)
{
	struct tpmt_signature sig;
	uint8_t a_hash[DSIZE];

	sess_sha256(approved, DSIZE, ref, strlen(ref), "", 0, a_hash);
	sign(a_hash, &sig, t);
}

/* cpHash and nameHash name the object, whose name holds its policy: such policies reach the
 * object through PolicyAuthorize, which leaves the cpHash or nameHash in the session. */
static void test_cp_and_name_hash(void)
{
	uint8_t policy[DSIZE] = { 0 }, cp[DSIZE], nh[DSIZE], approved[DSIZE];
	struct tpmt_ticket t;
	struct sealed o;
	struct psess s;

	sess_policy_extend(policy, TPM_CC_PolicyAuthorize, signer_name.b, signer_name.size);
	expect_ref(policy, "hashes");
	seal(policy, SEALED, "", &o);
	unseal_cp_hash(&o, cp);
	sess_sha256(o.name.b, o.name.size, "", 0, "", 0, nh);

	memset(approved, 0, DSIZE);
	sess_policy_extend(approved, TPM_CC_PolicyCpHash, cp, DSIZE);
	approve(approved, "hashes", &t);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyCpHash, cp, DSIZE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "hashes", &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	/* approved, but for another command */
	cp[0] ^= 1;
	memset(approved, 0, DSIZE);
	sess_policy_extend(approved, TPM_CC_PolicyCpHash, cp, DSIZE);
	approve(approved, "hashes", &t);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyCpHash, cp, DSIZE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "hashes", &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), RC_S(TPM_RC_POLICY_FAIL, 1));

	memset(approved, 0, DSIZE);
	sess_policy_extend(approved, TPM_CC_PolicyNameHash, nh, DSIZE);
	approve(approved, "hashes", &t);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyNameHash, nh, DSIZE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "hashes", &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);

	/* one of cpHash, nameHash, templateHash per session; the session's digest size */
	start_ok(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyCpHash, cp, 20), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyNameHash, nh, DSIZE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyNameHash, nh, DSIZE), TPM_RC_CPHASH);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyCpHash, cp, DSIZE), TPM_RC_CPHASH);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyTemplate, cp, DSIZE), TPM_RC_CPHASH);
	flush(s.handle);
	flush(o.handle);
}

static void test_locality(void)
{
	uint8_t policy[DSIZE] = { 0 };
	uint8_t loc1 = TPMA_LOCALITY_TPM2_LOC_ONE, loc0 = TPMA_LOCALITY_TPM2_LOC_ZERO, zero = 0;
	struct sealed o;
	struct psess s;

	sess_policy_extend(policy, TPM_CC_PolicyLocality, &loc1, 1);
	seal(policy, SEALED, "", &o);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(run_simple(&s, TPM_CC_PolicyLocality, &loc1, 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_LOCALITY);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(run_simple(&s, TPM_CC_PolicyLocality, &loc1, 1), TPM_RC_SUCCESS);
	h.locality = 1;
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	h.locality = 0;
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(run_simple(&s, TPM_CC_PolicyLocality, &zero, 1), RC_P(TPM_RC_RANGE, 1));
	CU_ASSERT_EQUAL(run_simple(&s, TPM_CC_PolicyLocality, &loc1, 1), TPM_RC_SUCCESS);
	/* localities narrow down: nothing is left of {1} and {0} */
	CU_ASSERT_EQUAL(run_simple(&s, TPM_CC_PolicyLocality, &loc0, 1), RC_P(TPM_RC_RANGE, 1));
	flush(s.handle);
	flush(o.handle);
}

static void test_pp_counter_timer(void)
{
	uint8_t policy[DSIZE], zero8[8] = { 0 };
	struct sealed o;
	struct psess s;

	digest_of(TPM_CC_PolicyPhysicalPresence, policy);
	seal(policy, SEALED, "", &o);
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyPhysicalPresence), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), RC_S(TPM_RC_PP, 1));
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyPhysicalPresence), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_ON), 0);
	CU_ASSERT_EQUAL(unseal(&s, &o, NULL, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_OFF), 0);
	flush(o.handle);

	/* Clock (offset 8 of TPMS_TIME_INFO) > 0 holds, < 0 does not */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&h, s.handle, zero8, 8, 8, EO_UNSIGNED_GT),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&h, s.handle, zero8, 8, 8, EO_UNSIGNED_LT),
			TPM_RC_POLICY);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&h, s.handle, zero8, 8, 20, EO_UNSIGNED_GT),
			RC_P(TPM_RC_RANGE, 2));
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&h, s.handle, zero8, 8, 8, 12),
			RC_P(TPM_RC_VALUE, 3));
	flush(s.handle);
}

/* Create under a parent that only a PolicyTemplate for one template authorizes */
static TPM_RC create_with_template(struct psess *s, TPM_HANDLE p, const struct tpm2b_name *name,
				   const struct tpmt_public *t)
{
	uint8_t code[4], cp[DSIZE], mac[DSIZE], nonce[DSIZE] = { 7 }, attrs = 0;
	struct crypto_hash_ctx hc;
	struct crypto_hmac_ctx mc;
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Create);
	cmd_handle(&b, p);
	cmd_sensitive(&b, "", "x", 1);
	wr_tpm2b_public(&b.params, t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	sess_be32(code, TPM_CC_Create);
	crypto_hash_start(&hc, TPM_ALG_SHA256);
	crypto_hash_update(&hc, code, 4);
	crypto_hash_update(&hc, name->b, name->size);
	crypto_hash_update(&hc, b.param_buf, b.params.off);
	crypto_hash_finish(&hc, cp);
	crypto_hmac_start(&mc, TPM_ALG_SHA256, (const uint8_t *)"", 0);
	crypto_hmac_update(&mc, cp, DSIZE);
	crypto_hmac_update(&mc, nonce, DSIZE);
	crypto_hmac_update(&mc, s->nonce_tpm.b, s->nonce_tpm.size);
	crypto_hmac_update(&mc, &attrs, 1);
	crypto_hmac_finish(&mc, mac);
	wr_u32(&b.auth, s->handle);
	wr_tpm2b(&b.auth, nonce, DSIZE);
	wr_u8(&b.auth, attrs);
	wr_tpm2b(&b.auth, mac, DSIZE);
	b.nauth = 1;
	return harness_run(&h, &b, NULL, NULL);
}

static void test_template(void)
{
	uint8_t body[1024], t_hash[DSIZE], policy[DSIZE] = { 0 };
	struct tpmt_public child, other, p;
	struct tpm2b_name name;
	struct psess s;
	TPM_HANDLE restricted;
	struct wr w;

	key_template_attrs(&child, TPM_ALG_KEYEDHASH, FIXED | TPMA_OBJECT_USERWITHAUTH);
	other = child;
	other.attributes |= TPMA_OBJECT_NODA;
	wr_init(&w, body, sizeof(body));
	CU_ASSERT_EQUAL_FATAL(wr_public(&w, &child), TPM_RC_SUCCESS);
	sess_sha256(body, w.off, "", 0, "", 0, t_hash);
	sess_policy_extend(policy, TPM_CC_PolicyTemplate, t_hash, DSIZE);

	key_storage_template(&p, TPM_ALG_ECC,
			     FIXED | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_RESTRICTED |
				     TPMA_OBJECT_DECRYPT);
	p.auth_policy.size = DSIZE;
	memcpy(p.auth_policy.b, policy, DSIZE);
	restricted = create_primary(&p, &name);

	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyTemplate, t_hash, DSIZE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(create_with_template(&s, restricted, &name, &child), TPM_RC_SUCCESS);
	/* another template */
	start_ok(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_digest_arg(&s, TPM_CC_PolicyTemplate, t_hash, DSIZE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(create_with_template(&s, restricted, &name, &other),
			RC_S(TPM_RC_POLICY_FAIL, 1));
	flush(s.handle);
	flush(restricted);
}

static void test_session_errors(void)
{
	struct psess s;
	struct cmdbuf b;
	TPM_HANDLE hmac;
	uint8_t nonce[16] = { 0 };

	/* not loaded */
	s.handle = TPM_HR_POLICY_SESSION | 0x123456;
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_REFERENCE_H0);
	/* an HMAC session */
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b(&b.params, nonce, sizeof(nonce));
	wr_u16(&b.params, 0);
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &hmac), TPM_RC_SUCCESS);
	s.handle = hmac;
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyAuthValue), TPM_RC_AUTH_TYPE);
	CU_ASSERT_EQUAL(policy0(&s, TPM_CC_PolicyGetDigest), TPM_RC_AUTH_TYPE);
	flush(hmac);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "a storage parent and a signing key", setup_keys },
		{ "digest of every assertion (trial)", test_digests },
		{ "PolicyAuthValue and PolicyPassword unseal", test_auth_value_password },
		{ "PolicyCommandCode", test_command_code },
		{ "PolicyPCR", test_pcr },
		{ "PolicyOR", test_or },
		{ "PolicySecret and PolicyTicket", test_secret_and_ticket },
		{ "PolicySigned", test_signed },
		{ "PolicyAuthorize", test_authorize },
		{ "PolicyCpHash and PolicyNameHash", test_cp_and_name_hash },
		{ "PolicyLocality", test_locality },
		{ "physical presence, counter/timer", test_pp_counter_timer },
		{ "PolicyTemplate", test_template },
		{ "policy session handle errors", test_session_errors },
	};
	int failed;

	harness_open(&h);
	failed = UNIT_RUN("policy", tests, NULL, NULL);
	harness_close(&h);
	return failed;
}
