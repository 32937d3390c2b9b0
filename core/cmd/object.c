/* Object commands (Part 3 §12): Create, CreateLoaded, Load, LoadExternal, ReadPublic,
 * ObjectChangeAuth, Unseal. The object semantics live in object/; these handlers read the
 * parameters, add parameter and handle numbers to the codes, and write the responses. */
#include "compute.h"
#include "object/object.h"

static TPM_RC rd_private(struct rd *r, struct tpm2b_private *p)
{
	return rd_tpm2b(r, p->b, sizeof(p->b), &p->size);
}

/* The key pair of an ordinary object (Create, CreateLoaded), made from the template and the
 * system DRBG without the engine lock (compute.h): the parent is found again afterwards. */
static TPM_RC generate_unlocked(struct cmd *c, struct tpmt_public *pub,
				const struct tpms_sensitive_create *sc, struct tpmt_sensitive *sens)
{
	TPM_RC rc, relock;

	TRY(cmd_unlock(c));
	rc = object_generate(crypto_system_rng(), pub, sc, sens);
	relock = cmd_relock(c);
	return rc != TPM_RC_SUCCESS ? rc : relock;
}

/* ---- Create ---- */

static TPM_RC create_object(struct cmd *c, struct tpmt_public *pub,
			    const struct tpms_sensitive_create *sc, struct tpm2b_private *priv)
{
	struct tpmt_sensitive sens;
	TPM_RC rc;

	TRY(object_check_inputs(c->obj[0], pub, sc));
	rc = generate_unlocked(c, pub, sc, &sens);
	if (rc == TPM_RC_SUCCESS)
		rc = object_wrap(c->obj[0], pub, &sens, priv);
	crypto_wipe(&sens, sizeof(sens));
	return rc;
}

static TPM_RC create(struct cmd *c)
{
	const struct object *parent;
	struct tpms_sensitive_create sc;
	struct tpmt_public pub;
	struct tpm2b_data outside;
	struct tpml_pcr_selection pcrs;
	struct tpm2b_private priv;
	struct tpm2b_name name;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_sensitive_create(&c->in, &sc));
	TRYP(2, rd_tpm2b_public(&c->in, &pub));
	TRYP(3, rd_tpm2b(&c->in, outside.b, sizeof(outside.b), &outside.size));
	TRYP(4, rd_pcr_selection(&c->in, &pcrs));
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS && !object_is_storage_parent(c->obj[0]))
		rc = rc_handle(TPM_RC_TYPE, 1);
	if (rc == TPM_RC_SUCCESS)
		rc = create_object(c, &pub, &sc, &priv);
	crypto_wipe(&sc, sizeof(sc));
	TRY(rc);
	parent = c->obj[0]; /* found again after the key was made */
	TRY(object_name(&pub, &name));
	TRY(wr_tpm2b(&c->out, priv.b, priv.size));
	TRY(wr_tpm2b_public(&c->out, &pub));
	return object_write_creation(c, parent, parent->hierarchy, &pub, &name, &pcrs, &outside);
}

/* ---- CreateLoaded: a primary under a hierarchy, an ordinary object under a parent ---- */

static TPM_RC write_created(struct cmd *c, const struct object *parent, const struct object *o)
{
	struct tpm2b_private priv = { 0 };

	if (parent)
		TRY(object_wrap(parent, &o->pub, &o->sens, &priv));
	TRY(wr_tpm2b(&c->out, priv.b, priv.size));
	TRY(wr_tpm2b_public(&c->out, &o->pub));
	return wr_tpm2b_name(&c->out, &o->name);
}

static TPM_RC create_loaded(struct cmd *c)
{
	const struct object *parent = c->obj[0];
	struct tpms_sensitive_create sc;
	struct tpmt_public tmpl;
	struct tpmt_sensitive sens;
	struct object *o;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_sensitive_create(&c->in, &sc));
	TRYP(2, rd_tpm2b_public(&c->in, &tmpl)); /* TPM2B_TEMPLATE without derivation */
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS && parent && !object_is_storage_parent(parent))
		rc = rc_handle(TPM_RC_TYPE, 1);
	if (rc == TPM_RC_SUCCESS)
		rc = object_check_inputs(parent, &tmpl, &sc);
	if (rc == TPM_RC_SUCCESS && parent) {
		rc = generate_unlocked(c, &tmpl, &sc, &sens);
		parent = c->obj[0]; /* found again after the key was made */
		if (rc == TPM_RC_SUCCESS)
			rc = object_load_made(c, parent, c->handle[0], &tmpl, &sens, &o);
		crypto_wipe(&sens, sizeof(sens));
	} else if (rc == TPM_RC_SUCCESS) {
		/* a primary under a hierarchy, as object_new makes it, under the lock */
		rc = object_new(c, NULL, c->handle[0], &tmpl, &sc, &o);
	}
	crypto_wipe(&sc, sizeof(sc));
	TRY(rc);
	rc = write_created(c, parent, o);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	c->rsp_handle = o->handle;
	return TPM_RC_SUCCESS;
}

/* ---- Load ---- */

static TPM_RC check_load(const struct object *parent, const struct tpmt_public *pub,
			 const struct tpm2b_private *priv)
{
	if (!object_is_storage_parent(parent))
		return rc_handle(TPM_RC_TYPE, 1);
	if (priv->size == 0)
		return rc_param(TPM_RC_SIZE, 1);
	if (pub->name_alg == TPM_ALG_NULL)
		return rc_param(TPM_RC_HASH, 2);
	TRYP(2, object_check_public(pub, false));
	return rc_param(object_check_parent(parent, pub), 2);
}

static TPM_RC load(struct cmd *c)
{
	const struct object *parent = c->obj[0];
	struct tpm2b_private priv;
	struct tpmt_public pub;
	struct object *o;
	TPM_RC rc;

	TRYP(1, rd_private(&c->in, &priv));
	TRYP(2, rd_tpm2b_public(&c->in, &pub));
	TRY(cmd_params_done(c));
	TRY(check_load(parent, &pub, &priv));
	TRY(object_alloc(c->client, OBJ_KEY, &o));
	o->pub = pub;
	o->hierarchy = parent->hierarchy;
	o->has_sensitive = true;
	rc = rc_param(object_unwrap(parent, &pub, &priv, &o->sens), 1);
	if (rc == TPM_RC_SUCCESS)
		rc = object_set_names(o, parent);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_name(&c->out, &o->name);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	c->rsp_handle = o->handle;
	return TPM_RC_SUCCESS;
}

/* ---- LoadExternal ---- */

/* A private part may come only into the NULL hierarchy and only for an object that does not
 * claim to be the TPM's own (fixedTPM, fixedParent, restricted). */
static TPM_RC check_external(struct cmd *c, const struct tpmt_public *pub,
			     const struct tpmt_sensitive *sens, TPM_HANDLE hierarchy)
{
	bool priv = sens->type != TPM_ALG_NULL;

	if (!hier_enabled(c->e, hierarchy))
		return rc_param(TPM_RC_HIERARCHY, 3);
	if (priv) {
		if (hierarchy != TPM_RH_NULL)
			return rc_param(TPM_RC_HIERARCHY, 3);
		if (pub->attributes & (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
				       TPMA_OBJECT_RESTRICTED))
			return rc_param(TPM_RC_ATTRIBUTES, 2);
		if (pub->name_alg == TPM_ALG_NULL)
			return rc_param(TPM_RC_HASH, 2);
	}
	TRYP(2, object_check_public(pub, false));
	if (priv)
		TRYP(1, object_check_pair(pub, sens));
	return TPM_RC_SUCCESS;
}

static TPM_RC load_external(struct cmd *c)
{
	struct tpmt_sensitive sens;
	struct tpmt_public pub;
	TPM_HANDLE hierarchy;
	struct object *o;
	TPM_RC rc;

	rc = rc_param(rd_tpm2b_sensitive(&c->in, &sens), 1);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(rd_tpm2b_public(&c->in, &pub), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(rd_rh_hierarchy(&c->in, &hierarchy, true), 3);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = check_external(c, &pub, &sens, hierarchy);
	if (rc == TPM_RC_SUCCESS)
		rc = object_alloc(c->client, OBJ_KEY, &o);
	if (rc != TPM_RC_SUCCESS) {
		crypto_wipe(&sens, sizeof(sens));
		return rc;
	}
	o->pub = pub;
	o->hierarchy = hierarchy;
	o->external = true;
	o->has_sensitive = sens.type != TPM_ALG_NULL;
	if (o->has_sensitive)
		o->sens = sens;
	crypto_wipe(&sens, sizeof(sens));
	rc = object_set_names(o, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_name(&c->out, &o->name);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	c->rsp_handle = o->handle;
	return TPM_RC_SUCCESS;
}

/* ---- ReadPublic ---- */

static TPM_RC read_public(struct cmd *c)
{
	const struct object *o = c->obj[0];

	TRY(cmd_params_done(c));
	if (o->kind != OBJ_KEY)
		return rc_handle(TPM_RC_SEQUENCE, 1);
	TRY(wr_tpm2b_public(&c->out, &o->pub));
	TRY(wr_tpm2b_name(&c->out, &o->name));
	return wr_tpm2b_name(&c->out, &o->qualified_name);
}

/* ---- ObjectChangeAuth: a new TPM2B_PRIVATE with the new authValue; the loaded object keeps
 * the old one ---- */

static TPM_RC check_change_auth(const struct object *o, const struct object *parent,
				const struct tpm2b_digest *auth)
{
	struct tpm2b_name qn;

	if (o->kind != OBJ_KEY)
		return rc_handle(TPM_RC_TYPE, 1);
	if (!o->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (auth->size > crypto_hash_size(o->pub.name_alg))
		return rc_param(TPM_RC_SIZE, 1);
	/* parentHandle must be the object's parent: its QN must lead to the object's */
	if (!object_is_storage_parent(parent))
		return rc_handle(TPM_RC_TYPE, 2);
	TRY(object_qualified_name(&parent->qualified_name, &o->name, o->pub.name_alg, &qn));
	if (qn.size != o->qualified_name.size ||
	    !crypto_ct_equal(qn.b, o->qualified_name.b, qn.size))
		return rc_handle(TPM_RC_TYPE, 2);
	return TPM_RC_SUCCESS;
}

static TPM_RC object_change_auth(struct cmd *c)
{
	const struct object *o = c->obj[0];
	const struct object *parent = c->obj[1];
	struct tpm2b_digest auth;
	struct tpmt_sensitive sens;
	struct tpm2b_private priv;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = check_change_auth(o, parent, &auth);
	if (rc == TPM_RC_SUCCESS) {
		sens = o->sens;
		sens.auth_value = auth;
		rc = object_wrap(parent, &o->pub, &sens, &priv);
		crypto_wipe(&sens, sizeof(sens));
	}
	crypto_wipe(&auth, sizeof(auth));
	TRY(rc);
	return wr_tpm2b(&c->out, priv.b, priv.size);
}

/* ---- Unseal: the data of a sealed data object (keyedHash, neither sign nor decrypt) ---- */

static TPM_RC unseal(struct cmd *c)
{
	const struct object *o = c->obj[0];

	TRY(cmd_params_done(c));
	if (o->kind != OBJ_KEY || o->pub.type != TPM_ALG_KEYEDHASH)
		return rc_handle(TPM_RC_TYPE, 1);
	if (o->pub.attributes & (TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT |
				 TPMA_OBJECT_RESTRICTED))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (!o->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	return wr_tpm2b(&c->out, o->sens.sensitive.b, o->sens.sensitive.size);
}

#define PARAMS_IO (CMD_PARAM_IN | CMD_PARAM_OUT)

const struct cmd_def cmds_object[] = {
	{ .code = TPM_CC_ObjectChangeAuth, .name = "ObjectChangeAuth", .handles = 2,
	  .auth = { AUTH_ADMIN, AUTH_NONE }, .htype = { HK_OBJECT, HK_OBJECT },
	  .flags = PARAMS_IO, .run = object_change_auth },
	{ .code = TPM_CC_Create, .name = "Create", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = PARAMS_IO, .run = create },
	{ .code = TPM_CC_Load, .name = "Load", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_RHANDLE | PARAMS_IO, .run = load },
	{ .code = TPM_CC_Unseal, .name = "Unseal", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_OUT, .run = unseal },
	{ .code = TPM_CC_LoadExternal, .name = "LoadExternal", .handles = 0,
	  .flags = CMD_RHANDLE | PARAMS_IO | CMD_READS_STATE, .run = load_external },
	{ .code = TPM_CC_ReadPublic, .name = "ReadPublic", .handles = 1, .auth = { AUTH_NONE },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_OUT | CMD_READS_STATE, .run = read_public },
	{ .code = TPM_CC_CreateLoaded, .name = "CreateLoaded", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OBJECT | HK_HIERARCHY | HK_NULL },
	  .flags = CMD_RHANDLE | PARAMS_IO, .run = create_loaded },
	{ 0 },
};
