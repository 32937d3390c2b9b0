/* Command dispatch: header, handle area, authorization area, handler, response. The checks run
 * in the order Part 3 §5 gives, once for every command, so handlers see only their parameters. */
#include <errno.h>
#include <string.h>

#include "auth.h"
#include "engine_int.h"
#include "session.h"
#include "nv/nv.h"
#include "txn.h"

#define HEADER_SIZE 10
/* Room kept at the end of the response for the authorization area. */
#define RSP_AUTH_RESERVE (MAX_SESSIONS * (2 + MAX_DIGEST_SIZE + 1 + 2 + MAX_DIGEST_SIZE))

static uint16_t handle_kind(struct pqtpm_engine *e, TPM_HANDLE h)
{
	switch (h >> 24) {
	case TPM_HT_PCR:
		return h < PCR_NUM ? HK_PCR : 0;
	case TPM_HT_NV_INDEX:
		return HK_NV;
	case TPM_HT_HMAC_SESSION:
	case TPM_HT_POLICY_SESSION:
		return HK_SESSION;
	case TPM_HT_TRANSIENT:
		return HK_TRANSIENT;
	case TPM_HT_PERSISTENT:
		return HK_PERSISTENT;
	}
	switch (h) {
	case TPM_RH_OWNER:
		return HK_OWNER;
	case TPM_RH_ENDORSEMENT:
		return HK_ENDORSEMENT;
	case TPM_RH_PLATFORM:
		return HK_PLATFORM;
	case TPM_RH_NULL:
		return HK_NULL;
	case TPM_RH_LOCKOUT:
		return HK_LOCKOUT;
	}
	return 0;
}

static TPM_RC resolve_handles(struct cmd *c, struct rd *r)
{
	for (unsigned i = 0; i < c->def->handles; i++) {
		TPM_HANDLE h;
		uint16_t kind;
		struct object *o;

		if (rd_u32(r, &h) != TPM_RC_SUCCESS)
			return TPM_RC_INSUFFICIENT;
		c->handle[i] = h;
		kind = handle_kind(c->e, h);
		if (!(kind & c->def->htype[i]))
			return rc_handle(TPM_RC_VALUE, i + 1);
		if (kind & HK_HIERARCHY && !hier_enabled(c->e, h))
			return rc_handle(TPM_RC_HIERARCHY, i + 1);
		if (kind == HK_NV) {
			/* an index of a disabled hierarchy is not there (nv/access.c) */
			c->nv[i] = nv_find(c->e->ps.nv, h);
			if (!c->nv[i] || !nv_accessible(c->e, c->nv[i]))
				return rc_handle(TPM_RC_HANDLE, i + 1);
			continue;
		}
		if (!(kind & HK_OBJECT))
			continue;
		o = object_find(c->client, h);
		if (!o)
			return kind == HK_TRANSIENT ? TPM_RC_REFERENCE_H0 + i
						    : rc_handle(TPM_RC_HANDLE, i + 1);
		if (o->kind == OBJ_KEY && !hier_enabled(c->e, o->hierarchy))
			return rc_handle(TPM_RC_HIERARCHY, i + 1);
		c->obj[i] = o;
	}
	return TPM_RC_SUCCESS;
}

/* ---- commands that only read the persistent state (CMD_READS_STATE in their rows) ----
 *
 * Most commands never change e->ps: they need it to be the newest state when they start, but
 * neither the directory's lock nor a snapshot to roll back to. These run without them when
 * state_fresh says that no process has begun to write the state file since this one loaded or
 * saved it (one memory read; otherwise they lock and load as every other command does). Reads
 * stay correct across processes: a writer announces its write before it replaces the file
 * and before it answers, so a command that starts after another process's command has
 * answered acts on its result, and one that starts earlier is ordered before it.
 *
 * The flag: no command that has it changes the state, or reports Clock or a value made from
 * it (Clock is saved at each TPM_PT_CLOCK_UPDATE before a value past it is reported:
 * clock_checkpoint, which needs the lock; so ReadClock, GetTime and PolicySigned, whose
 * timeout is a Clock value, do not have it). Its authorization may have to change the state
 * all the same: a failure counted against the dictionary-attack state, that state healing as
 * time passed (da.c), a PIN index's count (nv/access.c). Each asks for the lock before it
 * changes anything (txn_writable: TXN_RC_NEEDS_LOCK), and run() starts the command over on
 * the locked path, as it does for an audited command that would count a new audit sequence
 * and for an ECDAA signature that uses the commit state Shutdown(STATE) saved (commit.c).
 * So a password or HMAC session that proves an authValue, with the DA state at rest, takes
 * neither the lock nor a snapshot (Sign and the other signing commands have the flag), and
 * every failure is counted under the lock on the newest state, as before. If such a command
 * changed the state after all, state_save refuses to write over another process's newer
 * state, and a rollback without a snapshot loads the file again; check builds (SAN=1) stop
 * at the first one (txn.c's check_reading). */
static bool reads_state_only(const struct cmd_def *def)
{
	return def && (def->flags & CMD_READS_STATE);
}

static size_t error_response(uint8_t *rsp, TPM_RC rc)
{
	struct wr w;

	wr_init(&w, rsp, HEADER_SIZE);
	wr_u16(&w, TPM_ST_NO_SESSIONS);
	wr_u32(&w, HEADER_SIZE);
	wr_u32(&w, rc);
	return HEADER_SIZE;
}

/* def: the row of the command code in the header (peek_code), NULL if none */
static TPM_RC run(struct cmd *c, const struct cmd_def *def, const uint8_t *cmd, size_t len,
		  struct auth_area *a, uint8_t *params)
{
	struct rd r;
	uint32_t size, cc;
	uint16_t tag;

	if (len < HEADER_SIZE)
		return len < 2 ? TPM_RC_BAD_TAG : TPM_RC_COMMAND_SIZE;
	rd_init(&r, cmd, len);
	TRY(rd_u16(&r, &tag));
	TRY(rd_u32(&r, &size));
	TRY(rd_u32(&r, &cc));
	if (tag != TPM_ST_SESSIONS && tag != TPM_ST_NO_SESSIONS)
		return TPM_RC_BAD_TAG;
	if (size != len || size > PQTPM_MAX_COMMAND_SIZE)
		return TPM_RC_COMMAND_SIZE;
	c->tag = tag;
	c->def = def;
	if (!c->e->started && !(c->def && (c->def->flags & CMD_NO_STARTUP)))
		return TPM_RC_INITIALIZE;
	if (!c->def)
		return TPM_RC_COMMAND_CODE;
	/* failure mode: only what tells the caller about it still works (Part 1 §12.3) */
	if (c->e->self_test_failed && cc != TPM_CC_GetTestResult && cc != TPM_CC_GetCapability)
		return TPM_RC_FAILURE;
	TRY(resolve_handles(c, &r));
	TRY(auth_parse(c, &r, a));
	/* Handlers read a copy: parameter decryption works in place. */
	c->cp_start = r.buf + r.off;
	c->cp_len = rd_left(&r);
	memcpy(params, c->cp_start, c->cp_len);
	TRY(auth_check(c, a, params, c->cp_len));
	rd_init(&c->in, params, c->cp_len);
	TRY(cmd_audit_before(c));
	/* a new audit sequence counts in the persistent state */
	if (cmd_audit_counts(c))
		TRY(txn_writable(c->e));
	TRY(c->def->run(c));
	/* Handlers refuse leftover bytes before they act (cmd_params_done); this only catches
	 * one that forgot, too late to undo what it did outside e->ps. */
	if (rd_left(&c->in) != 0)
		return TPM_RC_SIZE;
	cmd_audit_count(c);
	return TPM_RC_SUCCESS;
}

/* A save that failed, as the command's code: a full disk refuses a new index as the TPM's own
 * NV would; another process that wrote meanwhile means "ask again". */
static TPM_RC save_failed(const struct cmd *c, int err, bool ok)
{
	if (!ok)
		return TPM_RC_NV_UNAVAILABLE; /* a DA or PIN count that could not be saved */
	if ((err == -ENOSPC || err == -EDQUOT) && c->def && c->def->code == TPM_CC_NV_DefineSpace)
		return TPM_RC_NV_SPACE;
	return err == -EAGAIN ? TPM_RC_RETRY : TPM_RC_NV_UNAVAILABLE;
}

static TPM_RC command_end(struct txn *t, const struct cmd *c, TPM_RC rc)
{
	bool ok = rc == TPM_RC_SUCCESS;
	int err = txn_commit(t, ok);

	return err != 0 ? save_failed(c, err, ok) : rc;
}

/* The row of the command code, if the buffer holds a header (run() checks the rest). */
static const struct cmd_def *peek_code(const uint8_t *cmd, size_t len)
{
	if (len < HEADER_SIZE)
		return NULL;
	return cmd_lookup((TPM_CC)cmd[6] << 24 | (TPM_CC)cmd[7] << 16 | (TPM_CC)cmd[8] << 8 |
			  cmd[9]);
}

size_t dispatch(struct pqtpm_client *cl, uint8_t locality, const uint8_t *cmd, size_t len,
		uint8_t *rsp, size_t cap)
{
	struct pqtpm_engine *e = cl->e;
	struct cmd c;
	struct txn t;
	struct auth_area a;
	struct wr w;
	size_t params_at;
	uint8_t params[PQTPM_MAX_COMMAND_SIZE];
	uint8_t *rsp_params;
	const struct cmd_def *def;
	TPM_RC rc;

	memset(&c, 0, sizeof(c));
	c.e = e;
	c.client = cl;
	c.txn = &t;
	c.locality = locality;

	/* Parameters go straight into the response buffer, after the header, the response
	 * handle and the parameterSize; which of those exist depends on the command, so the
	 * largest offset is used and the parameters moved down once if needed. */
	params_at = HEADER_SIZE + 4 + 4;
	wr_init(&c.out, rsp + params_at, cap - params_at - RSP_AUTH_RESERVE);

	def = peek_code(cmd, len);
	rc = txn_begin(&t, e, reads_state_only(def));
	if (rc == TPM_RC_SUCCESS)
		rc = run(&c, def, cmd, len, &a, params);
	if (rc == TXN_RC_NEEDS_LOCK) {
		/* nothing done yet: start again, locked */
		auth_wipe(&a);
		crypto_wipe(params, c.cp_len);
		(void)txn_commit(&t, true);
		memset(&c, 0, sizeof(c));
		c.e = e;
		c.client = cl;
		c.txn = &t;
		c.locality = locality;
		wr_init(&c.out, rsp + params_at, cap - params_at - RSP_AUTH_RESERVE);
		rc = txn_begin(&t, e, false);
		if (rc == TPM_RC_SUCCESS)
			rc = run(&c, def, cmd, len, &a, params);
		if (rc == TXN_RC_NEEDS_LOCK) /* cannot be, locked: no such code goes out */
			rc = TPM_RC_FAILURE;
	}
	crypto_wipe(params, c.cp_len);
	rc = command_end(&t, &c, rc);
	if (rc != TPM_RC_SUCCESS) {
		auth_wipe(&a);
		txn_end(&t);
		return error_response(rsp, rc);
	}

	wr_init(&w, rsp, cap);
	wr_u16(&w, c.tag);
	wr_u32(&w, 0);
	wr_u32(&w, TPM_RC_SUCCESS);
	if (c.def->flags & CMD_RHANDLE)
		wr_u32(&w, c.rsp_handle);
	if (c.tag == TPM_ST_SESSIONS)
		wr_u32(&w, (uint32_t)c.out.off);
	rsp_params = rsp + w.off;
	memmove(rsp_params, rsp + params_at, c.out.off);
	w.off += c.out.off;
	if (c.tag == TPM_ST_SESSIONS)
		rc = auth_respond(&c, &a, rsp + w.off - c.out.off, c.out.off, &w);
	else
		auth_unaudited(&c);
	if (rc == TPM_RC_SUCCESS) /* the parameters as sent, after any encryption */
		rc = cmd_audit_after(&c, rsp_params, c.out.off);
	auth_wipe(&a);
	txn_end(&t);
	if (rc != TPM_RC_SUCCESS)
		return error_response(rsp, TPM_RC_FAILURE);
	wr_patch_u32(&w, 2, (uint32_t)w.off);
	return w.off;
}
