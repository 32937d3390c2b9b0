/* Endorsement: the TPM is manufactured as swtpm_setup does it (TCG EK Credential Profile
 * 2.x). At the first open of a state directory, and at the open of an older one without
 * them, the manufacturer CA (ca.h) issues a certificate for each default EK and the
 * certificates go into platform-written NV indices. The seeds are never touched: an EK here
 * is what CreatePrimary makes from the endorsement seed with the profile's template. Not on
 * any command's path. */
#ifndef PQTPM_ENDORSE_H
#define PQTPM_ENDORSE_H

#include "engine_int.h"

#define EK_CERT_RSA2048 0x01C00002u  /* EK Credential Profile, low range, template L-1 */
#define EK_CERT_ECC_P256 0x01C0000Au /* template L-2 */
/* No published profile names an index for ML-KEM yet (docs/pq-decisions.md): TPM_ALG_MLKEM's
 * ID in the EK certificate range, apart from the profile's own slots. */
#define EK_CERT_MLKEM768 0x01C000A0u

enum ek_kind { EK_RSA2048, EK_ECC_P256, EK_MLKEM768, EK_KINDS };

/* The default EK template of a kind (unique as the profile gives it: zeros for RSA and ECC,
 * empty for ML-KEM); its TPMA_OBJECT attributes and PolicySecret(TPM_RH_ENDORSEMENT). */
void ek_template(enum ek_kind kind, struct tpmt_public *pub);
TPM_HANDLE ek_cert_index(enum ek_kind kind);

/* The certificate of an EK public area (RSA-2048, ECC P-256, ML-KEM-768) by the CA. */
struct endorse_ca;
TPM_RC ek_certificate(const struct endorse_ca *ca, const struct tpmt_public *ek, uint8_t *out,
		      size_t cap, size_t *len);

/* Every EK certificate index that is missing is made (the CA with it when it is missing too)
 * and the state saved. For open_dir, inside state_begin/state_end. A certificate that cannot
 * be made (the CA's files cannot be written, NV is full) is logged and left out: the TPM
 * opens without it. */
void endorse_ensure(struct pqtpm_engine *e);

#endif
