/* The client library's side of tests/integration/tss_esys_sessions.c, in a translation unit
 * of its own (include/pqtpm/tpm2.h's constants and tss2's clash): one connection and one
 * session through include/pqtpm/tss.h. Structures cross as their TPM wire bytes; functions
 * return a TPM_RC (0: success). */
#ifndef PQTPM_ITEST_TSS_PEER_H
#define PQTPM_ITEST_TSS_PEER_H

#include <stddef.h>
#include <stdint.h>

#define PEER_MAX_PRIVATE 1024 /* TPM2B_PRIVATE content */
#define PEER_MAX_PUBLIC 2800  /* TPMT_PUBLIC */

/* pqtpm_tss_open_tcti; 0 or a negative errno */
int peer_open(const char *tcti);
void peer_close(void);
/* An HMAC session salted with the key at handle salt and bound to bind (authValue
 * bind_auth), AES-128-CFB both ways, SHA-256, continueSession: used for every command below. */
uint32_t peer_session_start(uint32_t salt, uint32_t bind, const char *bind_auth);
void peer_session_end(void);
/* Create an ECC P-256 storage key with authValue auth under parent (authValue parent_auth):
 * its TPM2B_PRIVATE content and its TPMT_PUBLIC. */
uint32_t peer_create(uint32_t parent, const char *parent_auth, const char *auth, uint8_t *priv,
		     size_t *priv_len, uint8_t *pub, size_t *pub_len);
/* Load the key (priv, pub as above) under parent, then Create a key under it with its
 * authValue auth, then flush it. */
uint32_t peer_load_use(uint32_t parent, const char *parent_auth, const uint8_t *priv,
		       size_t priv_len, const uint8_t *pub, size_t pub_len, const char *auth);

#endif
