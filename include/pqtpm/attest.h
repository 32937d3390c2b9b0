/* pqtpm attestation library (libpqtpm-attest): attestation keys under the EK, quotes as JSON
 * evidence, and a verifier that trusts nothing in the evidence it has not checked
 * (docs/attestation.md). A TPM client through libpqtpm-tss only: it runs against any TPM 2.0.
 *
 * JSON documents are jansson objects (json_t); the caller owns what a function returns
 * (json_decref). Functions that talk to the TPM return its TPM_RC (or PQTPM_TSS_RC_*);
 * PQTPM_ATTEST_RC_* name the attestation layer's own failures. */
#ifndef PQTPM_ATTEST_H
#define PQTPM_ATTEST_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <pqtpm/tss.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PQTPM_ATTEST_PROFILE "tag:pqtpm,2026:evidence:1"
#define PQTPM_ATTEST_MAX_NONCE 64 /* TPMS_ATTEST.extraData holds at most a digest */
#define PQTPM_ATTEST_MAX_CERT 2048

/* The algorithm names of the CLI and the documents: EKs "rsa2048", "ecc-p256", "ecc-p521",
 * "mlkem768"; AKs "rsa2048", "ecc-p256", "ecc-p384", "ecc-p521", "mldsa44", "mldsa65",
 * "mldsa87". */

/* The default EK of an algorithm as a TPMT_PUBLIC template (the EK Credential Profile's low
 * range templates, its high-range H-4 for "ecc-p521"; ML-KEM-768 after them:
 * docs/pq-decisions.md), and the NV index of its certificate (none is made for H-4's).
 * PQTPM_TSS_RC_BAD_VALUE for an unknown name. */
TPM_RC pqtpm_attest_ek_template(const char *ek_alg, struct pqtpm_tss_public *tmpl,
				TPM_HANDLE *cert_index);
/* CreatePrimary of that EK in the endorsement hierarchy (empty endorsement auth). */
TPM_RC pqtpm_attest_ek_create(struct pqtpm_tss *t, const char *ek_alg, struct pqtpm_tss_key *ek);
/* The EK certificate (DER) from its NV index: *len bytes into cert (cap bytes). */
TPM_RC pqtpm_attest_ek_certificate(struct pqtpm_tss *t, const char *ek_alg, uint8_t *cert,
				   size_t cap, size_t *len);

/* An attestation key: a restricted signing key under the EK (fixedTPM, fixedParent,
 * sensitiveDataOrigin, userWithAuth, restricted, sign). */
struct pqtpm_attest_ak {
	char alg[16];
	char ek_alg[16];
	struct pqtpm_tss_public pub;   /* TPMT_PUBLIC */
	struct pqtpm_tss_private priv; /* TPM2B_PRIVATE content */
	struct pqtpm_tss_name name;
};
/* Create (not loaded): the EK is made, used as parent through a policy session with
 * PolicySecret(TPM_RH_ENDORSEMENT), as tpm2_createak does, and flushed. */
TPM_RC pqtpm_attest_ak_create(struct pqtpm_tss *t, const char *alg, const char *ek_alg,
			      struct pqtpm_attest_ak *ak);
/* Load under a new EK: *ak_handle, *ek_handle (flush both when done). */
TPM_RC pqtpm_attest_ak_load(struct pqtpm_tss *t, const struct pqtpm_attest_ak *ak,
			    TPM_HANDLE *ek_handle, TPM_HANDLE *ak_handle);
/* AK.json: {"alg", "ek_alg", "public" (TPMT_PUBLIC, base64url), "private" (TPM2B_PRIVATE
 * content, base64url), "name" (hex), and for RSA and ECC "public_pem" (informative: reading
 * takes the key from "public")}. Write: 0 or a negative errno; read: 0, -EINVAL for a
 * document that is not one (msg says what), or an errno. */
json_t *pqtpm_attest_ak_json(const struct pqtpm_attest_ak *ak);
int pqtpm_attest_ak_from_json(const json_t *doc, struct pqtpm_attest_ak *ak, char *msg,
			      size_t msglen);

/* An EK's public area from its certificate (PEM or DER) or its PEM public key: the default EK
 * template of the key's type (RSA-2048 with exponent 65537, ECC P-256, ML-KEM-768) with the
 * key as unique, so that its Name is the TPM's EK's. 0 or -EINVAL. */
int pqtpm_attest_ek_public_from_x509(const uint8_t *data, size_t len,
				     struct pqtpm_tss_public *pub);

/* Credentials, the AK's binding to the EK (Part 1 §24): the verifier makes one for the AK's
 * Name under the EK's public area (RSA, ECC or ML-KEM; no TPM needed: a TPM of its own in
 * memory computes it), the attester's TPM gives the secret back only if that AK is loaded
 * beside that EK. secret: 1..64 bytes. */
TPM_RC pqtpm_attest_credential_make(const struct pqtpm_tss_public *ek_pub,
				    const struct pqtpm_tss_name *ak_name, const uint8_t *secret,
				    size_t len, struct pqtpm_tss_id_object *blob,
				    struct pqtpm_tss_ciphertext *enc);
TPM_RC pqtpm_attest_credential_activate(struct pqtpm_tss *t, const struct pqtpm_attest_ak *ak,
					const struct pqtpm_tss_id_object *blob,
					const struct pqtpm_tss_ciphertext *enc,
					struct pqtpm_tss_digest *secret);

/* PCR selections in tpm2-tools' form, "sha256:0,1,2,7+sha384:0": at most
 * PQTPM_TSS_MAX_BANKS banks of PCRs 0-23. 0 or -EINVAL. */
int pqtpm_attest_pcrs_parse(const char *text, struct pqtpm_tss_pcr_select *sel, size_t cap,
			    size_t *n);

/* A quote of the selected PCRs with the nonce by the AK (loaded at ak_handle), as evidence:
 * PCRs read, quoted and read again until the values read are those quoted (at most 5
 * tries: PQTPM_ATTEST_RC_PCRS_MOVED). ek_cert (NULL: none) goes into "ek". */
#define PQTPM_ATTEST_RC_PCRS_MOVED (PQTPM_TSS_RC_LAYER | 0x0100u)
TPM_RC pqtpm_attest_quote(struct pqtpm_tss *t, const struct pqtpm_attest_ak *ak,
			  TPM_HANDLE ak_handle, const uint8_t *nonce, size_t nonce_len,
			  const struct pqtpm_tss_pcr_select *sel, size_t nsel,
			  const struct pqtpm_tss_public *ek_pub, const uint8_t *ek_cert,
			  size_t ek_cert_len, json_t **evidence);

/* The event log (binary, as measure writes it) into the evidence: "event_log". 0 or -ENOMEM. */
int pqtpm_attest_evidence_add_log(json_t *ev, const uint8_t *log, size_t len);

/* Evidence from tpm2_quote's files: -m (the TPMS_ATTEST), -s (TPMT_SIGNATURE, the tss format)
 * and -o (tpm2-tools' PCR structure dump), with the nonce the quote was asked for and the AK's
 * public area. 0, -EINVAL with why (the files do not parse strictly), -ENOMEM. */
int pqtpm_attest_import_tpm2tools(const uint8_t *msg, size_t msg_len, const uint8_t *sig,
				  size_t sig_len, const uint8_t *pcrs, size_t pcrs_len,
				  const uint8_t *nonce, size_t nonce_len,
				  const struct pqtpm_tss_public *ak_pub, json_t **evidence,
				  char *why, size_t whylen);

/* The manufacturer CA a verifier trusts: its P-256 key, from its PEM certificate (as
 * pqtpm-attest ca writes it). 0 or -EINVAL. */
struct pqtpm_attest_ca {
	uint8_t x[32], y[32];
};
int pqtpm_attest_ca_load(const char *pem, size_t len, struct pqtpm_attest_ca *ca);

/* The verifier. trusted_ak: the AK's TPMT_PUBLIC the verifier trusts; nonce: the one it
 * gave. previous: an earlier result document of this TPM (NULL: none); max_age: seconds
 * (0: no freshness check); now: the verifier's time (seconds since the epoch); ca: the CA
 * the evidence's EK certificate must come from (NULL: not checked). The result
 * document {"valid", "failures": [{"check", "detail"}], "claims": {...}}; every applicable
 * check runs. Returns 1 valid, 0 invalid, -ENOMEM. */
struct pqtpm_attest_verify_opts {
	const uint8_t *trusted_ak;
	size_t trusted_ak_len;
	const uint8_t *nonce;
	size_t nonce_len;
	const json_t *previous;
	uint64_t max_age;
	int64_t now;
	const struct pqtpm_attest_ca *ca;
	/* reference values {"pcrs": {BANK: {PCR: HEX or [HEX, ...]}}} (NULL: none) */
	const json_t *policy;
};
int pqtpm_attest_verify(const json_t *evidence, const struct pqtpm_attest_verify_opts *o,
			json_t **result);

/* The TCG PC Client crypto-agile event log (/sys/kernel/security/tpm0/binary_bios_measurements):
 * the Spec ID header naming banks (n of them), and one TCG_PCR_EVENT2 of n digests and its
 * data. TPM_RC_SIZE when out is too small. */
TPM_RC pqtpm_attest_log_header(const TPM_ALG_ID *banks, size_t n, uint8_t *out, size_t cap,
			       size_t *len);
TPM_RC pqtpm_attest_log_event(uint32_t pcr, uint32_t type, const struct pqtpm_tss_ha *d,
			      size_t n, const uint8_t *event, size_t len, uint8_t *out, size_t cap,
			      size_t *outlen);
/* A log replayed: per bank the header names (and pqtpm hashes), the value of each PCR, the
 * PCRs events touched, and those touched by an event without this bank's digest. 0, or
 * -EINVAL with why. */
struct pqtpm_attest_replay {
	size_t nbanks;
	TPM_ALG_ID bank[PQTPM_TSS_MAX_BANKS];
	uint8_t value[PQTPM_TSS_MAX_BANKS][24][64];
	uint32_t touched[PQTPM_TSS_MAX_BANKS], missing[PQTPM_TSS_MAX_BANKS];
};
int pqtpm_attest_log_replay(const uint8_t *log, size_t len, struct pqtpm_attest_replay *rp,
			    char *why, size_t whylen);
/* measure: extend PCR pcr in every allocated bank with H_bank(data), or (digest not NULL)
 * that bank only with the digest given, and the log record of it (after the log header of
 * the allocated banks when header is nonzero) into out. */
TPM_RC pqtpm_attest_measure(struct pqtpm_tss *t, uint32_t pcr, uint32_t type, const uint8_t *data,
			    size_t len, const struct pqtpm_tss_ha *digest, int header,
			    uint8_t *out, size_t cap, size_t *outlen);

/* The key of an RSA or ECC (P-256, P-384, P-521) public area (TPMT_PUBLIC) as a PEM
 * SubjectPublicKeyInfo ("-----BEGIN PUBLIC KEY-----"), NUL-terminated: 0, or -EINVAL for a
 * key without that form (ML-DSA, ML-KEM) or cap too small. */
#define PQTPM_ATTEST_MAX_PEM 1024
int pqtpm_attest_public_pem(const struct pqtpm_tss_public *pub, char *out, size_t cap,
			    size_t *len);

/* base64url without padding (RFC 4648 §5) and lower-case hex, as the documents hold them.
 * Decoders are strict (no padding, no white space, canonical last character): 0 or -EINVAL
 * (also when the result would pass cap). Encoders return a malloc'd string or NULL. */
char *pqtpm_attest_b64url(const uint8_t *data, size_t len);
int pqtpm_attest_unb64url(const char *text, uint8_t *out, size_t cap, size_t *len);
char *pqtpm_attest_hex(const uint8_t *data, size_t len);
int pqtpm_attest_unhex(const char *text, uint8_t *out, size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
