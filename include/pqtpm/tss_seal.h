/* pqtpm client library: sealed data objects (tss/cmd_seal.c).
 *
 * A sealed data object is a keyedHash object without sign or decrypt whose sensitive area the
 * caller gives (at most 128 bytes, Part 2's MAX_SYM_DATA); Unseal returns it to whoever knows
 * the object's authValue. The PKCS#11 module seals each token's wrapping secret this way.
 */
#ifndef PQTPM_TSS_SEAL_H
#define PQTPM_TSS_SEAL_H

#include <pqtpm/tss.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define PQTPM_TSS_MAX_SEALED 128

/* Create under parent a data object of public area tmpl (a TPM_ALG_KEYEDHASH template with
 * the NULL scheme and neither sign nor decrypt) holding data (len bytes), with key_auth as its
 * authValue: key->priv and key->pub, no handle (Load it). */
TPM_RC pqtpm_tss_create_sealed(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			       const struct pqtpm_tss_public *tmpl, const char *key_auth,
			       const uint8_t *data, size_t len, struct pqtpm_tss_key *key);
/* Unseal of a loaded data object: its data (at most cap bytes) in out, *len. */
TPM_RC pqtpm_tss_unseal(struct pqtpm_tss *t, TPM_HANDLE object, const char *auth, uint8_t *out,
			size_t cap, size_t *len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
