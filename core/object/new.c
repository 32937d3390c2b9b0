/* New objects, the part CreatePrimary, Create and CreateLoaded share: the input checks in the
 * order Part 3 gives them, and making a loaded object from a template. */
#include "object.h"

TPM_RC object_check_inputs(const struct object *parent, const struct tpmt_public *pub,
			   const struct tpms_sensitive_create *sc)
{
	TRYP(2, object_check_create(parent, pub, sc));
	if (sc->user_auth.size > crypto_hash_size(pub->name_alg))
		return rc_param(TPM_RC_SIZE, 1);
	return TPM_RC_SUCCESS;
}

TPM_RC object_new(struct cmd *c, const struct object *parent, TPM_HANDLE hierarchy,
		  const struct tpmt_public *tmpl, const struct tpms_sensitive_create *sc,
		  struct object **out)
{
	struct object *o;
	TPM_RC rc;

	TRY(object_alloc(c->client, OBJ_KEY, &o));
	o->pub = *tmpl;
	o->has_sensitive = true;
	if (parent) {
		o->hierarchy = parent->hierarchy;
		rc = object_generate(crypto_system_rng(), &o->pub, sc, &o->sens);
	} else {
		o->hierarchy = hierarchy;
		o->is_primary = true;
		rc = object_create_primary(c->e, hierarchy, &o->pub, sc, &o->sens);
	}
	if (rc == TPM_RC_SUCCESS)
		rc = object_set_names(o, parent);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	*out = o;
	return TPM_RC_SUCCESS;
}

TPM_RC object_load_made(struct cmd *c, const struct object *parent, TPM_HANDLE hierarchy,
			const struct tpmt_public *pub, const struct tpmt_sensitive *sens,
			struct object **out)
{
	struct object *o;
	TPM_RC rc;

	TRY(object_alloc(c->client, OBJ_KEY, &o));
	o->pub = *pub;
	o->sens = *sens;
	o->has_sensitive = true;
	o->hierarchy = parent ? parent->hierarchy : hierarchy;
	o->is_primary = !parent;
	rc = object_set_names(o, parent);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return rc;
	}
	*out = o;
	return TPM_RC_SUCCESS;
}
