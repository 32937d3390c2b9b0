/* Secrets shared with the TPM through one of its keys (Part 1 §11.4.10 secret sharing, Annex
 * B/C; v1.85 labeled KEM): a StartAuthSession salt ("SECRET", Part 1 §19.6.13) or a duplication
 * seed for Import ("DUPLICATE", §23.3.2), and the encrypted secret that carries it. The public
 * area is read only as far as that needs, accepting any scheme a TPM may report. */
#include <string.h>

#include "crypto/crypto.h"
#include "crypto/mlkem.h"
#include "tss_int.h"

/* What a salt needs of a public area; the byte strings point into it. */
struct salt_key {
	TPM_ALG_ID type, name_alg;
	uint16_t set, curve;
	uint32_t exponent;
	const uint8_t *unique, *y; /* modulus / ek / x; y for ECC */
	uint16_t unique_len, y_len;
};

static TPM_RC rd_view2b(struct rd *r, const uint8_t **p, uint16_t *len)
{
	if (rd_u16(r, len) || rd_view(r, *len, p))
		return PQTPM_TSS_RC_BAD_VALUE;
	return TPM_RC_SUCCESS;
}

/* TPMT_SYM_DEF_OBJECT, then a TPMT_*_SCHEME: selectors and what they select */
static TPM_RC skip_sym_scheme(struct rd *r)
{
	uint16_t alg, v;

	if (rd_u16(r, &alg))
		return PQTPM_TSS_RC_BAD_VALUE;
	if (alg != TPM_ALG_NULL && (rd_u16(r, &v) || (alg != TPM_ALG_XOR && rd_u16(r, &v))))
		return PQTPM_TSS_RC_BAD_VALUE;
	if (rd_u16(r, &alg))
		return PQTPM_TSS_RC_BAD_VALUE;
	switch (alg) {
	case TPM_ALG_NULL:
	case TPM_ALG_RSAES:
		return TPM_RC_SUCCESS;
	case TPM_ALG_ECDAA: /* hash, count */
		return rd_u16(r, &v) || rd_u16(r, &v) ? PQTPM_TSS_RC_BAD_VALUE : TPM_RC_SUCCESS;
	default:
		return rd_u16(r, &v) ? PQTPM_TSS_RC_BAD_VALUE : TPM_RC_SUCCESS;
	}
}

static TPM_RC parse_key(const struct pqtpm_tss_public *pub, struct salt_key *k)
{
	const uint8_t *policy;
	uint16_t plen, kdf, v;
	uint32_t attrs;
	struct rd r;

	memset(k, 0, sizeof(*k));
	rd_init(&r, pub->b, pub->size);
	if (rd_u16(&r, &k->type) || rd_u16(&r, &k->name_alg) || rd_u32(&r, &attrs))
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(rd_view2b(&r, &policy, &plen));
	if (!(attrs & TPMA_OBJECT_DECRYPT))
		return PQTPM_TSS_RC_BAD_VALUE;
	switch (k->type) {
	case TPM_ALG_RSA:
		TRY(skip_sym_scheme(&r));
		if (rd_u16(&r, &v) || rd_u32(&r, &k->exponent))
			return PQTPM_TSS_RC_BAD_VALUE;
		TRY(rd_view2b(&r, &k->unique, &k->unique_len));
		break;
	case TPM_ALG_ECC:
		TRY(skip_sym_scheme(&r));
		if (rd_u16(&r, &k->curve) || rd_u16(&r, &kdf) ||
		    (kdf != TPM_ALG_NULL && rd_u16(&r, &v)))
			return PQTPM_TSS_RC_BAD_VALUE;
		TRY(rd_view2b(&r, &k->unique, &k->unique_len));
		TRY(rd_view2b(&r, &k->y, &k->y_len));
		break;
	case TPM_ALG_MLKEM: {
		uint16_t alg;

		if (rd_u16(&r, &alg) ||
		    (alg != TPM_ALG_NULL && (rd_u16(&r, &v) || rd_u16(&r, &v))) ||
		    rd_u16(&r, &k->set))
			return PQTPM_TSS_RC_BAD_VALUE;
		TRY(rd_view2b(&r, &k->unique, &k->unique_len));
		break;
	}
	default:
		return PQTPM_TSS_RC_BAD_VALUE;
	}
	return rd_left(&r) || crypto_hash_size(k->name_alg) == 0 ? PQTPM_TSS_RC_BAD_VALUE
								  : TPM_RC_SUCCESS;
}

/* RSA: a random secret of the nameAlg's size, OAEP-encrypted with the label. */
static TPM_RC salt_rsa(const struct salt_key *k, const char *label, uint8_t *salt, size_t dlen,
		       uint8_t *enc, size_t *enc_len)
{
	struct crypto_rsa key = { .n = k->unique, .nlen = k->unique_len, .e = k->exponent };

	if (k->unique_len > PQTPM_TSS_MAX_SECRET)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(crypto_random(salt, dlen));
	return crypto_rsa_encrypt(&key, TPM_ALG_OAEP, k->name_alg, (const uint8_t *)label,
				  strlen(label) + 1, salt, dlen, enc, enc_len);
}

/* A coordinate as exactly n bytes (a TPM may drop leading zeros). */
static TPM_RC fixed(const uint8_t *p, size_t len, size_t n, uint8_t *out)
{
	while (len > n && *p == 0) {
		p++;
		len--;
	}
	if (len > n)
		return PQTPM_TSS_RC_BAD_VALUE;
	memset(out, 0, n - len);
	memcpy(out + n - len, p, len);
	return TPM_RC_SUCCESS;
}

/* ECC: one-pass ECDH with an ephemeral key; secret = KDFe(nameAlg, Z.x, label, Qe.x,
 * Qkey.x); what carries it is the TPMS_ECC_POINT Qe. */
static TPM_RC salt_ecc(const struct salt_key *k, const char *label, uint8_t *salt, size_t dlen,
		       uint8_t *enc, size_t *enc_len)
{
	size_t n = crypto_ecc_bytes(k->curve);
	uint8_t d[CRYPTO_MAX_ECC_BYTES], ex[CRYPTO_MAX_ECC_BYTES], ey[CRYPTO_MAX_ECC_BYTES];
	uint8_t qx[CRYPTO_MAX_ECC_BYTES], qy[CRYPTO_MAX_ECC_BYTES];
	uint8_t zx[CRYPTO_MAX_ECC_BYTES], zy[CRYPTO_MAX_ECC_BYTES];
	struct wr w;
	TPM_RC rc;

	if (n == 0)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(fixed(k->unique, k->unique_len, n, qx));
	TRY(fixed(k->y, k->y_len, n, qy));
	rc = crypto_ecc_generate(crypto_system_rng(), k->curve, d, ex, ey);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecdh(k->curve, d, qx, n, qy, n, zx, zy);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_kdfe(k->name_alg, zx, n, label, ex, n, k->unique, k->unique_len,
				 (uint32_t)dlen * 8, salt);
	crypto_wipe(d, sizeof(d));
	crypto_wipe(zx, sizeof(zx));
	crypto_wipe(zy, sizeof(zy));
	TRY(rc);
	wr_init(&w, enc, PQTPM_TSS_MAX_SECRET);
	TRY(wr_tpm2b(&w, ex, (uint16_t)n));
	TRY(wr_tpm2b(&w, ey, (uint16_t)n));
	*enc_len = w.off;
	return TPM_RC_SUCCESS;
}

/* ML-KEM, Part 1's labeled KEM: (K, ct) = Encaps(ek); secret = KDFa(nameAlg, K, label, ct,
 * ek); what carries it is ct (docs/pq-decisions.md). */
static TPM_RC salt_mlkem(const struct salt_key *k, const char *label, uint8_t *salt, size_t dlen,
			 uint8_t *enc, size_t *enc_len)
{
	uint8_t m[32], shared[MLKEM_SS_BYTES];
	size_t ctlen = mlkem_ct_bytes(k->set);
	TPM_RC rc;

	if (ctlen == 0 || k->unique_len != mlkem_ek_bytes(k->set))
		return PQTPM_TSS_RC_BAD_VALUE;
	rc = crypto_random(m, sizeof(m));
	if (rc == TPM_RC_SUCCESS && mlkem_encaps(k->set, k->unique, m, enc, shared) != 0)
		rc = PQTPM_TSS_RC_BAD_VALUE;
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_kdfa(k->name_alg, shared, sizeof(shared), label, enc, ctlen, k->unique,
				 k->unique_len, (uint32_t)dlen * 8, salt);
	*enc_len = ctlen;
	crypto_wipe(m, sizeof(m));
	crypto_wipe(shared, sizeof(shared));
	return rc;
}

TPM_RC tss_secret_make(const struct pqtpm_tss_public *pub, const char *label, uint8_t *salt,
		       size_t *salt_len, uint8_t *enc, size_t *enc_len)
{
	struct salt_key k;
	size_t dlen;
	TPM_RC rc;

	TRY(parse_key(pub, &k));
	dlen = crypto_hash_size(k.name_alg);
	switch (k.type) {
	case TPM_ALG_RSA:
		rc = salt_rsa(&k, label, salt, dlen, enc, enc_len);
		break;
	case TPM_ALG_ECC:
		rc = salt_ecc(&k, label, salt, dlen, enc, enc_len);
		break;
	default:
		rc = salt_mlkem(&k, label, salt, dlen, enc, enc_len);
		break;
	}
	*salt_len = rc == TPM_RC_SUCCESS ? dlen : 0;
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(salt, CRYPTO_MAX_DIGEST);
	return rc;
}
