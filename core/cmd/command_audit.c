/* Command audit (Part 1 "Command Audit", Part 3 §21.2 SetCommandCodeAuditStatus, §18.5
 * GetCommandAuditDigest): after each successful audited command the digest becomes
 * H(digest || cpHash || rpHash) with the audit hash; the first command after the digest was
 * cleared starts a new sequence from zeros and counts it. GetCommandAuditDigest signs the
 * digest with the counter and a digest of the list of audited commands, then clears it.
 * The hash, the list and the counter are persistent (e->ps.audit, saved by the command's
 * transaction); the digest is state-reset data (e->cmd_audit_digest: pqtpm.volatile, cleared
 * at a TPM Reset, startup.c). Commands that only read state may run at the same time, so the
 * state has its own lock. */
#include <string.h>

#include "attest.h"
#include "session.h"

static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;

static TPM_ALG_ID audit_alg(const struct command_audit *a)
{
	return a->alg ? a->alg : TPM_ALG_SHA512;
}

static bool is_audited(const struct command_audit *a, TPM_CC cc)
{
	if (cc == TPM_CC_SetCommandCodeAuditStatus)
		return true;
	for (uint16_t i = 0; i < a->n; i++)
		if (a->list[i] == cc)
			return true;
	return false;
}

TPM_RC cmd_audit_before(struct cmd *c)
{
	pthread_mutex_lock(&audit_lock);
	c->audited = is_audited(&c->e->ps.audit, c->def->code);
	pthread_mutex_unlock(&audit_lock);
	if (!c->audited)
		return TPM_RC_SUCCESS;
	for (unsigned i = 0; i < c->def->handles; i++)
		TRY(entity_name(c, i, &c->audit_names[i]));
	return TPM_RC_SUCCESS;
}

static TPM_RC cp_hash(const struct cmd *c, TPM_ALG_ID alg, struct tpm2b_digest *out)
{
	struct crypto_hash_ctx h;
	uint8_t code[4];
	struct wr w;

	wr_init(&w, code, sizeof(code));
	TRY(wr_u32(&w, c->def->code));
	TRY(crypto_hash_start(&h, alg));
	TRY(crypto_hash_update(&h, code, sizeof(code)));
	for (unsigned i = 0; i < c->def->handles; i++)
		TRY(crypto_hash_update(&h, c->audit_names[i].b, c->audit_names[i].size));
	TRY(crypto_hash_update(&h, c->cp_start, c->cp_len));
	out->size = (uint16_t)crypto_hash_size(alg);
	return crypto_hash_finish(&h, out->b);
}

bool cmd_audit_counts(const struct cmd *c)
{
	bool clear;

	if (!c->audited)
		return false;
	pthread_mutex_lock(&audit_lock);
	clear = c->e->cmd_audit_digest.size == 0;
	pthread_mutex_unlock(&audit_lock);
	return clear;
}

void cmd_audit_count(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;

	if (!c->audited)
		return;
	pthread_mutex_lock(&audit_lock);
	if (e->cmd_audit_digest.size == 0) {
		e->ps.audit.counter++;
		c->audit_new_sequence = true;
		engine_dirty(e);
	}
	pthread_mutex_unlock(&audit_lock);
}

static TPM_RC extend(struct pqtpm_engine *e, const struct cmd *c, const uint8_t *rsp_params,
		     size_t rsp_len)
{
	struct tpm2b_digest *d = &e->cmd_audit_digest;
	TPM_ALG_ID alg = audit_alg(&e->ps.audit);
	struct tpm2b_digest cp, rp;
	struct crypto_hash_ctx h;

	TRY(cp_hash(c, alg, &cp));
	TRY(session_rp_hash(alg, c->def->code, rsp_params, rsp_len, &rp));
	volatile_dirty(e);
	/* counted by cmd_audit_count, in the command's transaction */
	if (c->audit_new_sequence || d->size == 0) {
		d->size = (uint16_t)crypto_hash_size(alg);
		memset(d->b, 0, d->size);
	}
	TRY(crypto_hash_start(&h, alg));
	TRY(crypto_hash_update(&h, d->b, d->size));
	TRY(crypto_hash_update(&h, cp.b, cp.size));
	TRY(crypto_hash_update(&h, rp.b, rp.size));
	return crypto_hash_finish(&h, d->b);
}

TPM_RC cmd_audit_after(struct cmd *c, const uint8_t *rsp_params, size_t rsp_len)
{
	TPM_RC rc;

	if (!c->audited)
		return TPM_RC_SUCCESS;
	pthread_mutex_lock(&audit_lock);
	rc = extend(c->e, c, rsp_params, rsp_len);
	pthread_mutex_unlock(&audit_lock);
	return rc;
}

uint64_t cmd_audit_counter(const struct pqtpm_engine *e)
{
	uint64_t v;

	pthread_mutex_lock(&audit_lock);
	v = e->ps.audit.counter;
	pthread_mutex_unlock(&audit_lock);
	return v;
}

/* The audited commands in ascending order (the list and SetCommandCodeAuditStatus). */
static size_t all_audited(const struct command_audit *a, TPM_CC *out)
{
	size_t n = 0;
	bool own = false;

	for (uint16_t i = 0; i < a->n; i++) {
		if (!own && a->list[i] > TPM_CC_SetCommandCodeAuditStatus) {
			out[n++] = TPM_CC_SetCommandCodeAuditStatus;
			own = true;
		}
		out[n++] = a->list[i];
	}
	if (!own)
		out[n++] = TPM_CC_SetCommandCodeAuditStatus;
	return n;
}

size_t cmd_audit_commands(struct pqtpm_engine *e, TPM_CC from, TPM_CC *out, size_t max)
{
	TPM_CC all[CMD_AUDIT_MAX + 1];
	size_t n, k = 0;

	pthread_mutex_lock(&audit_lock);
	n = all_audited(&e->ps.audit, all);
	pthread_mutex_unlock(&audit_lock);
	for (size_t i = 0; i < n && k < max; i++)
		if (all[i] >= from)
			out[k++] = all[i];
	return k;
}

/* ---- SetCommandCodeAuditStatus ---- */

/* Only implemented commands join the list; SetCommandCodeAuditStatus is audited anyway. */
static void audit_set(struct command_audit *a, TPM_CC cc)
{
	uint16_t i = 0;

	if (cc == TPM_CC_SetCommandCodeAuditStatus || !cmd_lookup(cc) || a->n >= CMD_AUDIT_MAX)
		return;
	while (i < a->n && a->list[i] < cc)
		i++;
	if (i < a->n && a->list[i] == cc)
		return;
	memmove(&a->list[i + 1], &a->list[i], (a->n - i) * sizeof(a->list[0]));
	a->list[i] = cc;
	a->n++;
}

static void audit_clear(struct command_audit *a, TPM_CC cc)
{
	for (uint16_t i = 0; i < a->n; i++)
		if (a->list[i] == cc) {
			memmove(&a->list[i], &a->list[i + 1], (a->n - i - 1) * sizeof(a->list[0]));
			a->n--;
			return;
		}
}

static TPM_RC set_command_code_audit_status(struct cmd *c)
{
	TPM_CC set[TPML_CC_MAX], clear[TPML_CC_MAX];
	struct command_audit *a = &c->e->ps.audit;
	uint32_t nset, nclear;
	uint16_t alg;

	TRYP(1, rd_u16(&c->in, &alg));
	TRYP(2, rd_tpml_cc(&c->in, set, &nset));
	TRYP(3, rd_tpml_cc(&c->in, clear, &nclear));
	TRY(cmd_params_done(c));
	if (alg != TPM_ALG_NULL && crypto_hash_size(alg) == 0)
		return rc_param(TPM_RC_HASH, 1);
	pthread_mutex_lock(&audit_lock);
	if (alg != TPM_ALG_NULL && alg != audit_alg(a)) {
		/* a new hash starts a new sequence; the list is not changed at the same time */
		if (nset || nclear) {
			pthread_mutex_unlock(&audit_lock);
			return rc_param(TPM_RC_VALUE, 1);
		}
		a->alg = alg;
		c->e->cmd_audit_digest.size = 0;
		volatile_dirty(c->e);
		/* as the reference implementation: the change itself is not audited, the next
		 * audited command starts the sequence under the new hash */
		c->audited = false;
	} else {
		for (uint32_t i = 0; i < nset; i++)
			audit_set(a, set[i]);
		for (uint32_t i = 0; i < nclear; i++)
			audit_clear(a, clear[i]);
	}
	pthread_mutex_unlock(&audit_lock);
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

/* ---- GetCommandAuditDigest ---- */

/* commandDigest: the hash of the audited command codes, ascending, each as a UINT32. */
static TPM_RC command_digest(const struct command_audit *a, struct tpm2b_digest *out)
{
	TPM_CC all[CMD_AUDIT_MAX + 1];
	uint8_t code[4];
	struct crypto_hash_ctx h;
	size_t n = all_audited(a, all);

	TRY(crypto_hash_start(&h, audit_alg(a)));
	for (size_t i = 0; i < n; i++) {
		struct wr w;

		wr_init(&w, code, sizeof(code));
		TRY(wr_u32(&w, all[i]));
		TRY(crypto_hash_update(&h, code, sizeof(code)));
	}
	out->size = (uint16_t)crypto_hash_size(audit_alg(a));
	return crypto_hash_finish(&h, out->b);
}

/* TPMS_COMMAND_AUDIT_INFO: auditCounter, digestAlg, auditDigest, commandDigest. */
static TPM_RC audit_info(const struct pqtpm_engine *e, struct wr *w)
{
	const struct command_audit *a = &e->ps.audit;
	struct tpm2b_digest cmds;

	TRY(command_digest(a, &cmds));
	TRY(wr_u64(w, a->counter));
	TRY(wr_u16(w, audit_alg(a)));
	TRY(wr_tpm2b_digest(w, &e->cmd_audit_digest));
	return wr_tpm2b_digest(w, &cmds);
}

static TPM_RC get_command_audit_digest(struct cmd *c)
{
	struct attest_data qualifying;
	struct tpmt_scheme in_scheme;
	uint8_t body[8 + 2 + 2 * (2 + MAX_DIGEST_SIZE)];
	struct wr w;
	TPM_RC rc;

	TRYP(1, attest_rd_data(&c->in, &qualifying));
	TRYP(2, rd_sig_scheme(&c->in, &in_scheme, true));
	TRY(cmd_params_done(c));
	wr_init(&w, body, sizeof(body));
	pthread_mutex_lock(&audit_lock);
	rc = audit_info(c->e, &w);
	pthread_mutex_unlock(&audit_lock);
	TRY(rc);
	/* signed under the lock (CMD_LOCKED): the digest is reported and reset in one step, so
	 * that no other client's audited command falls between the two */
	TRY(attest_sign(c, 1, &in_scheme, 2, &qualifying, TPM_ST_ATTEST_COMMAND_AUDIT, body,
			w.off));
	/* reported: the next audited command starts a new sequence */
	pthread_mutex_lock(&audit_lock);
	c->e->cmd_audit_digest.size = 0;
	pthread_mutex_unlock(&audit_lock);
	volatile_dirty(c->e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_command_audit[] = {
	{ .code = TPM_CC_GetCommandAuditDigest, .name = "GetCommandAuditDigest", .handles = 2,
	  .auth = { AUTH_USER, AUTH_USER }, .htype = { HK_ENDORSEMENT, HK_OBJECT | HK_NULL },
	  .flags = CMD_LOCKED, .run = get_command_audit_digest },
	{ .code = TPM_CC_SetCommandCodeAuditStatus, .name = "SetCommandCodeAuditStatus",
	  .handles = 1, .auth = { AUTH_USER }, .htype = { HK_OWNER | HK_PLATFORM },
	  .flags = CMD_PP, .run = set_command_code_audit_status },
	{ 0 },
};
