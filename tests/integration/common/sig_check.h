/* Signatures a TPM returned, checked in the test with the key's public area alone (no TPM):
 * the client library takes the structures apart, core/crypto's verifiers (the bottom layer
 * that libpqtpm-tss carries) and our own ML-DSA check them. For the integration programs
 * that speak through include/pqtpm/tss.h (tests/integration/common/, linked into each). */
#ifndef PQTPM_ITEST_SIG_CHECK_H
#define PQTPM_ITEST_SIG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pqtpm/tss.h>

/* Does sig (ECDSA, RSASSA or RSAPSS, by the hash it names) verify over digest with the key of
 * public area pub (ECC, or RSA with the default exponent)? */
bool sig_check_digest(const struct pqtpm_tss_public *pub, const uint8_t *digest, size_t dlen,
		      const struct pqtpm_tss_signature *sig);
/* Does sig verify over msg: pure ML-DSA over msg itself (context ctx, ctx_len; the parameter
 * set from the key's size), or one of the above over msg hashed with the signature's hash? */
bool sig_check_message(const struct pqtpm_tss_public *pub, const uint8_t *msg, size_t len,
		       const uint8_t *ctx, size_t ctx_len, const struct pqtpm_tss_signature *sig);

#endif
