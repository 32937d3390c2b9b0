/* A TPMT_PUBLIC taken apart as any TPM 2.0 may marshal it (Part 2, TPM 2.0 Library v1.59 and
 * the v1.85 post-quantum types). Tolerant: no value is judged (any curve, hash, scheme or
 * cipher ID whose wire layout is known parses; whether a key is usable is the TPM's business
 * or the caller's), only the shape. Strict: every field within the bytes given, all of them
 * consumed. */
#include <string.h>

#include "tss_int.h"

/* TPMT_SYM_DEF_OBJECT: NULL alone; XOR with its hash (TPMU_SYM_KEY_BITS.xor) and no mode;
 * every block cipher (AES, SM4, Camellia, TDES, and IDs this library does not know, which
 * Part 2 gives the same arms) with keyBits and mode. */
static TPM_RC walk_sym(struct rd *r, struct tss_sym *s)
{
	s->bits = 0;
	s->mode = TPM_ALG_NULL;
	TRY_RD(rd_u16(r, &s->alg));
	if (s->alg == TPM_ALG_NULL)
		return TPM_RC_SUCCESS;
	TRY_RD(rd_u16(r, &s->bits));
	if (s->alg == TPM_ALG_XOR)
		return TPM_RC_SUCCESS;
	TRY_RD(rd_u16(r, &s->mode));
	return TPM_RC_SUCCESS;
}

/* TPMT_RSA_SCHEME, TPMT_ECC_SCHEME, TPMT_KEYEDHASH_SCHEME, TPMT_KDF_SCHEME, TPMT_SIG_SCHEME:
 * the selector, then what it selects: nothing for NULL, RSAES and ML-DSA (TPMS_EMPTY); hash and
 * count for ECDAA; hash and KDF for XOR; a TPMS_SCHEME_HASH for every other scheme, known or
 * not, as every other arm of TPMU_ASYM_SCHEME, TPMU_SIG_SCHEME and TPMU_KDF_SCHEME is one. */
static TPM_RC walk_scheme(struct rd *r, struct tss_scheme *s)
{
	s->hash = s->kdf = TPM_ALG_NULL;
	s->count = 0;
	TRY_RD(rd_u16(r, &s->scheme));
	switch (s->scheme) {
	case TPM_ALG_NULL:
	case TPM_ALG_RSAES:
	case TPM_ALG_MLDSA:
		return TPM_RC_SUCCESS;
	case TPM_ALG_ECDAA:
		TRY_RD(rd_u16(r, &s->hash));
		TRY_RD(rd_u16(r, &s->count));
		return TPM_RC_SUCCESS;
	case TPM_ALG_XOR:
		TRY_RD(rd_u16(r, &s->hash));
		TRY_RD(rd_u16(r, &s->kdf));
		return TPM_RC_SUCCESS;
	default:
		TRY_RD(rd_u16(r, &s->hash));
		return TPM_RC_SUCCESS;
	}
}

/* TPMU_PUBLIC_PARMS and TPMU_PUBLIC_ID of p->type. */
static TPM_RC walk_rest(struct rd *r, struct tss_public *p)
{
	switch (p->type) {
	case TPM_ALG_RSA:
		TRY(walk_sym(r, &p->sym));
		TRY(walk_scheme(r, &p->scheme));
		TRY_RD(rd_u16(r, &p->rsa_bits));
		TRY_RD(rd_u32(r, &p->exponent));
		return tss_rd_view2b(r, &p->unique);
	case TPM_ALG_ECC:
		TRY(walk_sym(r, &p->sym));
		TRY(walk_scheme(r, &p->scheme));
		TRY_RD(rd_u16(r, &p->curve));
		TRY(walk_scheme(r, &p->kdf));
		TRY(tss_rd_view2b(r, &p->unique));
		return tss_rd_view2b(r, &p->unique_y);
	case TPM_ALG_KEYEDHASH:
		TRY(walk_scheme(r, &p->scheme));
		return tss_rd_view2b(r, &p->unique);
	case TPM_ALG_SYMCIPHER:
		TRY(walk_sym(r, &p->sym));
		return tss_rd_view2b(r, &p->unique);
	case TPM_ALG_MLDSA:
		TRY_RD(rd_u16(r, &p->parameter_set));
		TRY_RD(rd_u8(r, &p->allow_external_mu));
		return tss_rd_view2b(r, &p->unique);
	case TPM_ALG_HASH_MLDSA:
		TRY_RD(rd_u16(r, &p->parameter_set));
		TRY_RD(rd_u16(r, &p->pre_hash));
		return tss_rd_view2b(r, &p->unique);
	case TPM_ALG_MLKEM:
		TRY(walk_sym(r, &p->sym));
		TRY_RD(rd_u16(r, &p->parameter_set));
		return tss_rd_view2b(r, &p->unique);
	default: /* no layout known for the parameters of another type */
		return PQTPM_TSS_RC_MALFORMED;
	}
}

TPM_RC tss_public_walk(const uint8_t *b, size_t len, struct tss_public *p)
{
	struct rd r;

	memset(p, 0, sizeof(*p));
	p->sym.alg = p->sym.mode = TPM_ALG_NULL;
	p->scheme.scheme = p->scheme.hash = p->scheme.kdf = TPM_ALG_NULL;
	p->kdf = p->scheme;
	p->pre_hash = TPM_ALG_NULL;
	rd_init(&r, b, len);
	TRY_RD(rd_u16(&r, &p->type));
	TRY_RD(rd_u16(&r, &p->name_alg));
	TRY_RD(rd_u32(&r, &p->attributes));
	TRY(tss_rd_view2b(&r, &p->policy));
	TRY(walk_rest(&r, p));
	return tss_rd_end(&r);
}
