/* The in-process transport: commands go straight to pqtpm_engine_execute() as one client of
 * the engine (its own transient objects and sessions, flushed at close). */
#include <errno.h>

#include "tss_int.h"

static int transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rsp_len)
{
	return pqtpm_engine_execute(ctx, 0, cmd, len, rsp, cap, rsp_len);
}

static void close_client(void *ctx)
{
	pqtpm_client_free(ctx);
}

static const struct tss_transport engine_ops = {
	.transmit = transmit,
	.power_on = NULL,
	.close = close_client,
};

int tss_engine_transport(struct pqtpm_engine *e, const struct tss_transport **ops, void **ctx)
{
	struct pqtpm_client *c = e ? pqtpm_client_new(e) : NULL;

	if (!c)
		return e ? -ENOMEM : -EINVAL;
	*ops = &engine_ops;
	*ctx = c;
	return 0;
}
