/* Duplication for the unit tests (dup_util.c): Duplicate under a policy session, Import and
 * Rewrap through the harness, for test_duplicate and test_pq_dup. */
#ifndef PQTPM_TEST_DUP_UTIL_H
#define PQTPM_TEST_DUP_UTIL_H

#include <stdbool.h>

#include "crypto/mlkem.h"
#include "harness.h"

/* What Duplicate gives and Import and Rewrap take. */
struct dup_blob {
	struct tpm2b_data key;			 /* encryptionKey (empty: no inner wrapper) */
	uint8_t secret[MLKEM_MAX_CT_BYTES + 64]; /* inSymSeed (empty: no outer wrapper) */
	uint16_t secret_len;
	struct tpm2b_private dup;
};

/* The duplication policy: PolicyCommandCode(Duplicate). */
void dup_policy(struct tpm2b_digest *d);
/* Duplicate obj (Name name) to the new parent np (Name np_name; TPM_RH_NULL and NULL: none)
 * with encryptionKeyIn key_in (may be empty) and symmetricAlg sym, authorized by a policy
 * session that satisfies dup_policy (session) or by an empty password. On success out holds
 * the blob, its key being key_in or else encryptionKeyOut (also in *key_out unless NULL). */
TPM_RC dup_duplicate(struct harness *h, TPM_HANDLE obj, const struct tpm2b_name *name,
		     TPM_HANDLE np, const struct tpm2b_name *np_name,
		     const struct tpm2b_data *key_in, const struct tpmt_sym_def *sym, bool session,
		     struct tpm2b_data *key_out, struct dup_blob *out);
/* Import bl under parent; sym NULL: AES-128-CFB if bl has an inner key, else none. */
TPM_RC dup_import(struct harness *h, TPM_HANDLE parent, const struct tpmt_public *pub,
		  const struct dup_blob *bl, const struct tpmt_sym_def *sym,
		  struct tpm2b_private *out);
/* Rewrap in (the object's Name name) from oldp to np (TPM_RH_NULL: no outer wrapper). */
TPM_RC dup_rewrap(struct harness *h, TPM_HANDLE oldp, TPM_HANDLE np,
		  const struct tpm2b_name *name, const struct dup_blob *in, struct dup_blob *out);

#endif
