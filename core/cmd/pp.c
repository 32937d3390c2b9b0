/* PP_Commands and SetAlgorithmSet (Part 3 §26.2, §26.3). PP_Commands chooses which of the
 * commands that may require physical presence (CMD_PP in their row) do require it when the
 * platform authorizes them; PP_Commands itself always does. Physical presence is the
 * platform's signal (MSSIM platform port, e->phys_presence); auth.c checks it. */
#include <string.h>

#include "engine_int.h"

static size_t put(TPM_CC *out, size_t k, size_t max, TPM_CC from, TPM_CC cc)
{
	if (cc >= from && k < max)
		out[k++] = cc;
	return k;
}

size_t cmd_pp_commands(const struct pqtpm_engine *e, TPM_CC from, TPM_CC *out, size_t max)
{
	size_t k = 0;
	bool own = false;

	/* the list is sorted; PP_Commands goes in its place */
	for (uint16_t i = 0; i < e->ps.pp.n; i++) {
		if (!own && e->ps.pp.list[i] > TPM_CC_PP_Commands) {
			k = put(out, k, max, from, TPM_CC_PP_Commands);
			own = true;
		}
		k = put(out, k, max, from, e->ps.pp.list[i]);
	}
	if (!own)
		k = put(out, k, max, from, TPM_CC_PP_Commands);
	return k;
}

/* Only commands that may require physical presence join; others are ignored (Part 3). */
static void pp_set(struct pp_list *l, TPM_CC cc)
{
	const struct cmd_def *d = cmd_lookup(cc);
	uint16_t i = 0;

	if (!d || !(d->flags & CMD_PP) || cc == TPM_CC_PP_Commands || l->n >= PP_LIST_MAX)
		return;
	while (i < l->n && l->list[i] < cc)
		i++;
	if (i < l->n && l->list[i] == cc)
		return;
	memmove(&l->list[i + 1], &l->list[i], (l->n - i) * sizeof(l->list[0]));
	l->list[i] = cc;
	l->n++;
}

static void pp_clear(struct pp_list *l, TPM_CC cc)
{
	for (uint16_t i = 0; i < l->n; i++)
		if (l->list[i] == cc) {
			memmove(&l->list[i], &l->list[i + 1], (l->n - i - 1) * sizeof(l->list[0]));
			l->n--;
			return;
		}
}

static TPM_RC pp_commands(struct cmd *c)
{
	TPM_CC set[TPML_CC_MAX], clear[TPML_CC_MAX];
	uint32_t nset, nclear;

	TRYP(1, rd_tpml_cc(&c->in, set, &nset));
	TRYP(2, rd_tpml_cc(&c->in, clear, &nclear));
	TRY(cmd_params_done(c));
	for (uint32_t i = 0; i < nset; i++)
		pp_set(&c->e->ps.pp, set[i]);
	for (uint32_t i = 0; i < nclear; i++)
		pp_clear(&c->e->ps.pp, clear[i]);
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

/* The algorithm set is the platform's to define (Part 2 TPM_PT_ALGORITHM_SET): this TPM has
 * one set of algorithms, and keeps and reports the value it was given. */
static TPM_RC set_algorithm_set(struct cmd *c)
{
	uint32_t set;

	TRYP(1, rd_u32(&c->in, &set));
	TRY(cmd_params_done(c));
	c->e->ps.algorithm_set = set;
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_pp[] = {
	{ .code = TPM_CC_PP_Commands, .name = "PP_Commands", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_PLATFORM }, .flags = CMD_PP, .run = pp_commands },
	{ .code = TPM_CC_SetAlgorithmSet, .name = "SetAlgorithmSet", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_PLATFORM }, .run = set_algorithm_set },
	{ 0 },
};
