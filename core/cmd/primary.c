/* CreatePrimary (Part 3 §24.1): a primary object derived from a hierarchy's seed, loaded. A
 * key that the primary cache does not hold is made without the engine lock (compute.h), from
 * a copy of the seed. */
#include "compute.h"
#include "object/object.h"

/* The key of m, made without the engine lock. */
static TPM_RC generate_unlocked(struct cmd *c, struct primary_made *m,
				const struct tpms_sensitive_create *sc)
{
	TPM_RC rc, relock;

	TRY(cmd_unlock(c));
	rc = object_primary_generate(m, sc);
	relock = cmd_relock(c);
	return rc != TPM_RC_SUCCESS ? rc : relock;
}

static TPM_RC create_primary(struct cmd *c)
{
	struct tpms_sensitive_create sc;
	struct tpmt_public tmpl;
	struct tpm2b_data outside;
	struct tpml_pcr_selection pcrs;
	struct primary_made m;
	struct object *o;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_sensitive_create(&c->in, &sc));
	TRYP(2, rd_tpm2b_public(&c->in, &tmpl));
	TRYP(3, rd_tpm2b(&c->in, outside.b, sizeof(outside.b), &outside.size));
	TRYP(4, rd_pcr_selection(&c->in, &pcrs));
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = object_check_inputs(NULL, &tmpl, &sc);
	if (rc == TPM_RC_SUCCESS)
		rc = object_primary_begin(c->e, c->handle[0], &tmpl, &sc, &m);
	if (rc == TPM_RC_SUCCESS && !m.cached)
		rc = generate_unlocked(c, &m, &sc);
	if (rc == TPM_RC_SUCCESS)
		rc = object_primary_end(c->e, &m);
	if (rc == TPM_RC_SUCCESS)
		rc = object_load_made(c, NULL, c->handle[0], &m.pub, &m.sens, &o);
	crypto_wipe(&m, sizeof(m));
	crypto_wipe(&sc, sizeof(sc));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rc = wr_tpm2b_public(&c->out, &o->pub);
	if (rc == TPM_RC_SUCCESS)
		rc = object_write_creation(c, NULL, o->hierarchy, &o->pub, &o->name, &pcrs,
					   &outside);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_name(&c->out, &o->name);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	c->rsp_handle = o->handle;
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_primary[] = {
	{ .code = TPM_CC_CreatePrimary, .name = "CreatePrimary", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_HIERARCHY | HK_NULL },
	  .flags = CMD_RHANDLE | CMD_PARAM_IN | CMD_PARAM_OUT | CMD_PP, .run = create_primary },
	{ 0 },
};
