/* Client-library helpers for the unit tests of tss/ (tss_util.c): an in-memory engine with a
 * library handle on it, keys from templates, keys of known value; for the session tests an
 * environment struct, keys of their templates and sessions. Everything goes through include/pqtpm/tss.h. */
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

/* ---- the session tests (test_tss_session*.c) ---- */
struct tss_env {
	struct pqtpm_engine *e;
	struct pqtpm_tss *t;
};

/* CU_FAIL_FATAL on failure */
void tss_env_open(struct tss_env *env);
void tss_env_close(struct tss_env *env);

/* The attributes of every test key (fixedTPM, fixedParent, sensitiveDataOrigin: a wrong
 * password is a DA failure, TPM_RC_AUTH_FAIL) plus extra; a storage key is restricted +
 * decrypt. */
#define TSS_KEY_BASE                                                                       \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN)
#define TSS_STORAGE (TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_USERWITHAUTH)

/* A template: type (TPM_ALG_ECC, _RSA, _MLKEM), TSS_KEY_BASE | attrs, optional authPolicy. */
void tss_template(TPM_ALG_ID type, uint32_t attrs, const struct pqtpm_tss_digest *policy,
		  struct pqtpm_tss_public *out);
/* An owner primary / a child created and loaded under parent (password parent_auth). Each
 * returns the TPM's response code. */
TPM_RC tss_primary(struct pqtpm_tss *t, TPM_ALG_ID type, uint32_t attrs, const char *auth,
		   struct pqtpm_tss_key *key);
TPM_RC tss_child(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
		 TPM_ALG_ID type, uint32_t attrs, const struct pqtpm_tss_digest *policy,
		 const char *auth, struct pqtpm_tss_key *key);

/* A session with the given parameters; CU_FAIL_FATAL on failure. */
struct pqtpm_tss_session *tss_session(struct pqtpm_tss *t,
				      const struct pqtpm_tss_session_params *p);

#endif
