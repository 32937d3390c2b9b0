/* Attestation structures (Part 2 TPMS_ATTEST, Part 3 §18): the common header every attestation
 * command writes (magic, type, qualifiedSigner, extraData, clockInfo, firmwareVersion), the
 * signing scheme rules of the attestation commands, the obfuscation of the reset and restart
 * counts and the firmware version (Part 1 "Privacy"), and the signature over the marshalled
 * structure. The commands (cmd/attest.c, and GetSessionAuditDigest in the audit code) marshal
 * only their attested body and call attest_sign.
 *
 * The sign key is the object in handle slot `slot` of the command (c->obj[slot], handle number
 * slot + 1), or TPM_RH_NULL there: then the structure is not signed (TPM_ALG_NULL signature)
 * and the inScheme is ignored, as in the reference implementation. Codes returned here carry
 * their handle or parameter number already. */
#ifndef PQTPM_ATTEST_H
#define PQTPM_ATTEST_H

#include "engine_int.h"

/* TPM2B_DATA (qualifyingData, extraData): at most sizeof(TPMT_HA), a hash id and a SHA-512
 * digest (Part 2 §10.4.3). */
#define ATTEST_MAX_DATA (2 + MAX_DIGEST_SIZE)
struct attest_data {
	uint16_t size;
	uint8_t b[ATTEST_MAX_DATA];
};

/* qualifyingData: TPM_RC_SIZE (no parameter number) past ATTEST_MAX_DATA. */
TPM_RC attest_rd_data(struct rd *r, struct attest_data *d);

/* The scheme the sign key in slot signs with, given the command's inScheme (parameter number
 * scheme_param): a key without sign: TPM_RC_KEY (handle); an x509sign key (certificates only):
 * TPM_RC_ATTRIBUTES (handle); the key's scheme and inScheme both NULL, different, or not for
 * the key: TPM_RC_SCHEME (parameter). TPM_RH_NULL gives the NULL scheme. */
TPM_RC attest_scheme(struct cmd *c, unsigned slot, const struct tpmt_scheme *in_scheme,
		     unsigned scheme_param, struct tpmt_scheme *out);

/* The hash an attestation with this key and scheme digests with (Quote's pcrDigest): the
 * scheme's hash; for pure ML-DSA, which has none, the key's nameAlg (docs/pq-decisions.md). */
TPM_ALG_ID attest_hash(const struct object *key, const struct tpmt_scheme *scheme);

/* Write TPM2B_ATTEST (a TPMS_ATTEST of type with extraData qualifying and the attested union
 * given marshalled, attested_len bytes) and its TPMT_SIGNATURE to c->out. The scheme is chosen
 * as attest_scheme does. ML-DSA keys sign the marshalled TPMS_ATTEST with pure ML-DSA and an
 * empty context; the other schemes sign its digest with the scheme's hash, ECDAA with the
 * commit its count names (commit.h; TPM_RC_VALUE for parameter scheme_param without one). */
TPM_RC attest_sign(struct cmd *c, unsigned slot, const struct tpmt_scheme *in_scheme,
		   unsigned scheme_param, const struct attest_data *qualifying, uint16_t type,
		   const uint8_t *attested, size_t attested_len);

/* The same with the clockInfo.clock given: for a body that reports the clock too (GetTime),
 * so that both say the same. */
TPM_RC attest_sign_at(struct cmd *c, unsigned slot, const struct tpmt_scheme *in_scheme,
		      unsigned scheme_param, const struct attest_data *qualifying, uint16_t type,
		      const uint8_t *attested, size_t attested_len, uint64_t clock);

/* TPMS_ATTEST.firmwareVersion before obfuscation (TPM_PT_FIRMWARE_VERSION_1 || _2). */
uint64_t attest_firmware_version(void);

#endif
