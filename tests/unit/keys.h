/* Keys for unit tests: a template with sane defaults and CreatePrimary through the harness
 * (shared by the command tests that need a key to work on). */
#ifndef PQTPM_TEST_KEYS_H
#define PQTPM_TEST_KEYS_H

#include "harness.h"

#define KEY_BASE (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH)

struct key {
	TPM_HANDLE handle;
	struct tpmt_public pub;
	struct tpm2b_name name;
};

/* SHA-256 nameAlg, KEY_BASE | attrs, symmetric and schemes NULL, RSA 2048, ECC P-256. */
void key_template(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs);
/* The same with exactly these attributes. */
void key_template_attrs(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs);
/* key_template_attrs with AES-128-CFB as the symmetric algorithm (a storage key's). */
void key_storage_template(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs);
/* data: the key itself for keyedHash and symCipher (sensitiveDataOrigin clear); NULL: the
 * TPM makes the key. */
TPM_RC key_primary_in(struct harness *h, TPM_HANDLE hierarchy, const struct tpmt_public *t,
		      const char *auth, const void *data, uint16_t dlen, struct key *k);
/* In the owner hierarchy, empty auth; a failure ends the test. */
void key_primary(struct harness *h, const struct tpmt_public *t, const void *data, uint16_t dlen,
		 struct key *k);
/* Create under parent (password "") with userAuth auth and data (dlen bytes; data may be NULL
 * when dlen is 0): the outPrivate and outPublic it returns. */
TPM_RC key_create(struct harness *h, TPM_HANDLE parent, const struct tpmt_public *t,
		  const char *auth, const void *data, uint16_t dlen, struct tpm2b_private *priv,
		  struct tpmt_public *pub);
/* Load under parent (password ""): the object's handle and Name. */
TPM_RC key_load(struct harness *h, TPM_HANDLE parent, const struct tpm2b_private *priv,
		const struct tpmt_public *pub, TPM_HANDLE *handle, struct tpm2b_name *name);

#endif
