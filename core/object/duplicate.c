/* Duplication blobs (Part 1 §23.3, Part 3 Duplicate / Import / Rewrap). A duplicate is the
 * TPM2B_SENSITIVE of the object, optionally under an inner and an outer wrapper:
 *   inner  = CFB(encryptionKey, IV = 0, TPM2B(H_nameAlg(sens || Name)) || sens) with the
 *            cipher of symmetricAlg
 *   outer  = TPM2B(integrity) || encDup
 *            encDup    = CFB(KDFa(pNameAlg, seed, "STORAGE", Name, -, pKeyBits), IV = 0, inner)
 *                        with the new parent's cipher (AES, Camellia, TDES)
 *            integrity = HMAC(KDFa(pNameAlg, seed, "INTEGRITY", -, -, digest bits), encDup || Name)
 * pNameAlg / pKeyBits are the new parent's. The outer wrapper is object_wrap's construction
 * with a seed shared with the new parent instead of the parent's own seedValue. */
#include <string.h>

#include "object.h"

/* ---- outer wrapper ---- */

struct outer_keys {
	uint8_t sym[MAX_SYM_KEY_BYTES];
	size_t symlen;
	uint8_t hmac[MAX_DIGEST_SIZE];
	size_t hlen;
};

static TPM_RC outer_derive(const struct object *parent, const struct tpm2b_name *name,
			   const uint8_t *seed, size_t seed_len, struct outer_keys *k)
{
	TPM_ALG_ID alg = parent->pub.name_alg;

	k->hlen = crypto_hash_size(alg);
	k->symlen = parent->pub.symmetric.key_bits / 8u;
	if (k->hlen == 0 || crypto_sym_block(parent->pub.symmetric.alg) == 0 || k->symlen == 0 ||
	    k->symlen > sizeof(k->sym))
		return TPM_RC_TYPE;
	TRY(crypto_kdfa(alg, seed, seed_len, "STORAGE", name->b, name->size, NULL, 0,
			(uint32_t)(k->symlen * 8), k->sym));
	return crypto_kdfa(alg, seed, seed_len, "INTEGRITY", NULL, 0, NULL, 0,
			   (uint32_t)(k->hlen * 8), k->hmac);
}

static TPM_RC outer_hmac(const struct outer_keys *k, TPM_ALG_ID alg, const uint8_t *enc,
			 size_t len, const struct tpm2b_name *name, uint8_t *out)
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

static TPM_RC cfb(TPM_ALG_ID alg, const uint8_t *key, size_t keylen, bool encrypt,
		  const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t iv[CRYPTO_MAX_SYM_BLOCK] = { 0 };

	return crypto_sym(alg, TPM_ALG_CFB, encrypt, key, keylen, iv, in, out, len);
}

static TPM_RC outer_wrap(const struct object *parent, const struct tpm2b_name *name,
			 const uint8_t *seed, size_t seed_len, const uint8_t *in, size_t len,
			 struct tpm2b_private *out, struct outer_keys *k)
{
	size_t hoff;

	TRY(outer_derive(parent, name, seed, seed_len, k));
	hoff = 2 + k->hlen;
	if (hoff + len > sizeof(out->b))
		return TPM_RC_SIZE;
	out->b[0] = (uint8_t)(k->hlen >> 8);
	out->b[1] = (uint8_t)k->hlen;
	TRY(cfb(parent->pub.symmetric.alg, k->sym, k->symlen, true, in, out->b + hoff, len));
	TRY(outer_hmac(k, parent->pub.name_alg, out->b + hoff, len, name, out->b + 2));
	out->size = (uint16_t)(hoff + len);
	return TPM_RC_SUCCESS;
}

TPM_RC object_outer_wrap(const struct object *parent, const struct tpm2b_name *name,
			 const uint8_t *seed, size_t seed_len, const uint8_t *in, size_t len,
			 struct tpm2b_private *out)
{
	struct outer_keys k;
	TPM_RC rc;

	out->size = 0;
	rc = outer_wrap(parent, name, seed, seed_len, in, len, out, &k);
	crypto_wipe(&k, sizeof(k));
	return rc;
}

/* The integrity field as the reference unmarshals it (a TPM2B_DIGEST), then the HMAC. */
static TPM_RC outer_unwrap(const struct object *parent, const struct tpm2b_name *name,
			   const uint8_t *seed, size_t seed_len, const struct tpm2b_private *in,
			   uint8_t *out, size_t *len, struct outer_keys *k)
{
	uint8_t mac[MAX_DIGEST_SIZE];
	const uint8_t *given, *enc;
	uint16_t hsize;
	struct rd r;
	size_t elen;

	rd_init(&r, in->b, in->size);
	TRY(rd_u16(&r, &hsize));
	if (hsize > MAX_DIGEST_SIZE)
		return TPM_RC_SIZE;
	TRY(rd_view(&r, hsize, &given));
	elen = rd_left(&r);
	TRY(rd_view(&r, elen, &enc));
	TRY(outer_derive(parent, name, seed, seed_len, k));
	TRY(outer_hmac(k, parent->pub.name_alg, enc, elen, name, mac));
	if (hsize != k->hlen || !crypto_ct_equal(mac, given, hsize))
		return TPM_RC_INTEGRITY;
	TRY(cfb(parent->pub.symmetric.alg, k->sym, k->symlen, false, enc, out, elen));
	*len = elen;
	return TPM_RC_SUCCESS;
}

TPM_RC object_outer_unwrap(const struct object *parent, const struct tpm2b_name *name,
			   const uint8_t *seed, size_t seed_len, const struct tpm2b_private *in,
			   uint8_t *out, size_t *len)
{
	struct outer_keys k;
	TPM_RC rc;

	*len = 0;
	rc = outer_unwrap(parent, name, seed, seed_len, in, out, len, &k);
	crypto_wipe(&k, sizeof(k));
	return rc;
}

/* ---- inner wrapper ---- */

static TPM_RC inner_digest(TPM_ALG_ID alg, const uint8_t *sens, size_t len,
			   const struct tpm2b_name *name, uint8_t *out)
{
	struct crypto_hash_ctx h;
	TPM_RC rc;

	rc = crypto_hash_start(&h, alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, sens, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, name->b, name->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, out);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

/* buf holds 2 + digest bytes of room, then the TPM2B_SENSITIVE (len bytes): fill in the
 * integrity and encrypt the whole into out. *total gets its size. */
static TPM_RC inner_wrap(TPM_ALG_ID name_alg, const struct tpm2b_name *name,
			 const struct tpmt_sym_def *sym, const struct tpm2b_data *key, uint8_t *buf,
			 size_t len, uint8_t *out, size_t *total)
{
	size_t hlen = crypto_hash_size(name_alg);

	buf[0] = (uint8_t)(hlen >> 8);
	buf[1] = (uint8_t)hlen;
	TRY(inner_digest(name_alg, buf + 2 + hlen, len, name, buf + 2));
	*total = 2 + hlen + len;
	return cfb(sym->alg, key->b, key->size, true, buf, out, *total);
}

/* Decrypt in into out and check the integrity; *off: where the TPM2B_SENSITIVE begins. The
 * integrity field is only known after decryption, so one that does not even parse (a wrong
 * encryptionKey gives noise) is an integrity failure too, not a size error. */
static TPM_RC inner_unwrap(TPM_ALG_ID name_alg, const struct tpm2b_name *name,
			   const struct tpmt_sym_def *sym, const struct tpm2b_data *key,
			   const uint8_t *in, size_t len, uint8_t *out, size_t *off)
{
	size_t hlen = crypto_hash_size(name_alg);
	uint8_t d[MAX_DIGEST_SIZE];

	TRY(cfb(sym->alg, key->b, key->size, false, in, out, len));
	if (len < 2 + hlen || ((size_t)out[0] << 8 | out[1]) != hlen)
		return TPM_RC_INTEGRITY;
	TRY(inner_digest(name_alg, out + 2 + hlen, len - 2 - hlen, name, d));
	if (!crypto_ct_equal(d, out + 2, hlen))
		return TPM_RC_INTEGRITY;
	*off = 2 + hlen;
	return TPM_RC_SUCCESS;
}

/* ---- whole blobs ---- */

struct dup_buf {
	uint8_t a[MAX_PRIVATE_BLOB];
	uint8_t b[MAX_PRIVATE_BLOB];
};

static TPM_RC dup_wrap(const struct tpmt_public *pub, const struct tpmt_sensitive *sens,
		       const struct object *parent, const uint8_t *seed, size_t seed_len,
		       const struct tpmt_sym_def *sym, const struct tpm2b_data *key,
		       struct tpm2b_private *out, struct dup_buf *t)
{
	bool inner = sym->alg != TPM_ALG_NULL;
	size_t room = inner ? 2 + crypto_hash_size(pub->name_alg) : 0;
	struct tpm2b_name name;
	const uint8_t *blob = t->a + room;
	size_t mark, len;
	struct wr w;

	TRY(object_name(pub, &name));
	if (name.size == 0)
		return TPM_RC_HASH;
	wr_init(&w, t->a + room, sizeof(t->a) - room);
	TRY(wr_size_begin(&w, &mark));
	TRY(wr_sensitive(&w, sens));
	TRY(wr_size_end(&w, mark));
	len = w.off;
	if (inner) {
		TRY(inner_wrap(pub->name_alg, &name, sym, key, t->a, len, t->b, &len));
		blob = t->b;
	}
	if (seed_len)
		return object_outer_wrap(parent, &name, seed, seed_len, blob, len, out);
	if (len > sizeof(out->b))
		return TPM_RC_SIZE;
	memcpy(out->b, blob, len);
	out->size = (uint16_t)len;
	return TPM_RC_SUCCESS;
}

TPM_RC object_dup_wrap(const struct tpmt_public *pub, const struct tpmt_sensitive *sens,
		       const struct object *parent, const uint8_t *seed, size_t seed_len,
		       const struct tpmt_sym_def *sym, const struct tpm2b_data *key,
		       struct tpm2b_private *out)
{
	struct dup_buf t;
	TPM_RC rc;

	out->size = 0;
	rc = dup_wrap(pub, sens, parent, seed, seed_len, sym, key, out, &t);
	crypto_wipe(&t, sizeof(t));
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(out, sizeof(*out));
	return rc;
}

/* What is left must be exactly one TPM2B_SENSITIVE (the reference's DuplicateToSensitive). */
static TPM_RC parse(const uint8_t *p, size_t len, struct tpmt_sensitive *sens)
{
	uint16_t size;
	struct rd r;

	rd_init(&r, p, len);
	TRY(rd_u16(&r, &size));
	if ((size_t)size + 2 != len)
		return TPM_RC_SIZE;
	TRY(rd_sensitive(&r, sens));
	return rd_left(&r) ? TPM_RC_SIZE : TPM_RC_SUCCESS;
}

static TPM_RC dup_unwrap(const struct object *parent, const struct tpmt_public *pub,
			 const uint8_t *seed, size_t seed_len, const struct tpmt_sym_def *sym,
			 const struct tpm2b_data *key, const struct tpm2b_private *in,
			 struct tpmt_sensitive *sens, struct dup_buf *t)
{
	struct tpm2b_name name;
	const uint8_t *p = in->b;
	size_t len = in->size, off;

	TRY(object_name(pub, &name));
	if (name.size == 0)
		return TPM_RC_HASH;
	if (seed_len) {
		TRY(object_outer_unwrap(parent, &name, seed, seed_len, in, t->a, &len));
		p = t->a;
	}
	if (sym->alg != TPM_ALG_NULL) {
		TRY(inner_unwrap(pub->name_alg, &name, sym, key, p, len, t->b, &off));
		p = t->b + off;
		len -= off;
	}
	return parse(p, len, sens);
}

TPM_RC object_dup_unwrap(const struct object *parent, const struct tpmt_public *pub,
			 const uint8_t *seed, size_t seed_len, const struct tpmt_sym_def *sym,
			 const struct tpm2b_data *key, const struct tpm2b_private *in,
			 struct tpmt_sensitive *sens)
{
	struct dup_buf t;
	TPM_RC rc;

	rc = dup_unwrap(parent, pub, seed, seed_len, sym, key, in, sens, &t);
	crypto_wipe(&t, sizeof(t));
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(sens, sizeof(*sens));
	return rc;
}
