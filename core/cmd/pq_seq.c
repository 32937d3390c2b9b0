/* Sign and verify sequence state (see pq_seq.h). */
#include <string.h>

#include "cmd/pq_seq.h"
#include "scheme.h"
#include "ticket.h"

#define GENERATED_LEN 4

static const uint8_t generated[GENERATED_LEN] = { 0xFF, 0x54, 0x43, 0x47 };

static bool known_scheme(TPM_ALG_ID s)
{
	switch (s) {
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
	case TPM_ALG_RSASSA:
	case TPM_ALG_RSAPSS:
	case TPM_ALG_ECDSA:
	case TPM_ALG_HMAC:
		return true;
	default:
		return false;
	}
}

/* Which scheme and hash the key's signatures use; the hash runs in seq->hash. */
static TPM_RC choose(struct object *seq, const struct object *key,
		     const struct tpm2b_signature_ctx *ctx)
{
	struct sig_seq *s = &seq->sig;
	struct tpmt_scheme ks;

	scheme_of_key(&key->pub, &ks);
	s->scheme = ks.scheme;
	s->hash_alg = ks.hash_alg;
	s->parameter_set = key->pub.parameter_set;
	switch (ks.scheme) {
	case TPM_ALG_MLDSA:
		s->hash_alg = TPM_ALG_NULL;
		scheme_mldsa_mu_begin(object_mldsa_tr(key), ctx->b, ctx->size, &s->mu);
		return TPM_RC_SUCCESS;
	case TPM_ALG_HASH_MLDSA:
		if (ks.hash_alg != TPM_ALG_SHA256 && ks.hash_alg != TPM_ALG_SHA384 &&
		    ks.hash_alg != TPM_ALG_SHA512)
			return TPM_RC_HASH;
		break;
	case TPM_ALG_NULL:
		return TPM_RC_SCHEME;
	default:
		if (!known_scheme(ks.scheme))
			return TPM_RC_SCHEME;
		/* a context string is ML-DSA's alone */
		if (ctx->size)
			return TPM_RC_VALUE;
		break;
	}
	return crypto_hash_start(&seq->hash, s->hash_alg);
}

TPM_RC sig_seq_begin(struct pqtpm_engine *e, struct object *seq, const struct object *key,
		     const struct tpm2b_signature_ctx *ctx, bool verify)
{
	struct sig_seq *s = &seq->sig;

	memset(s, 0, sizeof(*s));
	s->key_name = key->name;
	s->key_hierarchy = key->hierarchy;
	s->ctx = *ctx;
	seq->seq_first_len = 0;
	TRY(choose(seq, key, ctx));
	/* a key without a Name cannot be named in a ticket; a ticket has no place for the
	 * context, so one is issued only for the empty context that PolicyAuthorize and
	 * PolicySigned use (a signature made for another purpose never approves a policy) */
	if (verify && key->pub.name_alg != TPM_ALG_NULL && ctx->size == 0)
		TRY(ticket_message_start(e, key->hierarchy, &seq->hmac, &s->ticket));
	return TPM_RC_SUCCESS;
}

TPM_RC sig_seq_update(struct object *seq, const uint8_t *data, size_t len)
{
	struct sig_seq *s = &seq->sig;

	for (size_t i = 0; i < len && seq->seq_first_len < GENERATED_LEN; i++)
		seq->seq_first[seq->seq_first_len++] = data[i];
	if (s->scheme == TPM_ALG_MLDSA)
		keccak_absorb(&s->mu, data, len);
	else
		TRY(crypto_hash_update(&seq->hash, data, len));
	if (s->ticket)
		TRY(ticket_message_update(&seq->hmac, data, len));
	return TPM_RC_SUCCESS;
}

TPM_RC sig_seq_same_key(const struct object *seq, const struct object *key)
{
	const struct sig_seq *s = &seq->sig;

	if (key->kind != OBJ_KEY || key->hierarchy != s->key_hierarchy ||
	    key->name.size != s->key_name.size ||
	    memcmp(key->name.b, s->key_name.b, s->key_name.size) != 0)
		return TPM_RC_SIGN_CONTEXT_KEY;
	return TPM_RC_SUCCESS;
}

bool sig_seq_starts_generated(const struct object *seq, const uint8_t *last, size_t len)
{
	uint8_t first[GENERATED_LEN];
	size_t n = seq->seq_first_len;

	memcpy(first, seq->seq_first, n);
	for (size_t i = 0; i < len && n < GENERATED_LEN; i++)
		first[n++] = last[i];
	return n == GENERATED_LEN && memcmp(first, generated, GENERATED_LEN) == 0;
}

TPM_RC sig_seq_finish(const struct object *seq, const struct object *key, const uint8_t *last,
		      size_t len, struct sig_seq_msg *m)
{
	const struct sig_seq *s = &seq->sig;
	struct crypto_hash_ctx h;
	struct keccak_ctx k;
	TPM_RC rc;

	memset(m, 0, sizeof(*m));
	m->scheme.scheme = s->scheme;
	m->scheme.hash_alg = s->hash_alg;
	m->scheme.kdf = TPM_ALG_NULL;
	if (s->scheme == TPM_ALG_MLDSA) {
		k = s->mu;
		keccak_absorb(&k, last, len);
		scheme_mldsa_mu_end(&k, m->mu);
		return TPM_RC_SUCCESS;
	}
	h = seq->hash;
	m->digest.size = (uint16_t)crypto_hash_size(s->hash_alg);
	rc = crypto_hash_update(&h, last, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, m->digest.b);
	crypto_wipe(&h, sizeof(h));
	if (rc != TPM_RC_SUCCESS || s->scheme != TPM_ALG_HASH_MLDSA)
		return rc;
	return scheme_mldsa_mu_hash(object_mldsa_tr(key), s->hash_alg, m->digest.b, m->digest.size,
				    s->ctx.b, s->ctx.size, m->mu);
}

void sig_seq_msg_wipe(struct sig_seq_msg *m)
{
	crypto_wipe(m, sizeof(*m));
}

static bool mldsa_kind(TPM_ALG_ID scheme)
{
	return scheme == TPM_ALG_MLDSA || scheme == TPM_ALG_HASH_MLDSA;
}

TPM_RC sig_seq_sign(const struct sig_seq_msg *m, const struct key_material *key,
		    struct tpmt_signature *sig)
{
	if (mldsa_kind(m->scheme.scheme))
		return scheme_mldsa_sign_mu(key, m->mu, sig);
	return scheme_sign_digest(key, &m->scheme, &m->digest, sig);
}

TPM_RC sig_seq_check_scheme(const struct object *seq, const struct tpmt_signature *sig)
{
	const struct sig_seq *s = &seq->sig;

	if (sig->sig_alg != s->scheme ||
	    (s->scheme != TPM_ALG_MLDSA && sig->hash != s->hash_alg))
		return TPM_RC_SCHEME;
	return TPM_RC_SUCCESS;
}

TPM_RC sig_seq_verify(const struct sig_seq_msg *m, const struct key_material *key,
		      const struct tpmt_signature *sig)
{
	if (mldsa_kind(m->scheme.scheme))
		return scheme_mldsa_verify_mu(key, m->mu, sig);
	return scheme_verify(key, &m->digest, sig);
}

TPM_RC sig_seq_ticket(const struct object *seq, struct tpmt_ticket *t)
{
	const struct sig_seq *s = &seq->sig;
	struct crypto_hmac_ctx h;
	TPM_RC rc;

	if (s->ticket)
		h = seq->hmac;
	rc = ticket_message_finish(&h, s->ticket, s->key_hierarchy, &s->key_name, t);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

/* ---- context ----
 * key name, hierarchy u32, scheme u16, hash u16, parameterSet u16, ctx TPM2B, ticket u8,
 * SHAKE state size u16 + bytes, then the message hash (not for MLDSA) and the ticket HMAC
 * (when running) as plain context bytes. */

TPM_RC sig_seq_encode(const struct object *seq, struct wr *w)
{
	const struct sig_seq *s = &seq->sig;

	TRY(wr_tpm2b_name(w, &s->key_name));
	TRY(wr_u32(w, s->key_hierarchy));
	TRY(wr_u16(w, s->scheme));
	TRY(wr_u16(w, s->hash_alg));
	TRY(wr_u16(w, s->parameter_set));
	TRY(wr_tpm2b(w, s->ctx.b, s->ctx.size));
	TRY(wr_u8(w, s->ticket));
	TRY(wr_u16(w, sizeof(s->mu)));
	TRY(wr_bytes(w, &s->mu, sizeof(s->mu)));
	if (s->scheme != TPM_ALG_MLDSA)
		TRY(wr_bytes(w, &seq->hash, sizeof(seq->hash)));
	if (s->ticket)
		TRY(wr_bytes(w, &seq->hmac, sizeof(seq->hmac)));
	return TPM_RC_SUCCESS;
}

static TPM_RC decode(struct rd *r, struct object *seq)
{
	struct sig_seq *s = &seq->sig;
	uint16_t mu_size;
	uint8_t ticket;

	TRY(rd_tpm2b_name(r, &s->key_name));
	TRY(rd_u32(r, &s->key_hierarchy));
	TRY(rd_u16(r, &s->scheme));
	TRY(rd_u16(r, &s->hash_alg));
	TRY(rd_u16(r, &s->parameter_set));
	TRY(rd_signature_ctx(r, &s->ctx));
	TRY(rd_u8(r, &ticket));
	TRY(rd_u16(r, &mu_size));
	if (ticket > 1 || mu_size != sizeof(s->mu) || !known_scheme(s->scheme))
		return TPM_RC_INTEGRITY;
	s->ticket = ticket;
	TRY(rd_bytes(r, &s->mu, sizeof(s->mu)));
	if (s->scheme == TPM_ALG_MLDSA &&
	    (s->mu.rate != SHAKE256_RATE || s->mu.pos >= s->mu.rate))
		return TPM_RC_INTEGRITY;
	if (s->scheme != TPM_ALG_MLDSA)
		TRY(rd_bytes(r, &seq->hash, sizeof(seq->hash)));
	if (s->ticket)
		TRY(rd_bytes(r, &seq->hmac, sizeof(seq->hmac)));
	return TPM_RC_SUCCESS;
}

TPM_RC sig_seq_decode(struct rd *r, struct object *seq)
{
	return decode(r, seq) == TPM_RC_SUCCESS ? TPM_RC_SUCCESS : TPM_RC_INTEGRITY;
}
