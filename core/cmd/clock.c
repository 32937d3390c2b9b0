/* ReadClock (Part 3 §29.1) */
#include "engine_int.h"

/* TPMS_TIME_INFO: time counts from _TPM_Init, clock across power cycles. safe is YES: a
 * Clock lost in a crash is not tracked yet (NV issue). */
static TPM_RC read_clock(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;

	TRY(wr_u64(&c->out, engine_time_ms(e)));
	TRY(wr_u64(&c->out, engine_clock_ms(e)));
	TRY(wr_u32(&c->out, e->ps.reset_count));
	TRY(wr_u32(&c->out, e->ps.restart_count));
	return wr_u8(&c->out, 1);
}

const struct cmd_def cmds_clock[] = {
	{ .code = TPM_CC_ReadClock, .name = "ReadClock", .run = read_clock },
	{ 0 },
};
