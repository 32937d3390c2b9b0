/* Authorization: password, HMAC and policy sessions (Part 1 §19), parameter encryption
 * (Part 1 §21), response HMACs. Called by dispatch around every command. */
#include <string.h>

#include "auth.h"
#include "da.h"
#include "nv/nv.h"
#include "pcr.h"
#include "policy.h"

TPM_RC auth_parse(struct cmd *c, struct rd *r, struct auth_area *a)
{
	uint32_t size;
	struct rd area;
	const uint8_t *p;

	memset(a, 0, sizeof(*a));
	a->decrypt = a->encrypt = a->audit = -1;
	if (c->tag != TPM_ST_SESSIONS)
		return TPM_RC_SUCCESS;
	if (rd_u32(r, &size) != TPM_RC_SUCCESS)
		return TPM_RC_AUTHSIZE;
	/* The smallest session is 9 bytes: handle, empty nonce, attributes, empty hmac. */
	if (size < 9 || size > rd_left(r))
		return TPM_RC_AUTHSIZE;
	TRY(rd_view(r, size, &p));
	rd_init(&area, p, size);
	while (rd_left(&area) > 0) {
		struct auth_session *s;
		TPM_RC rc;

		if (a->count == MAX_SESSIONS)
			return TPM_RC_AUTHSIZE;
		s = &a->s[a->count];
		s->slot = -1;
		if (rd_u32(&area, &s->handle) != TPM_RC_SUCCESS)
			return TPM_RC_AUTHSIZE;
		rc = rd_tpm2b(&area, s->nonce.b, sizeof(s->nonce.b), &s->nonce.size);
		if (rc == TPM_RC_SUCCESS)
			rc = rd_u8(&area, &s->attrs);
		if (rc == TPM_RC_SUCCESS)
			rc = rd_tpm2b(&area, s->hmac.b, sizeof(s->hmac.b), &s->hmac.size);
		if (rc == TPM_RC_INSUFFICIENT)
			return TPM_RC_AUTHSIZE;
		if (rc != TPM_RC_SUCCESS)
			return rc_session(rc, a->count + 1);
		a->count++;
	}
	return TPM_RC_SUCCESS;
}

/* Part 1 §19.6.4: an authValue compares without its trailing zero octets. */
static void trim(struct tpm2b_digest *d)
{
	d->size = (uint16_t)crypto_ct_trim(d->b, d->size);
}

static bool password_matches(const struct tpm2b_digest *given, const struct tpm2b_digest *auth)
{
	return crypto_ct_equal_trimmed(given->b, given->size, auth->b, auth->size, MAX_DIGEST_SIZE);
}

/* May this handle's role be satisfied with its authValue (password or HMAC)? */
static TPM_RC role_allows_auth_value(const struct cmd *c, unsigned slot)
{
	const struct object *o = c->obj[slot];
	enum auth_role role = c->def->auth[slot];

	if (role == AUTH_DUP)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (c->nv[slot])
		return nv_auth_value_allowed(c, slot);
	if (!o || o->kind != OBJ_KEY)
		return TPM_RC_SUCCESS;
	/* a public-only key (LoadExternal) has no authValue to prove */
	if (!o->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (role == AUTH_USER && !(o->pub.attributes & TPMA_OBJECT_USERWITHAUTH))
		return TPM_RC_AUTH_UNAVAILABLE;
	if (role == AUTH_ADMIN && (o->pub.attributes & TPMA_OBJECT_ADMINWITHPOLICY))
		return TPM_RC_AUTH_UNAVAILABLE;
	return TPM_RC_SUCCESS;
}

static const struct tpm2b_digest *entity_policy(struct cmd *c, unsigned slot, TPM_ALG_ID *alg)
{
	struct hierarchy *h;

	if (c->obj[slot]) {
		*alg = c->obj[slot]->pub.name_alg;
		return &c->obj[slot]->pub.auth_policy;
	}
	if (c->nv[slot]) {
		*alg = c->nv[slot]->pub.name_alg;
		return &c->nv[slot]->pub.policy;
	}
	if ((c->handle[slot] >> 24) == TPM_HT_PCR) {
		if (!pcr_in_auth_group(c->handle[slot]))
			return NULL;
		*alg = c->e->ps.pcr_group_policy_alg;
		return &c->e->ps.pcr_group_policy;
	}
	h = hier_get(c->e, c->handle[slot]);
	if (!h || c->handle[slot] == TPM_RH_NULL)
		return NULL;
	*alg = h->policy_alg;
	return &h->policy;
}

/* A policy session's assertions against this command (Part 1 §19.7.2). */
static TPM_RC check_policy(struct cmd *c, struct auth_session *as, unsigned n, TPM_CC cc,
			   const struct tpm2b_digest *cp_hash, const uint8_t *params, size_t plen)
{
	struct session *s = as->s;
	const struct tpm2b_digest *policy;
	TPM_ALG_ID alg = TPM_ALG_NULL;

	if (s->type == TPM_SE_TRIAL)
		return rc_session(TPM_RC_ATTRIBUTES, n);
	if (c->nv[as->slot]) /* POLICYREAD / POLICYWRITE */
		TRY(nv_policy_allowed(c, (unsigned)as->slot));
	policy = entity_policy(c, (unsigned)as->slot, &alg);
	if (!policy || policy->size == 0 || alg != s->auth_hash ||
	    policy->size != s->policy_digest.size ||
	    !crypto_ct_equal(policy->b, s->policy_digest.b, policy->size))
		return rc_session(TPM_RC_POLICY_FAIL, n);
	if (s->command_code && s->command_code != cc)
		return rc_session(TPM_RC_POLICY_CC, n);
	if (s->locality && !(s->locality & (1u << c->locality)))
		return TPM_RC_LOCALITY;
	if (s->pcr_counter_set && s->pcr_counter != c->e->pcr_update_counter)
		return TPM_RC_PCR_CHANGED;
	if (s->cp_hash.size &&
	    (s->cp_hash.size != cp_hash->size ||
	     memcmp(s->cp_hash.b, cp_hash->b, cp_hash->size) != 0))
		return rc_session(TPM_RC_POLICY_FAIL, n);
	return policy_check_use(c, s, (unsigned)as->slot, n, params, plen); /* the other asserts */
}

static bool bound_to(const struct session *s, const struct tpm2b_name *name,
		     const struct tpm2b_digest *auth)
{
	return s->bound && s->bind_name.size == name->size &&
	       memcmp(s->bind_name.b, name->b, name->size) == 0 &&
	       s->bind_auth.size == auth->size &&
	       crypto_ct_equal(s->bind_auth.b, auth->b, auth->size);
}

/* Session i's audit attributes (Part 1 "Session Audit", Part 2 TPMA_SESSION): one audit
 * session per command, an HMAC session; auditExclusive and auditReset only with audit. An
 * audit session that is no longer exclusive refuses a command that asks for exclusivity,
 * unless the command resets it (or is its first audit), which makes it exclusive again. */
static TPM_RC attach_audit(struct cmd *c, struct auth_area *a, unsigned i)
{
	struct auth_session *as = &a->s[i];
	unsigned n = i + 1;

	if (!(as->attrs & TPMA_SESSION_AUDIT)) {
		if (as->attrs & (TPMA_SESSION_AUDITEXCLUSIVE | TPMA_SESSION_AUDITRESET))
			return rc_session(TPM_RC_ATTRIBUTES, n);
		return TPM_RC_SUCCESS;
	}
	if (a->audit >= 0 || as->s->type != TPM_SE_HMAC)
		return rc_session(TPM_RC_ATTRIBUTES, n);
	if ((as->attrs & TPMA_SESSION_AUDITEXCLUSIVE) && !(as->attrs & TPMA_SESSION_AUDITRESET) &&
	    as->s->is_audit && c->e->exclusive_audit != as->handle)
		return TPM_RC_EXCLUSIVE;
	a->audit = (int)i;
	return TPM_RC_SUCCESS;
}

/* Session i: look it up and check its attributes against the command. */
static TPM_RC attach_session(struct cmd *c, struct auth_area *a, unsigned i, unsigned needed)
{
	struct auth_session *as = &a->s[i];
	unsigned n = i + 1;

	if (as->handle == TPM_RS_PW) {
		/* a password only authorizes: no audit, no encryption, no nonce */
		if (i >= needed)
			return rc_session(TPM_RC_HANDLE, n);
		if (as->nonce.size != 0)
			return rc_session(TPM_RC_NONCE, n);
		if (as->attrs & ~TPMA_SESSION_CONTINUESESSION)
			return rc_session(TPM_RC_ATTRIBUTES, n);
		return TPM_RC_SUCCESS;
	}
	as->s = session_find(c->client, as->handle);
	if (!as->s)
		return TPM_RC_REFERENCE_S0 + i;
	for (unsigned j = 0; j < i; j++)
		if (a->s[j].handle == as->handle)
			return rc_session(TPM_RC_HANDLE, n);
	if (as->attrs & 0x18u) /* reserved */
		return rc_session(TPM_RC_ATTRIBUTES, n);
	if (as->attrs & TPMA_SESSION_DECRYPT) {
		if (!(c->def->flags & CMD_PARAM_IN) || a->decrypt >= 0)
			return rc_session(TPM_RC_ATTRIBUTES, n);
		if (as->s->sym.alg == TPM_ALG_NULL)
			return rc_session(TPM_RC_SYMMETRIC, n);
		a->decrypt = (int)i;
	}
	if (as->attrs & TPMA_SESSION_ENCRYPT) {
		if (!(c->def->flags & CMD_PARAM_OUT) || a->encrypt >= 0)
			return rc_session(TPM_RC_ATTRIBUTES, n);
		if (as->s->sym.alg == TPM_ALG_NULL)
			return rc_session(TPM_RC_SYMMETRIC, n);
		a->encrypt = (int)i;
	}
	TRY(attach_audit(c, a, i));
	/* A policy session's nonceCaller may be short or empty: ESAPI sends none after
	 * PolicyPassword, and keeps doing so after the session was used or restarted. */
	if (as->nonce.size > crypto_hash_size(as->s->auth_hash) ||
	    (as->s->type == TPM_SE_HMAC && as->nonce.size < 16))
		return rc_session(TPM_RC_SIZE, n);
	/* A session that authorizes nothing is there to audit or encrypt; any kind may encrypt
	 * (Part 1 §21.2), audit took an HMAC session above. */
	if (i >= needed &&
	    !(as->attrs & (TPMA_SESSION_AUDIT | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT)))
		return rc_session(TPM_RC_ATTRIBUTES, n);
	return TPM_RC_SUCCESS;
}

/* DA (da.c): the handle slot whose authValue session as checks, -1 if none (a policy session
 * checks it only after PolicyAuthValue or PolicyPassword). */
static int da_slot(const struct auth_session *as)
{
	const struct session *s = as->s;

	if (s && s->type != TPM_SE_HMAC && !s->need_auth_value && !s->need_password)
		return -1;
	return as->slot;
}

/* The authValue of an NV index was checked: PIN indices count that (nv/access.c). */
static TPM_RC nv_counted(struct cmd *c, const struct auth_session *as, bool ok)
{
	int slot = da_slot(as);

	if (slot < 0 || !c->nv[slot])
		return TPM_RC_SUCCESS;
	return nv_auth_checked(c, (unsigned)slot, ok);
}

/* sessionKey || authValue is empty */
static bool hmac_key_empty(const struct auth_session *as)
{
	return as->s->session_key.size == 0 && !(as->auth_in_hmac && as->auth.size);
}

/* TPM_RC_PP when handle slot is the platform's, the command requires physical presence
 * (PP_Commands, or one PP_Commands listed: cmd/pp.c) and it is not asserted. Checked first
 * for the session that authorizes the slot, so the code carries that session's number, as the
 * reference implementation's CheckAuthSession does. */
static TPM_RC pp_check(const struct cmd *c, unsigned slot)
{
	const struct pp_list *l = &c->e->ps.pp;
	TPM_CC cc = c->def->code;

	if (c->handle[slot] != TPM_RH_PLATFORM || c->e->phys_presence)
		return TPM_RC_SUCCESS;
	if (cc == TPM_CC_PP_Commands)
		return TPM_RC_PP;
	for (uint16_t i = 0; i < l->n; i++)
		if (l->list[i] == cc)
			return TPM_RC_PP;
	return TPM_RC_SUCCESS;
}

static TPM_RC check_session(struct cmd *c, struct auth_area *a, unsigned i, TPM_CC cc,
			    const uint8_t *params, size_t plen)
{
	struct auth_session *as = &a->s[i];
	struct session *s = as->s;
	struct tpm2b_digest expect;
	const struct tpm2b_digest *extra[2];
	unsigned nextra = 0, n = i + 1;
	bool ok;

	if (as->slot >= 0) {
		TRY(rc_session(pp_check(c, (unsigned)as->slot), n));
		TRY(entity_auth(c, (unsigned)as->slot, &as->auth));
		trim(&as->auth);
	}
	TRY(da_check(c, as->s, da_slot(as)));
	if (!s) {
		ok = password_matches(&as->hmac, &as->auth);
		TRY(nv_counted(c, as, ok));
		if (!ok)
			return rc_session(da_failure(c, as->s, da_slot(as)), n);
		return TPM_RC_SUCCESS;
	}
	TRY(session_cp_hash(c, s->auth_hash, cc, params, plen, &as->cp_hash));
	if (as->slot >= 0) {
		struct tpm2b_name name;

		TRY(entity_name(c, (unsigned)as->slot, &name));
		if (s->type == TPM_SE_HMAC) {
			TRY(rc_handle(role_allows_auth_value(c, (unsigned)as->slot), as->slot + 1));
			as->auth_in_hmac = !bound_to(s, &name, &as->auth);
		} else {
			TRY(check_policy(c, as, n, cc, &as->cp_hash, params, plen));
			as->auth_in_hmac = s->need_auth_value;
			if (s->need_password) {
				ok = password_matches(&as->hmac, &as->auth);
				TRY(nv_counted(c, as, ok));
				if (!ok)
					return rc_session(da_failure(c, as->s, da_slot(as)), n);
				return TPM_RC_SUCCESS;
			}
		}
	}
	/* Part 1 §19.6.5: the first session's HMAC also covers the nonceTPM of other sessions
	 * used for decryption and encryption (once, if one session does both). */
	if (i == 0) {
		if (a->decrypt > 0 && a->decrypt != a->encrypt)
			extra[nextra++] = &a->s[a->decrypt].s->nonce_tpm;
		if (a->encrypt > 0)
			extra[nextra++] = &a->s[a->encrypt].s->nonce_tpm;
	}
	/* an empty HMAC key (no session key, no authValue) allows an empty HMAC (Part 1
	 * §19.6.5): a policy session that needs no authValue proves nothing with it */
	if (hmac_key_empty(as) && as->hmac.size == 0)
		return TPM_RC_SUCCESS;
	TRY(session_hmac(s, as->auth_in_hmac ? &as->auth : NULL, &as->cp_hash, &as->nonce,
			 &s->nonce_tpm, extra, nextra, as->attrs, &expect));
	ok = as->hmac.size == expect.size && crypto_ct_equal(as->hmac.b, expect.b, expect.size);
	crypto_wipe(&expect, sizeof(expect));
	TRY(nv_counted(c, as, ok));
	return ok ? TPM_RC_SUCCESS : rc_session(da_failure(c, as->s, da_slot(as)), n);
}

/* Decrypt the first parameter: a TPM2B whose size is checked against what is there before
 * anything is touched (CVE-2023-1017/1018 were this check missing). */
static TPM_RC decrypt_param(struct auth_area *a, uint8_t *params, size_t plen)
{
	struct auth_session *as = &a->s[a->decrypt];
	struct rd r;
	uint16_t size;

	rd_init(&r, params, plen);
	if (rd_u16(&r, &size) != TPM_RC_SUCCESS || size > rd_left(&r))
		return rc_param(TPM_RC_SIZE, 1);
	return session_crypt(as->s, as->slot >= 0 ? &as->auth : NULL, false, &as->nonce,
			     &as->s->nonce_tpm, params + 2, size);
}

TPM_RC auth_check(struct cmd *c, struct auth_area *a, uint8_t *params, size_t plen)
{
	unsigned needed = 0, slots[3];

	for (unsigned i = 0; i < c->def->handles; i++)
		if (c->def->auth[i] != AUTH_NONE)
			slots[needed++] = i;
	if (needed > 0 && c->tag != TPM_ST_SESSIONS)
		return TPM_RC_AUTH_MISSING;
	if (a->count < needed)
		return TPM_RC_AUTH_MISSING;
	for (unsigned i = 0; i < a->count; i++) {
		a->s[i].slot = i < needed ? (int)slots[i] : -1;
		TRY(attach_session(c, a, i, needed));
		if (!a->s[i].s)
			TRY(rc_handle(role_allows_auth_value(c, slots[i]), slots[i] + 1));
	}
	for (unsigned i = 0; i < a->count; i++)
		TRY(check_session(c, a, i, c->def->code, params, plen));
	if (a->decrypt >= 0)
		TRY(decrypt_param(a, params, plen));
	return TPM_RC_SUCCESS;
}

static TPM_RC encrypt_param(struct auth_area *a, uint8_t *params, size_t plen)
{
	struct auth_session *as = &a->s[a->encrypt];
	struct rd r;
	uint16_t size;

	rd_init(&r, params, plen);
	if (rd_u16(&r, &size) != TPM_RC_SUCCESS || size > rd_left(&r))
		return TPM_RC_FAILURE;
	return session_crypt(as->s, as->slot >= 0 ? &as->auth : NULL, true, &as->s->nonce_tpm,
			     &as->nonce, params + 2, size);
}

/* A command that takes no sessions (CMD_NO_SESSIONS: Startup, context management) leaves the
 * exclusive audit session as it is: a client's ContextSave/Load between two audited commands
 * does not end exclusivity. */
void auth_unaudited(struct cmd *c)
{
	if (!(c->def->flags & CMD_NO_SESSIONS) && c->e->exclusive_audit) {
		c->e->exclusive_audit = 0;
		volatile_dirty(c->e);
	}
}

/* The audit session after a successful command: at its first audit or an auditReset the
 * digest starts from zeros, the session becomes the exclusive one and is no longer bound
 * (an audit session is not); otherwise it stays exclusive only if it was. The response's
 * auditExclusive says which; then digest = H(digest || cpHash || rpHash), rpHash over the
 * response parameters as sent. */
static TPM_RC audit_extend(struct cmd *c, struct auth_area *a, const uint8_t *params,
			   size_t plen)
{
	struct auth_session *as;
	struct session *s;
	struct tpm2b_digest rp_hash;
	struct crypto_hash_ctx h;

	if (a->audit < 0) {
		auth_unaudited(c);
		return TPM_RC_SUCCESS;
	}
	as = &a->s[a->audit];
	s = as->s;
	if (!s->is_audit || (as->attrs & TPMA_SESSION_AUDITRESET)) {
		s->is_audit = true;
		s->bound = false;
		s->audit_digest.size = (uint16_t)crypto_hash_size(s->auth_hash);
		memset(s->audit_digest.b, 0, sizeof(s->audit_digest.b));
		c->e->exclusive_audit = s->handle;
		volatile_dirty(c->e);
	} else if (c->e->exclusive_audit != s->handle && c->e->exclusive_audit) {
		c->e->exclusive_audit = 0;
		volatile_dirty(c->e);
	}
	if (c->e->exclusive_audit == s->handle)
		as->attrs |= TPMA_SESSION_AUDITEXCLUSIVE;
	else
		as->attrs &= (uint8_t)~TPMA_SESSION_AUDITEXCLUSIVE;
	TRY(session_rp_hash(s->auth_hash, c->def->code, params, plen, &rp_hash));
	TRY(crypto_hash_start(&h, s->auth_hash));
	TRY(crypto_hash_update(&h, s->audit_digest.b, s->audit_digest.size));
	TRY(crypto_hash_update(&h, as->cp_hash.b, as->cp_hash.size));
	TRY(crypto_hash_update(&h, rp_hash.b, rp_hash.size));
	return crypto_hash_finish(&h, s->audit_digest.b);
}

TPM_RC auth_respond(struct cmd *c, struct auth_area *a, uint8_t *params, size_t plen,
		    struct wr *w)
{
	for (unsigned i = 0; i < a->count; i++) {
		struct session *s = a->s[i].s;

		if (!s)
			continue;
		s->nonce_tpm.size = (uint16_t)crypto_hash_size(s->auth_hash);
		TRY(crypto_random(s->nonce_tpm.b, s->nonce_tpm.size));
	}
	if (a->encrypt >= 0)
		TRY(encrypt_param(a, params, plen));
	TRY(audit_extend(c, a, params, plen));
	for (unsigned i = 0; i < a->count; i++) {
		struct auth_session *as = &a->s[i];
		struct session *s = as->s;
		struct tpm2b_digest rp_hash, hmac;

		/* A command that changed a hierarchy's or an index's authValue (HierarchyChangeAuth,
		 * Clear, NV_ChangeAuth) answers with the new one, as the caller expects (Part 1
		 * §19.6.5); an index deleted by the command keeps the value it was checked with. */
		if (s && as->slot >= 0 && !c->obj[as->slot] &&
		    (hier_get(c->e, c->handle[as->slot]) || c->nv[as->slot])) {
			TRY(entity_auth(c, (unsigned)as->slot, &as->auth));
			trim(&as->auth);
		}

		if (!s) {
			/* a password session always reports continueSession (Part 1 §19.6.4) */
			TRY(wr_u16(w, 0));
			TRY(wr_u8(w, TPMA_SESSION_CONTINUESESSION));
			TRY(wr_u16(w, 0));
			continue;
		}
		TRY(wr_tpm2b_digest(w, &s->nonce_tpm));
		TRY(wr_u8(w, as->attrs));
		/* after PolicyPassword, or with an empty HMAC key and an empty command HMAC, the
		 * response HMAC is empty too */
		if ((s->type != TPM_SE_HMAC && s->need_password) ||
		    (hmac_key_empty(as) && as->hmac.size == 0)) {
			TRY(wr_u16(w, 0));
		} else {
			TRY(session_rp_hash(s->auth_hash, c->def->code, params, plen, &rp_hash));
			TRY(session_hmac(s, as->auth_in_hmac ? &as->auth : NULL, &rp_hash,
					 &s->nonce_tpm, &as->nonce, NULL, 0, as->attrs, &hmac));
			TRY(wr_tpm2b_digest(w, &hmac));
		}
		/* a policy session starts over after each use (Part 1 §19.7.1) */
		if (s->type != TPM_SE_HMAC && as->slot >= 0)
			session_policy_reset(s);
	}
	for (unsigned i = 0; i < a->count; i++)
		if (a->s[i].s && !(a->s[i].attrs & TPMA_SESSION_CONTINUESESSION))
			session_release(c->client, a->s[i].s);
	return TPM_RC_SUCCESS;
}

void auth_wipe(struct auth_area *a)
{
	crypto_wipe(a, sizeof(*a));
}
