/* Shared by the ESAPI integration programs (tests/integration/common/, linked into each of
 * them): printed checks with a closing `N passed, M failed`, the TCTI connection, and small
 * ESAPI helpers. */
#ifndef PQTPM_ITEST_ESYS_UTIL_H
#define PQTPM_ITEST_ESYS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_esys.h>

/* SHA-256/384 from libpqtpm (core/crypto/crypto.h: its TPM constants clash with tss2's, so
 * only this prototype is repeated here). Returns 0 on success. */
uint32_t crypto_hash(uint16_t alg, const void *data, size_t len, uint8_t *out);

/* Prints "ok" or "FAIL" and the message, counts it; returns ok. */
__attribute__((format(printf, 2, 3))) int check(int ok, const char *fmt, ...);
/* A TPM call that must succeed. */
__attribute__((format(printf, 2, 3))) int check_rc(TSS2_RC rc, const char *fmt, ...);
/* A call that must fail with the TPM code want (format one, N/P/S bits and index compared). */
__attribute__((format(printf, 3, 4))) int check_fails(TSS2_RC rc, TSS2_RC want,
						       const char *fmt, ...);
/* Prints `N passed, M failed`; the exit status: 0 only if something passed and nothing
 * failed. */
int finish(void);

/* The TCTI string: argv[1], else $PQTPM_TCTI, else mssim:host=127.0.0.1,port=2321. */
const char *tcti_conf(int argc, char **argv);
/* Tss2_TctiLdr_Initialize and Esys_Initialize, both checked (what names the connection in
 * the messages, "" for the first); 1 when ctx is ready. */
int esys_connect(const char *conf, const char *what, TSS2_TCTI_CONTEXT **tcti,
		 ESYS_CONTEXT **ctx);
void esys_disconnect(TSS2_TCTI_CONTEXT **tcti, ESYS_CONTEXT **ctx);
/* A program's main: connect (tcti_conf), run, disconnect; returns finish(). */
int esys_main(int argc, char **argv, const char *name, void (*run)(ESYS_CONTEXT *ctx));

/* FlushContext unless *h is ESYS_TR_NONE, which it becomes. */
void flush(ESYS_CONTEXT *ctx, ESYS_TR *h);
void set_auth(ESYS_CONTEXT *ctx, ESYS_TR h, const char *auth);
/* CreatePrimary with userAuth auth (set on the new handle too); pub may be NULL. */
TSS2_RC create_primary(ESYS_CONTEXT *ctx, ESYS_TR hierarchy, const TPM2B_PUBLIC *tmpl,
		       const char *auth, ESYS_TR *key, TPM2B_PUBLIC **pub);
/* How many handles of first's type the TPM has (GetCapability checked); 1 on success. */
int handle_count(ESYS_CONTEXT *ctx, UINT32 first, UINT32 *count);

/* Restricted decryption (storage) keys, noDA, AES-128-CFB: RSA-2048 and ECC P-256. */
extern const TPM2B_PUBLIC rsa_storage, ecc_storage;

#endif
