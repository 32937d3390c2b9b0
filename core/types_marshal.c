/* Wire forms of the Part 2 structures in types.h. Every reader checks each selector against
 * what the engine implements and answers with the code Part 2's unmarshalling tables give
 * (the '#TPM_RC_xxx' row of each TPMI type). Sized structures (TPM2B_PUBLIC ...) are parsed
 * inside a sub-reader: running out inside, or leaving bytes over, is TPM_RC_SIZE. */
#include <string.h>

#include "crypto/crypto.h"
#include "types.h"

#define MLDSA_SEED_BYTES 32 /* TPM2B_PRIVATE_KEY_MLDSA: the seed xi */
#define MLKEM_SEED_BYTES 64 /* TPM2B_PRIVATE_KEY_MLKEM: d || z */
#define MAX_MLKEM_PUBLIC 1568
#define PCR_SELECT_MIN 3 /* PC Client: 24 PCRs, the same as PCR_SELECT_MAX */

/* ---- selectors ---- */

static size_t hash_len(TPM_ALG_ID alg)
{
	switch (alg) {
	case TPM_ALG_SHA1:
		return 20;
	case TPM_ALG_SHA256:
		return 32;
	case TPM_ALG_SHA384:
		return 48;
	case TPM_ALG_SHA512:
		return 64;
	default:
		return 0;
	}
}

static bool is_object_type(TPM_ALG_ID t)
{
	switch (t) {
	case TPM_ALG_RSA:
	case TPM_ALG_ECC:
	case TPM_ALG_KEYEDHASH:
	case TPM_ALG_SYMCIPHER:
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
	case TPM_ALG_MLKEM:
		return true;
	default:
		return false;
	}
}

/* TPMI_ALG_PUBLIC */
static TPM_RC rd_object_type(struct rd *r, TPM_ALG_ID *type)
{
	TRY(rd_u16(r, type));
	return is_object_type(*type) ? TPM_RC_SUCCESS : TPM_RC_TYPE;
}

TPM_RC rd_hash_alg(struct rd *r, TPM_ALG_ID *alg, bool allow_null)
{
	TRY(rd_u16(r, alg));
	if (hash_len(*alg) || (allow_null && *alg == TPM_ALG_NULL))
		return TPM_RC_SUCCESS;
	return TPM_RC_HASH;
}

TPM_RC rd_mac_scheme(struct rd *r, TPM_ALG_ID *alg)
{
	struct rd peek = *r;
	uint16_t v;

	TRY(rd_u16(&peek, &v));
	if (v != TPM_ALG_CMAC)
		return rd_hash_alg(r, alg, true);
	*r = peek;
	*alg = v;
	return TPM_RC_SUCCESS;
}

TPM_RC rd_tpm2b_ecc_point(struct rd *r, struct tpm2b_ecc_parameter *x,
			  struct tpm2b_ecc_parameter *y, bool allow_empty)
{
	struct rd sub;
	uint16_t size;
	TPM_RC rc;

	x->size = y->size = 0;
	TRY(rd_sub(r, &sub, &size));
	if (size == 0)
		return allow_empty ? TPM_RC_SUCCESS : TPM_RC_SIZE;
	rc = rd_tpm2b(&sub, x->b, sizeof(x->b), &x->size);
	if (rc == TPM_RC_SUCCESS)
		rc = rd_tpm2b(&sub, y->b, sizeof(y->b), &y->size);
	if (rc == TPM_RC_INSUFFICIENT || (rc == TPM_RC_SUCCESS && rd_left(&sub) != 0))
		return TPM_RC_SIZE;
	if (rc == TPM_RC_SUCCESS && !allow_empty && x->size == 0 && y->size == 0)
		return TPM_RC_ECC_POINT;
	return rc;
}

TPM_RC wr_tpm2b_ecc_point(struct wr *w, const uint8_t *x, const uint8_t *y, size_t len)
{
	size_t mark;

	TRY(wr_size_begin(w, &mark));
	TRY(wr_tpm2b(w, x, (uint16_t)len));
	TRY(wr_tpm2b(w, y, (uint16_t)len));
	return wr_size_end(w, mark);
}

TPM_RC rd_tpml_cc(struct rd *r, TPM_CC list[TPML_CC_MAX], uint32_t *count)
{
	TRY(rd_u32(r, count));
	if (*count > TPML_CC_MAX)
		return TPM_RC_SIZE;
	for (uint32_t i = 0; i < *count; i++)
		TRY(rd_u32(r, &list[i]));
	return TPM_RC_SUCCESS;
}

/* TPMI_YES_NO */
static TPM_RC rd_yes_no(struct rd *r, uint8_t *v)
{
	TRY(rd_u8(r, v));
	return *v <= 1 ? TPM_RC_SUCCESS : TPM_RC_VALUE;
}

/* TPMI_MLDSA_PARAMETER_SET, TPMI_MLKEM_PARAMETER_SET: 1..3 in both */
static TPM_RC rd_pq_set(struct rd *r, uint16_t *set)
{
	TRY(rd_u16(r, set));
	return *set >= 1 && *set <= 3 ? TPM_RC_SUCCESS : TPM_RC_PARMS;
}

TPM_RC rd_rh_hierarchy(struct rd *r, TPM_HANDLE *h, bool allow_null)
{
	TRY(rd_u32(r, h));
	switch (*h) {
	case TPM_RH_OWNER:
	case TPM_RH_PLATFORM:
	case TPM_RH_ENDORSEMENT:
		return TPM_RC_SUCCESS;
	case TPM_RH_NULL:
		return allow_null ? TPM_RC_SUCCESS : TPM_RC_VALUE;
	default:
		return TPM_RC_VALUE;
	}
}

/* ---- TPM2B ---- */

TPM_RC rd_tpm2b_digest(struct rd *r, struct tpm2b_digest *d)
{
	return rd_tpm2b(r, d->b, sizeof(d->b), &d->size);
}

TPM_RC wr_tpm2b_digest(struct wr *w, const struct tpm2b_digest *d)
{
	return wr_tpm2b(w, d->b, d->size);
}

TPM_RC rd_tpm2b_name(struct rd *r, struct tpm2b_name *n)
{
	return rd_tpm2b(r, n->b, sizeof(n->b), &n->size);
}

TPM_RC wr_tpm2b_name(struct wr *w, const struct tpm2b_name *n)
{
	return wr_tpm2b(w, n->b, n->size);
}

static TPM_RC rd_ecc_param(struct rd *r, struct tpm2b_ecc_parameter *p)
{
	return rd_tpm2b(r, p->b, sizeof(p->b), &p->size);
}

/* The content of a sized structure must be exactly what its parser reads. */
static TPM_RC sized_end(TPM_RC rc, const struct rd *sub)
{
	if (rc == TPM_RC_INSUFFICIENT)
		return TPM_RC_SIZE;
	if (rc == TPM_RC_SUCCESS && rd_left(sub))
		return TPM_RC_SIZE;
	return rc;
}

/* ---- symmetric definitions ---- */

/* AES, Camellia, TDES: the key bits this build has (TPMI_*_KEY_BITS), then the mode */
static TPM_RC rd_block_rest(struct rd *r, struct tpmt_sym_def *s)
{
	TRY(rd_u16(r, &s->key_bits));
	if (!crypto_sym_supported(s->alg, s->key_bits))
		return TPM_RC_VALUE;
	TRY(rd_u16(r, &s->mode));
	switch (s->mode) {
	case TPM_ALG_CFB:
	case TPM_ALG_CBC:
	case TPM_ALG_CTR:
	case TPM_ALG_OFB:
	case TPM_ALG_ECB:
	case TPM_ALG_NULL: /* TPMI_ALG_SYM_MODE+ inside TPMU_SYM_MODE */
		return TPM_RC_SUCCESS;
	default:
		return TPM_RC_MODE;
	}
}

TPM_RC rd_sym_def(struct rd *r, struct tpmt_sym_def *s, bool allow_null)
{
	memset(s, 0, sizeof(*s));
	TRY(rd_u16(r, &s->alg));
	if (crypto_sym_block(s->alg) != 0)
		return rd_block_rest(r, s);
	switch (s->alg) {
	case TPM_ALG_XOR:
		s->mode = TPM_ALG_NULL;
		return rd_hash_alg(r, &s->key_bits, false);
	case TPM_ALG_NULL:
		if (allow_null)
			return TPM_RC_SUCCESS;
		return TPM_RC_SYMMETRIC;
	default:
		return TPM_RC_SYMMETRIC;
	}
}

TPM_RC rd_sym_def_object(struct rd *r, struct tpmt_sym_def *s, bool allow_null)
{
	memset(s, 0, sizeof(*s));
	TRY(rd_u16(r, &s->alg));
	if (crypto_sym_block(s->alg) != 0)
		return rd_block_rest(r, s);
	if (s->alg == TPM_ALG_NULL && allow_null)
		return TPM_RC_SUCCESS;
	return TPM_RC_SYMMETRIC;
}

TPM_RC wr_sym_def(struct wr *w, const struct tpmt_sym_def *s)
{
	TRY(wr_u16(w, s->alg));
	if (s->alg == TPM_ALG_NULL)
		return TPM_RC_SUCCESS;
	TRY(wr_u16(w, s->key_bits));
	if (s->alg == TPM_ALG_XOR)
		return TPM_RC_SUCCESS;
	return wr_u16(w, s->mode);
}

/* ---- schemes ----
 * All TPMT_*_SCHEME share one layout: scheme, then the details the scheme selects (a hash for
 * most, hash + count for ECDAA, hash + kdf for XOR, nothing for NULL, RSAES and ML-DSA). */

static TPM_RC rd_scheme_details(struct rd *r, struct tpmt_scheme *s)
{
	switch (s->scheme) {
	case TPM_ALG_NULL:
	case TPM_ALG_RSAES:
	case TPM_ALG_MLDSA:
		return TPM_RC_SUCCESS;
	case TPM_ALG_ECDAA:
		TRY(rd_hash_alg(r, &s->hash_alg, false));
		return rd_u16(r, &s->count);
	case TPM_ALG_XOR:
		TRY(rd_hash_alg(r, &s->hash_alg, false));
		TRY(rd_u16(r, &s->kdf));
		return alg_is_kdf(s->kdf) || s->kdf == TPM_ALG_NULL ? TPM_RC_SUCCESS : TPM_RC_KDF;
	default:
		return rd_hash_alg(r, &s->hash_alg, false);
	}
}

/* Read a scheme selector, check it against the list, then its details. bad: the code for a
 * selector not in the list. */
static TPM_RC rd_scheme_of(struct rd *r, struct tpmt_scheme *s, bool allow_null,
			   const TPM_ALG_ID *ok, size_t nok, TPM_RC bad)
{
	bool found = false;

	memset(s, 0, sizeof(*s));
	s->hash_alg = TPM_ALG_NULL;
	s->kdf = TPM_ALG_NULL;
	TRY(rd_u16(r, &s->scheme));
	for (size_t i = 0; i < nok; i++)
		found |= s->scheme == ok[i];
	if (s->scheme == TPM_ALG_NULL)
		found = allow_null;
	if (!found)
		return bad;
	return rd_scheme_details(r, s);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

TPM_RC rd_sig_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null)
{
	static const TPM_ALG_ID ok[] = { TPM_ALG_HMAC,	TPM_ALG_RSASSA, TPM_ALG_RSAPSS,
					 TPM_ALG_ECDSA, TPM_ALG_ECDAA,	TPM_ALG_ECSCHNORR,
					 TPM_ALG_MLDSA, TPM_ALG_HASH_MLDSA };

	return rd_scheme_of(r, s, allow_null, ok, N(ok), TPM_RC_SCHEME);
}

TPM_RC rd_rsa_decrypt_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null)
{
	static const TPM_ALG_ID ok[] = { TPM_ALG_RSAES, TPM_ALG_OAEP };

	return rd_scheme_of(r, s, allow_null, ok, N(ok), TPM_RC_VALUE);
}

/* TPMT_RSA_SCHEME+ (TPMS_RSA_PARMS) */
static TPM_RC rd_rsa_scheme(struct rd *r, struct tpmt_scheme *s)
{
	static const TPM_ALG_ID ok[] = { TPM_ALG_RSASSA, TPM_ALG_RSAPSS, TPM_ALG_RSAES,
					 TPM_ALG_OAEP };

	return rd_scheme_of(r, s, true, ok, N(ok), TPM_RC_VALUE);
}

TPM_RC rd_ecc_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null)
{
	static const TPM_ALG_ID ok[] = { TPM_ALG_ECDSA, TPM_ALG_ECDAA, TPM_ALG_ECSCHNORR,
					 TPM_ALG_ECDH,	TPM_ALG_ECMQV };

	return rd_scheme_of(r, s, allow_null, ok, N(ok), TPM_RC_SCHEME);
}

/* TPMT_KEYEDHASH_SCHEME+ */
static TPM_RC rd_keyedhash_scheme(struct rd *r, struct tpmt_scheme *s)
{
	static const TPM_ALG_ID ok[] = { TPM_ALG_HMAC, TPM_ALG_XOR };

	return rd_scheme_of(r, s, true, ok, N(ok), TPM_RC_VALUE);
}

bool alg_is_kdf(TPM_ALG_ID alg)
{
	switch (alg) {
	case TPM_ALG_MGF1:
	case TPM_ALG_KDF1_SP800_56A:
	case TPM_ALG_KDF2:
	case TPM_ALG_KDF1_SP800_108:
		return true;
	default:
		return false;
	}
}

TPM_RC rd_kdf_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null)
{
	static const TPM_ALG_ID ok[] = { TPM_ALG_MGF1, TPM_ALG_KDF1_SP800_56A, TPM_ALG_KDF2,
					 TPM_ALG_KDF1_SP800_108 };

	return rd_scheme_of(r, s, allow_null, ok, N(ok), TPM_RC_KDF);
}

TPM_RC wr_scheme(struct wr *w, const struct tpmt_scheme *s)
{
	TRY(wr_u16(w, s->scheme));
	switch (s->scheme) {
	case TPM_ALG_NULL:
	case TPM_ALG_RSAES:
	case TPM_ALG_MLDSA:
		return TPM_RC_SUCCESS;
	case TPM_ALG_ECDAA:
		TRY(wr_u16(w, s->hash_alg));
		return wr_u16(w, s->count);
	case TPM_ALG_XOR:
		TRY(wr_u16(w, s->hash_alg));
		return wr_u16(w, s->kdf);
	default:
		return wr_u16(w, s->hash_alg);
	}
}

/* ---- TPMT_PUBLIC ---- */

static TPM_RC rd_rsa_key_bits(struct rd *r, uint16_t *bits)
{
	TRY(rd_u16(r, bits));
	switch (*bits) {
	case 1024:
	case 2048:
	case 3072:
	case 4096:
		return TPM_RC_SUCCESS;
	default:
		return TPM_RC_VALUE; /* TPMI_RSA_KEY_BITS */
	}
}

static TPM_RC rd_curve(struct rd *r, uint16_t *curve)
{
	TRY(rd_u16(r, curve));
	return crypto_ecc_bytes(*curve) != 0 ? TPM_RC_SUCCESS : TPM_RC_CURVE;
}

static TPM_RC rd_unique(struct rd *r, struct tpm2b_unique *u, uint16_t max)
{
	return rd_tpm2b(r, u->b, max, &u->size);
}

/* TPMU_PUBLIC_PARMS and TPMU_PUBLIC_ID for p->type */
static TPM_RC rd_public_rest(struct rd *r, struct tpmt_public *p)
{
	switch (p->type) {
	case TPM_ALG_RSA:
		TRY(rd_sym_def_object(r, &p->symmetric, true));
		TRY(rd_rsa_scheme(r, &p->scheme));
		TRY(rd_rsa_key_bits(r, &p->key_bits));
		TRY(rd_u32(r, &p->exponent));
		return rd_unique(r, &p->unique, MAX_RSA_KEY_BYTES);
	case TPM_ALG_ECC:
		TRY(rd_sym_def_object(r, &p->symmetric, true));
		TRY(rd_ecc_scheme(r, &p->scheme, true));
		TRY(rd_curve(r, &p->curve_id));
		TRY(rd_kdf_scheme(r, &p->kdf, true));
		TRY(rd_ecc_param(r, &p->x));
		return rd_ecc_param(r, &p->y);
	case TPM_ALG_KEYEDHASH:
		TRY(rd_keyedhash_scheme(r, &p->scheme));
		return rd_unique(r, &p->unique, MAX_DIGEST_SIZE);
	case TPM_ALG_SYMCIPHER:
		TRY(rd_sym_def_object(r, &p->symmetric, false));
		return rd_unique(r, &p->unique, MAX_DIGEST_SIZE);
	case TPM_ALG_MLDSA:
		TRY(rd_pq_set(r, &p->parameter_set));
		TRY(rd_yes_no(r, &p->allow_external_mu));
		return rd_unique(r, &p->unique, MAX_PQ_PUBLIC);
	case TPM_ALG_HASH_MLDSA:
		TRY(rd_pq_set(r, &p->parameter_set));
		TRY(rd_hash_alg(r, &p->pre_hash, false));
		return rd_unique(r, &p->unique, MAX_PQ_PUBLIC);
	case TPM_ALG_MLKEM:
		TRY(rd_sym_def_object(r, &p->symmetric, true));
		TRY(rd_pq_set(r, &p->parameter_set));
		return rd_unique(r, &p->unique, MAX_MLKEM_PUBLIC);
	default:
		return TPM_RC_TYPE;
	}
}

/* nameAlg may be TPM_ALG_NULL here (LoadExternal); creation refuses it in object_check_public. */
TPM_RC rd_public(struct rd *r, struct tpmt_public *p)
{
	memset(p, 0, sizeof(*p));
	p->symmetric.alg = TPM_ALG_NULL;
	p->scheme.scheme = p->scheme.hash_alg = p->scheme.kdf = TPM_ALG_NULL;
	p->kdf.scheme = p->kdf.hash_alg = p->kdf.kdf = TPM_ALG_NULL;
	p->pre_hash = TPM_ALG_NULL;
	TRY(rd_object_type(r, &p->type));
	TRY(rd_hash_alg(r, &p->name_alg, true));
	TRY(rd_u32(r, &p->attributes));
	if (p->attributes & TPMA_OBJECT_RESERVED)
		return TPM_RC_RESERVED_BITS;
	TRY(rd_tpm2b_digest(r, &p->auth_policy));
	return rd_public_rest(r, p);
}

TPM_RC rd_tpm2b_public(struct rd *r, struct tpmt_public *p)
{
	struct rd sub;
	uint16_t size;

	TRY(rd_sub(r, &sub, &size));
	if (size == 0)
		return TPM_RC_SIZE;
	return sized_end(rd_public(&sub, p), &sub);
}

TPM_RC wr_public(struct wr *w, const struct tpmt_public *p)
{
	TRY(wr_u16(w, p->type));
	TRY(wr_u16(w, p->name_alg));
	TRY(wr_u32(w, p->attributes));
	TRY(wr_tpm2b_digest(w, &p->auth_policy));
	switch (p->type) {
	case TPM_ALG_RSA:
		TRY(wr_sym_def(w, &p->symmetric));
		TRY(wr_scheme(w, &p->scheme));
		TRY(wr_u16(w, p->key_bits));
		TRY(wr_u32(w, p->exponent));
		break;
	case TPM_ALG_ECC:
		TRY(wr_sym_def(w, &p->symmetric));
		TRY(wr_scheme(w, &p->scheme));
		TRY(wr_u16(w, p->curve_id));
		TRY(wr_scheme(w, &p->kdf));
		TRY(wr_tpm2b(w, p->x.b, p->x.size));
		return wr_tpm2b(w, p->y.b, p->y.size);
	case TPM_ALG_KEYEDHASH:
		TRY(wr_scheme(w, &p->scheme));
		break;
	case TPM_ALG_SYMCIPHER:
		TRY(wr_sym_def(w, &p->symmetric));
		break;
	case TPM_ALG_MLDSA:
		TRY(wr_u16(w, p->parameter_set));
		TRY(wr_u8(w, p->allow_external_mu));
		break;
	case TPM_ALG_HASH_MLDSA:
		TRY(wr_u16(w, p->parameter_set));
		TRY(wr_u16(w, p->pre_hash));
		break;
	case TPM_ALG_MLKEM:
		TRY(wr_sym_def(w, &p->symmetric));
		TRY(wr_u16(w, p->parameter_set));
		break;
	default:
		return TPM_RC_TYPE;
	}
	return wr_tpm2b(w, p->unique.b, p->unique.size);
}

TPM_RC wr_tpm2b_public(struct wr *w, const struct tpmt_public *p)
{
	size_t mark;

	TRY(wr_size_begin(w, &mark));
	TRY(wr_public(w, p));
	return wr_size_end(w, mark);
}

/* ---- TPMT_SENSITIVE ---- */

/* Largest TPMU_SENSITIVE_COMPOSITE arm per type. */
static uint16_t sensitive_max(TPM_ALG_ID type)
{
	switch (type) {
	case TPM_ALG_RSA:
		return MAX_RSA_KEY_BYTES / 2;
	case TPM_ALG_ECC:
		return MAX_ECC_KEY_BYTES;
	case TPM_ALG_KEYEDHASH:
		return MAX_SYM_DATA;
	case TPM_ALG_SYMCIPHER:
		return MAX_SYM_KEY_BYTES;
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
		return MLDSA_SEED_BYTES;
	case TPM_ALG_MLKEM:
		return MLKEM_SEED_BYTES;
	default:
		return 0;
	}
}

TPM_RC rd_sensitive(struct rd *r, struct tpmt_sensitive *s)
{
	memset(s, 0, sizeof(*s));
	TRY(rd_object_type(r, &s->type));
	TRY(rd_tpm2b_digest(r, &s->auth_value));
	TRY(rd_tpm2b_digest(r, &s->seed_value));
	return rd_tpm2b(r, s->sensitive.b, sensitive_max(s->type), &s->sensitive.size);
}

/* Size 0 (LoadExternal of a public key alone) gives s->type = TPM_ALG_NULL. */
TPM_RC rd_tpm2b_sensitive(struct rd *r, struct tpmt_sensitive *s)
{
	struct rd sub;
	uint16_t size;

	TRY(rd_sub(r, &sub, &size));
	if (size == 0) {
		memset(s, 0, sizeof(*s));
		s->type = TPM_ALG_NULL;
		return TPM_RC_SUCCESS;
	}
	return sized_end(rd_sensitive(&sub, s), &sub);
}

TPM_RC wr_sensitive(struct wr *w, const struct tpmt_sensitive *s)
{
	TRY(wr_u16(w, s->type));
	TRY(wr_tpm2b_digest(w, &s->auth_value));
	TRY(wr_tpm2b_digest(w, &s->seed_value));
	return wr_tpm2b(w, s->sensitive.b, s->sensitive.size);
}

TPM_RC rd_tpm2b_sensitive_create(struct rd *r, struct tpms_sensitive_create *s)
{
	struct rd sub;
	uint16_t size;
	TPM_RC rc;

	memset(s, 0, sizeof(*s));
	TRY(rd_sub(r, &sub, &size));
	if (size == 0)
		return TPM_RC_SIZE;
	rc = rd_tpm2b_digest(&sub, &s->user_auth);
	if (rc == TPM_RC_SUCCESS)
		rc = rd_tpm2b(&sub, s->data.b, sizeof(s->data.b), &s->data.size);
	return sized_end(rc, &sub);
}

/* ---- TPML_PCR_SELECTION ---- */

TPM_RC rd_pcr_selection(struct rd *r, struct tpml_pcr_selection *s)
{
	memset(s, 0, sizeof(*s));
	TRY(rd_u32(r, &s->count));
	if (s->count > MAX_PCR_BANKS)
		return TPM_RC_SIZE;
	for (uint32_t i = 0; i < s->count; i++) {
		struct tpms_pcr_selection *p = &s->sel[i];

		TRY(rd_hash_alg(r, &p->hash, false));
		TRY(rd_u8(r, &p->size_of_select));
		if (p->size_of_select < PCR_SELECT_MIN || p->size_of_select > PCR_SELECT_MAX)
			return TPM_RC_VALUE;
		TRY(rd_bytes(r, p->select, p->size_of_select));
	}
	return TPM_RC_SUCCESS;
}

TPM_RC wr_pcr_selection(struct wr *w, const struct tpml_pcr_selection *s)
{
	if (s->count > MAX_PCR_BANKS)
		return TPM_RC_SIZE;
	TRY(wr_u32(w, s->count));
	for (uint32_t i = 0; i < s->count; i++) {
		const struct tpms_pcr_selection *p = &s->sel[i];

		if (p->size_of_select > PCR_SELECT_MAX)
			return TPM_RC_VALUE;
		TRY(wr_u16(w, p->hash));
		TRY(wr_u8(w, p->size_of_select));
		TRY(wr_bytes(w, p->select, p->size_of_select));
	}
	return TPM_RC_SUCCESS;
}

/* ---- TPMT_SIGNATURE ----
 * Input signatures are never '+' in Part 3 (VerifySignature, PolicySigned), so TPM_ALG_NULL is
 * refused on reading with the other unknown schemes; wr_signature writes it (NULL signing key). */

static TPM_RC rd_sig_blob(struct rd *r, struct tpmt_signature *s, uint16_t max)
{
	return rd_tpm2b(r, s->sig, max, &s->size);
}

TPM_RC rd_signature(struct rd *r, struct tpmt_signature *s)
{
	size_t n;

	s->hash = TPM_ALG_NULL;
	s->size = 0;
	s->r.size = s->s.size = 0;
	TRY(rd_u16(r, &s->sig_alg));
	switch (s->sig_alg) {
	case TPM_ALG_RSASSA:
	case TPM_ALG_RSAPSS:
		TRY(rd_hash_alg(r, &s->hash, false));
		return rd_sig_blob(r, s, MAX_RSA_KEY_BYTES);
	case TPM_ALG_ECDSA:
	case TPM_ALG_ECDAA:
	case TPM_ALG_SM2:
	case TPM_ALG_ECSCHNORR:
		TRY(rd_hash_alg(r, &s->hash, false));
		TRY(rd_ecc_param(r, &s->r));
		return rd_ecc_param(r, &s->s);
	case TPM_ALG_HMAC: /* TPMT_HA: the digest has the hash's size, no size field */
		TRY(rd_hash_alg(r, &s->hash, false));
		n = hash_len(s->hash);
		TRY(rd_bytes(r, s->sig, n));
		s->size = (uint16_t)n;
		return TPM_RC_SUCCESS;
	case TPM_ALG_MLDSA:
		return rd_sig_blob(r, s, MAX_PQ_SIGNATURE);
	case TPM_ALG_HASH_MLDSA:
		TRY(rd_hash_alg(r, &s->hash, false));
		return rd_sig_blob(r, s, MAX_PQ_SIGNATURE);
	default:
		return TPM_RC_SCHEME;
	}
}

TPM_RC wr_signature(struct wr *w, const struct tpmt_signature *s)
{
	TRY(wr_u16(w, s->sig_alg));
	switch (s->sig_alg) {
	case TPM_ALG_NULL:
		return TPM_RC_SUCCESS;
	case TPM_ALG_RSASSA:
	case TPM_ALG_RSAPSS:
	case TPM_ALG_HASH_MLDSA:
		TRY(wr_u16(w, s->hash));
		return wr_tpm2b(w, s->sig, s->size);
	case TPM_ALG_ECDSA:
	case TPM_ALG_ECDAA:
	case TPM_ALG_SM2:
	case TPM_ALG_ECSCHNORR:
		TRY(wr_u16(w, s->hash));
		TRY(wr_tpm2b(w, s->r.b, s->r.size));
		return wr_tpm2b(w, s->s.b, s->s.size);
	case TPM_ALG_HMAC:
		TRY(wr_u16(w, s->hash));
		return wr_bytes(w, s->sig, s->size);
	case TPM_ALG_MLDSA:
		return wr_tpm2b(w, s->sig, s->size);
	default:
		return TPM_RC_SCHEME;
	}
}

/* ---- tickets, contexts ---- */

/* Any ticket type; the command checks that the tag is the one it wants. */
TPM_RC rd_ticket(struct rd *r, struct tpmt_ticket *t)
{
	TRY(rd_u16(r, &t->tag));
	t->metadata = TPM_ALG_NULL;
	switch (t->tag) {
	case TPM_ST_CREATION:
	case TPM_ST_VERIFIED:
	case TPM_ST_AUTH_SECRET:
	case TPM_ST_AUTH_SIGNED:
	case TPM_ST_HASHCHECK:
	case TPM_ST_MESSAGE_VERIFIED:
	case TPM_ST_DIGEST_VERIFIED:
		break;
	default:
		return TPM_RC_TAG;
	}
	TRY(rd_rh_hierarchy(r, &t->hierarchy, true));
	if (t->tag == TPM_ST_DIGEST_VERIFIED) {
		/* TPMU_TK_VERIFIED_META.digestVerified: a hash, or SHAKE256 for an external mu */
		TRY(rd_u16(r, &t->metadata));
		if (!hash_len(t->metadata) && t->metadata != TPM_ALG_SHAKE256)
			return TPM_RC_HASH;
	}
	return rd_tpm2b_digest(r, &t->digest);
}

TPM_RC wr_ticket(struct wr *w, const struct tpmt_ticket *t)
{
	TRY(wr_u16(w, t->tag));
	TRY(wr_u32(w, t->hierarchy));
	if (t->tag == TPM_ST_DIGEST_VERIFIED)
		TRY(wr_u16(w, t->metadata));
	return wr_tpm2b_digest(w, &t->digest);
}

TPM_RC rd_signature_ctx(struct rd *r, struct tpm2b_signature_ctx *c)
{
	return rd_tpm2b(r, c->b, sizeof(c->b), &c->size);
}

TPM_RC rd_signature_hint(struct rd *r)
{
	uint8_t hint[MAX_SIGNATURE_HINT];
	uint16_t size;

	TRY(rd_tpm2b(r, hint, sizeof(hint), &size));
	return size == 0 ? TPM_RC_SUCCESS : TPM_RC_VALUE;
}

/* TPMI_DH_SAVED: a session handle, or 0x80000000 (object), 0x80000001 (sequence),
 * 0x80000002 (stClear object). */
static bool saved_handle_ok(TPM_HANDLE h)
{
	uint32_t range = h & TPM_HR_RANGE_MASK;

	return range == TPM_HR_HMAC_SESSION || range == TPM_HR_POLICY_SESSION ||
	       (h >= 0x80000000u && h <= 0x80000002u);
}

TPM_RC rd_context(struct rd *r, struct tpms_context *c)
{
	TRY(rd_u64(r, &c->sequence));
	TRY(rd_u32(r, &c->saved_handle));
	if (!saved_handle_ok(c->saved_handle))
		return TPM_RC_VALUE;
	TRY(rd_rh_hierarchy(r, &c->hierarchy, true));
	return rd_tpm2b(r, c->blob, sizeof(c->blob), &c->blob_size);
}

TPM_RC wr_context(struct wr *w, const struct tpms_context *c)
{
	TRY(wr_u64(w, c->sequence));
	TRY(wr_u32(w, c->saved_handle));
	TRY(wr_u32(w, c->hierarchy));
	return wr_tpm2b(w, c->blob, c->blob_size);
}
