/* ReadClock, ClockSet, ClockRateAdjust (Part 3 §29.1-29.3) */
#include "engine_int.h"

#define CLOCK_MAX 0xFFFF000000000000ull /* Part 3 §29.2: newTime may not pass this */

/* TPMS_TIME_INFO: time counts from _TPM_Init, clock across power cycles; safe is NO after a
 * disorderly shutdown until Clock is saved again past a CLOCK_UPDATE boundary (startup.c). */
static TPM_RC read_clock(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;

	TRY(cmd_params_done(c));
	TRY(wr_u64(&c->out, engine_time_ms(e)));
	TRY(wr_u64(&c->out, engine_clock_ms(e)));
	TRY(wr_u32(&c->out, e->ps.reset_count));
	TRY(wr_u32(&c->out, e->ps.restart_count));
	return wr_u8(&c->out, e->ps.clock_safe);
}

/* Clock only moves forward; the new value is saved before the response. */
static TPM_RC clock_set(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	uint64_t t;

	TRYP(1, rd_u64(&c->in, &t));
	TRY(cmd_params_done(c));
	if (t > CLOCK_MAX || t < engine_clock_ms(e))
		return rc_param(TPM_RC_VALUE, 1);
	engine_clock_sync(e);
	e->ps.clock = t;
	e->ps.clock_safe = true;
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}

/* TPM_CLOCK_ADJUST: -3 (coarse slower) ... +3 (coarse faster). The steps and the limit are the
 * reference implementation's proportions (1%, 0.1%, 1/30000; at most 1/6 off nominal); the
 * adjustment lasts until the next _TPM_Init (Part 3 §29.3). */
#define ADJUST_COARSE 10000
#define ADJUST_MEDIUM 1000
#define ADJUST_FINE 33
#define ADJUST_LIMIT 166666

static TPM_RC clock_rate_adjust(struct cmd *c)
{
	static const int32_t step[7] = { -ADJUST_COARSE, -ADJUST_MEDIUM, -ADJUST_FINE, 0,
					 ADJUST_FINE, ADJUST_MEDIUM, ADJUST_COARSE };
	struct pqtpm_engine *e = c->e;
	uint8_t adjust;
	int32_t ppm;

	TRYP(1, rd_u8(&c->in, &adjust));
	TRY(cmd_params_done(c));
	if ((int8_t)adjust < -3 || (int8_t)adjust > 3)
		return rc_param(TPM_RC_VALUE, 1);
	ppm = e->clock_ppm + step[(int8_t)adjust + 3];
	if (ppm > ADJUST_LIMIT || ppm < -ADJUST_LIMIT)
		return TPM_RC_SUCCESS; /* at the limit: no further change, as the reference does */
	/* the time so far at the old rate, from now on at the new one */
	engine_clock_sync(e);
	e->clock_ppm = ppm;
	volatile_dirty(e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_clock[] = {
	{ .code = TPM_CC_ReadClock, .name = "ReadClock", .run = read_clock },
	{ .code = TPM_CC_ClockSet, .name = "ClockSet", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OWNER | HK_PLATFORM }, .flags = CMD_PP, .run = clock_set },
	{ .code = TPM_CC_ClockRateAdjust, .name = "ClockRateAdjust", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OWNER | HK_PLATFORM }, .flags = CMD_PP,
	  .run = clock_rate_adjust },
	{ 0 },
};
