/* TPMT_PUBLIC of an attestation key or an EK, taken apart for the verifier (tolerant of any
 * symmetric or scheme layout a TPM may send, strict about sizes and trailing bytes). */
#include <string.h>

#include "attest_int.h"
#include "crypto/crypto.h"

static TPM_RC view2b(struct rd *r, const uint8_t **p, size_t *len)
{
	uint16_t n;

	TRY(rd_u16(r, &n));
	*len = n;
	return rd_view(r, n, p);
}

/* TPMT_SYM_DEF_OBJECT: algorithm, then key bits and mode unless NULL */
static TPM_RC skip_sym(struct rd *r)
{
	uint16_t alg, v;

	TRY(rd_u16(r, &alg));
	if (alg == TPM_ALG_NULL)
		return TPM_RC_SUCCESS;
	TRY(rd_u16(r, &v));
	return rd_u16(r, &v);
}

/* a signing scheme: algorithm, then its hash (ECDAA: and a count) */
static TPM_RC rd_scheme(struct rd *r, TPM_ALG_ID *scheme, TPM_ALG_ID *hash)
{
	uint16_t count;

	TRY(rd_u16(r, scheme));
	*hash = TPM_ALG_NULL;
	if (*scheme == TPM_ALG_NULL)
		return TPM_RC_SUCCESS;
	TRY(rd_u16(r, hash));
	return *scheme == TPM_ALG_ECDAA ? rd_u16(r, &count) : TPM_RC_SUCCESS;
}

TPM_RC ak_public_parse(const uint8_t *b, size_t len, struct ak_public *p)
{
	const uint8_t *policy;
	size_t policy_len;
	TPM_ALG_ID kdf, kdf_hash;
	uint8_t ext_mu;
	struct rd r;

	memset(p, 0, sizeof(*p));
	p->scheme = p->scheme_hash = TPM_ALG_NULL;
	rd_init(&r, b, len);
	TRY(rd_u16(&r, &p->type));
	TRY(rd_u16(&r, &p->name_alg));
	TRY(rd_u32(&r, &p->attributes));
	TRY(view2b(&r, &policy, &policy_len));
	switch (p->type) {
	case TPM_ALG_RSA:
		TRY(skip_sym(&r));
		TRY(rd_scheme(&r, &p->scheme, &p->scheme_hash));
		TRY(rd_u16(&r, &p->rsa_bits));
		TRY(rd_u32(&r, &p->exponent));
		TRY(view2b(&r, &p->key, &p->key_len));
		break;
	case TPM_ALG_ECC:
		TRY(skip_sym(&r));
		TRY(rd_scheme(&r, &p->scheme, &p->scheme_hash));
		TRY(rd_u16(&r, &p->curve));
		TRY(rd_scheme(&r, &kdf, &kdf_hash));
		TRY(view2b(&r, &p->key, &p->key_len));
		TRY(view2b(&r, &p->y, &p->y_len));
		break;
	case TPM_ALG_MLDSA:
		TRY(rd_u16(&r, &p->parameter_set));
		TRY(rd_u8(&r, &ext_mu));
		TRY(view2b(&r, &p->key, &p->key_len));
		p->scheme = TPM_ALG_MLDSA;
		break;
	case TPM_ALG_MLKEM: /* an EK */
		TRY(skip_sym(&r));
		TRY(rd_u16(&r, &p->parameter_set));
		TRY(view2b(&r, &p->key, &p->key_len));
		break;
	default:
		return TPM_RC_TYPE;
	}
	return rd_left(&r) ? TPM_RC_SIZE : TPM_RC_SUCCESS;
}

TPM_RC public_name(const uint8_t *b, size_t len, TPM_ALG_ID name_alg, struct pqtpm_tss_name *n)
{
	struct wr w;
	size_t hl = crypto_hash_size(name_alg);

	if (hl == 0)
		return TPM_RC_HASH;
	wr_init(&w, n->b, sizeof(n->b));
	TRY(wr_u16(&w, name_alg));
	TRY(crypto_hash(name_alg, b, len, n->b + 2));
	n->size = (uint16_t)(2 + hl);
	return TPM_RC_SUCCESS;
}

TPM_ALG_ID ak_quote_hash(const struct ak_public *p)
{
	return p->scheme == TPM_ALG_MLDSA ? p->name_alg : p->scheme_hash;
}

const char *hash_name(TPM_ALG_ID h)
{
	switch (h) {
	case TPM_ALG_SHA1: return "sha1";
	case TPM_ALG_SHA256: return "sha256";
	case TPM_ALG_SHA384: return "sha384";
	case TPM_ALG_SHA512: return "sha512";
	default: return NULL;
	}
}

TPM_ALG_ID hash_by_name(const char *name)
{
	static const TPM_ALG_ID all[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					  TPM_ALG_SHA512 };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(name, hash_name(all[i])) == 0)
			return all[i];
	return TPM_ALG_NULL;
}
