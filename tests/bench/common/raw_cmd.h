/* TPM commands for the raw client (bench.h), built with core/marshal.h's bounded writer: the
 * signing keys of tpm_bench (the templates its ESAPI rows use) created, used and flushed with a
 * password session, and no crypto on the client. Kept apart from the programs because
 * <pqtpm/tpm2.h> and tpm2-tss's headers define the same constants. */
#ifndef PQTPM_BENCH_RAW_CMD_H
#define PQTPM_BENCH_RAW_CMD_H

#include <stdint.h>

#include "bench.h"

enum bench_key {
	BENCH_KEY_ECC_P256,	/* ECDSA-SHA256 signing key */
	BENCH_KEY_RSA_2048,	/* RSASSA-SHA256 signing key, default exponent */
};

/* Each returns the TPM's response code, or -1 on a transport error or a response that does not
 * parse or is not what the command asked for. */

/* CreatePrimary under the owner hierarchy (empty owner password); *handle is the new key's. */
long bench_create_primary(struct bench_conn *c, enum bench_key key, uint32_t *handle);
/* Sign of a 32-byte digest with the key's own scheme (a null scheme in the command, a null
 * ticket); checks the signature's scheme, hash and sizes. */
long bench_sign(struct bench_conn *c, uint32_t handle, enum bench_key key);
long bench_flush(struct bench_conn *c, uint32_t handle);

#endif
