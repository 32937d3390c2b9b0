/* Client-library helpers for the unit tests of tss/ (see tss_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "marshal.h"
#include "tss_util.h"

void tss_util_open(struct pqtpm_engine **e, struct pqtpm_tss **t)
{
	struct pqtpm_engine_config cfg = { .auto_startup = 1, .log_level = PQTPM_LOG_ERROR };
	char err[128];

	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	if (pqtpm_engine_open(e, &cfg, err, sizeof(err)) || pqtpm_tss_open_engine(t, *e)) {
		fprintf(stderr, "engine: %s\n", err);
		exit(2);
	}
}

void tss_util_close(struct pqtpm_engine *e, struct pqtpm_tss *t)
{
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
}

TPM_RC tss_util_primary(struct pqtpm_tss *t, const struct pqtpm_tss_template *tm,
			const char *key_auth, struct pqtpm_tss_key *k)
{
	static struct pqtpm_tss_public pub;

	TRY(pqtpm_tss_template_public(tm, &pub));
	return pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, key_auth, k);
}

TPM_RC tss_util_storage(struct pqtpm_tss *t, int rsa, struct pqtpm_tss_key *k)
{
	struct pqtpm_tss_template tm = {
		.type = rsa ? TPM_ALG_RSA : TPM_ALG_ECC,
		.attributes = TSS_UTIL_KEY | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
	};

	return tss_util_primary(t, &tm, "", k);
}

/* TPMT_PUBLIC of a known key: unique is H(seedValue || key) (Part 1 §27.7.3). */
static TPM_RC known_public(struct wr *w, TPM_ALG_ID type, const uint8_t *seed,
			   const uint8_t *key, size_t len)
{
	uint8_t both[32 + 64], unique[32];

	if (len > 64)
		return TPM_RC_SIZE;
	memcpy(both, seed, 32);
	memcpy(both + 32, key, len);
	TRY(crypto_hash(TPM_ALG_SHA256, both, 32 + len, unique));
	TRY(wr_u16(w, type));
	TRY(wr_u16(w, TPM_ALG_SHA256));
	TRY(wr_u32(w, TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA |
			      (type == TPM_ALG_KEYEDHASH ? TPMA_OBJECT_SIGN_ENCRYPT
							 : TPMA_OBJECT_SIGN_ENCRYPT |
								   TPMA_OBJECT_DECRYPT)));
	TRY(wr_u16(w, 0)); /* authPolicy */
	if (type == TPM_ALG_KEYEDHASH) {
		TRY(wr_u16(w, TPM_ALG_HMAC));
		TRY(wr_u16(w, TPM_ALG_SHA256));
	} else {
		TRY(wr_u16(w, TPM_ALG_AES));
		TRY(wr_u16(w, (uint16_t)(len * 8)));
		TRY(wr_u16(w, TPM_ALG_CFB));
	}
	return wr_tpm2b(w, unique, sizeof(unique));
}

TPM_RC tss_util_load_known(struct pqtpm_tss *t, TPM_ALG_ID type, const uint8_t *key,
			   size_t len, TPM_HANDLE *handle)
{
	static uint8_t cmd[512], rsp[PQTPM_MAX_RESPONSE_SIZE];
	uint8_t seed[32];
	size_t mark, rlen;
	struct wr w;
	struct rd r;
	uint32_t size, rc;
	uint16_t tag;

	memset(seed, 0x5e, sizeof(seed));
	wr_init(&w, cmd, sizeof(cmd));
	TRY(wr_u16(&w, TPM_ST_NO_SESSIONS));
	TRY(wr_u32(&w, 0));
	TRY(wr_u32(&w, TPM_CC_LoadExternal));
	TRY(wr_size_begin(&w, &mark)); /* TPM2B_SENSITIVE */
	TRY(wr_u16(&w, type));
	TRY(wr_u16(&w, 0)); /* authValue */
	TRY(wr_tpm2b(&w, seed, sizeof(seed)));
	TRY(wr_tpm2b(&w, key, (uint16_t)len));
	TRY(wr_size_end(&w, mark));
	TRY(wr_size_begin(&w, &mark)); /* TPM2B_PUBLIC */
	TRY(known_public(&w, type, seed, key, len));
	TRY(wr_size_end(&w, mark));
	TRY(wr_u32(&w, TPM_RH_NULL));
	wr_patch_u32(&w, 2, (uint32_t)w.off);
	TRY(pqtpm_tss_transmit(t, cmd, w.off, rsp, sizeof(rsp), &rlen));
	rd_init(&r, rsp, rlen);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &rc) || rd_u32(&r, handle))
		return PQTPM_TSS_RC_MALFORMED;
	return TPM_RC_SUCCESS;
}

void tss_env_open(struct tss_env *env)
{
	tss_util_open(&env->e, &env->t);
}

void tss_env_close(struct tss_env *env)
{
	tss_util_close(env->e, env->t);
}

void tss_template(TPM_ALG_ID type, uint32_t attrs, const struct pqtpm_tss_digest *policy,
		  struct pqtpm_tss_public *out)
{
	struct pqtpm_tss_template tm = {
		.type = type,
		.attributes = TSS_KEY_BASE | attrs,
		.parameter_set = type == TPM_ALG_MLKEM ? TPM_MLKEM_768 : 0,
		.policy = policy ? policy->b : NULL,
		.policy_len = policy ? policy->size : 0,
	};

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, out), 0);
}

TPM_RC tss_primary(struct pqtpm_tss *t, TPM_ALG_ID type, uint32_t attrs, const char *auth,
		   struct pqtpm_tss_key *key)
{
	static struct pqtpm_tss_public tmpl;

	tss_template(type, attrs, NULL, &tmpl);
	return pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &tmpl, auth, key);
}

TPM_RC tss_child(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
		 TPM_ALG_ID type, uint32_t attrs, const struct pqtpm_tss_digest *policy,
		 const char *auth, struct pqtpm_tss_key *key)
{
	static struct pqtpm_tss_public tmpl;
	TPM_RC rc;

	tss_template(type, attrs, policy, &tmpl);
	rc = pqtpm_tss_create(t, parent, parent_auth, &tmpl, auth, key);
	return rc ? rc : pqtpm_tss_load(t, parent, parent_auth, key);
}

struct pqtpm_tss_session *tss_session(struct pqtpm_tss *t,
				      const struct pqtpm_tss_session_params *p)
{
	struct pqtpm_tss_session *s = NULL;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_session_start(t, p, &s), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}
