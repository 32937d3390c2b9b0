/* Sessions (core/session.c, core/auth.c, core/cmd/session.c): HMAC sessions computed here on
 * the client side as a TSS does, salted (RSA, ECC) and bound sessions, parameter encryption
 * in both directions (AES-CFB, XOR), and the refusals: wrong HMAC, replayed nonce, another
 * client's session, a flushed session, an oversized encrypted parameter (CVE-2023-1017/1018). */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "harness.h"
#include "keys.h"
#include "sessions.h"
#include "unit_main.h"

static struct harness h;

/* the client's view of a session */
struct csess {
	TPM_HANDLE handle;
	struct tpmt_sym_def sym;
	uint8_t key[64];
	size_t keylen;
	struct tpm2b_digest nonce_tpm, nonce_caller;
};

/* StartAuthSession of this type; salt/enc_salt optional; bind_auth is the bound entity's
 * authValue. */
static TPM_RC start_type(struct csess *s, uint8_t type, TPM_HANDLE key, TPM_HANDLE bind,
			 const char *bind_auth, const uint8_t *salt, size_t salt_len,
			 const uint8_t *enc_salt, size_t enc_len, TPM_ALG_ID sym)
{
	struct cmdbuf b;
	struct rd rsp;
	uint8_t secret[128];
	size_t n = 0;
	TPM_RC rc;

	memset(s, 0, sizeof(*s));
	s->nonce_caller.size = 32;
	CU_ASSERT_EQUAL(crypto_random(s->nonce_caller.b, 32), TPM_RC_SUCCESS);
	s->sym.alg = sym;
	s->sym.key_bits = sym == TPM_ALG_AES ? 128 : TPM_ALG_SHA256;
	s->sym.mode = TPM_ALG_CFB;
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, key);
	cmd_handle(&b, bind);
	wr_tpm2b(&b.params, s->nonce_caller.b, s->nonce_caller.size);
	wr_tpm2b(&b.params, enc_salt, (uint16_t)enc_len);
	wr_u8(&b.params, type);
	wr_u16(&b.params, sym);
	if (sym == TPM_ALG_AES) {
		wr_u16(&b.params, 128);
		wr_u16(&b.params, TPM_ALG_CFB);
	} else if (sym == TPM_ALG_XOR) {
		wr_u16(&b.params, TPM_ALG_SHA256);
	}
	wr_u16(&b.params, TPM_ALG_SHA256);
	rc = harness_run(&h, &b, &rsp, &s->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, s->nonce_tpm.b, 64, &s->nonce_tpm.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s->nonce_tpm.size, 32);
	if (bind_auth) {
		memcpy(secret, bind_auth, strlen(bind_auth));
		n = strlen(bind_auth);
	}
	if (salt_len) {
		memcpy(secret + n, salt, salt_len);
		n += salt_len;
	}
	if (n) {
		CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, secret, n, "ATH", s->nonce_tpm.b, 32,
					    s->nonce_caller.b, 32, 256, s->key),
				TPM_RC_SUCCESS);
		s->keylen = 32;
	}
	return rc;
}

/* An HMAC session */
static TPM_RC start(struct csess *s, TPM_HANDLE key, TPM_HANDLE bind, const char *bind_auth,
		    const uint8_t *salt, size_t salt_len, const uint8_t *enc_salt, size_t enc_len,
		    TPM_ALG_ID sym)
{
	return start_type(s, TPM_SE_HMAC, key, bind, bind_auth, salt, salt_len, enc_salt, enc_len,
			  sym);
}

/* Parameter encryption as the TPM does it: key || IV or the XOR mask from KDFa. */
static void crypt(const struct csess *s, const char *auth, bool encrypt,
		  const struct tpm2b_digest *newer, const struct tpm2b_digest *older, uint8_t *data,
		  size_t len)
{
	uint8_t key[128], kiv[64];
	size_t n = s->keylen;

	memcpy(key, s->key, n);
	if (auth) {
		memcpy(key + n, auth, strlen(auth));
		n += strlen(auth);
	}
	if (s->sym.alg == TPM_ALG_XOR) {
		uint8_t mask[256];

		crypto_kdfa(TPM_ALG_SHA256, key, n, "XOR", newer->b, newer->size, older->b,
			    older->size, (uint32_t)len * 8, mask);
		for (size_t i = 0; i < len; i++)
			data[i] ^= mask[i];
		return;
	}
	crypto_kdfa(TPM_ALG_SHA256, key, n, "CFB", newer->b, newer->size, older->b, older->size,
		    (16 + 16) * 8, kiv);
	crypto_aes(TPM_ALG_CFB, encrypt, kiv, 16, kiv + 16, data, data, len);
}

/* cpHash of b (handles and parameters in), whose handles are their own Names here */
static void cp_hash(const struct cmdbuf *b, uint8_t *out)
{
	struct tpm2b_name names[3];

	for (unsigned i = 0; i < b->nhandles; i++)
		sess_handle_name(b->handles[i], &names[i]);
	sess_cp_hash(b->cc, names, b->nhandles, b->param_buf, b->params.off, out);
}

/* Add the session to b (after handles and params are in), with its HMAC. */
static void add_session(struct csess *s, struct cmdbuf *b, const char *auth, uint8_t attrs)
{
	uint8_t ph[32], mac[32];

	CU_ASSERT_EQUAL(crypto_random(s->nonce_caller.b, 32), TPM_RC_SUCCESS);
	cp_hash(b, ph);
	sess_hmac(s->key, s->keylen, auth, ph, &s->nonce_caller, &s->nonce_tpm, attrs, mac);
	wr_u32(&b->auth, s->handle);
	wr_tpm2b(&b->auth, s->nonce_caller.b, 32);
	wr_u8(&b->auth, attrs);
	wr_tpm2b(&b->auth, mac, 32);
	b->nauth++;
}

/* Check the response's session: new nonce, HMAC over rpHash; updates nonce_tpm. */
static void check_response(struct csess *s, TPM_CC cc, bool rhandle, const char *auth)
{
	struct rd r;
	uint32_t psize;
	const uint8_t *params;
	uint8_t rp[32], expect[32], head[8] = { 0 };
	struct crypto_hash_ctx c;
	struct tpm2b_digest nonce, mac;
	uint8_t attrs;

	rd_init(&r, h.rsp, h.rsp_len);
	r.off = 10 + (rhandle ? 4 : 0);
	CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &psize), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_view(&r, psize, &params), TPM_RC_SUCCESS);
	sess_be32(head + 4, cc);
	crypto_hash_start(&c, TPM_ALG_SHA256);
	crypto_hash_update(&c, head, 8);
	crypto_hash_update(&c, params, psize);
	crypto_hash_finish(&c, rp);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, nonce.b, 64, &nonce.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u8(&r, &attrs), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, mac.b, 64, &mac.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nonce.size, 32);
	CU_ASSERT(memcmp(nonce.b, s->nonce_tpm.b, 32) != 0); /* the nonce rolled */
	s->nonce_tpm = nonce;
	sess_hmac(s->key, s->keylen, auth, rp, &s->nonce_tpm, &s->nonce_caller, attrs, expect);
	CU_ASSERT_EQUAL(mac.size, 32);
	CU_ASSERT(memcmp(mac.b, expect, 32) == 0);
}

static TPM_RC change_owner_auth(struct csess *s, const char *old, const char *new, uint8_t attrs)
{
	struct cmdbuf b;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_tpm2b(&b.params, new, (uint16_t)strlen(new));
	add_session(s, &b, old, attrs);
	rc = harness_run(&h, &b, NULL, NULL);
	/* the response is authorized with the new authValue (unless the session is bound) */
	if (rc == TPM_RC_SUCCESS)
		check_response(s, TPM_CC_HierarchyChangeAuth, false, old ? new : NULL);
	return rc;
}

static TPM_RC change_owner_auth_pw(const char *old, const char *new)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, old);
	wr_tpm2b(&b.params, new, (uint16_t)strlen(new));
	return harness_run(&h, &b, NULL, NULL);
}

static void test_hmac_session(void)
{
	struct csess s;
	struct cmdbuf b;
	uint8_t saved[512];
	size_t len;
	uint8_t out[PQTPM_MAX_RESPONSE_SIZE];
	size_t outlen;

	CU_ASSERT_EQUAL_FATAL(start(&s, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0, NULL, 0,
				    TPM_ALG_NULL),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.handle >> 24, TPM_HT_HMAC_SESSION);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "owner", 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "owner", "owner2", 1), TPM_RC_SUCCESS);
	/* the authValue is part of the key: the old one fails */
	CU_ASSERT_EQUAL(change_owner_auth(&s, "owner", "x", 1),
			TPM_RC_BAD_AUTH | TPM_RC_S | TPM_RC_1);

	/* a replayed command (same nonces, same HMAC) is refused once the nonce rolled */
	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_tpm2b(&b.params, "owner2", 6);
	add_session(&s, &b, "owner2", 1);
	len = cmd_bytes(&b, saved, sizeof(saved));
	CU_ASSERT_EQUAL(harness_raw(&h, saved, len, out, &outlen), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(harness_raw(&h, saved, len, out, &outlen),
			TPM_RC_BAD_AUTH | TPM_RC_S | TPM_RC_1);

	/* continueSession clear: the session is gone after the command */
	{
		struct csess t;

		CU_ASSERT_EQUAL_FATAL(start(&t, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0, NULL, 0,
					    TPM_ALG_NULL),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(change_owner_auth(&t, "owner2", "", 0), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(change_owner_auth(&t, "", "", 1), TPM_RC_REFERENCE_S0);
	}
	/* flushed */
	cmd_begin(&b, TPM_CC_FlushContext);
	wr_u32(&b.params, s.handle);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_REFERENCE_S0);
}

static void test_other_client(void)
{
	struct csess s;
	struct pqtpm_client *mine = h.c;

	CU_ASSERT_EQUAL_FATAL(start(&s, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0, NULL, 0,
				    TPM_ALG_NULL),
			      TPM_RC_SUCCESS);
	h.c = pqtpm_client_new(h.e);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_REFERENCE_S0);
	pqtpm_client_free(h.c);
	h.c = mine;
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_SUCCESS);
}

static void test_bound_session(void)
{
	struct csess s;

	CU_ASSERT_EQUAL(change_owner_auth_pw("", "bindme"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(start(&s, TPM_RH_NULL, TPM_RH_OWNER, "bindme", NULL, 0, NULL, 0,
				    TPM_ALG_NULL),
			      TPM_RC_SUCCESS);
	/* bound to the owner: its authValue is in the session key, not in the HMAC key */
	CU_ASSERT_EQUAL(change_owner_auth(&s, NULL, "bindme", 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "bindme", "bindme", 1),
			TPM_RC_BAD_AUTH | TPM_RC_S | TPM_RC_1);
	/* once the owner's authValue changes, the session is no longer bound to it */
	CU_ASSERT_EQUAL(change_owner_auth(&s, NULL, "", 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_SUCCESS);
}

/* Hash("abc") with the data encrypted in and the digest encrypted out by a session of this
 * type: Hash authorizes nothing, so the session is there for encryption only. */
static void hash_encrypted(uint8_t type, TPM_ALG_ID sym)
{
	static const uint8_t abc_sha256[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	struct csess s;
	struct cmdbuf b;
	struct rd rsp;
	struct tpm2b_digest digest;
	uint8_t data[3] = { 'a', 'b', 'c' };
	uint8_t attrs = TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT;

	CU_ASSERT_EQUAL_FATAL(start_type(&s, type, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0, NULL,
					 0, sym),
			      TPM_RC_SUCCESS);
	/* the new nonceCaller must be known before encrypting: pick it first */
	CU_ASSERT_EQUAL(crypto_random(s.nonce_caller.b, 32), TPM_RC_SUCCESS);
	crypt(&s, NULL, true, &s.nonce_caller, &s.nonce_tpm, data, 3);
	cmd_begin(&b, TPM_CC_Hash);
	wr_tpm2b(&b.params, data, 3);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, TPM_RH_NULL);
	{
		uint8_t ph[32], mac[32];

		cp_hash(&b, ph);
		sess_hmac(s.key, s.keylen, NULL, ph, &s.nonce_caller, &s.nonce_tpm, attrs, mac);
		wr_u32(&b.auth, s.handle);
		wr_tpm2b(&b.auth, s.nonce_caller.b, 32);
		wr_u8(&b.auth, attrs);
		wr_tpm2b(&b.auth, mac, 32);
		b.nauth = 1;
	}
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	check_response(&s, TPM_CC_Hash, false, NULL);
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, digest.b, 64, &digest.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(digest.size, 32);
	CU_ASSERT(memcmp(digest.b, abc_sha256, 32) != 0); /* it left encrypted */
	crypt(&s, NULL, false, &s.nonce_tpm, &s.nonce_caller, digest.b, 32);
	CU_ASSERT(memcmp(digest.b, abc_sha256, 32) == 0);
}

static void test_param_encryption(void)
{
	hash_encrypted(TPM_SE_HMAC, TPM_ALG_AES);
	hash_encrypted(TPM_SE_HMAC, TPM_ALG_XOR);
}

/* Any session may encrypt for a command it does not authorize (Part 1 §21.2): a policy
 * session too, as ESAPI uses one for GetRandom's response. It must still say what it is
 * there for. */
static void test_policy_session_encrypts(void)
{
	struct csess s;
	struct cmdbuf b;
	struct rd rsp;
	struct tpm2b_digest bytes;

	hash_encrypted(TPM_SE_POLICY, TPM_ALG_AES);
	hash_encrypted(TPM_SE_POLICY, TPM_ALG_XOR);

	CU_ASSERT_EQUAL_FATAL(start_type(&s, TPM_SE_POLICY, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0,
					 NULL, 0, TPM_ALG_AES),
			      TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 16);
	add_session(&s, &b, NULL, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	check_response(&s, TPM_CC_GetRandom, false, NULL);
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, bytes.b, 64, &bytes.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(bytes.size, 16);

	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 16);
	add_session(&s, &b, NULL, TPMA_SESSION_CONTINUESESSION);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_S(TPM_RC_ATTRIBUTES, 1));
}

/* CVE-2023-1017/1018: a decrypt session on a first parameter whose size runs past the end */
static void test_oversized_param(void)
{
	struct csess s;
	struct cmdbuf b;

	CU_ASSERT_EQUAL_FATAL(start(&s, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0, NULL, 0,
				    TPM_ALG_AES),
			      TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_u16(&b.params, 0xFFFF); /* newAuth.size, with two bytes after it */
	wr_u16(&b.params, 0x4141);
	add_session(&s, &b, "", TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SIZE | TPM_RC_P | TPM_RC_1);
	/* decrypt on a command whose first parameter cannot be encrypted */
	cmd_begin(&b, TPM_CC_ClearControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	wr_u8(&b.params, 0);
	add_session(&s, &b, "", TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_ATTRIBUTES | TPM_RC_S | TPM_RC_1);
}

/* A storage primary of the given type in the owner hierarchy, for salting. */
static TPM_HANDLE storage_primary(TPM_ALG_ID type, struct tpmt_public *out)
{
	struct tpmt_public p;
	struct key k;

	key_storage_template(&p, type,
			     TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
				     TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
				     TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL_FATAL(key_primary_in(&h, TPM_RH_OWNER, &p, "", NULL, 0, &k),
			      TPM_RC_SUCCESS);
	*out = k.pub;
	return k.handle;
}

static void test_salted_rsa(void)
{
	struct tpmt_public pub;
	TPM_HANDLE key = storage_primary(TPM_ALG_RSA, &pub);
	struct crypto_rsa k = { .n = pub.unique.b, .nlen = pub.unique.size, .e = 0 };
	uint8_t salt[32], enc[512];
	size_t enc_len = sizeof(enc);
	struct csess s;

	CU_ASSERT_EQUAL(crypto_random(salt, sizeof(salt)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(crypto_rsa_encrypt(&k, TPM_ALG_OAEP, TPM_ALG_SHA256,
						 (const uint8_t *)"SECRET", 7, salt, sizeof(salt),
						 enc, &enc_len),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(start(&s, key, TPM_RH_NULL, NULL, salt, sizeof(salt), enc, enc_len,
				    TPM_ALG_AES),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_SUCCESS);
	/* a salt the key cannot decrypt */
	enc[10] ^= 1;
	CU_ASSERT_EQUAL(start(&s, key, TPM_RH_NULL, NULL, salt, sizeof(salt), enc, enc_len,
			      TPM_ALG_AES),
			TPM_RC_VALUE | TPM_RC_P | TPM_RC_2);
	/* no salt for a salt key, a salt without a key */
	CU_ASSERT_EQUAL(start(&s, key, TPM_RH_NULL, NULL, NULL, 0, NULL, 0, TPM_ALG_AES),
			TPM_RC_VALUE | TPM_RC_P | TPM_RC_2);
	CU_ASSERT_EQUAL(start(&s, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0, enc, 16, TPM_ALG_AES),
			TPM_RC_VALUE | TPM_RC_P | TPM_RC_2);
}

static void test_salted_ecc(void)
{
	struct tpmt_public pub;
	TPM_HANDLE key = storage_primary(TPM_ALG_ECC, &pub);
	uint8_t d[32], x[32], y[32], zx[32], zy[32], salt[32], enc[128];
	struct wr w;
	struct csess s;

	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, d, x, y),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(crypto_ecdh(TPM_ECC_NIST_P256, d, pub.x.b, pub.x.size, pub.y.b,
					  pub.y.size, zx, zy),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_kdfe(TPM_ALG_SHA256, zx, 32, "SECRET", x, 32, pub.x.b, pub.x.size,
				    256, salt),
			TPM_RC_SUCCESS);
	wr_init(&w, enc, sizeof(enc));
	wr_tpm2b(&w, x, 32);
	wr_tpm2b(&w, y, 32);
	CU_ASSERT_EQUAL_FATAL(start(&s, key, TPM_RH_NULL, NULL, salt, sizeof(salt), enc, w.off,
				    TPM_ALG_AES),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_SUCCESS);
	/* a point off the curve */
	enc[5] ^= 1;
	CU_ASSERT_EQUAL(start(&s, key, TPM_RH_NULL, NULL, salt, sizeof(salt), enc, w.off,
			      TPM_ALG_AES),
			TPM_RC_VALUE | TPM_RC_P | TPM_RC_2);
}

/* A saved session leaves its client: another connection may load it (tpm2-tools saves a
 * session in one process and uses it in the next); an old context cannot be replayed. */
static void test_session_context(void)
{
	static struct tpms_context first, second;
	struct pqtpm_client *mine = h.c;
	struct csess s;
	TPM_HANDLE loaded = 0;

	CU_ASSERT_EQUAL_FATAL(start(&s, TPM_RH_NULL, TPM_RH_NULL, NULL, NULL, 0, NULL, 0,
				    TPM_ALG_NULL),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&h, s.handle, &first), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(first.saved_handle, s.handle);
	/* saved: not usable until loaded */
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_REFERENCE_S0);

	h.c = pqtpm_client_new(h.e);
	pqtpm_client_free(mine); /* the connection that started it is gone */
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&h, &first, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(loaded, s.handle);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_SUCCESS);

	CU_ASSERT_EQUAL_FATAL(sess_context_save(&h, s.handle, &second), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_context_load(&h, &first, &loaded),
			TPM_RC_INTEGRITY | TPM_RC_P | TPM_RC_1);
	second.blob[40] ^= 1;
	CU_ASSERT_EQUAL(sess_context_load(&h, &second, &loaded),
			TPM_RC_INTEGRITY | TPM_RC_P | TPM_RC_1);
	second.blob[40] ^= 1;
	CU_ASSERT_EQUAL(sess_context_load(&h, &second, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth(&s, "", "", 1), TPM_RC_SUCCESS);
	/* flushed: its context no longer loads */
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&h, s.handle, &second), TPM_RC_SUCCESS);
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_FlushContext);
		wr_u32(&b.params, s.handle);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(sess_context_load(&h, &second, &loaded),
			TPM_RC_HANDLE | TPM_RC_P | TPM_RC_1);
}

static void test_start_errors(void)
{
	struct cmdbuf b;

	/* a nonceCaller shorter than 16 bytes */
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b(&b.params, "short", 5);
	wr_u16(&b.params, 0);
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SIZE | TPM_RC_P | TPM_RC_1);
	/* an unknown session type */
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b(&b.params, "0123456789abcdef", 16);
	wr_u16(&b.params, 0);
	wr_u8(&b.params, 2);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_VALUE | TPM_RC_P | TPM_RC_3);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "HMAC session, replay, continueSession, flush", test_hmac_session },
		{ "a session of another client", test_other_client },
		{ "bound session", test_bound_session },
		{ "parameter encryption AES-CFB and XOR", test_param_encryption },
		{ "a policy session encrypts for a command it does not authorize",
		  test_policy_session_encrypts },
		{ "oversized encrypted parameter", test_oversized_param },
		{ "salted with RSA", test_salted_rsa },
		{ "salted with ECC", test_salted_ecc },
		{ "StartAuthSession errors", test_start_errors },
		{ "session contexts", test_session_context },
	};
	int failed;

	harness_open(&h);
	failed = UNIT_RUN("sessions", tests, NULL, NULL);
	harness_close(&h);
	return failed;
}
