/* Context management (Part 3 §28): ContextSave, ContextLoad, FlushContext. A resource
 * manager (tpm2-abrmd) saves and reloads every object and sequence around every command, so
 * a round trip gives back exactly the object that was saved. Sessions are saved, loaded and
 * flushed through session.h (session_context.c), with the same protection (context_blob.h). */
#include <stdlib.h>

#include "cmd/pq_seq.h"
#include "context_blob.h"
#include "engine_int.h"
#include "session.h"

/* ---- the object inside a context blob ----
 * kind u8, flags u8, hierarchy u32, name TPM2B_NAME, qualifiedName TPM2B_NAME, then
 *   key:       TPM2B_PUBLIC, and TPMT_SENSITIVE if it has one;
 *   sequence:  type u16, nameAlg u16, attributes u32, sensitive type u16, auth
 *              TPM2B_DIGEST, firstLen u8, first[4], hash context size u16, then the hash
 *              or HMAC context bytes, or for an event sequence a bank count u8 and per
 *              bank alg u16 + context bytes.
 * Hash contexts are plain data (crypto.h); their size is recorded so that a blob from a
 * build with another layout is refused rather than misread. */
#define F_SENSITIVE 0x01u
#define F_PRIMARY 0x02u
#define F_EXTERNAL 0x04u
#define F_TICKET_OK 0x08u
#define F_ALL 0x0Fu

static TPM_HANDLE saved_handle_for(const struct object *o)
{
	if (o->kind != OBJ_KEY)
		return CONTEXT_HANDLE_SEQUENCE;
	return o->pub.attributes & TPMA_OBJECT_STCLEAR ? CONTEXT_HANDLE_STCLEAR
						       : CONTEXT_HANDLE_OBJECT;
}

static TPM_RC encode_sequence(const struct object *o, struct wr *w)
{
	TRY(wr_u16(w, o->pub.type));
	TRY(wr_u16(w, o->pub.name_alg));
	TRY(wr_u32(w, o->pub.attributes));
	TRY(wr_u16(w, o->sens.type));
	TRY(wr_tpm2b_digest(w, &o->sens.auth_value));
	TRY(wr_u8(w, o->seq_first_len));
	TRY(wr_bytes(w, o->seq_first, sizeof(o->seq_first)));
	TRY(wr_u16(w, sizeof(struct crypto_hash_ctx)));
	switch (o->kind) {
	case OBJ_HASH_SEQ:
		return wr_bytes(w, &o->hash, sizeof(o->hash));
	case OBJ_HMAC_SEQ:
		return wr_bytes(w, &o->hmac, sizeof(o->hmac));
	case OBJ_CMAC_SEQ:
		return wr_bytes(w, &o->cmac, sizeof(o->cmac));
	case OBJ_EVENT_SEQ:
		TRY(wr_u8(w, (uint8_t)o->event_banks));
		for (unsigned i = 0; i < o->event_banks; i++) {
			TRY(wr_u16(w, o->event_alg[i]));
			TRY(wr_bytes(w, &o->event[i], sizeof(o->event[i])));
		}
		return TPM_RC_SUCCESS;
	case OBJ_SIGN_SEQ:
	case OBJ_VERIFY_SEQ:
		return sig_seq_encode(o, w);
	default:
		return TPM_RC_FAILURE;
	}
}

static TPM_RC encode_object(const struct object *o, struct wr *w)
{
	uint8_t flags = (o->has_sensitive ? F_SENSITIVE : 0) | (o->is_primary ? F_PRIMARY : 0) |
			(o->external ? F_EXTERNAL : 0) | (o->seq_ticket_ok ? F_TICKET_OK : 0);

	TRY(wr_u8(w, (uint8_t)o->kind));
	TRY(wr_u8(w, flags));
	TRY(wr_u32(w, o->hierarchy));
	TRY(wr_tpm2b_name(w, &o->name));
	TRY(wr_tpm2b_name(w, &o->qualified_name));
	if (o->kind != OBJ_KEY)
		return encode_sequence(o, w);
	TRY(wr_tpm2b_public(w, &o->pub));
	return o->has_sensitive ? wr_sensitive(w, &o->sens) : TPM_RC_SUCCESS;
}

static TPM_RC decode_sequence(struct rd *r, struct object *o)
{
	uint16_t ctx_size;
	uint8_t banks;

	TRY(rd_u16(r, &o->pub.type));
	TRY(rd_u16(r, &o->pub.name_alg));
	TRY(rd_u32(r, &o->pub.attributes));
	TRY(rd_u16(r, &o->sens.type));
	TRY(rd_tpm2b_digest(r, &o->sens.auth_value));
	TRY(rd_u8(r, &o->seq_first_len));
	TRY(rd_bytes(r, o->seq_first, sizeof(o->seq_first)));
	TRY(rd_u16(r, &ctx_size));
	if (ctx_size != sizeof(struct crypto_hash_ctx) || o->seq_first_len > sizeof(o->seq_first))
		return TPM_RC_INTEGRITY;
	switch (o->kind) {
	case OBJ_HASH_SEQ:
		return rd_bytes(r, &o->hash, sizeof(o->hash));
	case OBJ_HMAC_SEQ:
		return rd_bytes(r, &o->hmac, sizeof(o->hmac));
	case OBJ_CMAC_SEQ:
		TRY(rd_bytes(r, &o->cmac, sizeof(o->cmac)));
		return o->cmac.keylen <= sizeof(o->cmac.key) && o->cmac.n <= sizeof(o->cmac.buf)
			       ? TPM_RC_SUCCESS
			       : TPM_RC_INTEGRITY;
	case OBJ_EVENT_SEQ:
		TRY(rd_u8(r, &banks));
		if (banks > MAX_PCR_BANKS)
			return TPM_RC_INTEGRITY;
		o->event_banks = banks;
		for (unsigned i = 0; i < banks; i++) {
			TRY(rd_u16(r, &o->event_alg[i]));
			TRY(rd_bytes(r, &o->event[i], sizeof(o->event[i])));
		}
		return TPM_RC_SUCCESS;
	case OBJ_SIGN_SEQ:
	case OBJ_VERIFY_SEQ:
		return sig_seq_decode(r, o);
	default:
		return TPM_RC_INTEGRITY;
	}
}

static TPM_RC decode_fields(struct rd *r, struct object *o)
{
	uint8_t kind, flags;

	TRY(rd_u8(r, &kind));
	TRY(rd_u8(r, &flags));
	if (kind > OBJ_CMAC_SEQ || (flags & ~F_ALL))
		return TPM_RC_INTEGRITY;
	o->kind = (enum object_kind)kind;
	o->has_sensitive = flags & F_SENSITIVE;
	o->is_primary = flags & F_PRIMARY;
	o->external = flags & F_EXTERNAL;
	o->seq_ticket_ok = flags & F_TICKET_OK;
	TRY(rd_u32(r, &o->hierarchy));
	TRY(rd_tpm2b_name(r, &o->name));
	TRY(rd_tpm2b_name(r, &o->qualified_name));
	if (o->kind != OBJ_KEY)
		return decode_sequence(r, o);
	TRY(rd_tpm2b_public(r, &o->pub));
	return o->has_sensitive ? rd_sensitive(r, &o->sens) : TPM_RC_SUCCESS;
}

/* Anything that does not decode to exactly what the saved handle says was not written by
 * ContextSave: an integrity failure. */
static TPM_RC decode_object(struct rd *r, const struct tpms_context *ctx, struct object *o)
{
	if (decode_fields(r, o) != TPM_RC_SUCCESS || rd_left(r) != 0 ||
	    saved_handle_for(o) != ctx->saved_handle ||
	    (o->kind == OBJ_KEY && o->hierarchy != ctx->hierarchy))
		return TPM_RC_INTEGRITY;
	return TPM_RC_SUCCESS;
}

/* ---- ContextSave ---- */

static TPM_RC save_object(struct pqtpm_engine *e, const struct object *o,
			  struct tpms_context *ctx)
{
	uint8_t plain[CONTEXT_MAX_PLAIN];
	struct wr w;
	TPM_RC rc;

	if (e->context_counter == UINT64_MAX)
		return TPM_RC_TOO_MANY_CONTEXTS;
	volatile_dirty(e);
	ctx->sequence = ++e->context_counter;
	ctx->saved_handle = saved_handle_for(o);
	/* A sequence belongs to no hierarchy: its context dies with the TPM Reset. */
	ctx->hierarchy = o->kind == OBJ_KEY ? o->hierarchy : TPM_RH_NULL;
	wr_init(&w, plain, sizeof(plain));
	rc = encode_object(o, &w);
	if (rc == TPM_RC_SUCCESS)
		rc = context_protect(e, ctx, CONTEXT_TYPE_OBJECT, plain, w.off);
	crypto_wipe(plain, w.off);
	return rc == TPM_RC_SIZE ? TPM_RC_FAILURE : rc;
}

static TPM_RC context_save(struct cmd *c)
{
	struct tpms_context *ctx;
	TPM_RC rc;

	TRY(cmd_params_done(c));
	ctx = malloc(sizeof(*ctx));
	if (!ctx)
		return TPM_RC_MEMORY;
	if (c->obj[0])
		rc = save_object(c->e, c->obj[0], ctx);
	else
		rc = session_context_save(c, c->handle[0], ctx);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_context(&c->out, ctx);
	free(ctx);
	return rc;
}

/* ---- ContextLoad ---- */

static bool is_object_context(TPM_HANDLE h)
{
	return h == CONTEXT_HANDLE_OBJECT || h == CONTEXT_HANDLE_SEQUENCE ||
	       h == CONTEXT_HANDLE_STCLEAR;
}

/* The object in ctx into tmp, checked. Errors are about parameter 1. */
static TPM_RC open_object(struct pqtpm_engine *e, const struct tpms_context *ctx,
			  struct object *tmp)
{
	uint8_t plain[CONTEXT_MAX_PLAIN];
	struct rd entity;
	TPM_RC rc;

	rc = context_unprotect(e, ctx, CONTEXT_TYPE_OBJECT, plain, &entity);
	if (rc == TPM_RC_SUCCESS)
		rc = decode_object(&entity, ctx, tmp);
	crypto_wipe(plain, sizeof(plain));
	if (rc == TPM_RC_SUCCESS && !hier_enabled(e, ctx->hierarchy))
		rc = TPM_RC_HIERARCHY;
	return rc;
}

static TPM_RC context_load(struct cmd *c)
{
	struct tpms_context *ctx;
	struct object *tmp, *o;
	TPM_HANDLE handle;
	TPM_RC rc;

	ctx = malloc(sizeof(*ctx));
	tmp = calloc(1, sizeof(*tmp));
	if (!ctx || !tmp) {
		rc = TPM_RC_MEMORY;
		goto out;
	}
	rc = rd_context(&c->in, ctx);
	if (rc != TPM_RC_SUCCESS) {
		rc = rc_param(rc, 1);
		goto out;
	}
	rc = cmd_params_done(c);
	if (rc != TPM_RC_SUCCESS)
		goto out;
	if (!is_object_context(ctx->saved_handle)) {
		uint8_t ht = (uint8_t)(ctx->saved_handle >> 24);

		if (ht == TPM_HT_HMAC_SESSION || ht == TPM_HT_POLICY_SESSION)
			rc = session_context_load(c, ctx, &c->rsp_handle);
		else
			rc = rc_param(TPM_RC_HANDLE, 1);
		goto out;
	}
	rc = open_object(c->e, ctx, tmp);
	if (rc != TPM_RC_SUCCESS) {
		rc = rc_param(rc, 1);
		goto out;
	}
	rc = object_alloc(c->client, tmp->kind, &o);
	if (rc != TPM_RC_SUCCESS)
		goto out;
	handle = o->handle;
	*o = *tmp;
	o->handle = handle;
	c->rsp_handle = handle;
out:
	object_wipe_free(tmp);
	free(ctx);
	return rc;
}

/* ---- FlushContext ---- */

static TPM_RC flush_context(struct cmd *c)
{
	TPM_HANDLE h;
	struct object *o;

	TRYP(1, rd_u32(&c->in, &h));
	TRY(cmd_params_done(c));
	switch (h >> 24) {
	case TPM_HT_TRANSIENT:
		o = object_find(c->client, h);
		if (!o)
			return rc_param(TPM_RC_HANDLE, 1);
		object_release(c->client, o);
		return TPM_RC_SUCCESS;
	case TPM_HT_HMAC_SESSION:
	case TPM_HT_POLICY_SESSION:
		return session_flush(c->client, h) ? TPM_RC_SUCCESS : rc_param(TPM_RC_HANDLE, 1);
	default:
		/* TPMI_DH_CONTEXT: only transient objects and sessions */
		return rc_param(TPM_RC_VALUE, 1);
	}
}

const struct cmd_def cmds_context[] = {
	{ .code = TPM_CC_ContextLoad, .name = "ContextLoad",
	  .flags = CMD_RHANDLE | CMD_NO_SESSIONS | CMD_READS_STATE, .run = context_load },
	{ .code = TPM_CC_ContextSave, .name = "ContextSave", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_TRANSIENT | HK_SESSION },
	  .flags = CMD_NO_SESSIONS | CMD_READS_STATE, .run = context_save },
	{ .code = TPM_CC_FlushContext, .name = "FlushContext",
	  .flags = CMD_NO_SESSIONS | CMD_READS_STATE, .run = flush_context },
	{ 0 },
};
