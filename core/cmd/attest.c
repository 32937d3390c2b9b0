/* Attestation commands (Part 3 §18): Certify, CertifyCreation, Quote, GetTime. Each marshals
 * its attested body (TPMU_ATTEST) and leaves the common header, the scheme rules and the
 * signature to attest_sign (core/attest.h). */
#include "attest.h"
#include "object/object.h"
#include "pcr.h"
#include "ticket.h"

#define BODY_MAX 512 /* the largest body here: two names, or a selection and a digest */

/* TPMS_CERTIFY_INFO: the object's Name and Qualified Name. objectHandle is handle 1. */
static TPM_RC certify(struct cmd *c)
{
	const struct object *obj = c->obj[0];
	struct attest_data qualifying;
	struct tpmt_scheme in;
	uint8_t body[BODY_MAX];
	struct wr w;

	TRYP(1, attest_rd_data(&c->in, &qualifying));
	TRYP(2, rd_sig_scheme(&c->in, &in, true));
	wr_init(&w, body, sizeof(body));
	TRY(cmd_params_done(c));
	TRY(wr_tpm2b_name(&w, &obj->name));
	TRY(wr_tpm2b_name(&w, &obj->qualified_name));
	return attest_sign(c, 1, &in, 2, &qualifying, TPM_ST_ATTEST_CERTIFY, body, w.off);
}

/* TPMS_CREATION_INFO: the object's Name and the creationHash its creation ticket vouches for.
 * signHandle is handle 1, objectHandle handle 2. The ticket is recomputed with the proof of
 * the hierarchy it names; a NULL Ticket (an object of the NULL hierarchy) never matches. */
static TPM_RC certify_creation(struct cmd *c)
{
	const struct object *obj = c->obj[1];
	struct attest_data qualifying;
	struct tpm2b_digest creation_hash;
	struct tpmt_scheme in, scheme;
	struct tpmt_ticket given, expected;
	uint8_t body[BODY_MAX];
	struct wr w;

	TRYP(1, attest_rd_data(&c->in, &qualifying));
	TRYP(2, rd_tpm2b_digest(&c->in, &creation_hash));
	TRYP(3, rd_sig_scheme(&c->in, &in, true));
	TRYP(4, rd_ticket(&c->in, &given));
	TRY(cmd_params_done(c));
	if (given.tag != TPM_ST_CREATION)
		return rc_param(TPM_RC_TAG, 4);
	TRY(attest_scheme(c, 0, &in, 3, &scheme));
	TRY(object_creation_ticket(c->e, given.hierarchy, &obj->name, &creation_hash, &expected));
	if (!ticket_matches(&given, &expected))
		return rc_param(TPM_RC_TICKET, 4);
	wr_init(&w, body, sizeof(body));
	TRY(wr_tpm2b_name(&w, &obj->name));
	TRY(wr_tpm2b_digest(&w, &creation_hash));
	return attest_sign(c, 0, &in, 3, &qualifying, TPM_ST_ATTEST_CREATION, body, w.off);
}

/* TPMS_QUOTE_INFO: the selection (unallocated banks left out) and the digest of the selected
 * PCRs with the hash attest_hash names for the key and scheme. */
static TPM_RC quote(struct cmd *c)
{
	struct attest_data qualifying;
	struct tpmt_scheme in, scheme;
	struct tpml_pcr_selection sel;
	struct tpm2b_digest digest;
	uint8_t body[BODY_MAX];
	TPM_ALG_ID hash;
	size_t dlen;
	struct wr w;

	TRYP(1, attest_rd_data(&c->in, &qualifying));
	TRYP(2, rd_sig_scheme(&c->in, &in, true));
	TRYP(3, rd_pcr_selection(&c->in, &sel));
	TRY(cmd_params_done(c));
	TRY(attest_scheme(c, 0, &in, 2, &scheme));
	hash = attest_hash(c->obj[0], &scheme);
	pcr_filter_selection(c->e, &sel);
	TRY(pcr_digest(c->e, &sel, hash, digest.b, &dlen));
	digest.size = (uint16_t)dlen;
	wr_init(&w, body, sizeof(body));
	TRY(wr_pcr_selection(&w, &sel));
	TRY(wr_tpm2b_digest(&w, &digest));
	return attest_sign(c, 0, &in, 2, &qualifying, TPM_ST_ATTEST_QUOTE, body, w.off);
}

/* TPMS_TIME_ATTEST_INFO: time, clockInfo and firmwareVersion as they are; the endorsement
 * hierarchy's authorization (handle 1) is what allows them out unobfuscated here, as in the
 * reference implementation. signHandle is handle 2. */
static TPM_RC get_time(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct attest_data qualifying;
	struct tpmt_scheme in;
	uint8_t body[BODY_MAX];
	uint64_t clock = engine_clock_ms(e);
	struct wr w;

	TRYP(1, attest_rd_data(&c->in, &qualifying));
	TRYP(2, rd_sig_scheme(&c->in, &in, true));
	wr_init(&w, body, sizeof(body));
	TRY(cmd_params_done(c));
	TRY(wr_u64(&w, engine_time_ms(e)));
	TRY(wr_u64(&w, clock));
	TRY(wr_u32(&w, e->ps.reset_count));
	TRY(wr_u32(&w, e->ps.restart_count));
	TRY(wr_u8(&w, e->ps.clock_safe));
	TRY(wr_u64(&w, attest_firmware_version()));
	return attest_sign_at(c, 1, &in, 2, &qualifying, TPM_ST_ATTEST_TIME, body, w.off, clock);
}

#define PARAMS_IO (CMD_PARAM_IN | CMD_PARAM_OUT)

const struct cmd_def cmds_attest[] = {
	{ .code = TPM_CC_Certify, .name = "Certify", .handles = 2,
	  .auth = { AUTH_ADMIN, AUTH_USER }, .htype = { HK_OBJECT, HK_OBJECT | HK_NULL },
	  .flags = PARAMS_IO, .run = certify },
	{ .code = TPM_CC_CertifyCreation, .name = "CertifyCreation", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OBJECT | HK_NULL, HK_OBJECT },
	  .flags = PARAMS_IO, .run = certify_creation },
	{ .code = TPM_CC_GetTime, .name = "GetTime", .handles = 2,
	  .auth = { AUTH_USER, AUTH_USER }, .htype = { HK_ENDORSEMENT, HK_OBJECT | HK_NULL },
	  .flags = PARAMS_IO, .run = get_time },
	{ .code = TPM_CC_Quote, .name = "Quote", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = PARAMS_IO, .run = quote },
	{ 0 },
};
