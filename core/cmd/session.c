/* StartAuthSession (Part 3 §11.1): HMAC, policy and trial sessions, salted with an RSA
 * (OAEP, label "SECRET") or ECC (one-pass ECDH, KDFe "SECRET") key, bound or unbound. */
#include <string.h>

#include "cmd/pq_secret.h"
#include "compute.h"
#include "da.h"
#include "scheme.h"
#include "session.h"

#define MAX_ENCRYPTED_SECRET SECRET_MAX /* an ML-KEM-1024 ciphertext */
#define MIN_NONCE 16

static const uint8_t secret_label[] = "SECRET"; /* the terminating zero is part of it */

static TPM_RC salt_rsa(const struct key_material *key, const uint8_t *in, size_t inlen,
		       uint8_t *salt, size_t *salt_len)
{
	struct crypto_rsa k;

	scheme_rsa_key(key, &k);
	return crypto_rsa_decrypt_cached(&k, key_material_rsa(key), TPM_ALG_OAEP,
					 key->pub.name_alg, secret_label, sizeof(secret_label), in,
					 inlen, salt, salt_len);
}

static TPM_RC salt_ecc(const struct key_material *key, const uint8_t *in, size_t inlen,
		       uint8_t *salt, size_t *salt_len)
{
	struct tpm2b_ecc_parameter qx, qy;
	uint8_t zx[CRYPTO_MAX_ECC_BYTES], zy[CRYPTO_MAX_ECC_BYTES];
	size_t n = crypto_ecc_bytes(key->pub.curve_id);
	size_t dsize = crypto_hash_size(key->pub.name_alg);
	struct rd r;
	TPM_RC rc;

	rd_init(&r, in, inlen);
	TRY(rd_tpm2b(&r, qx.b, sizeof(qx.b), &qx.size));
	TRY(rd_tpm2b(&r, qy.b, sizeof(qy.b), &qy.size));
	if (rd_left(&r) != 0)
		return TPM_RC_SIZE;
	TRY(crypto_ecdh(key->pub.curve_id, key->sens.sensitive.b, qx.b, qx.size, qy.b, qy.size, zx,
			zy));
	rc = crypto_kdfe(key->pub.name_alg, zx, n, "SECRET", qx.b, qx.size, key->pub.x.b,
			 key->pub.x.size, (uint32_t)dsize * 8, salt);
	crypto_wipe(zx, sizeof(zx));
	crypto_wipe(zy, sizeof(zy));
	*salt_len = dsize;
	return rc;
}

static TPM_RC decrypt_salt(const struct key_material *key, const uint8_t *in, size_t inlen,
			   uint8_t *salt, size_t *salt_len)
{
	switch (key->pub.type) {
	case TPM_ALG_RSA:
		return salt_rsa(key, in, inlen, salt, salt_len);
	case TPM_ALG_ECC:
		return salt_ecc(key, in, inlen, salt, salt_len);
	default: /* ML-KEM, v1.85: encryptedSalt is a ciphertext (cmd/pq_secret.h) */
		return secret_decrypt(key, "SECRET", in, inlen, salt, salt_len);
	}
}

/* The salt, decrypted with tpmKey (handle 1) without the engine lock (compute.h). */
static TPM_RC recover_salt(struct cmd *c, const uint8_t *in, size_t inlen, uint8_t *salt,
			   size_t *salt_len)
{
	const struct object *key = c->obj[0];
	struct key_material k;
	TPM_RC rc;

	if (!key->has_sensitive || !(key->pub.attributes & TPMA_OBJECT_DECRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (inlen == 0)
		return rc_param(TPM_RC_VALUE, 2);
	if (key->pub.type != TPM_ALG_RSA && key->pub.type != TPM_ALG_ECC &&
	    key->pub.type != TPM_ALG_MLKEM)
		return rc_handle(TPM_RC_KEY, 1);
	TRY(cmd_unlock_key(c, 0, &k));
	rc = decrypt_salt(&k, in, inlen, salt, salt_len);
	/* any failure to recover the secret is a bad encryptedSalt */
	if (rc != TPM_RC_SUCCESS)
		rc = rc_param(TPM_RC_VALUE, 2);
	return cmd_relock_key(c, &k, rc);
}

static TPM_RC start_auth_session(struct cmd *c)
{
	struct tpm2b_digest nonce_caller, bind_auth;
	uint8_t enc[MAX_ENCRYPTED_SECRET], salt[CRYPTO_MAX_RSA_BYTES];
	uint16_t enc_len;
	size_t salt_len = 0;
	uint8_t type;
	struct tpmt_sym_def sym;
	TPM_ALG_ID hash;
	struct session *s = NULL;	/* released on failure only if allocated */
	bool bound = c->handle[1] != TPM_RH_NULL;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &nonce_caller));
	TRYP(2, rd_tpm2b(&c->in, enc, sizeof(enc), &enc_len));
	TRYP(3, rd_u8(&c->in, &type));
	TRYP(4, rd_sym_def(&c->in, &sym, true));
	TRYP(5, rd_hash_alg(&c->in, &hash, false));
	TRY(cmd_params_done(c));
	if (type != TPM_SE_HMAC && type != TPM_SE_POLICY && type != TPM_SE_TRIAL)
		return rc_param(TPM_RC_VALUE, 3);
	if (crypto_sym_block(sym.alg) != 0 && sym.mode != TPM_ALG_CFB)
		return rc_param(TPM_RC_SYMMETRIC, 4);
	if (nonce_caller.size < MIN_NONCE)
		return rc_param(TPM_RC_SIZE, 1);
	if (!c->obj[0] && enc_len != 0)
		return rc_param(TPM_RC_VALUE, 2);
	if (c->obj[0])
		TRY(recover_salt(c, enc, enc_len, salt, &salt_len));

	if (bound) {
		TRY(entity_auth(c, 1, &bind_auth));
		while (bind_auth.size > 0 && bind_auth.b[bind_auth.size - 1] == 0)
			bind_auth.size--;
	}
	rc = session_alloc(c->client, type, &s);
	if (rc == TPM_RC_SUCCESS) {
		s->auth_hash = hash;
		s->sym = sym;
		s->nonce_tpm.size = (uint16_t)crypto_hash_size(hash);
		rc = crypto_random(s->nonce_tpm.b, s->nonce_tpm.size);
	}
	if (rc == TPM_RC_SUCCESS)
		rc = session_make_key(s, bound ? &bind_auth : NULL, salt, salt_len, &nonce_caller);
	if (rc == TPM_RC_SUCCESS && bound) {
		da_bind(c, 1, s);
		s->bound = true;
		s->bind_auth = bind_auth;
		rc = entity_name(c, 1, &s->bind_name);
	}
	if (rc == TPM_RC_SUCCESS) {
		session_policy_reset(s);
		c->rsp_handle = s->handle;
		rc = wr_tpm2b_digest(&c->out, &s->nonce_tpm);
	}
	if (rc != TPM_RC_SUCCESS && s)
		session_release(c->client, s);
	crypto_wipe(salt, sizeof(salt));
	crypto_wipe(&bind_auth, sizeof(bind_auth));
	return rc;
}

const struct cmd_def cmds_session[] = {
	{ .code = TPM_CC_StartAuthSession, .name = "StartAuthSession", .handles = 2,
	  .htype = { HK_OBJECT | HK_NULL, HK_ANY & ~HK_SESSION },
	  .flags = CMD_RHANDLE | CMD_READS_STATE, .run = start_auth_session },
	{ 0 },
};
