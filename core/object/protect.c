/* Protection of an ordinary object's sensitive area under its parent (Part 1 §23.3, §24):
 *   symKey     = KDFa(parent nameAlg, parent seed, "STORAGE", Name, -, parent keyBits)
 *   iv         = random bytes, one block of the parent's cipher (AES, Camellia: 16; TDES: 8)
 *   encSens    = CFB(symKey, iv, TPM2B(TPMT_SENSITIVE)) with the parent's cipher
 *   hmacKey    = KDFa(parent nameAlg, parent seed, "INTEGRITY", -, -, digest bits)
 *   integrity  = HMAC(hmacKey, TPM2B_IV(iv) || encSens || Name)
 *   TPM2B_PRIVATE = TPM2B(integrity) || TPM2B_IV(iv) || encSens
 * The layout of the reference implementation (its SensitiveToPrivate wraps with an IV), so a
 * TPM2B_PRIVATE has the size clients see from other TPMs. A blob made before the IV (encSens
 * right after the integrity, IV zero) still loads: the HMAC covers the same bytes in both
 * layouts, and only the layout it was made in decrypts to one TPM2B_SENSITIVE of the type.
 * The Name binds the blob to its public area; the parent's seed binds it to the parent. */
#include <string.h>

#include "object.h"

struct keys {
	TPM_ALG_ID alg;
	uint8_t sym[MAX_SYM_KEY_BYTES];
	size_t symlen;
	uint8_t hmac[MAX_DIGEST_SIZE];
	size_t hlen;
};

static TPM_RC derive(const struct object *parent, const struct tpm2b_name *name,
		     struct keys *k)
{
	const struct tpm2b_digest *seed = &parent->sens.seed_value;
	TPM_ALG_ID alg = parent->pub.name_alg;

	k->hlen = crypto_hash_size(alg);
	k->alg = parent->pub.symmetric.alg;
	k->symlen = parent->pub.symmetric.key_bits / 8u;
	if (k->hlen == 0 || crypto_sym_block(k->alg) == 0 || k->symlen == 0 ||
	    k->symlen > sizeof(k->sym))
		return TPM_RC_TYPE;
	TRY(crypto_kdfa(alg, seed->b, seed->size, "STORAGE", name->b, name->size, NULL, 0,
			(uint32_t)(k->symlen * 8), k->sym));
	return crypto_kdfa(alg, seed->b, seed->size, "INTEGRITY", NULL, 0, NULL, 0,
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

/* iv NULL: the zero IV of a blob made before the IV field */
static TPM_RC cfb(const struct keys *k, bool encrypt, const uint8_t *iv, const uint8_t *in,
		  uint8_t *out, size_t len)
{
	uint8_t v[CRYPTO_MAX_SYM_BLOCK] = { 0 };

	if (iv)
		memcpy(v, iv, crypto_sym_block(k->alg));
	return crypto_sym(k->alg, TPM_ALG_CFB, encrypt, k->sym, k->symlen, v, in, out, len);
}

static TPM_RC wrap(const struct object *parent, const struct tpmt_public *pub,
		   const struct tpmt_sensitive *sens, struct tpm2b_private *out, struct keys *k,
		   uint8_t *plain, size_t cap)
{
	struct tpm2b_name name;
	struct wr w;
	size_t mark, hoff, bs, iv_field;

	TRY(object_name(pub, &name));
	TRY(derive(parent, &name, k));
	bs = crypto_sym_block(k->alg);
	iv_field = 2 + bs; /* TPM2B_IV of one block */
	wr_init(&w, plain, cap);
	TRY(wr_size_begin(&w, &mark));
	TRY(wr_sensitive(&w, sens));
	TRY(wr_size_end(&w, mark));
	hoff = 2 + k->hlen;
	if (hoff + iv_field + w.off > sizeof(out->b))
		return TPM_RC_SIZE;
	out->b[0] = (uint8_t)(k->hlen >> 8);
	out->b[1] = (uint8_t)k->hlen;
	out->b[hoff] = 0;
	out->b[hoff + 1] = (uint8_t)bs;
	TRY(crypto_random(out->b + hoff + 2, bs));
	TRY(cfb(k, true, out->b + hoff + 2, plain, out->b + hoff + iv_field, w.off));
	TRY(integrity(k, parent->pub.name_alg, out->b + hoff, iv_field + w.off, &name,
		      out->b + 2));
	out->size = (uint16_t)(hoff + iv_field + w.off);
	return TPM_RC_SUCCESS;
}

TPM_RC object_wrap(const struct object *parent, const struct tpmt_public *pub,
		   const struct tpmt_sensitive *sens, struct tpm2b_private *out)
{
	uint8_t plain[MAX_PRIVATE_BLOB];
	struct keys k;
	TPM_RC rc;

	out->size = 0;
	rc = wrap(parent, pub, sens, out, &k, plain, sizeof(plain));
	crypto_wipe(&k, sizeof(k));
	crypto_wipe(plain, sizeof(plain));
	return rc;
}

/* After the HMAC matched: the plaintext must be exactly one TPM2B_SENSITIVE of pub's type. */
static TPM_RC parse(const uint8_t *plain, size_t len, const struct tpmt_public *pub,
		    struct tpmt_sensitive *sens)
{
	struct rd r;

	rd_init(&r, plain, len);
	if (rd_tpm2b_sensitive(&r, sens) != TPM_RC_SUCCESS || rd_left(&r) ||
	    sens->type != pub->type)
		return TPM_RC_SENSITIVE;
	return TPM_RC_SUCCESS;
}

static TPM_RC unwrap(const struct object *parent, const struct tpmt_public *pub,
		     const struct tpm2b_private *in, struct tpmt_sensitive *sens, struct keys *k,
		     uint8_t *plain)
{
	uint8_t mac[MAX_DIGEST_SIZE];
	struct tpm2b_name name;
	const uint8_t *enc;
	size_t hsize, elen, bs, iv_field;

	if (in->size == 0)
		return TPM_RC_SIZE;
	TRY(object_name(pub, &name));
	TRY(derive(parent, &name, k));
	bs = crypto_sym_block(k->alg);
	iv_field = 2 + bs;
	if (in->size < 2)
		return TPM_RC_INTEGRITY;
	hsize = (size_t)in->b[0] << 8 | in->b[1];
	if (hsize != k->hlen || in->size < 2 + hsize)
		return TPM_RC_INTEGRITY;
	enc = in->b + 2 + hsize;
	elen = in->size - 2 - hsize;
	TRY(integrity(k, parent->pub.name_alg, enc, elen, &name, mac));
	if (!crypto_ct_equal(mac, in->b + 2, hsize))
		return TPM_RC_INTEGRITY;
	if (elen > iv_field && enc[0] == 0 && enc[1] == bs) {
		TRY(cfb(k, false, enc + 2, enc + iv_field, plain, elen - iv_field));
		if (parse(plain, elen - iv_field, pub, sens) == TPM_RC_SUCCESS)
			return TPM_RC_SUCCESS;
	}
	TRY(cfb(k, false, NULL, enc, plain, elen));
	return parse(plain, elen, pub, sens);
}

TPM_RC object_unwrap(const struct object *parent, const struct tpmt_public *pub,
		     const struct tpm2b_private *in, struct tpmt_sensitive *sens)
{
	uint8_t plain[MAX_PRIVATE_BLOB];
	struct keys k;
	TPM_RC rc;

	rc = unwrap(parent, pub, in, sens, &k, plain);
	crypto_wipe(&k, sizeof(k));
	crypto_wipe(plain, sizeof(plain));
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(sens, sizeof(*sens));
	return rc;
}
