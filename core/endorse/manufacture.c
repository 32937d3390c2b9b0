/* Manufacturing: the EK certificates into their NV indices (endorse.h). */
#include <stdio.h>
#include <string.h>

#include "crypto/crypto.h"
#include "endorse/ca.h"
#include "endorse/endorse.h"
#include "nv/nv.h"
#include "object/object.h"
#include "state/store.h"

/* As the profile's indices are on hardware (and as swtpm_setup leaves them): written by the
 * platform once and locked for good, readable by owner, platform and the empty authValue. */
#define EK_CERT_NV_ATTRIBUTES                                                                 \
	(TPMA_NV_PPWRITE | TPMA_NV_WRITEDEFINE | TPMA_NV_WRITELOCKED | TPMA_NV_PPREAD |      \
	 TPMA_NV_OWNERREAD | TPMA_NV_AUTHREAD | TPMA_NV_NO_DA | TPMA_NV_PLATFORMCREATE |     \
	 TPMA_NV_WRITTEN)

static TPM_RC derive_ek(struct pqtpm_engine *e, enum ek_kind kind, struct tpmt_public *pub)
{
	struct tpms_sensitive_create sc;
	struct tpmt_sensitive sens;
	TPM_RC rc;

	ek_template(kind, pub);
	TRY(object_check_public(pub, true));
	memset(&sc, 0, sizeof(sc));
	rc = object_create_primary(e, TPM_RH_ENDORSEMENT, pub, &sc, &sens);
	crypto_wipe(&sens, sizeof(sens));
	return rc;
}

static TPM_RC store_cert(struct pqtpm_engine *e, TPM_HANDLE index, const uint8_t *cert,
			 size_t len)
{
	struct nv_public pub = { .handle = index, .name_alg = TPM_ALG_SHA256,
				 .attributes = EK_CERT_NV_ATTRIBUTES, .size = (uint16_t)len };
	struct tpm2b_digest no_auth = { 0 };
	struct nv_index *idx;

	if (len > NV_INDEX_MAX_RELEASED) /* what every TSS can read */
		return TPM_RC_SIZE;
	TRY(nv_add(e->ps.nv, &pub, &no_auth, &idx));
	memcpy(nv_data(e->ps.nv, idx), cert, len);
	return TPM_RC_SUCCESS;
}

static TPM_RC certify_ek(struct pqtpm_engine *e, const struct endorse_ca *ca, enum ek_kind kind)
{
	uint8_t cert[X509_MAX_CERT];
	struct tpmt_public pub;
	size_t len;

	TRY(derive_ek(e, kind, &pub));
	TRY(ek_certificate(ca, &pub, cert, sizeof(cert), &len));
	return store_cert(e, ek_cert_index(kind), cert, len);
}

void endorse_ensure(struct pqtpm_engine *e)
{
	struct endorse_ca ca;
	bool missing[EK_KINDS], any = false, added = false;
	char why[256] = "";
	for (int k = 0; k < EK_KINDS; k++) {
		missing[k] = !nv_find(e->ps.nv, ek_cert_index(k));
		any |= missing[k];
	}
	if (!any)
		return;
	/* a TPM that cannot be given its certificates (a CA file that cannot be written, NV
	 * full of the owner's indices) still works: the certificates are missing, not the TPM */
	if (endorse_ca_open(e->state_dir, &ca, why, sizeof(why)) != 0) {
		pqtpm_log(PQTPM_LOG_WARN, "no EK certificates: %s", why);
		return;
	}
	for (int k = 0; k < EK_KINDS; k++) {
		TPM_RC trc;

		if (!missing[k])
			continue;
		trc = certify_ek(e, &ca, k);
		if (trc != TPM_RC_SUCCESS)
			pqtpm_log(PQTPM_LOG_WARN, "%s: no EK certificate at 0x%08x: 0x%03x",
				  e->state_dir, ek_cert_index(k), trc);
		added |= trc == TPM_RC_SUCCESS;
	}
	endorse_ca_wipe(&ca);
	/* not saved now: the next save writes them */
	if (added && state_save(e) != 0)
		pqtpm_log(PQTPM_LOG_WARN, "%s: cannot save the EK certificates", e->state_dir);
}
