/* Primary objects (Part 1 "Primary Objects"): every random value comes from a KDFa stream
 * keyed with the hierarchy's primary seed, over the template's Name and sensitive.data, so the
 * same template in the same hierarchy gives the same object for as long as the seed lives. */
#include "object.h"

#define PRIMARY_LABEL "Primary Object Creation"

TPM_RC object_create_primary(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			     struct tpmt_public *pub, const struct tpms_sensitive_create *sc,
			     struct tpmt_sensitive *sens)
{
	const uint8_t *seed = hier_seed(e, hierarchy);
	struct crypto_kdf_rng k;
	struct tpm2b_name tmpl;
	TPM_RC rc;

	if (!seed)
		return TPM_RC_HIERARCHY;
	/* the Name of the template as given, unique included */
	TRY(object_name(pub, &tmpl));
	rc = crypto_kdf_rng_init(&k, pub->name_alg, seed, PRIMARY_SEED_SIZE, PRIMARY_LABEL,
				 tmpl.b, tmpl.size, sc->data.b, sc->data.size);
	if (rc == TPM_RC_SUCCESS)
		rc = object_generate(&k.rng, pub, sc, sens);
	crypto_kdf_rng_wipe(&k);
	return rc;
}
