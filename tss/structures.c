/* Structures in their wire form: templates, public keys, signatures, tickets. Built here with
 * the bounded writer, taken apart as any TPM 2.0 may marshal them (tolerant of values this
 * library does not use, strict about the shape; public_area.c walks public areas). */
#include <string.h>

#include "tss_int.h"

size_t tss_hash_size(TPM_ALG_ID alg)
{
	switch (alg) {
	case TPM_ALG_SHA1:
		return 20;
	case TPM_ALG_SHA256:
	case TPM_ALG_SM3_256:
	case TPM_ALG_SHA3_256:
		return 32;
	case TPM_ALG_SHA384:
	case TPM_ALG_SHA3_384:
		return 48;
	case TPM_ALG_SHA512:
	case TPM_ALG_SHA3_512:
		return 64;
	default:
		return 0;
	}
}

TPM_RC tss_rd_view2b(struct rd *r, struct tss_bytes *out)
{
	struct rd sub;

	TRY_RD(rd_sub(r, &sub, &out->size));
	out->b = sub.buf;
	return TPM_RC_SUCCESS;
}

static TPM_RC skip_tpm2b(struct rd *r)
{
	struct tss_bytes b;

	return tss_rd_view2b(r, &b);
}

/* Copy what a reader consumed from start on into out. */
static TPM_RC copy_span(const struct rd *r, size_t start, uint8_t *out, size_t cap,
			uint16_t *size)
{
	size_t n = r->off - start;

	if (n > cap)
		return PQTPM_TSS_RC_MALFORMED;
	memcpy(out, r->buf + start, n);
	*size = (uint16_t)n;
	return TPM_RC_SUCCESS;
}

/* TPMT_SIGNATURE: sigAlg, then TPMU_SIGNATURE for it. sig (may be NULL) gets the one byte
 * string of the kinds that have one (RSA, HMAC, ML-DSA). */
static TPM_RC walk_signature(struct rd *r, TPM_ALG_ID *alg, TPM_ALG_ID *hash,
			     struct tss_bytes *sig)
{
	struct tss_bytes dummy;
	const uint8_t *digest;
	size_t n;

	if (!sig)
		sig = &dummy;
	*hash = TPM_ALG_NULL;
	sig->b = NULL;
	sig->size = 0;
	TRY_RD(rd_u16(r, alg));
	switch (*alg) {
	case TPM_ALG_NULL:
		return TPM_RC_SUCCESS;
	case TPM_ALG_RSASSA:
	case TPM_ALG_RSAPSS:
	case TPM_ALG_HASH_MLDSA:
		TRY_RD(rd_u16(r, hash));
		/* fall through */
	case TPM_ALG_MLDSA:
		return tss_rd_view2b(r, sig);
	case TPM_ALG_ECDSA:
	case TPM_ALG_ECDAA:
	case TPM_ALG_SM2:
	case TPM_ALG_ECSCHNORR:
		TRY_RD(rd_u16(r, hash));
		TRY(skip_tpm2b(r)); /* signatureR */
		return skip_tpm2b(r); /* signatureS */
	case TPM_ALG_HMAC: /* TPMT_HA: the digest has the hash's size, no size field */
		TRY_RD(rd_u16(r, hash));
		n = tss_hash_size(*hash);
		if (n == 0)
			return PQTPM_TSS_RC_MALFORMED;
		TRY_RD(rd_view(r, n, &digest));
		sig->b = digest;
		sig->size = (uint16_t)n;
		return TPM_RC_SUCCESS;
	default: /* no layout known: its length cannot be told */
		return PQTPM_TSS_RC_MALFORMED;
	}
}

TPM_RC tss_rd_signature(struct rd *r, struct pqtpm_tss_signature *s)
{
	size_t start = r->off;
	TPM_ALG_ID alg, hash;

	TRY(walk_signature(r, &alg, &hash, NULL));
	return copy_span(r, start, s->b, sizeof(s->b), &s->size);
}

/* TPMT_TK_*: tag, hierarchy, the v1.85 metadata of TPM_ST_DIGEST_VERIFIED (the digest's hash,
 * or SHAKE256 for an external mu), digest. Any tag: they all have this shape. */
static TPM_RC walk_ticket(struct rd *r, uint16_t *tag, TPM_HANDLE *hierarchy,
			  TPM_ALG_ID *metadata)
{
	struct tss_bytes digest;

	*metadata = TPM_ALG_NULL;
	TRY_RD(rd_u16(r, tag));
	TRY_RD(rd_u32(r, hierarchy));
	if (*tag == TPM_ST_DIGEST_VERIFIED)
		TRY_RD(rd_u16(r, metadata));
	TRY(tss_rd_view2b(r, &digest));
	return digest.size > 64 ? PQTPM_TSS_RC_MALFORMED : TPM_RC_SUCCESS;
}

TPM_RC tss_rd_ticket(struct rd *r, struct pqtpm_tss_ticket *t)
{
	size_t start = r->off;
	TPM_HANDLE hierarchy;
	TPM_ALG_ID metadata;
	uint16_t tag;

	TRY(walk_ticket(r, &tag, &hierarchy, &metadata));
	return t ? copy_span(r, start, t->b, sizeof(t->b), &t->size) : TPM_RC_SUCCESS;
}

/* Taken by its size: a TPM may return a type this library has no walker for, and the caller
 * may only pass it on; pqtpm_tss_public_key and the like walk it when asked. */
TPM_RC tss_rd_public(struct rd *r, struct pqtpm_tss_public *p)
{
	struct tss_bytes b;

	TRY(tss_rd_view2b(r, &b));
	if (b.size == 0 || b.size > sizeof(p->b))
		return PQTPM_TSS_RC_MALFORMED;
	memcpy(p->b, b.b, b.size);
	p->size = b.size;
	return TPM_RC_SUCCESS;
}

/* ---- templates ---- */

/* TPMT_SYM_DEF_OBJECT: AES of bits in mode (0: CFB, as storage keys have it), or NULL. */
static TPM_RC wr_sym(struct wr *w, int aes, uint16_t bits, TPM_ALG_ID mode)
{
	if (!aes)
		return wr_u16(w, TPM_ALG_NULL);
	TRY(wr_u16(w, TPM_ALG_AES));
	TRY(wr_u16(w, bits ? bits : 128));
	return wr_u16(w, mode ? mode : TPM_ALG_CFB);
}

/* A scheme with its details (the layout public_area.c reads); XOR's KDF is SP800-108. */
static TPM_RC wr_scheme(struct wr *w, TPM_ALG_ID scheme, TPM_ALG_ID hash)
{
	scheme = scheme ? scheme : TPM_ALG_NULL;
	TRY(wr_u16(w, scheme));
	switch (scheme) {
	case TPM_ALG_NULL:
	case TPM_ALG_RSAES:
	case TPM_ALG_MLDSA:
		return TPM_RC_SUCCESS;
	case TPM_ALG_ECDAA:
		TRY(wr_u16(w, hash ? hash : TPM_ALG_NULL));
		return wr_u16(w, 0);
	case TPM_ALG_XOR:
		TRY(wr_u16(w, hash ? hash : TPM_ALG_NULL));
		return wr_u16(w, TPM_ALG_KDF1_SP800_108);
	default:
		return wr_u16(w, hash ? hash : TPM_ALG_NULL);
	}
}

/* TPMU_PUBLIC_PARMS of the template's type, then its unique (empty unless given). */
static TPM_RC wr_parms(struct wr *w, const struct pqtpm_tss_template *t)
{
	uint32_t storage = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	int aes = (t->attributes & storage) == storage;

	switch (t->type) {
	case TPM_ALG_RSA:
		TRY(wr_sym(w, aes, t->sym_bits, 0));
		TRY(wr_scheme(w, t->scheme, t->scheme_hash));
		TRY(wr_u16(w, t->rsa_bits ? t->rsa_bits : 2048));
		TRY(wr_u32(w, t->exponent == 65537 ? 0 : t->exponent));
		return wr_tpm2b(w, t->unique, t->unique_len);
	case TPM_ALG_ECC:
		TRY(wr_sym(w, aes, t->sym_bits, 0));
		TRY(wr_scheme(w, t->scheme, t->scheme_hash));
		TRY(wr_u16(w, t->curve ? t->curve : TPM_ECC_NIST_P256));
		TRY(wr_u16(w, TPM_ALG_NULL)); /* kdf */
		TRY(wr_tpm2b(w, t->unique, t->unique_len));
		return wr_tpm2b(w, t->unique_y, t->unique_y_len);
	case TPM_ALG_KEYEDHASH:
		TRY(wr_scheme(w, t->scheme, t->scheme_hash));
		return wr_tpm2b(w, t->unique, t->unique_len);
	case TPM_ALG_SYMCIPHER:
		TRY(wr_sym(w, 1, t->sym_bits, t->sym_mode));
		return wr_tpm2b(w, t->unique, t->unique_len);
	case TPM_ALG_MLDSA:
		TRY(wr_u16(w, t->parameter_set));
		TRY(wr_u8(w, t->allow_external_mu));
		return wr_tpm2b(w, t->unique, t->unique_len);
	case TPM_ALG_HASH_MLDSA:
		TRY(wr_u16(w, t->parameter_set));
		TRY(wr_u16(w, t->pre_hash ? t->pre_hash : TPM_ALG_SHA256));
		return wr_tpm2b(w, t->unique, t->unique_len);
	case TPM_ALG_MLKEM:
		TRY(wr_sym(w, aes, t->sym_bits, 0));
		TRY(wr_u16(w, t->parameter_set));
		return wr_tpm2b(w, t->unique, t->unique_len);
	default:
		return PQTPM_TSS_RC_BAD_VALUE;
	}
}

TPM_RC pqtpm_tss_template_public(const struct pqtpm_tss_template *t,
				 struct pqtpm_tss_public *out)
{
	struct wr w;

	/* a length without its bytes; an ECC point is both coordinates or none, and only ECC has
	 * a second one */
	if (t->policy_len > 64 || (t->policy_len && !t->policy) || (t->unique_len && !t->unique) ||
	    (t->unique_y_len && !t->unique_y) ||
	    (t->type == TPM_ALG_ECC ? !t->unique_len != !t->unique_y_len : t->unique_y_len != 0))
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, out->b, sizeof(out->b));
	if (wr_u16(&w, t->type) || wr_u16(&w, t->name_alg ? t->name_alg : TPM_ALG_SHA256) ||
	    wr_u32(&w, t->attributes) || wr_tpm2b(&w, t->policy, t->policy_len) ||
	    wr_parms(&w, t))
		return PQTPM_TSS_RC_BAD_VALUE;
	out->size = (uint16_t)w.off;
	return TPM_RC_SUCCESS;
}

TPM_ALG_ID pqtpm_tss_public_type(const struct pqtpm_tss_public *pub)
{
	struct rd r;
	uint16_t type;

	rd_init(&r, pub->b, pub->size);
	return rd_u16(&r, &type) ? TPM_ALG_ERROR : type;
}

/* unique: ML-DSA pk, ML-KEM ek, RSA modulus, keyedHash / symcipher digest; ECC: x */
TPM_RC pqtpm_tss_public_key(const struct pqtpm_tss_public *pub, const uint8_t **key,
			    size_t *len)
{
	struct tss_public p;

	if (pub->size > sizeof(pub->b))
		return PQTPM_TSS_RC_MALFORMED;
	TRY(tss_public_walk(pub->b, pub->size, &p));
	*key = p.unique.b;
	*len = p.unique.size;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_signature_parse(const struct pqtpm_tss_signature *s, TPM_ALG_ID *alg,
				 TPM_ALG_ID *hash, const uint8_t **sig, size_t *len)
{
	struct tss_bytes b;
	TPM_ALG_ID a, h;
	struct rd r;

	if (s->size > sizeof(s->b))
		return PQTPM_TSS_RC_MALFORMED;
	rd_init(&r, s->b, s->size);
	TRY(walk_signature(&r, &a, &h, &b));
	TRY(tss_rd_end(&r));
	if (!b.b) /* NULL, or an ECC kind: no one byte string to give */
		return PQTPM_TSS_RC_BAD_VALUE;
	*alg = a;
	*hash = h;
	*sig = b.b;
	*len = b.size;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_signature_make(TPM_ALG_ID alg, TPM_ALG_ID hash, const uint8_t *sig,
				size_t len, struct pqtpm_tss_signature *out)
{
	struct wr w;

	switch (alg) {
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
	case TPM_ALG_RSASSA:
	case TPM_ALG_RSAPSS:
		break;
	default:
		return PQTPM_TSS_RC_BAD_VALUE;
	}
	if (len > UINT16_MAX || (len && !sig))
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, out->b, sizeof(out->b));
	if (wr_u16(&w, alg) || (alg != TPM_ALG_MLDSA && wr_u16(&w, hash)) ||
	    wr_tpm2b(&w, sig, (uint16_t)len))
		return PQTPM_TSS_RC_BAD_VALUE;
	out->size = (uint16_t)w.off;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_ticket_parse(const struct pqtpm_tss_ticket *tk, uint16_t *tag,
			      TPM_HANDLE *hierarchy, TPM_ALG_ID *metadata)
{
	TPM_HANDLE h;
	TPM_ALG_ID m;
	uint16_t tg;
	struct rd r;

	if (tk->size > sizeof(tk->b))
		return PQTPM_TSS_RC_MALFORMED;
	rd_init(&r, tk->b, tk->size);
	TRY(walk_ticket(&r, &tg, &h, &m));
	TRY(tss_rd_end(&r));
	if (tag)
		*tag = tg;
	if (hierarchy)
		*hierarchy = h;
	if (metadata)
		*metadata = m;
	return TPM_RC_SUCCESS;
}
