/* pqtpm client library: ECC public keys and ECDSA signatures taken apart and made
 * (tss/ecc_parts.c), for callers that speak other formats (X9.62 points, r || s). */
#ifndef PQTPM_TSS_ECC_H
#define PQTPM_TSS_ECC_H

#include <pqtpm/tss.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* The curve and the point (unique) of an ECC public area; PQTPM_TSS_RC_BAD_VALUE for another
 * type. */
TPM_RC pqtpm_tss_public_ecc(const struct pqtpm_tss_public *pub, uint16_t *curve,
			    struct pqtpm_tss_ecc_point *point);
/* An ECDSA signature's hash and its r and s (pointing into sig); PQTPM_TSS_RC_BAD_VALUE for
 * another algorithm. */
TPM_RC pqtpm_tss_signature_ecdsa(const struct pqtpm_tss_signature *sig, TPM_ALG_ID *hash,
				 const uint8_t **r, size_t *rlen, const uint8_t **s,
				 size_t *slen);
/* An ECDSA TPMT_SIGNATURE from hash, r and s (each at most 128 bytes). */
TPM_RC pqtpm_tss_signature_make_ecdsa(TPM_ALG_ID hash, const uint8_t *r, size_t rlen,
				      const uint8_t *s, size_t slen,
				      struct pqtpm_tss_signature *out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
