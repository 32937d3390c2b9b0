/* Shared by the client-library session tests: an engine in memory with a tss/ connection on
 * it, and the keys those tests make through the library. */
#ifndef PQTPM_TEST_TSS_UTIL_H
#define PQTPM_TEST_TSS_UTIL_H

#include <pqtpm/tss.h>

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
