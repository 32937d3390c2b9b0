/* ReadClock (Part 3 §29.1) */
#include "engine_int.h"

/* TPMS_TIME_INFO. time should count from _TPM_Init; the engine keeps no power-on base apart
 * from the clock's, so it counts from the last time the clock was folded into ps.clock (power
 * on, Shutdown, save). safe is YES: a Clock lost in a crash is not tracked yet. */
static TPM_RC read_clock(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	uint64_t clock = engine_clock_ms(e);

	TRY(wr_u64(&c->out, clock - e->ps.clock));
	TRY(wr_u64(&c->out, clock));
	TRY(wr_u32(&c->out, e->ps.reset_count));
	TRY(wr_u32(&c->out, e->ps.restart_count));
	return wr_u8(&c->out, 1);
}

const struct cmd_def cmds_clock[] = {
	{ .code = TPM_CC_ReadClock, .name = "ReadClock", .run = read_clock },
	{ 0 },
};
