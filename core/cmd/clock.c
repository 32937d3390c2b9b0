/* ReadClock, ClockSet, ClockRateAdjust (Part 3 §29.1-29.3) */
#include "engine_int.h"

#define CLOCK_MAX 0xFFFF000000000000ull /* Part 3 §29.2: newTime may not pass this */

/* TPMS_TIME_INFO: time counts from _TPM_Init, clock across power cycles; safe is NO after a
 * disorderly shutdown until Clock is saved again past a CLOCK_UPDATE boundary (startup.c). */
static TPM_RC read_clock(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;

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
	if (t > CLOCK_MAX || t < engine_clock_ms(e))
		return rc_param(TPM_RC_VALUE, 1);
	engine_clock_sync(e);
	e->ps.clock = t;
	e->ps.clock_safe = true;
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}

/* TPM_CLOCK_ADJUST: -3 (coarse slower) ... +3 (coarse faster). Clock follows the host's
 * monotonic clock, which the host keeps right; a valid adjustment is accepted and changes
 * nothing (Part 3 §29.3 leaves the effect to the implementation). */
static TPM_RC clock_rate_adjust(struct cmd *c)
{
	uint8_t adjust;

	TRYP(1, rd_u8(&c->in, &adjust));
	if ((int8_t)adjust < -3 || (int8_t)adjust > 3)
		return rc_param(TPM_RC_VALUE, 1);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_clock[] = {
	{ .code = TPM_CC_ReadClock, .name = "ReadClock", .run = read_clock },
	{ .code = TPM_CC_ClockSet, .name = "ClockSet", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OWNER | HK_PLATFORM }, .run = clock_set },
	{ .code = TPM_CC_ClockRateAdjust, .name = "ClockRateAdjust", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OWNER | HK_PLATFORM }, .run = clock_rate_adjust },
	{ 0 },
};
