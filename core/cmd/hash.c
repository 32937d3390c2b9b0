/* Hash, HashSequenceStart, HMAC_Start, SequenceUpdate, SequenceComplete,
 * EventSequenceComplete (Part 3 §15.4, §17) */
#include <string.h>

#include "cmd/pq_seq.h"
#include "pcr.h"
#include "scheme.h"
#include "ticket.h"

#define GENERATED_LEN 4 /* TPM_GENERATED_VALUE, big-endian */

static const uint8_t generated[GENERATED_LEN] = { 0xFF, 0x54, 0x43, 0x47 };

/* TPMI_RH_HIERARCHY+ */
static TPM_RC rd_hierarchy(struct rd *r, TPM_HANDLE *h)
{
	TRY(rd_u32(r, h));
	switch (*h) {
	case TPM_RH_OWNER:
	case TPM_RH_ENDORSEMENT:
	case TPM_RH_PLATFORM:
	case TPM_RH_NULL:
		return TPM_RC_SUCCESS;
	default:
		return TPM_RC_VALUE;
	}
}

static TPM_RC rd_buffer(struct rd *r, struct tpm2b_max_buffer *b)
{
	return rd_tpm2b(r, b->b, sizeof(b->b), &b->size);
}

/* Data that starts with TPM_GENERATED_VALUE could be forged attestation data: the TPM will
 * not vouch (with a ticket) that it hashed it, so a restricted key will not sign it. */
static bool starts_generated(const uint8_t *data, size_t len)
{
	return len >= GENERATED_LEN && memcmp(data, generated, GENERATED_LEN) == 0;
}

static TPM_RC hash(struct cmd *c)
{
	struct tpm2b_max_buffer data;
	struct tpm2b_digest out;
	struct tpmt_ticket t;
	TPM_ALG_ID alg;
	TPM_HANDLE hierarchy;

	TRYP(1, rd_buffer(&c->in, &data));
	TRYP(2, rd_hash_alg(&c->in, &alg, false));
	TRYP(3, rd_hierarchy(&c->in, &hierarchy));
	TRY(cmd_params_done(c));
	out.size = (uint16_t)crypto_hash_size(alg);
	TRY(crypto_hash(alg, data.b, data.size, out.b));
	if (starts_generated(data.b, data.size))
		ticket_null(&t, TPM_ST_HASHCHECK);
	else
		TRY(ticket_hashcheck(c->e, hierarchy, &out, &t));
	TRY(wr_tpm2b_digest(&c->out, &out));
	return wr_ticket(&c->out, &t);
}

/* ---- sequences ---- */

/* What a sequence object shares with the reference's: no type, no Name, NULL hierarchy,
 * exempt from dictionary-attack lockout; its authValue is the one given at the start. */
static TPM_RC seq_alloc(struct cmd *c, enum object_kind kind, const struct tpm2b_digest *auth,
			struct object **out)
{
	struct object *o;

	TRY(object_alloc(c->client, kind, &o));
	o->hierarchy = TPM_RH_NULL;
	o->has_sensitive = true;
	o->pub.type = TPM_ALG_NULL;
	o->pub.name_alg = TPM_ALG_NULL;
	o->pub.attributes = TPMA_OBJECT_NODA;
	o->sens.type = TPM_ALG_NULL;
	o->sens.auth_value = *auth;
	o->seq_ticket_ok = true;
	*out = o;
	return TPM_RC_SUCCESS;
}

/* One hash per algorithm a PCR bank can have, allocated or not, as PCR_Event answers; only
 * the allocated banks are extended. */
static TPM_RC event_start(struct object *o)
{
	for (size_t i = 0; i < pcr_bank_alg_count() && i < MAX_PCR_BANKS; i++) {
		o->event_alg[i] = pcr_bank_alg(i);
		TRY(crypto_hash_start(&o->event[i], o->event_alg[i]));
		o->event_banks = (unsigned)i + 1;
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC hash_sequence_start(struct cmd *c)
{
	struct tpm2b_digest auth;
	struct object *o;
	TPM_ALG_ID alg;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	rc = rc_param(rd_hash_alg(&c->in, &alg, true), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = seq_alloc(c, alg == TPM_ALG_NULL ? OBJ_EVENT_SEQ : OBJ_HASH_SEQ, &auth, &o);
	crypto_wipe(&auth, sizeof(auth));
	TRY(rc);
	if (alg == TPM_ALG_NULL)
		rc = event_start(o);
	else
		rc = crypto_hash_start(&o->hash, alg);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	c->rsp_handle = o->handle;
	return TPM_RC_SUCCESS;
}

static TPM_RC hmac_start(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct tpm2b_digest auth;
	struct object *o;
	TPM_ALG_ID in, alg;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	rc = rc_param(rd_mac_scheme(&c->in, &in), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = scheme_hmac(key, in, &alg);
	if (rc == TPM_RC_SUCCESS)
		rc = seq_alloc(c, alg == TPM_ALG_CMAC ? OBJ_CMAC_SEQ : OBJ_HMAC_SEQ, &auth, &o);
	crypto_wipe(&auth, sizeof(auth));
	TRY(rc);
	if (alg == TPM_ALG_CMAC)
		rc = crypto_cmac_start(&o->cmac, key->sens.sensitive.b, key->sens.sensitive.size);
	else
		rc = crypto_hmac_start(&o->hmac, alg, key->sens.sensitive.b,
				       key->sens.sensitive.size);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	c->rsp_handle = o->handle;
	return TPM_RC_SUCCESS;
}

/* Remember the first bytes of a hash sequence, for the ticket decision at the end. */
static void note_first_bytes(struct object *o, const struct tpm2b_max_buffer *b)
{
	for (size_t i = 0; i < b->size && o->seq_first_len < GENERATED_LEN; i++) {
		o->seq_first[o->seq_first_len++] = b->b[i];
		if (o->seq_first_len == GENERATED_LEN)
			o->seq_ticket_ok = !starts_generated(o->seq_first, GENERATED_LEN);
	}
}

static TPM_RC seq_update(struct object *o, const struct tpm2b_max_buffer *b)
{
	switch (o->kind) {
	case OBJ_HASH_SEQ:
		note_first_bytes(o, b);
		return crypto_hash_update(&o->hash, b->b, b->size);
	case OBJ_HMAC_SEQ:
		return crypto_hmac_update(&o->hmac, b->b, b->size);
	case OBJ_CMAC_SEQ:
		return crypto_cmac_update(&o->cmac, b->b, b->size);
	case OBJ_EVENT_SEQ:
		for (unsigned i = 0; i < o->event_banks; i++)
			TRY(crypto_hash_update(&o->event[i], b->b, b->size));
		return TPM_RC_SUCCESS;
	case OBJ_SIGN_SEQ: /* v1.85 sign and verify sequences (cmd/pq_seq.c) */
	case OBJ_VERIFY_SEQ:
		return sig_seq_update(o, b->b, b->size);
	default:
		return TPM_RC_MODE;
	}
}

static TPM_RC sequence_update(struct cmd *c)
{
	struct tpm2b_max_buffer buf;

	TRYP(1, rd_buffer(&c->in, &buf));
	TRY(cmd_params_done(c));
	if (c->obj[0]->kind == OBJ_KEY)
		return rc_handle(TPM_RC_MODE, 1);
	return seq_update(c->obj[0], &buf);
}

/* The sequence object is gone once the command succeeds. */
static void seq_done(struct cmd *c, unsigned slot)
{
	object_release(c->client, c->obj[slot]);
	c->obj[slot] = NULL;
}

static TPM_RC sequence_complete(struct cmd *c)
{
	struct object *o = c->obj[0];
	struct tpm2b_max_buffer buf;
	struct tpm2b_digest result;
	struct tpmt_ticket t;
	TPM_HANDLE hierarchy;

	TRYP(1, rd_buffer(&c->in, &buf));
	TRYP(2, rd_hierarchy(&c->in, &hierarchy));
	TRY(cmd_params_done(c));
	if (o->kind != OBJ_HASH_SEQ && o->kind != OBJ_HMAC_SEQ && o->kind != OBJ_CMAC_SEQ)
		return rc_handle(TPM_RC_MODE, 1);
	TRY(seq_update(o, &buf));
	ticket_null(&t, TPM_ST_HASHCHECK);
	if (o->kind == OBJ_HASH_SEQ) {
		result.size = (uint16_t)crypto_hash_size(o->hash.alg);
		TRY(crypto_hash_finish(&o->hash, result.b));
		if (o->seq_ticket_ok)
			TRY(ticket_hashcheck(c->e, hierarchy, &result, &t));
	} else if (o->kind == OBJ_CMAC_SEQ) {
		result.size = CRYPTO_CMAC_SIZE;
		TRY(crypto_cmac_finish(&o->cmac, result.b));
	} else {
		/* a MAC is not a digest a key may sign: no ticket */
		result.size = (uint16_t)crypto_hash_size(o->hmac.outer.alg);
		TRY(crypto_hmac_finish(&o->hmac, result.b));
	}
	seq_done(c, 0);
	TRY(wr_tpm2b_digest(&c->out, &result));
	return wr_ticket(&c->out, &t);
}

static TPM_RC event_sequence_complete(struct cmd *c)
{
	TPM_HANDLE pcr = c->handle[0];
	struct object *o = c->obj[1];
	struct tpm2b_max_buffer buf;
	uint8_t digest[MAX_PCR_BANKS][MAX_DIGEST_SIZE];

	TRYP(1, rd_buffer(&c->in, &buf));
	TRY(cmd_params_done(c));
	if (o->kind != OBJ_EVENT_SEQ)
		return rc_handle(TPM_RC_MODE, 2);
	if (pcr != TPM_RH_NULL && !pcr_extend_allowed(pcr, c->locality))
		return TPM_RC_LOCALITY;
	TRY(seq_update(o, &buf));
	for (unsigned i = 0; i < o->event_banks; i++)
		TRY(crypto_hash_finish(&o->event[i], digest[i]));
	if (pcr != TPM_RH_NULL)
		for (unsigned i = 0; i < o->event_banks; i++)
			TRY(pcr_extend_digest(c->e, pcr, o->event_alg[i], digest[i]));

	/* TPML_DIGEST_VALUES: one TPMT_HA per bank */
	TRY(wr_u32(&c->out, o->event_banks));
	for (unsigned i = 0; i < o->event_banks; i++) {
		TRY(wr_u16(&c->out, o->event_alg[i]));
		TRY(wr_bytes(&c->out, digest[i], crypto_hash_size(o->event_alg[i])));
	}
	seq_done(c, 1);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_hash[] = {
	{ .code = TPM_CC_SequenceComplete, .name = "SequenceComplete", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT,
	  .run = sequence_complete },
	{ .code = TPM_CC_HMAC_Start, .name = "HMAC_Start", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_RHANDLE, .run = hmac_start },
	{ .code = TPM_CC_SequenceUpdate, .name = "SequenceUpdate", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_READS_STATE,
	  .run = sequence_update },
	{ .code = TPM_CC_Hash, .name = "Hash",
	  .flags = CMD_PARAM_IN | CMD_PARAM_OUT | CMD_READS_STATE, .run = hash },
	{ .code = TPM_CC_EventSequenceComplete, .name = "EventSequenceComplete", .handles = 2,
	  .auth = { AUTH_USER, AUTH_USER }, .htype = { HK_PCR | HK_NULL, HK_OBJECT },
	  .flags = CMD_PARAM_IN, .run = event_sequence_complete },
	{ .code = TPM_CC_HashSequenceStart, .name = "HashSequenceStart",
	  .flags = CMD_PARAM_IN | CMD_RHANDLE | CMD_READS_STATE, .run = hash_sequence_start },
	{ 0 },
};
