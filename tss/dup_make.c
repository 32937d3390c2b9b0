/* A key made outside the TPM, wrapped for TPM2_Import (Part 1 §23.3, "Protected Storage" and
 * "Duplication"): its TPMT_SENSITIVE under an outer wrapper keyed by a seed shared with the
 * new parent (secret sharing under "DUPLICATE", as Duplicate makes it), no inner wrapper:
 *   dup       = TPM2B(integrity) || encSens
 *   encSens   = AES-CFB(KDFa(pNameAlg, seed, "STORAGE", Name, -, pKeyBits), IV = 0,
 *                       TPM2B_SENSITIVE)
 *   integrity = HMAC_pNameAlg(KDFa(pNameAlg, seed, "INTEGRITY", -, -, digest bits),
 *                             encSens || Name)
 * The TPM checks at Import that the private part belongs to the public area. */
#include <string.h>

#include "crypto/crypto.h"
#include "tss_int.h"

/* What the new parent's wrapper needs of its public area. */
struct parent_wrap {
	TPM_ALG_ID name_alg;
	size_t sym_bytes, hlen;
};

static TPM_RC parent_of(const struct pqtpm_tss_public *parent, struct parent_wrap *p)
{
	struct tss_public pp;

	if (parent->size > sizeof(parent->b))
		return PQTPM_TSS_RC_BAD_VALUE;
	if (tss_public_walk(parent->b, parent->size, &pp) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	p->name_alg = pp.name_alg;
	p->hlen = crypto_hash_size(pp.name_alg);
	p->sym_bytes = pp.sym.bits / 8u;
	/* a storage parent: restricted decryption with AES-CFB */
	if (pp.sym.alg != TPM_ALG_AES || pp.sym.mode != TPM_ALG_CFB || p->hlen == 0 ||
	    p->sym_bytes == 0 || p->sym_bytes > CRYPTO_MAX_SYM_KEY)
		return PQTPM_TSS_RC_BAD_VALUE;
	return TPM_RC_SUCCESS;
}

/* The object's Name: nameAlg || H_nameAlg(public area). */
static TPM_RC name_of(const struct pqtpm_tss_public *pub, TPM_ALG_ID *type, uint8_t *name,
		      size_t *len)
{
	struct tss_public p;
	size_t hlen;

	if (pub->size > sizeof(pub->b) ||
	    tss_public_walk(pub->b, pub->size, &p) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	hlen = crypto_hash_size(p.name_alg);
	if (hlen == 0)
		return PQTPM_TSS_RC_BAD_VALUE;
	*type = p.type;
	name[0] = (uint8_t)(p.name_alg >> 8);
	name[1] = (uint8_t)p.name_alg;
	*len = 2 + hlen;
	return crypto_hash(p.name_alg, pub->b, pub->size, name + 2);
}

/* TPM2B_SENSITIVE: type, authValue, an empty seedValue, the private part. */
static TPM_RC sensitive(TPM_ALG_ID type, const char *auth, const uint8_t *priv, size_t len,
			uint8_t *out, size_t cap, size_t *out_len)
{
	struct pqtpm_tss_digest a;
	size_t mark;
	struct wr w;

	TRY(tss_auth_value(&a, auth));
	if (len > UINT16_MAX || (len && !priv))
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, out, cap);
	if (wr_size_begin(&w, &mark) || wr_u16(&w, type) || wr_tpm2b(&w, a.b, a.size) ||
	    wr_u16(&w, 0) || wr_tpm2b(&w, priv, (uint16_t)len) || wr_size_end(&w, mark)) {
		crypto_wipe(&a, sizeof(a));
		return PQTPM_TSS_RC_BAD_VALUE;
	}
	crypto_wipe(&a, sizeof(a));
	*out_len = w.off;
	return TPM_RC_SUCCESS;
}

struct wrap_work {
	uint8_t seed[CRYPTO_MAX_DIGEST], sym[CRYPTO_MAX_SYM_KEY], hkey[CRYPTO_MAX_DIGEST];
	uint8_t sens[PQTPM_TSS_MAX_PRIVATE];
	uint8_t name[2 + CRYPTO_MAX_DIGEST];
	struct crypto_hmac_ctx h;
};

static TPM_RC outer_wrap(const struct parent_wrap *p, struct wrap_work *k, size_t seed_len,
			 size_t name_len, size_t sens_len, struct pqtpm_tss_private *out)
{
	uint8_t iv[CRYPTO_AES_BLOCK] = { 0 };
	size_t off = 2 + p->hlen;

	if (off + sens_len > sizeof(out->b))
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(crypto_kdfa(p->name_alg, k->seed, seed_len, "STORAGE", k->name, name_len, NULL, 0,
			(uint32_t)(p->sym_bytes * 8), k->sym));
	TRY(crypto_kdfa(p->name_alg, k->seed, seed_len, "INTEGRITY", NULL, 0, NULL, 0,
			(uint32_t)(p->hlen * 8), k->hkey));
	TRY(crypto_aes(TPM_ALG_CFB, true, k->sym, p->sym_bytes, iv, k->sens, out->b + off,
		       sens_len));
	out->b[0] = (uint8_t)(p->hlen >> 8);
	out->b[1] = (uint8_t)p->hlen;
	TRY(crypto_hmac_start(&k->h, p->name_alg, k->hkey, p->hlen));
	TRY(crypto_hmac_update(&k->h, out->b + off, sens_len));
	TRY(crypto_hmac_update(&k->h, k->name, name_len));
	TRY(crypto_hmac_finish(&k->h, out->b + 2));
	out->size = (uint16_t)(off + sens_len);
	return TPM_RC_SUCCESS;
}

static TPM_RC make(const struct pqtpm_tss_public *parent, const struct pqtpm_tss_public *pub,
		   const char *auth, const uint8_t *priv, size_t len,
		   struct pqtpm_tss_duplicate *out, struct wrap_work *k)
{
	struct parent_wrap p;
	size_t seed_len, enc_len, name_len, sens_len;
	TPM_ALG_ID type;

	TRY(parent_of(parent, &p));
	TRY(name_of(pub, &type, k->name, &name_len));
	TRY(sensitive(type, auth, priv, len, k->sens, sizeof(k->sens), &sens_len));
	TRY(tss_secret_make(parent, "DUPLICATE", k->seed, &seed_len, out->seed.b, &enc_len));
	out->seed.size = (uint16_t)enc_len;
	return outer_wrap(&p, k, seed_len, name_len, sens_len, &out->dup);
}

TPM_RC pqtpm_tss_duplicate_make(const struct pqtpm_tss_public *parent,
				const struct pqtpm_tss_public *pub, const char *auth,
				const uint8_t *priv, size_t len, struct pqtpm_tss_duplicate *out)
{
	struct wrap_work k;
	TPM_RC rc;

	memset(out, 0, sizeof(*out));
	rc = make(parent, pub, auth, priv, len, out, &k);
	crypto_wipe(&k, sizeof(k));
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(out, sizeof(*out));
	return rc;
}
