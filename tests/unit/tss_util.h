/* Client-library helpers for the unit tests of tss/ (tss_util.c): an in-memory engine with a
 * library handle on it, keys from templates, keys of known value, and the one policy
 * assertion the duplication tests need. Everything goes through include/pqtpm/tss.h. */
#ifndef PQTPM_TEST_TSS_UTIL_H
#define PQTPM_TEST_TSS_UTIL_H

#include <pqtpm/tss.h>

/* A NULL-state-dir engine, started, and a library handle on it; a failure ends the program. */
void tss_util_open(struct pqtpm_engine **e, struct pqtpm_tss **t);
void tss_util_close(struct pqtpm_engine *e, struct pqtpm_tss *t);

/* The attributes every test key has: fixedTPM, fixedParent, sensitiveDataOrigin,
 * userWithAuth. */
#define TSS_UTIL_KEY                                                                      \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | \
	 TPMA_OBJECT_USERWITHAUTH)
/* CreatePrimary in the owner hierarchy (auth "") of tm with key_auth. */
TPM_RC tss_util_primary(struct pqtpm_tss *t, const struct pqtpm_tss_template *tm,
			const char *key_auth, struct pqtpm_tss_key *k);
/* An RSA-2048 (rsa) or ECC P-256 storage primary (restricted decrypt, AES-128-CFB). */
TPM_RC tss_util_storage(struct pqtpm_tss *t, int rsa, struct pqtpm_tss_key *k);

/* LoadExternal in TPM_RH_NULL of a key whose value the test knows: a keyedHash HMAC-SHA-256
 * key (TPM_ALG_KEYEDHASH) or an AES-CFB key (TPM_ALG_SYMCIPHER, 16 or 32 bytes), usable with
 * the empty password. */
TPM_RC tss_util_load_known(struct pqtpm_tss *t, TPM_ALG_ID type, const uint8_t *key,
			   size_t len, TPM_HANDLE *handle);

/* PolicyCommandCode(cc) on a policy session, and the policy digest it gives from zero. */
TPM_RC tss_util_policy_cc(struct pqtpm_tss *t, TPM_HANDLE session, TPM_CC cc);
void tss_util_policy_cc_digest(TPM_CC cc, uint8_t digest[32]);

#endif
