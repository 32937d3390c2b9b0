/* GetSessionAuditDigest (Part 3 §18.5): the audit digest of an audit session and whether it
 * is the exclusive one, signed as a TPMS_ATTEST of type TPM_ST_ATTEST_SESSION_AUDIT. The
 * digest itself is kept by the authorization code (auth.c) after every audited command. */
#include "attest.h"
#include "session.h"

static TPM_RC get_session_audit_digest(struct cmd *c)
{
	TPM_HANDLE handle = c->handle[2];
	struct attest_data qualifying;
	struct tpmt_scheme in_scheme;
	const struct session *s;
	uint8_t body[1 + 2 + MAX_DIGEST_SIZE];
	struct wr w;

	TRYP(1, attest_rd_data(&c->in, &qualifying));
	TRYP(2, rd_sig_scheme(&c->in, &in_scheme, true));
	TRY(cmd_params_done(c));
	/* TPMI_SH_HMAC: a policy session is no audit session */
	if ((handle >> 24) != TPM_HT_HMAC_SESSION)
		return rc_handle(TPM_RC_VALUE, 3);
	s = session_find(c->client, handle);
	if (!s)
		return TPM_RC_REFERENCE_H0 + 2;
	if (!s->is_audit)
		return rc_handle(TPM_RC_TYPE, 3);
	/* TPMS_SESSION_AUDIT_INFO: exclusiveSession, sessionDigest */
	wr_init(&w, body, sizeof(body));
	TRY(wr_u8(&w, c->e->exclusive_audit == handle));
	TRY(wr_tpm2b_digest(&w, &s->audit_digest));
	return attest_sign(c, 1, &in_scheme, 2, &qualifying, TPM_ST_ATTEST_SESSION_AUDIT, body,
			   w.off);
}

const struct cmd_def cmds_audit[] = {
	{ .code = TPM_CC_GetSessionAuditDigest, .name = "GetSessionAuditDigest", .handles = 3,
	  .auth = { AUTH_USER, AUTH_USER, AUTH_NONE },
	  .htype = { HK_ENDORSEMENT, HK_OBJECT | HK_NULL, HK_SESSION },
	  .run = get_session_audit_digest },
	{ 0 },
};
