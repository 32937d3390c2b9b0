/* The client library (tss/, include/pqtpm/tss.h) over the in-process transport: templates,
 * keys, whole messages signed through sequences and checked outside with FIPS 204, SignDigest
 * with external mu, ML-KEM both ways, an ML-KEM salted session used for an HMAC authorization,
 * credentials, capabilities, and the argument checks.
 * (tests/integration/pq_mssim.c runs the same library over MSSIM.) */
#include <string.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "crypto/crypto.h"
#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "marshal.h"
#include "types.h"
#include "unit_main.h"

static struct pqtpm_engine *e;
static struct pqtpm_tss *t;

static void setup(void)
{
	struct pqtpm_engine_config cfg = { .auto_startup = 1, .log_level = PQTPM_LOG_ERROR };
	char err[128];

	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	if (pqtpm_engine_open(&e, &cfg, err, sizeof(err)) || pqtpm_tss_open_engine(&t, e))
		CU_FAIL_FATAL("engine");
}

static void teardown(void)
{
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
}

static void key(TPM_ALG_ID type, uint16_t set, uint32_t extra, const char *auth,
		struct pqtpm_tss_key *k)
{
	struct pqtpm_tss_template tm = {
		.type = type,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | extra,
		.parameter_set = set,
		.allow_external_mu = type == TPM_ALG_MLDSA,
	};
	static struct pqtpm_tss_public pub;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &pub), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, auth, k), 0);
}

static void test_startup_random(void)
{
	uint8_t r[100] = { 0 }, zero[100] = { 0 };

	CU_ASSERT_EQUAL(pqtpm_tss_startup(t, TPM_SU_CLEAR), 0); /* already: INITIALIZE is fine */
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, r, sizeof(r)), 0);
	CU_ASSERT(memcmp(r, zero, sizeof(r)) != 0);
}

static void test_sign_message(void)
{
	static struct pqtpm_tss_key k, pub;
	static struct pqtpm_tss_signature sig;
	static uint8_t msg[3000];
	static const uint8_t ctx[] = { 'c', 't', 'x' };
	struct pqtpm_tss_ticket tk;
	const uint8_t *pk, *s;
	size_t pklen, slen;
	TPM_ALG_ID alg, hash;
	uint16_t tag;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	key(TPM_ALG_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT, "k", &k);
	CU_ASSERT_EQUAL(pqtpm_tss_public_type(&k.pub), TPM_ALG_MLDSA);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_public_key(&k.pub, &pk, &pklen), 0);
	CU_ASSERT_EQUAL(pklen, 1952);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sign_message(t, k.handle, "k", ctx, 3, msg, sizeof(msg),
						     &sig),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_signature_parse(&sig, &alg, &hash, &s, &slen), 0);
	CU_ASSERT_EQUAL(alg, TPM_ALG_MLDSA);
	CU_ASSERT_EQUAL(slen, 3309);
	CU_ASSERT_EQUAL(mldsa_verify(2, pk, msg, sizeof(msg), ctx, 3, s, slen), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_message(t, k.handle, ctx, 3, msg, sizeof(msg), &sig, &tk),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, &tag, NULL, NULL), 0);
	CU_ASSERT_EQUAL(tag, TPM_ST_MESSAGE_VERIFIED);
	/* a signature made outside from its bytes, checked by a public key loaded alone */
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load_public(t, TPM_RH_OWNER, &k.pub, &pub), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_signature_make(TPM_ALG_MLDSA, TPM_ALG_NULL, s, slen, &sig),
			      0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_message(t, pub.handle, ctx, 3, msg, sizeof(msg), &sig,
						 &tk),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_message(t, pub.handle, ctx, 2, msg, sizeof(msg), &sig,
						 &tk),
			TPM_RC_SIGNATURE | TPM_RC_P | TPM_RC_1);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, pub.handle), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

static void test_sign_digest(void)
{
	static struct pqtpm_tss_key k;
	static struct pqtpm_tss_signature sig;
	uint8_t mp[2 + 5] = { 0, 0, 'h', 'e', 'l', 'l', 'o' }, mu[64];
	struct pqtpm_tss_ticket tk;
	const uint8_t *pk, *s;
	size_t pklen, slen;
	TPM_ALG_ID alg, hash, meta;

	key(TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT, "k", &k);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_public_key(&k.pub, &pk, &pklen), 0);
	CU_ASSERT_EQUAL_FATAL(mldsa_compute_mu(1, pk, mp, sizeof(mp), mu), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sign_digest(t, k.handle, "k", NULL, 0, mu, 64, &sig), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_signature_parse(&sig, &alg, &hash, &s, &slen), 0);
	CU_ASSERT_EQUAL(mldsa_verify(1, pk, mp + 2, 5, NULL, 0, s, slen), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_digest_signature(t, k.handle, NULL, 0, mu, 64, &sig, &tk),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, NULL, NULL, &meta), 0);
	CU_ASSERT_EQUAL(meta, TPM_ALG_SHAKE256);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

static void test_kem(void)
{
	static struct pqtpm_tss_key k;
	struct pqtpm_tss_digest ss, ss2;
	static struct pqtpm_tss_ciphertext ct;
	const uint8_t *ek;
	uint8_t m[32] = { 1 }, s[32];
	size_t eklen;

	key(TPM_ALG_MLKEM, TPM_MLKEM_1024, TPMA_OBJECT_DECRYPT, "kem", &k);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_encapsulate(t, k.handle, &ss, &ct), 0);
	CU_ASSERT_EQUAL(ct.size, 1568);
	CU_ASSERT_EQUAL(ss.size, 32);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_decapsulate(t, k.handle, "kem", &ct, &ss2), 0);
	CU_ASSERT_EQUAL(memcmp(ss.b, ss2.b, 32), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_public_key(&k.pub, &ek, &eklen), 0);
	CU_ASSERT_EQUAL_FATAL(mlkem_encaps(3, ek, m, ct.b, s), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_decapsulate(t, k.handle, "kem", &ct, &ss2), 0);
	CU_ASSERT_EQUAL(memcmp(s, ss2.b, 32), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_decapsulate(t, k.handle, "wrong", &ct, &ss2),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_1);
}

/* HMAC(sessionKey || "kem", pHash || nonceNewer || nonceOlder || attrs), Part 1 §19.6 */
static void session_hmac(const struct pqtpm_tss_digest *skey, const uint8_t p_hash[32],
			 const struct tpm2b_digest *newer, const struct tpm2b_digest *older,
			 uint8_t attrs, uint8_t mac[32])
{
	uint8_t hkey[64 + 3];
	struct crypto_hmac_ctx m;

	memcpy(hkey, skey->b, skey->size);
	memcpy(hkey + skey->size, "kem", 3);
	crypto_hmac_start(&m, TPM_ALG_SHA256, hkey, skey->size + 3u);
	crypto_hmac_update(&m, p_hash, 32);
	crypto_hmac_update(&m, newer->b, newer->size);
	crypto_hmac_update(&m, older->b, older->size);
	crypto_hmac_update(&m, &attrs, 1);
	crypto_hmac_finish(&m, mac);
}

/* H(rc? || TPM_CC_Decapsulate || name? || params): cpHash without rc, rpHash without name */
static void param_hash(const uint32_t *rc, const struct pqtpm_tss_name *name,
		       const uint8_t *params, size_t len, uint8_t out[32])
{
	uint8_t be[4];
	struct crypto_hash_ctx h;

	crypto_hash_start(&h, TPM_ALG_SHA256);
	if (rc) {
		be[0] = (uint8_t)(*rc >> 24);
		be[1] = (uint8_t)(*rc >> 16);
		be[2] = (uint8_t)(*rc >> 8);
		be[3] = (uint8_t)*rc;
		crypto_hash_update(&h, be, 4);
	}
	be[0] = be[1] = 0;
	be[2] = (uint8_t)(TPM_CC_Decapsulate >> 8);
	be[3] = (uint8_t)TPM_CC_Decapsulate;
	crypto_hash_update(&h, be, 4);
	if (name)
		crypto_hash_update(&h, name->b, name->size);
	crypto_hash_update(&h, params, len);
	crypto_hash_finish(&h, out);
}

/* Decapsulate(@key with auth "kem") authorized by an HMAC session with key skey, built here
 * and sent raw; the response HMAC is checked and nonce_tpm advanced. Returns the code. */
static TPM_RC decapsulate_hmac(TPM_HANDLE key, const struct pqtpm_tss_name *name,
			       TPM_HANDLE session, struct pqtpm_tss_digest *nonce_tpm,
			       const struct pqtpm_tss_digest *skey,
			       const struct pqtpm_tss_ciphertext *ct, struct pqtpm_tss_digest *ss)
{
	static uint8_t cmd[4096], rsp[4096];
	struct tpm2b_digest caller = { .size = 32 }, older, rnonce, rmac;
	uint8_t p_hash[32], mac[32], attrs = TPMA_SESSION_CONTINUESESSION;
	uint32_t rc, size, psize;
	size_t rsp_len = 0, mark, params;
	uint16_t tag;
	struct wr w;
	struct rd r, p;

	older.size = nonce_tpm->size;
	memcpy(older.b, nonce_tpm->b, older.size);
	CU_ASSERT_FATAL(crypto_random(caller.b, caller.size) == 0);
	wr_init(&w, cmd, sizeof(cmd));
	wr_u16(&w, TPM_ST_SESSIONS);
	wr_u32(&w, 0);
	wr_u32(&w, TPM_CC_Decapsulate);
	wr_u32(&w, key);
	mark = w.off;
	wr_u32(&w, 0);
	wr_u32(&w, session);
	wr_tpm2b(&w, caller.b, caller.size);
	wr_u8(&w, attrs);
	wr_u16(&w, 32);
	wr_bytes(&w, mac, 32); /* a place for the HMAC, written below */
	wr_patch_u32(&w, mark, (uint32_t)(w.off - mark - 4));
	params = w.off;
	CU_ASSERT_FATAL(wr_tpm2b(&w, ct->b, ct->size) == 0);
	wr_patch_u32(&w, 2, (uint32_t)w.off);
	param_hash(NULL, name, cmd + params, w.off - params, p_hash);
	session_hmac(skey, p_hash, &caller, &older, attrs, cmd + params - 32);
	rc = pqtpm_tss_transmit(t, cmd, w.off, rsp, sizeof(rsp), &rsp_len);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rd_init(&r, rsp, rsp_len);
	CU_ASSERT_FATAL(rd_u16(&r, &tag) == 0 && rd_u32(&r, &size) == 0 && rd_u32(&r, &rc) == 0 &&
			rd_u32(&r, &psize) == 0 && psize <= rd_left(&r));
	rd_init(&p, r.buf + r.off, psize);
	CU_ASSERT_FATAL(rd_tpm2b(&p, ss->b, sizeof(ss->b), &ss->size) == 0 && rd_left(&p) == 0);
	param_hash(&rc, NULL, r.buf + r.off, psize, p_hash);
	r.off += psize;
	CU_ASSERT_FATAL(rd_tpm2b_digest(&r, &rnonce) == 0 && rd_u8(&r, &attrs) == 0 &&
			rd_tpm2b_digest(&r, &rmac) == 0 && rd_left(&r) == 0);
	session_hmac(skey, p_hash, &rnonce, &caller, attrs, mac);
	CU_ASSERT(rmac.size == 32 && memcmp(rmac.b, mac, 32) == 0);
	nonce_tpm->size = rnonce.size;
	memcpy(nonce_tpm->b, rnonce.b, rnonce.size);
	return rc;
}

/* A salted session whose salt the client encapsulated to an ML-KEM key: the session key the
 * client derives authorizes Decapsulate, and one derived from another salt does not. */
static void test_kem_session(void)
{
	static struct pqtpm_tss_key k, other;
	static struct pqtpm_tss_ciphertext ct;
	struct pqtpm_tss_digest ss, ss2, nonce_tpm, skey;
	TPM_HANDLE session;

	key(TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_DECRYPT, "kem", &k);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_encapsulate(t, k.handle, &ss, &ct), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_start_kem_session(t, k.handle, &k.pub, TPM_SE_HMAC,
							  TPM_ALG_SHA256, &session, &nonce_tpm,
							  &skey),
			      0);
	CU_ASSERT_EQUAL(skey.size, 32);
	CU_ASSERT_EQUAL_FATAL(decapsulate_hmac(k.handle, &k.name, session, &nonce_tpm, &skey,
					       &ct, &ss2),
			      0);
	CU_ASSERT(ss2.size == 32 && memcmp(ss.b, ss2.b, 32) == 0);
	/* the session goes on with the TPM's new nonce */
	CU_ASSERT_EQUAL(decapsulate_hmac(k.handle, &k.name, session, &nonce_tpm, &skey, &ct,
					 &ss2),
			0);
	skey.b[0] ^= 1;
	CU_ASSERT_EQUAL(decapsulate_hmac(k.handle, &k.name, session, &nonce_tpm, &skey, &ct,
					 &ss2),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_1);
	pqtpm_tss_flush(t, session);
	/* only an ML-KEM key's public area can take the salt */
	key(TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT, "", &other);
	CU_ASSERT_EQUAL(pqtpm_tss_start_kem_session(t, other.handle, &other.pub, TPM_SE_HMAC,
						    TPM_ALG_SHA256, &session, &nonce_tpm, &skey),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, other.handle), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

static void test_credential(void)
{
	static struct pqtpm_tss_key ek, ak;
	struct pqtpm_tss_digest cred = { 16, "sixteen bytes!!" }, out;
	static struct pqtpm_tss_ciphertext secret;
	struct pqtpm_tss_id_object blob;

	key(TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT, "ek", &ek);
	key(TPM_ALG_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_RESTRICTED, "ak",
	    &ak);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_make_credential(t, ek.handle, &cred, &ak.name, &blob,
							&secret),
			      0);
	CU_ASSERT_EQUAL(secret.size, 1088);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_activate_credential(t, ak.handle, "ak", ek.handle, "ek",
							    &blob, &secret, &out),
			      0);
	CU_ASSERT_EQUAL(out.size, 16);
	CU_ASSERT_EQUAL(memcmp(out.b, cred.b, 16), 0);
}

static void test_objects(void)
{
	static struct pqtpm_tss_key parent, child;
	static struct pqtpm_tss_public pub, tmpl;
	struct pqtpm_tss_template tm = {
		.type = TPM_ALG_HASH_MLDSA,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
			      TPMA_OBJECT_SIGN_ENCRYPT,
		.parameter_set = TPM_MLDSA_87,
		.pre_hash = TPM_ALG_SHA512,
	};
	struct pqtpm_tss_name name;
	struct pqtpm_tss_digest nonce;
	TPM_HANDLE session;

	key(TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT, "p",
	    &parent);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &tmpl), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create(t, parent.handle, "p", &tmpl, "c", &child), 0);
	CU_ASSERT(child.priv.size > 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load(t, parent.handle, "p", &child), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_read_public(t, child.handle, &pub, &name), 0);
	CU_ASSERT_EQUAL(pub.size, child.pub.size);
	CU_ASSERT_EQUAL(memcmp(pub.b, child.pub.b, pub.size), 0);
	CU_ASSERT_EQUAL(name.size, child.name.size);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_start_auth_session(t, TPM_SE_POLICY, TPM_ALG_SHA256,
							   &session, &nonce),
			      0);
	CU_ASSERT_EQUAL(session >> 24, TPM_HT_POLICY_SESSION);
	CU_ASSERT_EQUAL(nonce.size, 32);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, session), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, session), TPM_RC_HANDLE | TPM_RC_P | TPM_RC_1);
}

static void test_capability(void)
{
	uint32_t v = 0;

	CU_ASSERT_EQUAL(pqtpm_tss_get_property(t, TPM_PT_ML_PARAMETER_SETS, &v), 0);
	CU_ASSERT_EQUAL(v, 0x7F);
	CU_ASSERT_EQUAL(pqtpm_tss_get_property(t, TPM_PT_MAX_COMMAND_SIZE, &v), 0);
	CU_ASSERT_EQUAL(v, PQTPM_MAX_COMMAND_SIZE);
}

static void test_arguments(void)
{
	struct pqtpm_tss *x = NULL;
	static uint8_t big[2000];
	static struct pqtpm_tss_signature sig;

	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&x, "tbs:"), -22); /* a transport not known */
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&x, "mssim:port=0"), -22);
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&x, "mssim:colour=blue"), -22);
	CU_ASSERT_EQUAL(pqtpm_tss_open_engine(&x, NULL), -22);
	CU_ASSERT_EQUAL(pqtpm_tss_sequence_update(t, 0x80000000, "", big, sizeof(big)),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_signature_make(TPM_ALG_MLDSA, 0, big, 5000, &sig),
			PQTPM_TSS_RC_BAD_VALUE);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "Startup and GetRandom", test_startup_random },
		{ "sign and verify a message", test_sign_message },
		{ "SignDigest with external mu", test_sign_digest },
		{ "ML-KEM both ways", test_kem },
		{ "ML-KEM salted session", test_kem_session },
		{ "credential with ML-KEM", test_credential },
		{ "objects and sessions", test_objects },
		{ "capabilities", test_capability },
		{ "argument checks", test_arguments },
	};

	return UNIT_RUN("pq_tss", tests, setup, teardown);
}
