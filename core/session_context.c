/* Session contexts (Part 1 §30.2, Part 3 §28.2-28.3). A saved session leaves its client and
 * waits in the engine's saved list, so that tools which save a session in one connection and
 * load it in the next work as with a TPM. The blob names the session and the sequence of its
 * last save; it can be loaded once (a replayed older context no longer matches). Saved
 * sessions die at TPM Reset (the blob uses the NULL hierarchy's proof, new at each Reset);
 * they survive a TPM Restart or Resume, also in a new process: Shutdown(STATE) copies them,
 * with the NULL hierarchy and the counters their blobs depend on, into e->ps.resume, which
 * goes into the state file, and the Startup that follows puts them back. */
#include <stdlib.h>
#include <string.h>

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
	volatile_dirty(e);
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
	volatile_dirty(e);
	*h = handle;
	return TPM_RC_SUCCESS;
}

/* ---- across Shutdown(STATE) and Startup ---- */

void session_resume_capture(struct pqtpm_engine *e)
{
	struct session_resume *r = e->ps.resume;

	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r) {
			engine_log(e, PQTPM_LOG_WARN,
				   "out of memory: saved sessions will not survive a restart");
			return;
		}
		/* owned by the persistent state: a rollback of this command keeps it (txn.c) */
		e->ps.resume = r;
	}
	crypto_wipe(r, sizeof(*r));
	memcpy(r->null_seed, e->null_seed, sizeof(r->null_seed));
	memcpy(r->null_proof, e->null_proof, sizeof(r->null_proof));
	r->context_counter = e->context_counter;
	r->pcr_update_counter = e->pcr_update_counter;
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++)
		if (e->saved_sessions[i])
			r->sessions[r->count++] = *e->saved_sessions[i];
}

static bool all_zero(const uint8_t *b, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

TPM_RC session_resume_restore(struct pqtpm_engine *e)
{
	const struct session_resume *r = e->ps.resume;

	volatile_dirty(e);
	/* a capture always has a proof: an all-zero one is no capture */
	if (!r || all_zero(r->null_proof, sizeof(r->null_proof))) {
		/* a new process never had a NULL hierarchy: never run with a zero seed */
		if (!all_zero(e->null_proof, sizeof(e->null_proof)))
			return TPM_RC_SUCCESS;
		TRY(crypto_random(e->null_seed, sizeof(e->null_seed)));
		return crypto_random(e->null_proof, sizeof(e->null_proof));
	}
	memcpy(e->null_seed, r->null_seed, sizeof(e->null_seed));
	memcpy(e->null_proof, r->null_proof, sizeof(e->null_proof));
	if (e->context_counter < r->context_counter)
		e->context_counter = r->context_counter;
	for (unsigned i = 0; i < r->count && i < MAX_SAVED_SESSIONS; i++) {
		const struct session *src = &r->sessions[i];
		struct session *s;
		int slot = -1;

		/* in the same process the session may still be there (saved, or saved again) */
		if (session_handle_in_use(e, src->handle))
			continue;
		for (int j = 0; j < MAX_SAVED_SESSIONS && slot < 0; j++)
			if (!e->saved_sessions[j])
				slot = j;
		if (slot < 0)
			break;
		s = malloc(sizeof(*s));
		if (!s)
			return TPM_RC_MEMORY;
		*s = *src;
		e->saved_sessions[slot] = s;
	}
	return TPM_RC_SUCCESS;
}

void session_resume_pcr_counter(struct pqtpm_engine *e)
{
	uint32_t floor = e->ps.resume ? e->ps.resume->pcr_update_counter + 1u : 0;

	for (int i = 0; i < MAX_SAVED_SESSIONS; i++) {
		const struct session *s = e->saved_sessions[i];

		if (s && s->pcr_counter_set && s->pcr_counter >= floor)
			floor = s->pcr_counter + 1u;
	}
	if (e->pcr_update_counter < floor) {
		e->pcr_update_counter = floor;
		volatile_dirty(e);
	}
}

void session_resume_free(struct session_resume *r)
{
	if (!r)
		return;
	crypto_wipe(r, sizeof(*r));
	free(r);
}
