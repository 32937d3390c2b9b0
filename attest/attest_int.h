/* Private to attest/: public areas and signatures taken apart, the algorithm table. */
#ifndef PQTPM_ATTEST_INT_H
#define PQTPM_ATTEST_INT_H

#include <stdbool.h>

#include <pqtpm/attest.h>

#include "marshal.h"

/* A TPMT_PUBLIC of an RSA, ECC, ML-DSA or ML-KEM key, pointing into the bytes parsed. */
struct ak_public {
	TPM_ALG_ID type, name_alg;
	uint32_t attributes;
	TPM_ALG_ID scheme, scheme_hash; /* TPM_ALG_NULL when none */
	uint16_t rsa_bits, curve, parameter_set;
	uint32_t exponent;
	const uint8_t *key, *y; /* RSA n, ECC x, ML-DSA pk, ML-KEM ek; ECC y */
	size_t key_len, y_len;
};
/* Bounded and whole (no trailing bytes): TPM_RC_SUCCESS, or the rd_* code / TPM_RC_TYPE for
 * a type the verifier does not know. */
TPM_RC ak_public_parse(const uint8_t *b, size_t len, struct ak_public *p);
/* nameAlg || H_nameAlg(TPMT_PUBLIC) */
TPM_RC public_name(const uint8_t *b, size_t len, TPM_ALG_ID name_alg, struct pqtpm_tss_name *n);

/* The hash the quote's pcrDigest uses: the scheme's, for pure ML-DSA the nameAlg. */
TPM_ALG_ID ak_quote_hash(const struct ak_public *p);
/* Does sig (TPMT_SIGNATURE) over msg verify with the AK, in the AK's own scheme and hash?
 * false with why in *why. */
bool ak_signature_ok(const struct ak_public *p, const uint8_t *msg, size_t len,
		     const uint8_t *sig, size_t sig_len, const char **why);

/* NULL if the EK certificate (DER) is signed by the CA and certifies the EK (TPMT_PUBLIC),
 * else why not. */
const char *ek_cert_check(const uint8_t *cert, size_t len, const struct pqtpm_attest_ca *ca,
			  const uint8_t *ek, size_t ek_len);

/* PCR values per bank of a selection: the values of its PCRs in order, concatenated. */
struct pcr_values {
	size_t len[PQTPM_TSS_MAX_BANKS];
	uint8_t v[PQTPM_TSS_MAX_BANKS][24 * 64];
};
/* Evidence documents (quote.c): the "pcrs" object of a selection's values, and the whole
 * document (pcrs is taken as is; ek_pub, ek_cert may be NULL). NULL when out of memory. */
json_t *pcrs_json(const struct pqtpm_tss_pcr_select *sel, size_t nsel,
		  const struct pcr_values *pv);
json_t *evidence_json(const struct pqtpm_attest_ak *ak, const uint8_t *nonce, size_t nonce_len,
		      const struct pqtpm_tss_attest *q, const struct pqtpm_tss_signature *sig,
		      json_t *pcrs, const struct pqtpm_tss_public *ek_pub, const uint8_t *ek_cert,
		      size_t ek_cert_len);
/* The CLI's name of an AK's algorithm ("rsa2048" ...), NULL for another key. */
const char *ak_alg_name(const struct ak_public *p);

/* The AK algorithms of the CLI: template. */
TPM_RC ak_template(const char *alg, struct pqtpm_tss_public *tmpl);
/* The EK's policy (templates.c): the hash of its session, and the branches whose PolicyOR
 * follows PolicySecret(TPM_RH_ENDORSEMENT) (*n 0: that alone, the low range). */
TPM_RC ek_policy_branches(const char *ek_alg, TPM_ALG_ID *hash,
			  struct pqtpm_tss_digest branches[2], size_t *n);
/* A policy session that satisfies that policy (ak.c), for the caller's next command. */
TPM_RC ek_policy_session(struct pqtpm_tss *t, const char *ek_alg, struct pqtpm_tss_session **s);

/* Hash names as documents hold them ("sha1", "sha256", "sha384", "sha512"). */
const char *hash_name(TPM_ALG_ID h);
TPM_ALG_ID hash_by_name(const char *name);

#endif
