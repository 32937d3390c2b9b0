/* Authorization sessions through the stock tpm2-tss ESAPI over the mssim TCTI.
 *
 *   esys_sessions [TCTI]     default: $PQTPM_TCTI, else mssim:host=127.0.0.1,port=2321
 *
 * ESAPI computes every command HMAC and every parameter encryption on the client side and
 * checks every response HMAC, so each passing call here is an interoperability check.
 *
 * For each session kind (salted with an RSA-2048 or an ECC P-256 storage primary, bound to a
 * primary with an authValue or unbound, AES-128-CFB / AES-256-CFB / XOR, authHash SHA-256 or
 * SHA-384): GetRandom (encrypt), Hash "abc" (decrypt + encrypt, known answer), PCR_Event
 * (decrypt; digest and new PCR value checked here), Create of a sealed object with userAuth
 * and data (decrypt), Load, Unseal (encrypt; the data comes back), a wrong authValue refused
 * (TPM_RC_BAD_AUTH: the object is noDA) and the session still usable, HierarchyChangeAuth
 * (decrypt) and the new owner auth in use.
 * Policy sessions (salted): PolicyCommandCode + PolicyAuthValue / PolicyPassword on Unseal
 * (digest from a trial session, checked against the one computed here), the used session
 * refused until its assertions are repeated, a wrong authValue, an incomplete policy refused.
 * Sessions and objects left at the end are counted (GetCapability handles).
 * The kernel flow: ECC P-256 primary in the NULL hierarchy, ContextSave, FlushContext,
 * ContextLoad, StartAuthSession salted with it (HMAC, AES-128-CFB, SHA-256), FlushContext of
 * the key, PCR_Extend(16) with the session (continueSession), FlushContext of the session;
 * the PCR value is checked.
 * Prints `N passed, M failed`; exits 0 only if nothing failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "common/esys_util.h"

#define PCR_TEST 16
#define MAX_ROUNDS 8

/* ---- templates ---- */

/* A sealed data object (keyedhash, no scheme); authPolicy and userWithAuth set by caller. */
static TPM2B_PUBLIC sealed_template(const TPM2B_DIGEST *policy, int user_with_auth)
{
	TPM2B_PUBLIC t = {
		.publicArea = {
			.type = TPM2_ALG_KEYEDHASH,
			.nameAlg = TPM2_ALG_SHA256,
			.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
					    TPMA_OBJECT_NODA,
			.parameters.keyedHashDetail.scheme = { .scheme = TPM2_ALG_NULL },
		},
	};

	if (user_with_auth)
		t.publicArea.objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
	if (policy)
		t.publicArea.authPolicy = *policy;
	return t;
}

/* ---- PCR 16 bookkeeping: the value this client expects ---- */

static uint8_t pcr16[32];

static int read_pcr16(ESYS_CONTEXT *ctx, uint8_t out[32])
{
	TPML_PCR_SELECTION sel = { .count = 1 };
	TPML_DIGEST *vals = NULL;
	TPML_PCR_SELECTION *osel = NULL;
	UINT32 counter;
	TSS2_RC rc;
	int ok;

	sel.pcrSelections[0].hash = TPM2_ALG_SHA256;
	sel.pcrSelections[0].sizeofSelect = 3;
	sel.pcrSelections[0].pcrSelect[PCR_TEST / 8] = 1u << (PCR_TEST % 8);
	rc = Esys_PCR_Read(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &sel, &counter, &osel,
			   &vals);
	ok = rc == TSS2_RC_SUCCESS && vals->count == 1 && vals->digests[0].size == 32;
	if (ok)
		memcpy(out, vals->digests[0].buffer, 32);
	else
		check_rc(rc, "PCR_Read(16)");
	Esys_Free(vals);
	Esys_Free(osel);
	return ok;
}

static void pcr16_extend_expected(const uint8_t digest[32])
{
	uint8_t buf[64];

	memcpy(buf, pcr16, 32);
	memcpy(buf + 32, digest, 32);
	if (crypto_hash(TPM2_ALG_SHA256, buf, 64, pcr16) != 0)
		check(0, "crypto_hash");
}

static void check_pcr16(ESYS_CONTEXT *ctx, const char *what)
{
	uint8_t v[32];

	if (read_pcr16(ctx, v))
		check(memcmp(v, pcr16, 32) == 0, "%s: PCR 16 has the value computed here", what);
}

/* ---- one salted/bound session through the commands that carry secrets ---- */

struct kind {
	const char *name;
	int salt;		/* 0 none, 1 RSA primary, 2 ECC primary */
	int bind;		/* 0 none, 1 RSA primary, 2 ECC primary */
	TPMT_SYM_DEF sym;
	TPMI_ALG_HASH hash;
};

static const struct kind kinds[] = {
	{ "RSA-salted, unbound, AES-128-CFB, SHA-256", 1, 0,
	  { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB },
	  TPM2_ALG_SHA256 },
	{ "ECC-salted, unbound, AES-128-CFB, SHA-256", 2, 0,
	  { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB },
	  TPM2_ALG_SHA256 },
	{ "RSA-salted, bound to the ECC primary, AES-128-CFB, SHA-256", 1, 2,
	  { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB },
	  TPM2_ALG_SHA256 },
	{ "ECC-salted, bound to the RSA primary, AES-128-CFB, SHA-256", 2, 1,
	  { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB },
	  TPM2_ALG_SHA256 },
	{ "ECC-salted, unbound, AES-128-CFB, SHA-384", 2, 0,
	  { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB },
	  TPM2_ALG_SHA384 },
	{ "RSA-salted, unbound, XOR (SHA-256), SHA-256", 1, 0,
	  { .algorithm = TPM2_ALG_XOR, .keyBits.exclusiveOr = TPM2_ALG_SHA256 },
	  TPM2_ALG_SHA256 },
	{ "unsalted, bound to the ECC primary, AES-256-CFB, SHA-256", 0, 2,
	  { .algorithm = TPM2_ALG_AES, .keyBits.aes = 256, .mode.aes = TPM2_ALG_CFB },
	  TPM2_ALG_SHA256 },
};

/* SHA-256("abc"), FIPS 180-2 */
static const uint8_t sha256_abc[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};

static int set_attrs(ESYS_CONTEXT *ctx, ESYS_TR s, TPMA_SESSION attrs)
{
	TSS2_RC rc = Esys_TRSess_SetAttributes(ctx, s, attrs, 0xff);

	if (rc != TSS2_RC_SUCCESS)
		check_rc(rc, "Esys_TRSess_SetAttributes");
	return rc == TSS2_RC_SUCCESS;
}

static void session_getrandom(ESYS_CONTEXT *ctx, ESYS_TR s, const char *k)
{
	TPM2B_DIGEST *r1 = NULL, *r2 = NULL;
	TSS2_RC rc;

	if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_ENCRYPT))
		return;
	rc = Esys_GetRandom(ctx, s, ESYS_TR_NONE, ESYS_TR_NONE, 32, &r1);
	if (check_rc(rc, "[%s] GetRandom(32), encrypt", k))
		rc = Esys_GetRandom(ctx, s, ESYS_TR_NONE, ESYS_TR_NONE, 32, &r2);
	if (check_rc(rc, "[%s] GetRandom(32) again", k))
		check(r1->size == 32 && r2->size == 32 && memcmp(r1->buffer, r2->buffer, 32) != 0,
		      "[%s] GetRandom: 32 bytes, two results differ", k);
	Esys_Free(r1);
	Esys_Free(r2);
}

static void session_hash(ESYS_CONTEXT *ctx, ESYS_TR s, const char *k)
{
	TPM2B_MAX_BUFFER abc = { .size = 3, .buffer = { 'a', 'b', 'c' } };
	TPM2B_DIGEST *d = NULL;
	TPMT_TK_HASHCHECK *t = NULL;
	TSS2_RC rc;

	if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT |
				       TPMA_SESSION_ENCRYPT))
		return;
	rc = Esys_Hash(ctx, s, ESYS_TR_NONE, ESYS_TR_NONE, &abc, TPM2_ALG_SHA256, ESYS_TR_RH_NULL,
		       &d, &t);
	if (check_rc(rc, "[%s] Hash(\"abc\"), decrypt + encrypt", k))
		check(d->size == 32 && memcmp(d->buffer, sha256_abc, 32) == 0,
		      "[%s] Hash: SHA-256(\"abc\") known answer through both directions", k);
	Esys_Free(d);
	Esys_Free(t);
}

static void session_pcr_event(ESYS_CONTEXT *ctx, ESYS_TR s, const char *k)
{
	TPM2B_EVENT ev = { 0 };
	TPML_DIGEST_VALUES *dv = NULL;
	uint8_t want[32];
	TSS2_RC rc;
	int n;

	n = snprintf((char *)ev.buffer, sizeof(ev.buffer), "event through [%s]", k);
	if (n < 0 || n >= (int)sizeof(ev.buffer))
		n = 0;
	ev.size = (UINT16)n;
	if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT))
		return;
	rc = Esys_PCR_Event(ctx, ESYS_TR_PCR16, s, ESYS_TR_NONE, ESYS_TR_NONE, &ev, &dv);
	if (!check_rc(rc, "[%s] PCR_Event(16), decrypt", k))
		return;
	if (crypto_hash(TPM2_ALG_SHA256, ev.buffer, ev.size, want) != 0)
		check(0, "crypto_hash");
	for (UINT32 i = 0; i < dv->count && i < TPM2_NUM_PCR_BANKS; i++) {
		if (dv->digests[i].hashAlg != TPM2_ALG_SHA256)
			continue;
		check(memcmp(dv->digests[i].digest.sha256, want, 32) == 0,
		      "[%s] PCR_Event: the SHA-256 digest is of the plaintext event", k);
	}
	pcr16_extend_expected(want);
	check_pcr16(ctx, k);
	Esys_Free(dv);
}

/* Create (decrypt: userAuth + data), Load, Unseal (encrypt), and a wrong authValue. */
static void session_seal(ESYS_CONTEXT *ctx, ESYS_TR s, ESYS_TR parent, const char *k)
{
	static const char secret[] = "sealed secret: 0123456789abcdef";
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_PUBLIC tmpl = sealed_template(NULL, 1);
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION pcrs = { 0 };
	TPM2B_PRIVATE *priv = NULL;
	TPM2B_PUBLIC *pub = NULL;
	TPM2B_SENSITIVE_DATA *out = NULL;
	ESYS_TR obj = ESYS_TR_NONE;
	TSS2_RC rc;

	sens.sensitive.userAuth.size = 9;
	memcpy(sens.sensitive.userAuth.buffer, "seal-auth", 9);
	sens.sensitive.data.size = sizeof(secret) - 1;
	memcpy(sens.sensitive.data.buffer, secret, sizeof(secret) - 1);
	if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT))
		return;
	rc = Esys_Create(ctx, parent, s, ESYS_TR_NONE, ESYS_TR_NONE, &sens, &tmpl, &outside, &pcrs,
			 &priv, &pub, NULL, NULL, NULL);
	if (!check_rc(rc, "[%s] Create sealed object (decrypt: userAuth + data)", k))
		goto out;
	if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION))
		goto out;
	rc = Esys_Load(ctx, parent, s, ESYS_TR_NONE, ESYS_TR_NONE, priv, pub, &obj);
	if (!check_rc(rc, "[%s] Load", k))
		goto out;
	set_auth(ctx, obj, "seal-auth");
	if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_ENCRYPT))
		goto out;
	rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
	if (check_rc(rc, "[%s] Unseal, encrypt", k))
		check(out->size == sizeof(secret) - 1 && memcmp(out->buffer, secret, out->size) == 0,
		      "[%s] Unseal returns the sealed data", k);
	Esys_Free(out);
	out = NULL;

	/* the authValue is part of the HMAC key: a wrong one is refused, without DA
	 * implications for a noDA object (TPM_RC_BAD_AUTH, not TPM_RC_AUTH_FAIL) */
	set_auth(ctx, obj, "seal-auth-wrong");
	rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
	check_fails(rc, TPM2_RC_BAD_AUTH | TPM2_RC_S | TPM2_RC_1,
		    "[%s] Unseal with a wrong authValue (noDA): TPM_RC_BAD_AUTH (session 1)", k);
	Esys_Free(out);
	out = NULL;
	/* a failed command leaves the session's nonces as they were: it still works */
	set_auth(ctx, obj, "seal-auth");
	rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
	if (check_rc(rc, "[%s] Unseal after the failure, same session", k))
		check(out->size == sizeof(secret) - 1 && memcmp(out->buffer, secret, out->size) == 0,
		      "[%s] Unseal after the failure returns the sealed data", k);
out:
	flush(ctx, &obj);
	Esys_Free(priv);
	Esys_Free(pub);
	Esys_Free(out);
}

/* HierarchyChangeAuth(owner) through the session (decrypt), then the new auth in use with
 * the session and with a password; then back to empty. */
static void session_change_auth(ESYS_CONTEXT *ctx, ESYS_TR s, const char *k)
{
	TPM2B_AUTH na = { .size = 14 };
	TPM2B_AUTH empty = { 0 };
	TSS2_RC rc;

	memcpy(na.buffer, "new-owner-auth", 14);
	if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT))
		return;
	set_auth(ctx, ESYS_TR_RH_OWNER, "");
	rc = Esys_HierarchyChangeAuth(ctx, ESYS_TR_RH_OWNER, s, ESYS_TR_NONE, ESYS_TR_NONE, &na);
	if (!check_rc(rc, "[%s] HierarchyChangeAuth(owner), decrypt", k))
		return;
	/* ESAPI took the new auth for the owner: a password session with the old one fails */
	set_auth(ctx, ESYS_TR_RH_OWNER, "");
	rc = Esys_HierarchyChangeAuth(ctx, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE,
				      ESYS_TR_NONE, &empty);
	check_fails(rc, TPM2_RC_BAD_AUTH | TPM2_RC_S | TPM2_RC_1,
		    "[%s] owner password with the old (empty) auth: TPM_RC_BAD_AUTH", k);
	set_auth(ctx, ESYS_TR_RH_OWNER, "new-owner-auth");
	/* the new auth through the HMAC session: change it to itself */
	rc = Esys_HierarchyChangeAuth(ctx, ESYS_TR_RH_OWNER, s, ESYS_TR_NONE, ESYS_TR_NONE, &na);
	check_rc(rc, "[%s] HierarchyChangeAuth with the new owner auth (HMAC)", k);
	/* and as a password: back to empty */
	rc = Esys_HierarchyChangeAuth(ctx, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE,
				      ESYS_TR_NONE, &empty);
	check_rc(rc, "[%s] HierarchyChangeAuth with the new owner auth (password) back to empty", k);
	set_auth(ctx, ESYS_TR_RH_OWNER, "");
}

static void run_kind(ESYS_CONTEXT *ctx, const struct kind *kd, ESYS_TR rsa, ESYS_TR ecc)
{
	ESYS_TR salt = kd->salt == 1 ? rsa : kd->salt == 2 ? ecc : ESYS_TR_NONE;
	ESYS_TR bind = kd->bind == 1 ? rsa : kd->bind == 2 ? ecc : ESYS_TR_NONE;
	ESYS_TR parent = kd->bind ? bind : salt != ESYS_TR_NONE ? salt : ecc;
	ESYS_TR s = ESYS_TR_NONE;
	TSS2_RC rc;

	rc = Esys_StartAuthSession(ctx, salt, bind, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, NULL,
				   TPM2_SE_HMAC, &kd->sym, kd->hash, &s);
	if (!check_rc(rc, "[%s] StartAuthSession", kd->name))
		return;
	session_getrandom(ctx, s, kd->name);
	session_hash(ctx, s, kd->name);
	session_pcr_event(ctx, s, kd->name);
	/* a bound session authorizes its bound entity (the parent) without its authValue */
	session_seal(ctx, s, parent, kd->name);
	session_change_auth(ctx, s, kd->name);
	check_rc(Esys_FlushContext(ctx, s), "[%s] FlushContext(session)", kd->name);
}

/* ---- policy sessions on Unseal ---- */

static void policy_expected(TPM2B_DIGEST *out)
{
	/* H(H(0^32 || CC_PolicyCommandCode || CC_Unseal) || CC_PolicyAuthValue) */
	uint8_t buf[32 + 8];

	memset(buf, 0, sizeof(buf));
	buf[32] = 0x00, buf[33] = 0x00, buf[34] = 0x01, buf[35] = 0x6c; /* PolicyCommandCode */
	buf[36] = 0x00, buf[37] = 0x00, buf[38] = 0x01, buf[39] = 0x5e; /* Unseal */
	out->size = 32;
	if (crypto_hash(TPM2_ALG_SHA256, buf, 40, out->buffer) != 0)
		check(0, "crypto_hash");
	memcpy(buf, out->buffer, 32);
	buf[32] = 0x00, buf[33] = 0x00, buf[34] = 0x01, buf[35] = 0x6b; /* PolicyAuthValue */
	if (crypto_hash(TPM2_ALG_SHA256, buf, 36, out->buffer) != 0)
		check(0, "crypto_hash");
}

/* A policy session salted with salt_key: PolicyCommandCode(Unseal), then what asks for. */
enum pol_kind { POL_AUTHVALUE, POL_PASSWORD, POL_CC_ONLY };

static TSS2_RC policy_session(ESYS_CONTEXT *ctx, ESYS_TR salt_key, TPM2_SE type,
			      enum pol_kind pk, ESYS_TR *s)
{
	TPMT_SYM_DEF aes = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128,
			     .mode.aes = TPM2_ALG_CFB };
	TSS2_RC rc;

	rc = Esys_StartAuthSession(ctx, salt_key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, NULL, type, &aes, TPM2_ALG_SHA256, s);
	if (rc != TSS2_RC_SUCCESS)
		return rc;
	rc = Esys_PolicyCommandCode(ctx, *s, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				    TPM2_CC_Unseal);
	if (rc == TSS2_RC_SUCCESS && pk == POL_AUTHVALUE)
		rc = Esys_PolicyAuthValue(ctx, *s, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE);
	if (rc == TSS2_RC_SUCCESS && pk == POL_PASSWORD)
		rc = Esys_PolicyPassword(ctx, *s, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE);
	if (rc != TSS2_RC_SUCCESS)
		flush(ctx, s);
	return rc;
}

static void run_policy(ESYS_CONTEXT *ctx, ESYS_TR parent)
{
	static const char secret[] = "policy-sealed secret";
	TPM2B_DIGEST want, *got = NULL;
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION pcrs = { 0 };
	TPM2B_PRIVATE *priv = NULL;
	TPM2B_PUBLIC *pub = NULL, tmpl;
	TPM2B_SENSITIVE_DATA *out = NULL;
	ESYS_TR trial = ESYS_TR_NONE, s = ESYS_TR_NONE, obj = ESYS_TR_NONE;
	TSS2_RC rc;

	policy_expected(&want);
	rc = policy_session(ctx, ESYS_TR_NONE, TPM2_SE_TRIAL, POL_AUTHVALUE, &trial);
	if (!check_rc(rc, "policy: trial session, PolicyCommandCode(Unseal), PolicyAuthValue"))
		return;
	rc = Esys_PolicyGetDigest(ctx, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &got);
	if (check_rc(rc, "policy: PolicyGetDigest"))
		check(got->size == 32 && memcmp(got->buffer, want.buffer, 32) == 0,
		      "policy: trial digest is H(H(0 || PolicyCommandCode || Unseal) || PolicyAuthValue)");
	flush(ctx, &trial);
	Esys_Free(got);

	/* policy only: userWithAuth clear */
	tmpl = sealed_template(&want, 0);
	sens.sensitive.userAuth.size = 7;
	memcpy(sens.sensitive.userAuth.buffer, "pol-pwd", 7);
	sens.sensitive.data.size = sizeof(secret) - 1;
	memcpy(sens.sensitive.data.buffer, secret, sizeof(secret) - 1);
	rc = Esys_Create(ctx, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sens, &tmpl,
			 &outside, &pcrs, &priv, &pub, NULL, NULL, NULL);
	if (!check_rc(rc, "policy: Create sealed object with that authPolicy"))
		goto out;
	rc = Esys_Load(ctx, parent, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, priv, pub, &obj);
	if (!check_rc(rc, "policy: Load"))
		goto out;
	set_auth(ctx, obj, "pol-pwd");

	/* userWithAuth is clear: the authValue alone (password) does not do */
	rc = Esys_Unseal(ctx, obj, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &out);
	check_fails(rc, TPM2_RC_AUTH_UNAVAILABLE, "policy: Unseal with a password refused: TPM_RC_AUTH_UNAVAILABLE");
	Esys_Free(out);
	out = NULL;

	for (int pk = POL_AUTHVALUE; pk <= POL_PASSWORD; pk++) {
		const char *pn = pk == POL_AUTHVALUE ? "PolicyAuthValue" : "PolicyPassword";

		rc = policy_session(ctx, parent, TPM2_SE_POLICY, (enum pol_kind)pk, &s);
		if (!check_rc(rc, "policy: salted policy session, PolicyCommandCode, %s", pn))
			continue;
		/* ESAPI 3.2 sends an empty nonceCaller with PolicyPassword but derives the
		 * response encryption key from its stored nonce (garbage data on swtpm too):
		 * encrypt only with PolicyAuthValue. */
		if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION |
					       (pk == POL_AUTHVALUE ? TPMA_SESSION_ENCRYPT : 0))) {
			flush(ctx, &s);
			continue;
		}
		rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
		if (check_rc(rc, "policy: Unseal with %s%s", pn,
			     pk == POL_AUTHVALUE ? " (encrypt)" : ""))
			check(out->size == sizeof(secret) - 1 &&
			      memcmp(out->buffer, secret, out->size) == 0,
			      "policy: Unseal with %s returns the data", pn);
		Esys_Free(out);
		out = NULL;
		/* a policy session that authorized a command starts over (Part 1 §19.7.1) */
		rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
		check_fails(rc, TPM2_RC_POLICY_FAIL | TPM2_RC_S | TPM2_RC_1,
			    "policy: %s session reused without its assertions: refused", pn);
		Esys_Free(out);
		out = NULL;
		/* the assertions again on the same session, then a wrong authValue (noDA) */
		rc = Esys_PolicyCommandCode(ctx, s, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
					    TPM2_CC_Unseal);
		if (rc == TSS2_RC_SUCCESS)
			rc = pk == POL_AUTHVALUE ?
				Esys_PolicyAuthValue(ctx, s, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE) :
				Esys_PolicyPassword(ctx, s, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE);
		if (check_rc(rc, "policy: %s assertions again on the same session", pn)) {
			set_auth(ctx, obj, "pol-bad");
			rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
			check_fails(rc, TPM2_RC_BAD_AUTH | TPM2_RC_S | TPM2_RC_1,
				    "policy: %s with a wrong authValue: TPM_RC_BAD_AUTH", pn);
			set_auth(ctx, obj, "pol-pwd");
			Esys_Free(out);
			out = NULL;
			rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
			if (check_rc(rc, "policy: %s, the right authValue after the failure", pn))
				check(out->size == sizeof(secret) - 1 &&
				      memcmp(out->buffer, secret, out->size) == 0,
				      "policy: %s after the failure returns the data", pn);
			Esys_Free(out);
			out = NULL;
		}
		flush(ctx, &s);
	}

	/* an incomplete policy: the digest does not match */
	rc = policy_session(ctx, ESYS_TR_NONE, TPM2_SE_POLICY, POL_CC_ONLY, &s);
	if (check_rc(rc, "policy: session with PolicyCommandCode only")) {
		rc = Esys_Unseal(ctx, obj, s, ESYS_TR_NONE, ESYS_TR_NONE, &out);
		check_fails(rc, TPM2_RC_POLICY_FAIL | TPM2_RC_S | TPM2_RC_1,
			    "policy: Unseal with an incomplete policy: TPM_RC_POLICY_FAIL");
		Esys_Free(out);
		out = NULL;
		flush(ctx, &s);
	}
out:
	flush(ctx, &obj);
	Esys_Free(priv);
	Esys_Free(pub);
}

/* ---- the kernel's flow (drivers/char/tpm/tpm2-sessions.c) ---- */

static void run_kernel_flow(ESYS_CONTEXT *ctx)
{
	TPMT_SYM_DEF aes = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128,
			     .mode.aes = TPM2_ALG_CFB };
	TPMS_CONTEXT *saved = NULL;
	ESYS_TR null_key = ESYS_TR_NONE, loaded = ESYS_TR_NONE, s = ESYS_TR_NONE;
	TPML_DIGEST_VALUES d = { .count = 1 };
	TSS2_RC rc;
	int round;

	rc = create_primary(ctx, ESYS_TR_RH_NULL, &ecc_storage, "", &null_key, NULL);
	if (!check_rc(rc, "kernel: CreatePrimary ECC P-256 in the NULL hierarchy"))
		return;
	rc = Esys_ContextSave(ctx, null_key, &saved);
	if (!check_rc(rc, "kernel: ContextSave(null primary)"))
		goto out;
	check(saved->hierarchy == TPM2_RH_NULL, "kernel: saved context is in the NULL hierarchy");
	rc = Esys_FlushContext(ctx, null_key);
	null_key = ESYS_TR_NONE;
	if (!check_rc(rc, "kernel: FlushContext(null primary)"))
		goto out;

	d.digests[0].hashAlg = TPM2_ALG_SHA256;
	for (round = 0; round < 3 && round < MAX_ROUNDS; round++) {
		rc = Esys_ContextLoad(ctx, saved, &loaded);
		if (!check_rc(rc, "kernel %d: ContextLoad(null primary)", round))
			break;
		rc = Esys_StartAuthSession(ctx, loaded, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
					   ESYS_TR_NONE, NULL, TPM2_SE_HMAC, &aes, TPM2_ALG_SHA256,
					   &s);
		if (!check_rc(rc, "kernel %d: StartAuthSession salted (HMAC, AES-128-CFB, SHA-256)",
			      round))
			break;
		rc = Esys_FlushContext(ctx, loaded);
		loaded = ESYS_TR_NONE;
		if (!check_rc(rc, "kernel %d: FlushContext(key)", round))
			break;
		if (!set_attrs(ctx, s, TPMA_SESSION_CONTINUESESSION))
			break;
		memset(d.digests[0].digest.sha256, 0x40 + round, 32);
		rc = Esys_PCR_Extend(ctx, ESYS_TR_PCR16, s, ESYS_TR_NONE, ESYS_TR_NONE, &d);
		if (!check_rc(rc, "kernel %d: PCR_Extend(16) with the session", round))
			break;
		pcr16_extend_expected(d.digests[0].digest.sha256);
		/* continueSession: the session is still there for a second extend */
		memset(d.digests[0].digest.sha256, 0x60 + round, 32);
		rc = Esys_PCR_Extend(ctx, ESYS_TR_PCR16, s, ESYS_TR_NONE, ESYS_TR_NONE, &d);
		if (!check_rc(rc, "kernel %d: PCR_Extend(16) again (continueSession)", round))
			break;
		pcr16_extend_expected(d.digests[0].digest.sha256);
		rc = Esys_FlushContext(ctx, s);
		s = ESYS_TR_NONE;
		if (!check_rc(rc, "kernel %d: FlushContext(session)", round))
			break;
		check_pcr16(ctx, "kernel");
	}
out:
	flush(ctx, &s);
	flush(ctx, &loaded);
	flush(ctx, &null_key);
	Esys_Free(saved);
}

static void run(ESYS_CONTEXT *ctx)
{
	ESYS_TR rsa = ESYS_TR_NONE, ecc = ESYS_TR_NONE;
	TSS2_RC rc;
	UINT32 n;

	rc = Esys_Startup(ctx, TPM2_SU_CLEAR);
	check(rc == TSS2_RC_SUCCESS || rc == TPM2_RC_INITIALIZE, "Startup(CLEAR): rc 0x%x", rc);
	if (!read_pcr16(ctx, pcr16))
		return;

	rc = create_primary(ctx, ESYS_TR_RH_OWNER, &rsa_storage, "rsa-primary-auth", &rsa, NULL);
	if (!check_rc(rc, "CreatePrimary RSA-2048 storage key (userAuth set)"))
		goto out;
	rc = create_primary(ctx, ESYS_TR_RH_OWNER, &ecc_storage, "ecc-primary-auth", &ecc, NULL);
	if (!check_rc(rc, "CreatePrimary ECC P-256 storage key (userAuth set)"))
		goto out;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		run_kind(ctx, &kinds[i], rsa, ecc);
	run_policy(ctx, ecc);
	run_kernel_flow(ctx);

	if (handle_count(ctx, 0x02000000u, &n))
		check(n == 0, "no HMAC session left (%u)", n);
	if (handle_count(ctx, 0x03000000u, &n))
		check(n == 0, "no policy session left (%u)", n);
out:
	flush(ctx, &rsa);
	flush(ctx, &ecc);
	if (handle_count(ctx, 0x80000000u, &n))
		check(n == 0, "no transient object left (%u)", n);
}

int main(int argc, char **argv)
{
	return esys_main(argc, argv, "esys_sessions", run);
}
