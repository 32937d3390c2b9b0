/* Structures in their wire form: templates, public keys, signatures, tickets. The parsing is
 * core's (types_marshal.c), so the client reads exactly what the engine writes. */
#include <stdlib.h>
#include <string.h>

#include "tss_int.h"
#include "types.h"

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

TPM_RC tss_rd_signature(struct rd *r, struct pqtpm_tss_signature *s)
{
	struct tpmt_signature *sig = malloc(sizeof(*sig));
	size_t start = r->off;
	TPM_RC rc;

	if (!sig)
		return PQTPM_TSS_RC_IO;
	rc = rd_signature(r, sig) ? PQTPM_TSS_RC_MALFORMED : TPM_RC_SUCCESS;
	free(sig);
	TRY(rc);
	return copy_span(r, start, s->b, sizeof(s->b), &s->size);
}

TPM_RC tss_rd_ticket(struct rd *r, struct pqtpm_tss_ticket *t)
{
	struct tpmt_ticket tk;
	size_t start = r->off;

	if (rd_ticket(r, &tk))
		return PQTPM_TSS_RC_MALFORMED;
	return copy_span(r, start, t->b, sizeof(t->b), &t->size);
}

TPM_RC tss_rd_public(struct rd *r, struct pqtpm_tss_public *p)
{
	struct tpmt_public *pub = malloc(sizeof(*pub));
	struct rd sub;
	uint16_t size;
	TPM_RC rc = PQTPM_TSS_RC_MALFORMED;

	if (!pub)
		return PQTPM_TSS_RC_IO;
	if (rd_sub(r, &sub, &size) == TPM_RC_SUCCESS && size <= sizeof(p->b) &&
	    rd_public(&sub, pub) == TPM_RC_SUCCESS && rd_left(&sub) == 0) {
		memcpy(p->b, sub.buf, size);
		p->size = size;
		rc = TPM_RC_SUCCESS;
	}
	free(pub);
	return rc;
}

/* A parsed copy of a public area (heap: it holds up to 2.6 KB of key). */
static struct tpmt_public *parse_public(const struct pqtpm_tss_public *p)
{
	struct tpmt_public *pub = malloc(sizeof(*pub));
	struct rd r;

	if (!pub)
		return NULL;
	rd_init(&r, p->b, p->size);
	if (rd_public(&r, pub) || rd_left(&r)) {
		free(pub);
		return NULL;
	}
	return pub;
}

TPM_RC pqtpm_tss_template_public(const struct pqtpm_tss_template *t,
				 struct pqtpm_tss_public *out)
{
	struct tpmt_public *p = calloc(1, sizeof(*p));
	uint32_t storage = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	struct wr w;
	TPM_RC rc;

	if (!p)
		return PQTPM_TSS_RC_IO;
	if (t->policy_len > sizeof(p->auth_policy.b)) {
		free(p);
		return PQTPM_TSS_RC_BAD_VALUE;
	}
	p->type = t->type;
	p->name_alg = t->name_alg ? t->name_alg : TPM_ALG_SHA256;
	p->attributes = t->attributes;
	p->auth_policy.size = t->policy_len;
	if (t->policy_len)
		memcpy(p->auth_policy.b, t->policy, t->policy_len);
	p->symmetric.alg = TPM_ALG_NULL;
	if ((t->attributes & storage) == storage) {
		p->symmetric.alg = TPM_ALG_AES;
		p->symmetric.key_bits = t->sym_bits ? t->sym_bits : 128;
		p->symmetric.mode = TPM_ALG_CFB;
	}
	p->scheme.scheme = t->scheme ? t->scheme : TPM_ALG_NULL;
	p->scheme.hash_alg = t->scheme_hash ? t->scheme_hash : TPM_ALG_NULL;
	p->scheme.kdf = TPM_ALG_NULL;
	p->key_bits = t->rsa_bits ? t->rsa_bits : 2048;
	p->curve_id = t->curve ? t->curve : TPM_ECC_NIST_P256;
	p->kdf.scheme = p->kdf.hash_alg = p->kdf.kdf = TPM_ALG_NULL;
	p->parameter_set = t->parameter_set;
	p->allow_external_mu = t->allow_external_mu;
	p->pre_hash = t->pre_hash ? t->pre_hash : TPM_ALG_SHA256;
	wr_init(&w, out->b, sizeof(out->b));
	rc = wr_public(&w, p) ? PQTPM_TSS_RC_BAD_VALUE : TPM_RC_SUCCESS;
	out->size = (uint16_t)w.off;
	free(p);
	return rc;
}

TPM_ALG_ID pqtpm_tss_public_type(const struct pqtpm_tss_public *pub)
{
	return pub->size >= 2 ? (TPM_ALG_ID)(pub->b[0] << 8 | pub->b[1]) : TPM_ALG_ERROR;
}

/* unique is the last field of every public area but ECC's (x, y: x returned) */
TPM_RC pqtpm_tss_public_key(const struct pqtpm_tss_public *pub, const uint8_t **key,
			    size_t *len)
{
	struct tpmt_public *p = parse_public(pub);
	size_t n;

	if (!p)
		return PQTPM_TSS_RC_MALFORMED;
	if (p->type == TPM_ALG_ECC) {
		n = p->x.size + 2 + p->y.size + 2;
		*len = p->x.size;
	} else {
		n = p->unique.size;
		*len = n;
	}
	free(p);
	if (n > pub->size)
		return PQTPM_TSS_RC_MALFORMED;
	*key = pub->b + pub->size - n;
	if (pqtpm_tss_public_type(pub) == TPM_ALG_ECC)
		*key += 2;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_signature_parse(const struct pqtpm_tss_signature *s, TPM_ALG_ID *alg,
				 TPM_ALG_ID *hash, const uint8_t **sig, size_t *len)
{
	struct rd r;
	uint16_t a, h = TPM_ALG_NULL, n;

	rd_init(&r, s->b, s->size);
	if (rd_u16(&r, &a))
		return PQTPM_TSS_RC_MALFORMED;
	switch (a) {
	case TPM_ALG_HASH_MLDSA:
	case TPM_ALG_RSASSA:
	case TPM_ALG_RSAPSS:
		if (rd_u16(&r, &h))
			return PQTPM_TSS_RC_MALFORMED;
		/* fall through */
	case TPM_ALG_MLDSA:
		if (rd_u16(&r, &n) || n != rd_left(&r))
			return PQTPM_TSS_RC_MALFORMED;
		*sig = r.buf + r.off;
		*len = n;
		break;
	default:
		return PQTPM_TSS_RC_BAD_VALUE;
	}
	*alg = a;
	*hash = h;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_signature_make(TPM_ALG_ID alg, TPM_ALG_ID hash, const uint8_t *sig,
				size_t len, struct pqtpm_tss_signature *out)
{
	struct wr w;

	if (len > 4627)
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, out->b, sizeof(out->b));
	if (wr_u16(&w, alg))
		return PQTPM_TSS_RC_BAD_VALUE;
	if (alg != TPM_ALG_MLDSA && wr_u16(&w, hash))
		return PQTPM_TSS_RC_BAD_VALUE;
	if (wr_tpm2b(&w, sig, (uint16_t)len))
		return PQTPM_TSS_RC_BAD_VALUE;
	out->size = (uint16_t)w.off;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_ticket_parse(const struct pqtpm_tss_ticket *tk, uint16_t *tag,
			      TPM_HANDLE *hierarchy, TPM_ALG_ID *metadata)
{
	struct tpmt_ticket t;
	struct rd r;

	rd_init(&r, tk->b, tk->size);
	if (rd_ticket(&r, &t) || rd_left(&r))
		return PQTPM_TSS_RC_MALFORMED;
	if (tag)
		*tag = t.tag;
	if (hierarchy)
		*hierarchy = t.hierarchy;
	if (metadata)
		*metadata = t.metadata;
	return TPM_RC_SUCCESS;
}
