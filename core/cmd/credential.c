/* MakeCredential, ActivateCredential (Part 3 §12.6, §12.5; Part 1 §24, credential
 * protection), with RSA, ECC and (v1.85) ML-KEM keys. The key is an asymmetric restricted
 * decryption key (an EK, a storage key); a seed is shared with it (pq_secret.h, label
 * "IDENTITY") and protects the credential as a parent's seed protects a child:
 *   symKey       = KDFa(nameAlg, seed, "STORAGE", objectName, -, symmetric keyBits)
 *   encIdentity  = CFB(symKey, IV = 0, TPM2B_DIGEST credential), the key's cipher (AES,
 *                  Camellia, TDES)
 *   hmacKey      = KDFa(nameAlg, seed, "INTEGRITY", -, -, digest bits)
 *   credentialBlob = TPM2B_ID_OBJECT(TPM2B(HMAC(hmacKey, encIdentity || objectName)) ||
 *                                    encIdentity)
 * tpm2-tools' makecredential (offline or with the TPM) and activatecredential speak this. */
#include <string.h>

#include "cmd/pq_secret.h"
#include "compute.h"

#define MAX_ID_OBJECT (2 + MAX_DIGEST_SIZE + 2 + MAX_DIGEST_SIZE) /* sizeof(TPMS_ID_OBJECT) */

struct keys {
	TPM_ALG_ID alg;
	uint8_t sym[MAX_SYM_KEY_BYTES];
	size_t symlen;
	uint8_t hmac[MAX_DIGEST_SIZE];
	size_t hlen;
};

/* TPM_RC_TYPE unless an asymmetric restricted decryption key with a symmetric definition. */
static bool protector(const struct object *key)
{
	uint32_t a = key->pub.attributes;

	if (key->kind != OBJ_KEY)
		return false;
	if (key->pub.type != TPM_ALG_RSA && key->pub.type != TPM_ALG_ECC &&
	    key->pub.type != TPM_ALG_MLKEM)
		return false;
	if (!(a & TPMA_OBJECT_DECRYPT) || !(a & TPMA_OBJECT_RESTRICTED))
		return false;
	return crypto_sym_block(key->pub.symmetric.alg) != 0 &&
	       crypto_hash_size(key->pub.name_alg);
}

static TPM_RC derive(const struct key_material *key, const uint8_t *seed, size_t slen,
		     const struct tpm2b_name *name, struct keys *k)
{
	TPM_ALG_ID alg = key->pub.name_alg;

	k->hlen = crypto_hash_size(alg);
	k->alg = key->pub.symmetric.alg;
	k->symlen = key->pub.symmetric.key_bits / 8u;
	if (k->symlen == 0 || k->symlen > sizeof(k->sym))
		return TPM_RC_TYPE;
	TRY(crypto_kdfa(alg, seed, slen, "STORAGE", name->b, name->size, NULL, 0,
			(uint32_t)(k->symlen * 8), k->sym));
	return crypto_kdfa(alg, seed, slen, "INTEGRITY", NULL, 0, NULL, 0,
			   (uint32_t)(k->hlen * 8), k->hmac);
}

static TPM_RC integrity(const struct keys *k, TPM_ALG_ID alg, const uint8_t *enc, size_t len,
			const struct tpm2b_name *name, uint8_t *out)
{
	struct crypto_hmac_ctx h;
	TPM_RC rc;

	rc = crypto_hmac_start(&h, alg, k->hmac, k->hlen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, enc, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, name->b, name->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_finish(&h, out);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

static TPM_RC cfb(const struct keys *k, bool encrypt, const uint8_t *in, uint8_t *out,
		  size_t len)
{
	uint8_t iv[CRYPTO_MAX_SYM_BLOCK] = { 0 };

	return crypto_sym(k->alg, TPM_ALG_CFB, encrypt, k->sym, k->symlen, iv, in, out, len);
}

/* credentialBlob content (without its own size) into blob */
static TPM_RC protect(const struct key_material *key, const struct keys *k,
		      const struct tpm2b_digest *cred, const struct tpm2b_name *name,
		      uint8_t *blob, size_t *len)
{
	uint8_t plain[2 + MAX_DIGEST_SIZE];
	size_t plen = 2 + cred->size, at = 2 + k->hlen;
	TPM_RC rc;

	plain[0] = (uint8_t)(cred->size >> 8);
	plain[1] = (uint8_t)cred->size;
	memcpy(plain + 2, cred->b, cred->size);
	blob[0] = (uint8_t)(k->hlen >> 8);
	blob[1] = (uint8_t)k->hlen;
	rc = cfb(k, true, plain, blob + at, plen);
	crypto_wipe(plain, sizeof(plain));
	TRY(rc);
	TRY(integrity(k, key->pub.name_alg, blob + at, plen, name, blob + 2));
	*len = at + plen;
	return TPM_RC_SUCCESS;
}

static TPM_RC make_credential(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct tpm2b_digest cred;
	struct tpm2b_name name;
	uint8_t seed[MAX_DIGEST_SIZE], secret[SECRET_MAX], blob[MAX_ID_OBJECT];
	size_t slen = 0, secret_len = 0, blob_len = 0;
	struct key_material km;
	struct keys k;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &cred));
	TRYP(2, rd_tpm2b_name(&c->in, &name));
	TRY(cmd_params_done(c));
	if (!protector(key))
		return rc_handle(TPM_RC_TYPE, 1);
	if (cred.size > crypto_hash_size(key->pub.name_alg))
		return rc_param(TPM_RC_SIZE, 1);
	/* the secret and the blob without the engine lock (compute.h) */
	TRY(cmd_unlock_key(c, 0, &km));
	rc = secret_encrypt(&km, "IDENTITY", seed, &slen, secret, sizeof(secret), &secret_len);
	if (rc == TPM_RC_SUCCESS)
		rc = derive(&km, seed, slen, &name, &k);
	if (rc == TPM_RC_SUCCESS)
		rc = protect(&km, &k, &cred, &name, blob, &blob_len);
	rc = cmd_relock_key(c, &km, rc);
	crypto_wipe(seed, sizeof(seed));
	crypto_wipe(&k, sizeof(k));
	crypto_wipe(&cred, sizeof(cred));
	if (rc == TPM_RC_KEY)
		rc = rc_handle(rc, 1);
	TRY(rc);
	TRY(wr_tpm2b(&c->out, blob, (uint16_t)blob_len));
	return wr_tpm2b(&c->out, secret, (uint16_t)secret_len);
}

/* The credential from a blob made for name with this seed: TPM_RC_INTEGRITY if the blob was
 * not, TPM_RC_SIZE if what it vouches for is no TPM2B_DIGEST of the nameAlg's size at most. */
static TPM_RC unprotect(const struct key_material *key, const struct keys *k, const uint8_t *blob,
			size_t len, const struct tpm2b_name *name, struct tpm2b_digest *cred)
{
	uint8_t mac[MAX_DIGEST_SIZE], plain[2 + MAX_DIGEST_SIZE];
	size_t at = 2 + k->hlen, elen;
	struct rd r;
	TPM_RC rc;

	if (len < at || ((size_t)blob[0] << 8 | blob[1]) != k->hlen)
		return TPM_RC_INTEGRITY;
	elen = len - at;
	TRY(integrity(k, key->pub.name_alg, blob + at, elen, name, mac));
	if (!crypto_ct_equal(mac, blob + 2, k->hlen))
		return TPM_RC_INTEGRITY;
	if (elen > sizeof(plain))
		return TPM_RC_SIZE;
	TRY(cfb(k, false, blob + at, plain, elen));
	rd_init(&r, plain, elen);
	rc = rd_tpm2b_digest(&r, cred);
	if (rc != TPM_RC_SUCCESS || rd_left(&r) || cred->size > k->hlen)
		rc = TPM_RC_SIZE;
	crypto_wipe(plain, sizeof(plain));
	return rc;
}

static TPM_RC activate_credential(struct cmd *c)
{
	const struct object *activate = c->obj[0], *key = c->obj[1];
	uint8_t blob[MAX_ID_OBJECT], secret[SECRET_MAX], seed[MAX_DIGEST_SIZE];
	uint16_t blob_len, secret_len;
	struct tpm2b_digest cred;
	struct tpm2b_name name;
	struct key_material km;
	size_t slen = 0;
	struct keys k;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, blob, sizeof(blob), &blob_len));
	TRYP(2, rd_tpm2b(&c->in, secret, sizeof(secret), &secret_len));
	TRY(cmd_params_done(c));
	if (!protector(key))
		return rc_handle(TPM_RC_TYPE, 2);
	name = activate->name;
	/* the seed and the credential without the engine lock (compute.h) */
	TRY(cmd_unlock_key(c, 1, &km));
	rc = secret_decrypt(&km, "IDENTITY", secret, secret_len, seed, &slen);
	if (rc != TPM_RC_SUCCESS)
		rc = rc == TPM_RC_KEY ? TPM_RC_FAILURE : rc_param(rc, 2);
	if (rc == TPM_RC_SUCCESS)
		rc = derive(&km, seed, slen, &name, &k);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(unprotect(&km, &k, blob, blob_len, &name, &cred), 1);
	rc = cmd_relock_key(c, &km, rc);
	crypto_wipe(seed, sizeof(seed));
	crypto_wipe(&k, sizeof(k));
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_digest(&c->out, &cred);
	crypto_wipe(&cred, sizeof(cred));
	return rc;
}

const struct cmd_def cmds_credential[] = {
	{ .code = TPM_CC_ActivateCredential, .name = "ActivateCredential", .handles = 2,
	  .auth = { AUTH_ADMIN, AUTH_USER }, .htype = { HK_OBJECT, HK_OBJECT },
	  .flags = CMD_PARAM_IN | CMD_PARAM_OUT, .run = activate_credential },
	{ .code = TPM_CC_MakeCredential, .name = "MakeCredential", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_OBJECT },
	  .flags = CMD_PARAM_IN | CMD_PARAM_OUT | CMD_READS_STATE, .run = make_credential },
	{ 0 },
};
