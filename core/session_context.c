/* Session contexts (Part 1 §30.2, Part 3 §28.2-28.3). A saved session leaves its client and
 * waits in the engine's saved list, so that tools which save a session in one connection and
 * load it in the next work as with a TPM. The blob names the session and the sequence of its
 * last save; it can be loaded once (a replayed older context no longer matches). Saved
 * sessions die at TPM Reset and Restart: the blob uses the NULL hierarchy's proof. */
#include <stdlib.h>

#include "context_blob.h"
#include "session.h"

static int saved_slot(struct pqtpm_engine *e, TPM_HANDLE h)
{
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++)
		if (e->saved_sessions[i] && e->saved_sessions[i]->handle == h)
			return i;
	return -1;
}

TPM_RC session_context_save(struct cmd *c, TPM_HANDLE h, struct tpms_context *ctx)
{
	struct pqtpm_engine *e = c->e;
	struct session *s = session_find(c->client, h);
	uint8_t plain[16];
	struct wr w;
	int slot = -1;

	if (!s)
		return rc_handle(TPM_RC_HANDLE, 1);
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++) {
		if (!e->saved_sessions[i]) {
			slot = i;
			break;
		}
	}
	if (slot < 0)
		return TPM_RC_SESSION_MEMORY;
	if (e->context_counter == UINT64_MAX)
		return TPM_RC_TOO_MANY_CONTEXTS;
	ctx->sequence = ++e->context_counter;
	ctx->saved_handle = h;
	ctx->hierarchy = TPM_RH_NULL;
	wr_init(&w, plain, sizeof(plain));
	TRY(wr_u32(&w, h));
	TRY(wr_u64(&w, ctx->sequence));
	TRY(context_protect(e, ctx, CONTEXT_TYPE_SESSION, plain, w.off));
	s->saved_sequence = ctx->sequence;
	/* move it: out of the client's table, into the saved list */
	for (int i = 0; i < MAX_CLIENT_SESSIONS; i++)
		if (c->client->sessions[i] == s)
			c->client->sessions[i] = NULL;
	e->saved_sessions[slot] = s;
	return TPM_RC_SUCCESS;
}

TPM_RC session_context_load(struct cmd *c, const struct tpms_context *ctx, TPM_HANDLE *h)
{
	struct pqtpm_engine *e = c->e;
	uint8_t plain[CONTEXT_MAX_PLAIN];
	struct rd entity;
	uint32_t handle;
	uint64_t sequence;
	int slot, free_slot = -1;
	TPM_RC rc;

	/* a session that is not saved (flushed, loaded, never existed): TPM_RC_HANDLE */
	slot = saved_slot(e, ctx->saved_handle);
	if (slot < 0)
		return rc_param(TPM_RC_HANDLE, 1);
	rc = context_unprotect(e, ctx, CONTEXT_TYPE_SESSION, plain, &entity);
	if (rc == TPM_RC_SUCCESS && (rd_u32(&entity, &handle) || rd_u64(&entity, &sequence) ||
				     rd_left(&entity) != 0 || handle != ctx->saved_handle))
		rc = TPM_RC_INTEGRITY;
	if (rc != TPM_RC_SUCCESS)
		return rc_param(rc, 1);
	/* only the context of the last save loads: older ones are replays */
	if (e->saved_sessions[slot]->saved_sequence != sequence)
		return rc_param(TPM_RC_INTEGRITY, 1);
	for (int i = 0; i < MAX_CLIENT_SESSIONS; i++) {
		if (!c->client->sessions[i]) {
			free_slot = i;
			break;
		}
	}
	if (free_slot < 0)
		return TPM_RC_SESSION_HANDLES;
	c->client->sessions[free_slot] = e->saved_sessions[slot];
	e->saved_sessions[slot] = NULL;
	*h = handle;
	return TPM_RC_SUCCESS;
}
