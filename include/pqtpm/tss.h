/* pqtpm client library: TPM 2.0 command builders over a transport.
 *
 * A client of any TPM 2.0 that speaks MSSIM (pqtpm-server, the IBM and Microsoft simulators)
 * or of an engine in the same process: tests, the attestation layer and tools drive the v1.85
 * post-quantum commands through it, which tpm2-tools 5.4 cannot.
 *
 *   struct pqtpm_tss *t;
 *   pqtpm_tss_open_tcti(&t, "mssim:host=127.0.0.1,port=2321");  or pqtpm_tss_open_engine(&t, e)
 *   pqtpm_tss_power_on(t);  pqtpm_tss_startup(t, TPM_SU_CLEAR);
 *   ... pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &tmpl, "keyauth", &key) ...
 *   pqtpm_tss_close(t);
 *
 * Structures cross this interface in their TPM wire form (a TPMT_PUBLIC, a TPMT_SIGNATURE, a
 * ticket as the TPM marshals them), with helpers to build and take apart the ones a caller
 * needs. Authorization is by password (TPM_RS_PW) for every authorized handle.
 *
 * Command functions return the TPM's response code, or one of PQTPM_TSS_RC_* (the TSS layer of
 * a TPM_RC, as tpm2-tss uses it) when the TPM could not be asked or its answer did not parse.
 * Open and close functions return 0 or a negative errno. Not thread-safe: one connection, one
 * thread at a time.
 */
#ifndef PQTPM_TSS_H
#define PQTPM_TSS_H

#include <stddef.h>
#include <stdint.h>

#include <pqtpm/engine.h>
#include <pqtpm/tpm2.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PQTPM_TSS_RC_LAYER 0x000A0000u
#define PQTPM_TSS_RC_BAD_VALUE (PQTPM_TSS_RC_LAYER | 0x0005u) /* an argument out of range */
#define PQTPM_TSS_RC_IO (PQTPM_TSS_RC_LAYER | 0x000Au)	      /* the transport failed */
#define PQTPM_TSS_RC_MALFORMED (PQTPM_TSS_RC_LAYER | 0x000Bu) /* the response does not parse */

#define PQTPM_TSS_MAX_PUBLIC 2800     /* marshalled TPMT_PUBLIC (ML-DSA-87: ~2.6 KB) */
#define PQTPM_TSS_MAX_PRIVATE 1024    /* TPM2B_PRIVATE content */
#define PQTPM_TSS_MAX_SIGNATURE 4640  /* marshalled TPMT_SIGNATURE (ML-DSA-87: 4,631 bytes) */
#define PQTPM_TSS_MAX_CIPHERTEXT 1568 /* ML-KEM-1024 */
#define PQTPM_TSS_MAX_SECRET 1568     /* TPM2B_ENCRYPTED_SECRET content */
#define PQTPM_TSS_MAX_BUFFER 1024     /* TPM2B_MAX_BUFFER: one SequenceUpdate */
#define PQTPM_TSS_MAX_CONTEXT 255     /* ML-DSA context string */
#define PQTPM_TSS_MAX_SAVED 7200      /* marshalled TPMS_CONTEXT (ML-DSA-87 key: ~2.8 KB) */

struct pqtpm_tss;

/* ---- sized byte strings ---- */
struct pqtpm_tss_digest { /* TPM2B_DIGEST, _AUTH, _NONCE, _SHARED_SECRET, a credential */
	uint16_t size;
	uint8_t b[64];
};
struct pqtpm_tss_name {
	uint16_t size;
	uint8_t b[66];
};
struct pqtpm_tss_public { /* TPMT_PUBLIC as marshalled */
	uint16_t size;
	uint8_t b[PQTPM_TSS_MAX_PUBLIC];
};
struct pqtpm_tss_private {
	uint16_t size;
	uint8_t b[PQTPM_TSS_MAX_PRIVATE];
};
struct pqtpm_tss_signature { /* TPMT_SIGNATURE as marshalled */
	uint16_t size;
	uint8_t b[PQTPM_TSS_MAX_SIGNATURE];
};
struct pqtpm_tss_ticket { /* TPMT_TK_* as marshalled (v1.85 metadata included) */
	uint16_t size;
	uint8_t b[2 + 4 + 2 + 2 + 64];
};
struct pqtpm_tss_ciphertext { /* TPM2B_KEM_CIPHERTEXT, TPM2B_ENCRYPTED_SECRET content */
	uint16_t size;
	uint8_t b[PQTPM_TSS_MAX_SECRET];
};
struct pqtpm_tss_id_object { /* TPM2B_ID_OBJECT content */
	uint16_t size;
	uint8_t b[2 + 64 + 2 + 64];
};
struct pqtpm_tss_saved { /* TPMS_CONTEXT as marshalled */
	uint16_t size;
	uint8_t b[PQTPM_TSS_MAX_SAVED];
};

/* ---- connections ---- */
/* In process: a new client of engine e (which must outlive the connection). */
int pqtpm_tss_open_engine(struct pqtpm_tss **out, struct pqtpm_engine *e);
/* MSSIM over TCP: command port `port`, platform port `port + 1`. TCP_NODELAY, one write per
 * command. */
int pqtpm_tss_open_mssim(struct pqtpm_tss **out, const char *host, unsigned port);
/* A TCTI-style string: "mssim:host=H,port=P" (either key may be left out: 127.0.0.1, 2321),
 * "embedded:DIR" (the TPM of state directory DIR: its owner in this process if it has none,
 * else a client of DIR/pqtpm.sock, failing over when the owner goes), "unix:PATH" (a client
 * of an owner's socket). */
int pqtpm_tss_open_tcti(struct pqtpm_tss **out, const char *conf);
void pqtpm_tss_close(struct pqtpm_tss *t);
/* Platform signals POWER_ON then NV_ON (MSSIM); nothing to do in process. 0 or -errno. */
int pqtpm_tss_power_on(struct pqtpm_tss *t);
/* One raw command and its response (rsp_len set); returns the response code of the header. */
TPM_RC pqtpm_tss_transmit(struct pqtpm_tss *t, const uint8_t *cmd, size_t len, uint8_t *rsp,
			  size_t cap, size_t *rsp_len);

/* ---- templates and the structures above ---- */
struct pqtpm_tss_template {
	TPM_ALG_ID type;	 /* TPM_ALG_MLDSA, _HASH_MLDSA, _MLKEM, _RSA, _ECC, _KEYEDHASH */
	TPM_ALG_ID name_alg;	 /* 0: SHA-256 */
	uint32_t attributes;	 /* TPMA_OBJECT */
	uint16_t parameter_set;	 /* ML-DSA, ML-KEM */
	uint8_t allow_external_mu; /* ML-DSA */
	TPM_ALG_ID pre_hash;	 /* HashML-DSA */
	TPM_ALG_ID scheme, scheme_hash; /* RSA, ECC, keyedHash; 0: TPM_ALG_NULL */
	uint16_t rsa_bits;	 /* 0: 2048 */
	uint16_t curve;		 /* 0: P-256 */
	uint16_t sym_bits;	 /* restricted decryption keys: AES-CFB key bits (0: 128) */
	const uint8_t *policy;	 /* authPolicy, policy_len bytes */
	uint16_t policy_len;
};
TPM_RC pqtpm_tss_template_public(const struct pqtpm_tss_template *t,
				 struct pqtpm_tss_public *out);
/* The public key (unique) of a public area: ML-DSA pk, ML-KEM ek, RSA modulus. */
TPM_RC pqtpm_tss_public_key(const struct pqtpm_tss_public *pub, const uint8_t **key,
			    size_t *len);
TPM_ALG_ID pqtpm_tss_public_type(const struct pqtpm_tss_public *pub);
/* A signature's algorithm, hash (TPM_ALG_NULL for ML-DSA) and bytes (RSA, ML-DSA kinds). */
TPM_RC pqtpm_tss_signature_parse(const struct pqtpm_tss_signature *s, TPM_ALG_ID *alg,
				 TPM_ALG_ID *hash, const uint8_t **sig, size_t *len);
/* An ML-DSA (hash TPM_ALG_NULL), HashML-DSA, RSASSA or RSAPSS signature from its bytes. */
TPM_RC pqtpm_tss_signature_make(TPM_ALG_ID alg, TPM_ALG_ID hash, const uint8_t *sig,
				size_t len, struct pqtpm_tss_signature *out);
/* A ticket's tag, hierarchy and (TPM_ST_DIGEST_VERIFIED) metadata; any may be NULL. */
TPM_RC pqtpm_tss_ticket_parse(const struct pqtpm_tss_ticket *tk, uint16_t *tag,
			      TPM_HANDLE *hierarchy, TPM_ALG_ID *metadata);

/* ---- commands ---- */
TPM_RC pqtpm_tss_startup(struct pqtpm_tss *t, uint16_t su); /* TPM_RC_INITIALIZE is 0 here */
TPM_RC pqtpm_tss_get_random(struct pqtpm_tss *t, uint8_t *out, uint16_t len);
/* GetCapability: the capability data after moreData (TPMS_CAPABILITY_DATA) in data. */
TPM_RC pqtpm_tss_get_capability(struct pqtpm_tss *t, uint32_t cap, uint32_t property,
				uint32_t count, uint8_t *more, uint8_t *data, size_t cap_len,
				size_t *len);
/* One TPM property (TPM_CAP_TPM_PROPERTIES); TPM_RC_VALUE if the TPM does not report it. */
TPM_RC pqtpm_tss_get_property(struct pqtpm_tss *t, uint32_t property, uint32_t *value);

struct pqtpm_tss_key {
	TPM_HANDLE handle;
	struct pqtpm_tss_public pub;
	struct pqtpm_tss_name name;
	struct pqtpm_tss_private priv; /* Create only */
};
TPM_RC pqtpm_tss_create_primary(struct pqtpm_tss *t, TPM_HANDLE hierarchy,
				const char *hierarchy_auth, const struct pqtpm_tss_public *tmpl,
				const char *key_auth, struct pqtpm_tss_key *key);
/* Create under parent: key->priv and key->pub; no handle (Load it). */
TPM_RC pqtpm_tss_create(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			const struct pqtpm_tss_public *tmpl, const char *key_auth,
			struct pqtpm_tss_key *key);
TPM_RC pqtpm_tss_load(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
		      struct pqtpm_tss_key *key);
/* LoadExternal of a public area alone, in hierarchy (TPM_RH_OWNER, TPM_RH_NULL ...). */
TPM_RC pqtpm_tss_load_public(struct pqtpm_tss *t, TPM_HANDLE hierarchy,
			     const struct pqtpm_tss_public *pub, struct pqtpm_tss_key *key);
TPM_RC pqtpm_tss_read_public(struct pqtpm_tss *t, TPM_HANDLE handle,
			     struct pqtpm_tss_public *pub, struct pqtpm_tss_name *name);
TPM_RC pqtpm_tss_flush(struct pqtpm_tss *t, TPM_HANDLE handle);
/* ContextSave / ContextLoad: the handle ContextLoad returns may differ from the saved one. */
TPM_RC pqtpm_tss_context_save(struct pqtpm_tss *t, TPM_HANDLE handle,
			      struct pqtpm_tss_saved *saved);
TPM_RC pqtpm_tss_context_load(struct pqtpm_tss *t, const struct pqtpm_tss_saved *saved,
			      TPM_HANDLE *handle);
/* StartAuthSession without salt or bind: type TPM_SE_HMAC/POLICY/TRIAL, symmetric NULL. */
TPM_RC pqtpm_tss_start_auth_session(struct pqtpm_tss *t, uint8_t type, TPM_ALG_ID hash,
				    TPM_HANDLE *session, struct pqtpm_tss_digest *nonce_tpm);

/* v1.85 sequences. ctx: the ML-DSA context string (NULL, 0: none). */
TPM_RC pqtpm_tss_sign_sequence_start(struct pqtpm_tss *t, TPM_HANDLE key, const char *seq_auth,
				     const uint8_t *ctx, size_t ctx_len, TPM_HANDLE *seq);
TPM_RC pqtpm_tss_verify_sequence_start(struct pqtpm_tss *t, TPM_HANDLE key,
				       const char *seq_auth, const uint8_t *ctx, size_t ctx_len,
				       TPM_HANDLE *seq);
TPM_RC pqtpm_tss_sequence_update(struct pqtpm_tss *t, TPM_HANDLE seq, const char *seq_auth,
				 const uint8_t *data, size_t len);
TPM_RC pqtpm_tss_sign_sequence_complete(struct pqtpm_tss *t, TPM_HANDLE seq,
					const char *seq_auth, TPM_HANDLE key,
					const char *key_auth, const uint8_t *data, size_t len,
					struct pqtpm_tss_signature *sig);
TPM_RC pqtpm_tss_verify_sequence_complete(struct pqtpm_tss *t, TPM_HANDLE seq,
					  const char *seq_auth, TPM_HANDLE key,
					  const struct pqtpm_tss_signature *sig,
					  struct pqtpm_tss_ticket *ticket);
/* A whole message of any length through a sequence (updates of PQTPM_TSS_MAX_BUFFER). */
TPM_RC pqtpm_tss_sign_message(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			      const uint8_t *ctx, size_t ctx_len, const uint8_t *msg, size_t len,
			      struct pqtpm_tss_signature *sig);
TPM_RC pqtpm_tss_verify_message(struct pqtpm_tss *t, TPM_HANDLE key, const uint8_t *ctx,
				size_t ctx_len, const uint8_t *msg, size_t len,
				const struct pqtpm_tss_signature *sig,
				struct pqtpm_tss_ticket *ticket);
/* SignDigest with the NULL hashcheck ticket (unrestricted keys); digest: an external mu, a
 * HashML-DSA PH(M), or a classical digest. */
TPM_RC pqtpm_tss_sign_digest(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			     const uint8_t *ctx, size_t ctx_len, const uint8_t *digest,
			     size_t dlen, struct pqtpm_tss_signature *sig);
TPM_RC pqtpm_tss_verify_digest_signature(struct pqtpm_tss *t, TPM_HANDLE key,
					 const uint8_t *ctx, size_t ctx_len,
					 const uint8_t *digest, size_t dlen,
					 const struct pqtpm_tss_signature *sig,
					 struct pqtpm_tss_ticket *ticket);

/* ML-KEM */
TPM_RC pqtpm_tss_encapsulate(struct pqtpm_tss *t, TPM_HANDLE key,
			     struct pqtpm_tss_digest *shared_secret,
			     struct pqtpm_tss_ciphertext *ct);
TPM_RC pqtpm_tss_decapsulate(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			     const struct pqtpm_tss_ciphertext *ct,
			     struct pqtpm_tss_digest *shared_secret);

/* StartAuthSession salted with an ML-KEM key (tpm_key, key_pub its public area): the salt is
 * Part 1's labeled KEM ("SECRET"), computed here; unbound, symmetric NULL. session_key gets the
 * session's key for the caller's HMACs (the session is then used outside the password-only
 * builders, through pqtpm_tss_transmit). */
TPM_RC pqtpm_tss_start_kem_session(struct pqtpm_tss *t, TPM_HANDLE tpm_key,
				   const struct pqtpm_tss_public *key_pub, uint8_t type,
				   TPM_ALG_ID hash, TPM_HANDLE *session,
				   struct pqtpm_tss_digest *nonce_tpm,
				   struct pqtpm_tss_digest *session_key);

/* Credentials (RSA, ECC, ML-KEM protectors) */
TPM_RC pqtpm_tss_make_credential(struct pqtpm_tss *t, TPM_HANDLE key,
				 const struct pqtpm_tss_digest *credential,
				 const struct pqtpm_tss_name *object_name,
				 struct pqtpm_tss_id_object *blob,
				 struct pqtpm_tss_ciphertext *secret);
TPM_RC pqtpm_tss_activate_credential(struct pqtpm_tss *t, TPM_HANDLE activate,
				     const char *activate_auth, TPM_HANDLE key,
				     const char *key_auth, const struct pqtpm_tss_id_object *blob,
				     const struct pqtpm_tss_ciphertext *secret,
				     struct pqtpm_tss_digest *credential);

/* ---- attestation (tss/cmd_attest.c) ----
 * Quote, Certify and GetTime return the TPMS_ATTEST as the TPM marshalled it (what the
 * signature covers) and the TPMT_SIGNATURE; a TPM_RH_NULL signer gives the TPM_ALG_NULL
 * signature (2 bytes). qualifying: the caller's nonce, at most 66 bytes. scheme, scheme_hash:
 * the inScheme (0: TPM_ALG_NULL, the key's own). */
#define PQTPM_TSS_MAX_ATTEST 2048
struct pqtpm_tss_attest { /* TPMS_ATTEST as marshalled */
	uint16_t size;
	uint8_t b[PQTPM_TSS_MAX_ATTEST];
};
struct pqtpm_tss_pcr_select { /* one bank: hash and a map of PCRs 0-23 (bit n = PCR n) */
	TPM_ALG_ID hash;
	uint32_t pcrs;
};
TPM_RC pqtpm_tss_quote(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
		       const uint8_t *qualifying, size_t qlen, TPM_ALG_ID scheme,
		       TPM_ALG_ID scheme_hash, const struct pqtpm_tss_pcr_select *sel, size_t nsel,
		       struct pqtpm_tss_attest *quoted, struct pqtpm_tss_signature *sig);
TPM_RC pqtpm_tss_certify(struct pqtpm_tss *t, TPM_HANDLE object, const char *object_auth,
			 TPM_HANDLE key, const char *key_auth, const uint8_t *qualifying,
			 size_t qlen, TPM_ALG_ID scheme, TPM_ALG_ID scheme_hash,
			 struct pqtpm_tss_attest *attest, struct pqtpm_tss_signature *sig);
/* GetTime: the endorsement hierarchy authorizes (endorsement_auth). */
TPM_RC pqtpm_tss_get_time(struct pqtpm_tss *t, const char *endorsement_auth, TPM_HANDLE key,
			  const char *key_auth, const uint8_t *qualifying, size_t qlen,
			  TPM_ALG_ID scheme, TPM_ALG_ID scheme_hash,
			  struct pqtpm_tss_attest *attest, struct pqtpm_tss_signature *sig);
/* PCR_Read of one bank: the values of the PCRs in map pcrs, in PCR order, each of the bank's
 * digest size, concatenated into out (cap bytes); *len set. PCRs the TPM did not return (it
 * returns at most 8 digests at a time) are asked for again. */
TPM_RC pqtpm_tss_pcr_read(struct pqtpm_tss *t, TPM_ALG_ID hash, uint32_t pcrs, uint8_t *out,
			  size_t cap, size_t *len);

/* A TPMS_ATTEST taken apart. body points into the attest given (the attested union). */
struct pqtpm_tss_attest_info {
	uint32_t magic;
	uint16_t type;			/* TPM_ST_ATTEST_* */
	struct pqtpm_tss_name signer;	/* qualifiedSigner */
	uint16_t extra_size;		/* extraData */
	uint8_t extra[66];
	uint64_t clock;
	uint32_t reset_count, restart_count;
	uint8_t safe;
	uint64_t firmware_version;
	const uint8_t *body;
	size_t body_len;
};
TPM_RC pqtpm_tss_attest_parse(const struct pqtpm_tss_attest *a,
			      struct pqtpm_tss_attest_info *info);
/* TPMS_QUOTE_INFO of a quote: its selection and pcrDigest. */
TPM_RC pqtpm_tss_quote_info(const struct pqtpm_tss_attest_info *info,
			    struct pqtpm_tss_pcr_select *sel, size_t sel_cap, size_t *nsel,
			    struct pqtpm_tss_digest *pcr_digest);

#ifdef __cplusplus
}
#endif

#endif
