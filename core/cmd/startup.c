/* Startup, Shutdown (Part 3 §9.3, §9.4) */
#include <string.h>

#include "nv/nv.h"
#include "startup.h"
#include "state/store.h"

static TPM_RC startup(struct cmd *c)
{
	uint16_t type;

	TRYP(1, rd_u16(&c->in, &type));
	TRY(cmd_params_done(c));
	return startup_run(c->e, type, c->locality);
}

static TPM_RC shutdown(struct cmd *c)
{
	uint16_t type;

	TRYP(1, rd_u16(&c->in, &type));
	TRY(cmd_params_done(c));
	if (type != TPM_SU_CLEAR && type != TPM_SU_STATE)
		return rc_param(TPM_RC_VALUE, 1);
	volatile_dirty(c->e); /* the orderly counters flushed, sessions kept for Startup */
	if (type == TPM_SU_STATE)
		startup_save_pcrs(c->e);
	else
		memset(&c->e->ps.pcr_saved, 0, sizeof(c->e->ps.pcr_saved));
	nv_orderly_flush(c->e);
	c->e->ps.orderly = true;
	c->e->ps.saved_state_valid = type == TPM_SU_STATE;
	engine_clock_sync(c->e);
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_startup[] = {
	{ .code = TPM_CC_Startup, .name = "Startup", .flags = CMD_NO_STARTUP | CMD_NO_SESSIONS,
	  .run = startup },
	{ .code = TPM_CC_Shutdown, .name = "Shutdown", .run = shutdown },
	{ 0 },
};
