/* GetRandom, StirRandom (Part 3 §16.1, §16.2) */
#include "engine_int.h"

static TPM_RC get_random(struct cmd *c)
{
	uint16_t want;
	size_t mark;
	uint8_t *out;

	TRYP(1, rd_u16(&c->in, &want));
	TRY(cmd_params_done(c));
	/* Part 3: no more than the largest digest the TPM implements */
	if (want > MAX_DIGEST_SIZE)
		want = MAX_DIGEST_SIZE;
	TRY(wr_size_begin(&c->out, &mark));
	TRY(wr_reserve(&c->out, want, &out));
	TRY(crypto_random(out, want));
	return wr_size_end(&c->out, mark);
}

static TPM_RC stir_random(struct cmd *c)
{
	uint8_t data[MAX_SYM_DATA]; /* TPM2B_SENSITIVE_DATA */
	uint16_t len;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, data, sizeof(data), &len));
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_stir_random(data, len);
	crypto_wipe(data, sizeof(data));
	return rc;
}

const struct cmd_def cmds_random[] = {
	{ .code = TPM_CC_GetRandom, .name = "GetRandom", .flags = CMD_PARAM_OUT | CMD_READS_STATE,
	  .run = get_random },
	{ .code = TPM_CC_StirRandom, .name = "StirRandom", .flags = CMD_PARAM_IN | CMD_READS_STATE,
	  .run = stir_random },
	{ 0 },
};
