/* The policy assertions that need no other entity (Part 3 §23): PolicyRestart,
 * PolicyGetDigest, PolicyAuthValue, PolicyPassword, PolicyPhysicalPresence,
 * PolicyCommandCode, PolicyLocality, PolicyCpHash, PolicyNameHash, PolicyTemplate,
 * PolicyPCR, PolicyOR, PolicyCounterTimer, PolicyNvWritten, PolicyDuplicationSelect. Each
 * extends policyDigest with H(policyDigest || commandCode || arguments) and records what must
 * hold when the session is used; a trial session only computes the digest. The assertions
 * on NV contents (PolicyNV, PolicyAuthorizeNV) are in policy_nv.c. */
#include <string.h>

#include "pcr.h"
#include "policy.h"

#define MAX_OR_BRANCHES 8
#define LOCALITY_EXTENDED 32	/* TPMA_LOCALITY from here on is one locality number */
#define TIME_INFO_SIZE 25	/* TPMS_TIME_INFO */

static void be16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void be32(uint8_t *b, uint32_t v)
{
	be16(b, (uint16_t)(v >> 16));
	be16(b + 2, (uint16_t)v);
}

static bool same(const struct tpm2b_digest *a, const struct tpm2b_digest *b)
{
	return a->size == b->size && memcmp(a->b, b->b, a->size) == 0;
}

static bool is_trial(const struct session *s)
{
	return s->type == TPM_SE_TRIAL;
}

static TPM_RC policy_restart(struct cmd *c)
{
	struct session *s;

	TRY(policy_session(c, 0, &s));
	TRY(cmd_params_done(c));
	session_policy_reset(s);
	return TPM_RC_SUCCESS;
}

static TPM_RC policy_get_digest(struct cmd *c)
{
	struct session *s;

	TRY(policy_session(c, 0, &s));
	TRY(cmd_params_done(c));
	return wr_tpm2b_digest(&c->out, &s->policy_digest);
}

static TPM_RC policy_auth_value(struct cmd *c)
{
	struct session *s;

	TRY(policy_session(c, 0, &s));
	TRY(cmd_params_done(c));
	TRY(policy_extend(s, TPM_CC_PolicyAuthValue, NULL, 0));
	s->need_auth_value = true;
	s->need_password = false;
	return TPM_RC_SUCCESS;
}

/* The same digest as PolicyAuthValue: only how the authValue is given differs. */
static TPM_RC policy_password(struct cmd *c)
{
	struct session *s;

	TRY(policy_session(c, 0, &s));
	TRY(cmd_params_done(c));
	TRY(policy_extend(s, TPM_CC_PolicyAuthValue, NULL, 0));
	s->need_password = true;
	s->need_auth_value = false;
	return TPM_RC_SUCCESS;
}

static TPM_RC policy_physical_presence(struct cmd *c)
{
	struct session *s;

	TRY(policy_session(c, 0, &s));
	TRY(cmd_params_done(c));
	TRY(policy_extend(s, TPM_CC_PolicyPhysicalPresence, NULL, 0));
	s->need_pp = true;
	return TPM_RC_SUCCESS;
}

static TPM_RC policy_command_code(struct cmd *c)
{
	struct session *s;
	uint32_t code;
	uint8_t b[4];

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_u32(&c->in, &code));
	TRY(cmd_params_done(c));
	if (s->command_code && s->command_code != code)
		return rc_param(TPM_RC_VALUE, 1);
	if (!cmd_lookup(code))
		return rc_param(TPM_RC_POLICY_CC, 1);
	be32(b, code);
	TRY(policy_extend(s, TPM_CC_PolicyCommandCode, b, sizeof(b)));
	s->command_code = code;
	return TPM_RC_SUCCESS;
}

/* Localities 0-4 are a mask and narrow down with each assertion; an extended locality is one
 * number that cannot be mixed with the mask or changed. */
static TPM_RC policy_locality(struct cmd *c)
{
	struct session *s;
	uint8_t want, now;

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_u8(&c->in, &want));
	TRY(cmd_params_done(c));
	if (want == 0)
		return rc_param(TPM_RC_RANGE, 1);
	now = s->locality;
	if (want < LOCALITY_EXTENDED) {
		if (now >= LOCALITY_EXTENDED)
			return rc_param(TPM_RC_RANGE, 1);
		now = (now ? now : 0x1F) & want;
		if (now == 0)
			return rc_param(TPM_RC_RANGE, 1);
	} else {
		if (now != 0 && now != want)
			return rc_param(TPM_RC_RANGE, 1);
		now = want;
	}
	TRY(policy_extend(s, TPM_CC_PolicyLocality, &want, 1));
	s->locality = now;
	return TPM_RC_SUCCESS;
}

/* cpHash, nameHash and templateHash exclude each other (the reference keeps them in one
 * field); a digest argument must have the session's digest size. */
static TPM_RC read_session_digest(struct cmd *c, const struct session *s, struct tpm2b_digest *d)
{
	TRYP(1, rd_tpm2b_digest(&c->in, d));
	TRY(cmd_params_done(c));
	if (d->size != crypto_hash_size(s->auth_hash))
		return rc_param(TPM_RC_SIZE, 1);
	return TPM_RC_SUCCESS;
}

static TPM_RC policy_cp_hash(struct cmd *c)
{
	struct session *s;
	struct tpm2b_digest d;

	TRY(policy_session(c, 0, &s));
	TRY(read_session_digest(c, s, &d));
	if (s->name_hash.size || s->template_hash.size || (s->cp_hash.size && !same(&s->cp_hash, &d)))
		return TPM_RC_CPHASH;
	TRY(policy_extend(s, TPM_CC_PolicyCpHash, d.b, d.size));
	s->cp_hash = d;
	return TPM_RC_SUCCESS;
}

static TPM_RC policy_name_hash(struct cmd *c)
{
	struct session *s;
	struct tpm2b_digest d;

	TRY(policy_session(c, 0, &s));
	TRY(read_session_digest(c, s, &d));
	if (s->cp_hash.size || s->name_hash.size || s->template_hash.size)
		return TPM_RC_CPHASH;
	TRY(policy_extend(s, TPM_CC_PolicyNameHash, d.b, d.size));
	s->name_hash = d;
	return TPM_RC_SUCCESS;
}

static TPM_RC policy_template(struct cmd *c)
{
	struct session *s;
	struct tpm2b_digest d;

	TRY(policy_session(c, 0, &s));
	TRY(read_session_digest(c, s, &d));
	if (s->template_hash.size && !same(&s->template_hash, &d))
		return rc_param(TPM_RC_VALUE, 1);
	if (s->cp_hash.size || s->name_hash.size)
		return TPM_RC_CPHASH;
	TRY(policy_extend(s, TPM_CC_PolicyTemplate, d.b, d.size));
	s->template_hash = d;
	return TPM_RC_SUCCESS;
}

/* H(policyDigest || TPM_CC_PolicyPCR || pcrs || pcrDigest), pcrDigest the digest of the
 * selected PCRs now. A real session remembers the PCR update counter; a trial session takes
 * the caller's pcrDigest if one is given. */
static TPM_RC policy_pcr(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct session *s;
	struct tpm2b_digest given;
	struct tpml_pcr_selection sel;
	uint8_t now[MAX_DIGEST_SIZE], args[4 + MAX_PCR_BANKS * (3 + PCR_SELECT_MAX) + MAX_DIGEST_SIZE];
	size_t now_len;
	struct wr w;

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_tpm2b_digest(&c->in, &given));
	TRYP(2, rd_pcr_selection(&c->in, &sel));
	TRY(cmd_params_done(c));
	/* the reference filters the selection before it goes into the digest too */
	pcr_filter_selection(e, &sel);
	TRY(pcr_digest(e, &sel, s->auth_hash, now, &now_len));
	if (!is_trial(s)) {
		if (s->pcr_counter_set && s->pcr_counter != e->pcr_update_counter)
			return TPM_RC_PCR_CHANGED;
		if (given.size && (given.size != now_len || memcmp(given.b, now, now_len) != 0))
			return rc_param(TPM_RC_VALUE, 1);
	}
	wr_init(&w, args, sizeof(args));
	TRY(wr_pcr_selection(&w, &sel));
	if (is_trial(s) && given.size)
		TRY(wr_bytes(&w, given.b, given.size));
	else
		TRY(wr_bytes(&w, now, now_len));
	TRY(policy_extend(s, TPM_CC_PolicyPCR, args, w.off));
	if (!is_trial(s)) {
		s->pcr_counter_set = true;
		s->pcr_counter = e->pcr_update_counter;
	}
	return TPM_RC_SUCCESS;
}

/* H(0...0 || TPM_CC_PolicyOR || digest 1 || ... || digest n), n 2 to 8; a real session's
 * digest must be one of them. */
static TPM_RC policy_or(struct cmd *c)
{
	struct session *s;
	uint8_t list[MAX_OR_BRANCHES * MAX_DIGEST_SIZE];
	size_t len = 0;
	uint32_t count;
	bool found = false;

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_u32(&c->in, &count));
	if (count < 2 || count > MAX_OR_BRANCHES)
		return rc_param(TPM_RC_SIZE, 1);
	for (uint32_t i = 0; i < count; i++) {
		struct tpm2b_digest d;

		TRYP(1, rd_tpm2b_digest(&c->in, &d));
		found |= same(&d, &s->policy_digest);
		memcpy(list + len, d.b, d.size);
		len += d.size;
	}
	TRY(cmd_params_done(c));
	if (!is_trial(s) && !found)
		return rc_param(TPM_RC_VALUE, 1);
	memset(s->policy_digest.b, 0, s->policy_digest.size);
	return policy_extend(s, TPM_CC_PolicyOR, list, len);
}

/* TPMS_TIME_INFO now, as ReadClock reports it. */
static void time_info(struct pqtpm_engine *e, uint8_t out[TIME_INFO_SIZE])
{
	uint64_t clock = engine_clock_ms(e), time = engine_time_ms(e);

	be32(out, (uint32_t)(time >> 32));
	be32(out + 4, (uint32_t)time);
	be32(out + 8, (uint32_t)(clock >> 32));
	be32(out + 12, (uint32_t)clock);
	be32(out + 16, e->ps.reset_count);
	be32(out + 20, e->ps.restart_count);
	out[24] = e->ps.clock_safe;
}

/* H(policyDigest || TPM_CC_PolicyCounterTimer || H(operandB || offset || operation)) */
static TPM_RC policy_counter_timer(struct cmd *c)
{
	struct session *s;
	struct tpm2b_digest operand;
	uint16_t offset, op;
	uint8_t info[TIME_INFO_SIZE], args[sizeof(operand.b) + 4], arg_hash[MAX_DIGEST_SIZE];

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_tpm2b_digest(&c->in, &operand));
	TRYP(2, rd_u16(&c->in, &offset));
	TRYP(3, rd_u16(&c->in, &op));
	TRY(cmd_params_done(c));
	if (op > POLICY_EO_MAX)
		return rc_param(TPM_RC_VALUE, 3);
	if (!is_trial(s)) {
		if ((size_t)offset + operand.size > sizeof(info))
			return rc_param(TPM_RC_RANGE, 2);
		time_info(c->e, info);
		if (!policy_eo_holds(op, info + offset, operand.b, operand.size))
			return TPM_RC_POLICY;
	}
	memcpy(args, operand.b, operand.size);
	be16(args + operand.size, offset);
	be16(args + operand.size + 2, op);
	TRY(crypto_hash(s->auth_hash, args, operand.size + 4u, arg_hash));
	return policy_extend(s, TPM_CC_PolicyCounterTimer, arg_hash, crypto_hash_size(s->auth_hash));
}

/* H(policyDigest || TPM_CC_PolicyNvWritten || writtenSet): the entity the session authorizes
 * must be an NV index whose TPMA_NV_WRITTEN is writtenSet (checked at use, policy.c). Asserted
 * twice, the two must agree. */
static TPM_RC policy_nv_written(struct cmd *c)
{
	struct session *s;
	uint8_t written;

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_u8(&c->in, &written));
	TRY(cmd_params_done(c));
	if (written > 1) /* TPMI_YES_NO */
		return rc_param(TPM_RC_VALUE, 1);
	if (s->check_nv_written && s->nv_written_state != (written == 1))
		return rc_param(TPM_RC_VALUE, 1);
	TRY(policy_extend(s, TPM_CC_PolicyNvWritten, &written, 1));
	s->check_nv_written = true;
	s->nv_written_state = written == 1;
	return TPM_RC_SUCCESS;
}

/* H(policyDigest || TPM_CC_PolicyDuplicationSelect || [objectName] || newParentName ||
 * includeObject), objectName only if includeObject is YES. The session then authorizes only
 * Duplicate (commandCode) of that object to that new parent: nameHash = H(objectName ||
 * newParentName), the names of Duplicate's two handles. Like the reference, it needs a
 * session with no cpHash, nameHash, templateHash or command code yet. */
static TPM_RC policy_duplication_select(struct cmd *c)
{
	struct session *s;
	struct tpm2b_name object, parent;
	struct crypto_hash_ctx h;
	uint8_t include, code[4];

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_tpm2b_name(&c->in, &object));
	TRYP(2, rd_tpm2b_name(&c->in, &parent));
	TRYP(3, rd_u8(&c->in, &include));
	TRY(cmd_params_done(c));
	if (include > 1) /* TPMI_YES_NO */
		return rc_param(TPM_RC_VALUE, 3);
	if (s->cp_hash.size || s->name_hash.size || s->template_hash.size)
		return TPM_RC_CPHASH;
	if (s->command_code)
		return TPM_RC_COMMAND_CODE;
	TRY(crypto_hash_start(&h, s->auth_hash));
	TRY(crypto_hash_update(&h, object.b, object.size));
	TRY(crypto_hash_update(&h, parent.b, parent.size));
	TRY(crypto_hash_finish(&h, s->name_hash.b));
	s->name_hash.size = (uint16_t)crypto_hash_size(s->auth_hash);
	be32(code, TPM_CC_PolicyDuplicationSelect);
	TRY(crypto_hash_start(&h, s->auth_hash));
	TRY(crypto_hash_update(&h, s->policy_digest.b, s->policy_digest.size));
	TRY(crypto_hash_update(&h, code, sizeof(code)));
	if (include)
		TRY(crypto_hash_update(&h, object.b, object.size));
	TRY(crypto_hash_update(&h, parent.b, parent.size));
	TRY(crypto_hash_update(&h, &include, 1));
	TRY(crypto_hash_finish(&h, s->policy_digest.b));
	s->command_code = TPM_CC_Duplicate;
	return TPM_RC_SUCCESS;
}

#define POLICY_CMD(cc, fn, fl)                                                         \
	{ .code = TPM_CC_##cc, .name = #cc, .handles = 1, .htype = { HK_SESSION }, \
	  .flags = (fl), .run = (fn) }

const struct cmd_def cmds_policy[] = {
	POLICY_CMD(PolicyRestart, policy_restart, CMD_READS_STATE),
	POLICY_CMD(PolicyGetDigest, policy_get_digest, CMD_PARAM_OUT | CMD_READS_STATE),
	POLICY_CMD(PolicyAuthValue, policy_auth_value, CMD_READS_STATE),
	POLICY_CMD(PolicyPassword, policy_password, CMD_READS_STATE),
	POLICY_CMD(PolicyPhysicalPresence, policy_physical_presence, CMD_READS_STATE),
	POLICY_CMD(PolicyCommandCode, policy_command_code, CMD_READS_STATE),
	POLICY_CMD(PolicyLocality, policy_locality, CMD_READS_STATE),
	POLICY_CMD(PolicyCpHash, policy_cp_hash, CMD_PARAM_IN | CMD_READS_STATE),
	POLICY_CMD(PolicyNameHash, policy_name_hash, CMD_PARAM_IN | CMD_READS_STATE),
	POLICY_CMD(PolicyTemplate, policy_template, CMD_PARAM_IN | CMD_READS_STATE),
	POLICY_CMD(PolicyPCR, policy_pcr, CMD_PARAM_IN | CMD_READS_STATE),
	POLICY_CMD(PolicyOR, policy_or, CMD_READS_STATE),
	POLICY_CMD(PolicyCounterTimer, policy_counter_timer, CMD_PARAM_IN),
	POLICY_CMD(PolicyNvWritten, policy_nv_written, CMD_READS_STATE),
	POLICY_CMD(PolicyDuplicationSelect, policy_duplication_select,
		   CMD_PARAM_IN | CMD_READS_STATE),
	{ 0 },
};
