/* pqtpm client library: TPM 2.0 command builders over a transport.
 *
 * libpqtpm-tss: a client of any TPM 2.0, over MSSIM (pqtpm-server, the IBM and Microsoft
 * simulators), a TPM device (/dev/tpmrm0), or an engine in the same process: tests, the
 * attestation layer and tools drive the v1.85 post-quantum commands through it, which
 * tpm2-tools 5.4 cannot.
 *
 *   struct pqtpm_tss *t;
 *   pqtpm_tss_open_tcti(&t, "mssim:host=127.0.0.1,port=2321");  or pqtpm_tss_open_engine(&t, e)
 *   pqtpm_tss_power_on(t);  pqtpm_tss_startup(t, TPM_SU_CLEAR);
 *   ... pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &tmpl, "keyauth", &key) ...
 *   pqtpm_tss_close(t);
 *
 * Structures cross this interface in their TPM wire form (a TPMT_PUBLIC, a TPMT_SIGNATURE, a
 * ticket as the TPM marshals them), with helpers to build and take apart the ones a caller
 * needs; a ticket a command returns may be passed as NULL by a caller that does not want it. Authorization is by password (TPM_RS_PW) for every authorized handle, or by the
 * sessions given with pqtpm_tss_use_sessions (see "sessions" below).
 *
 * Command functions return the TPM's response code, or one of PQTPM_TSS_RC_* (the TSS layer of
 * a TPM_RC, as tpm2-tss uses it) when the TPM could not be asked or its answer did not parse.
 * Open and close functions return 0 or a negative errno. Thread-safe per handle (see
 * "library" below).
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

/* The library is built with hidden visibility: what this header declares is its API. */
#pragma GCC visibility push(default)

/* The TSS layer of a TPM_RC (tpm2-tss's TCTI layer, with its base codes, so that
 * tpm2_rc_decode and pqtpm_tss_rc_decode name them alike). */
#define PQTPM_TSS_RC_LAYER 0x000A0000u
#define PQTPM_TSS_RC_IO (PQTPM_TSS_RC_LAYER | 0x000Au)               /* the transport failed */
#define PQTPM_TSS_RC_BAD_VALUE (PQTPM_TSS_RC_LAYER | 0x000Bu)        /* an argument out of range */
#define PQTPM_TSS_RC_MALFORMED (PQTPM_TSS_RC_LAYER | 0x0011u)        /* the response does not parse */
#define PQTPM_TSS_RC_RESPONSE_HMAC (PQTPM_TSS_RC_LAYER | 0x001Bu)    /* a response HMAC is wrong */

#define PQTPM_TSS_MAX_PUBLIC 2800     /* marshalled TPMT_PUBLIC (ML-DSA-87: ~2.6 KB) */
#define PQTPM_TSS_MAX_PRIVATE 1024    /* TPM2B_PRIVATE content */
#define PQTPM_TSS_MAX_SIGNATURE 4640  /* marshalled TPMT_SIGNATURE (ML-DSA-87: 4,631 bytes) */
#define PQTPM_TSS_MAX_CIPHERTEXT 1568 /* ML-KEM-1024 */
#define PQTPM_TSS_MAX_SECRET 1568     /* TPM2B_ENCRYPTED_SECRET content */
#define PQTPM_TSS_MAX_BUFFER 1024     /* TPM2B_MAX_BUFFER: one SequenceUpdate */
#define PQTPM_TSS_MAX_CONTEXT 255     /* ML-DSA context string */
#define PQTPM_TSS_MAX_SAVED 7200      /* marshalled TPMS_CONTEXT (ML-DSA-87 key: ~2.8 KB) */

struct pqtpm_tss;

/* ---- library ----
 * Thread safety: one handle may be used from several threads; its commands run one at a time
 * (a mutex per handle), several handles run in parallel. Fork: a child that uses a handle its
 * parent opened gets PQTPM_TSS_RC_FORKED (pqtpm_tss_power_on: -EPERM; the parent's connection
 * is left alone, close in the child only frees the child's copy) until it opens its own. */
#define PQTPM_TSS_RC_FORKED (PQTPM_TSS_RC_LAYER | 0x0003u) /* a handle of the parent process */

/* Messages of the library (a bad transport string, a transport that failed) go to one
 * callback for the whole process; by default nowhere. level: PQTPM_LOG_* of engine.h. fn NULL
 * silences it again. */
typedef void (*pqtpm_tss_log_fn)(void *arg, int level, const char *msg);
void pqtpm_tss_set_log(pqtpm_tss_log_fn fn, void *arg);

/* Any response code as text, as tpm2_rc_decode prints it (without the newline): the TPM's
 * format-zero and format-one codes with their parameter, handle or session, warnings, the TSS
 * layers' codes including this library's. Writes at most len bytes into buf; returns buf. */
const char *pqtpm_tss_rc_decode(TPM_RC rc, char *buf, size_t len);

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
/* A transport string, the same in every tool of the project: "mssim:host=H,port=P" (either
 * key may be left out: 127.0.0.1, 2321), "swtpm:host=H,port=P" (swtpm socket --tpm2: server
 * port P, control port P + 1), "device:PATH" ("device" alone: /dev/tpmrm0), "embedded:DIR"
 * (the TPM of state directory DIR: its owner in this process if it has none, else a client of
 * DIR/pqtpm.sock, failing over when the owner goes), "unix:PATH" (a client of an owner's
 * socket). A bad string is -EINVAL, a transport that cannot be opened its errno (a missing
 * device -ENOENT); either way the log callback hears why. */
int pqtpm_tss_open_tcti(struct pqtpm_tss **out, const char *conf);
void pqtpm_tss_close(struct pqtpm_tss *t);
/* Platform signals POWER_ON then NV_ON (MSSIM); nothing to do in process. 0 or -errno. */
int pqtpm_tss_power_on(struct pqtpm_tss *t);
/* One raw command and its response (rsp_len set); returns the response code of the header.
 * A command the TPM answers with TPM_RC_RETRY, _YIELDED or _TESTING is sent again (up to five
 * times in all), so cmd and rsp must not overlap. */
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
	uint16_t sym_bits;	 /* restricted decryption keys and symCipher keys: AES key bits
				  * (0: 128) */
	TPM_ALG_ID sym_mode;	 /* symCipher keys: the mode (0: CFB; TPM_ALG_NULL: any, chosen
				  * at each EncryptDecrypt) */
	const uint8_t *policy;	 /* authPolicy, policy_len bytes */
	uint16_t policy_len;
	/* A key made outside the TPM (LoadExternal, Import): its public key as unique (RSA
	 * modulus, ECC x with unique_y, ML-DSA pk, ML-KEM ek; unique_len bytes, 0: empty, the TPM
	 * makes the key) and the RSA exponent (0: the default 65537). */
	const uint8_t *unique, *unique_y;
	uint16_t unique_len, unique_y_len;
	uint32_t exponent;
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
/* StirRandom: len bytes (at most PQTPM_TSS_MAX_STIR, TPM2B_SENSITIVE_DATA) into the TPM's
 * random generator's state. */
#define PQTPM_TSS_MAX_STIR 128
TPM_RC pqtpm_tss_stir_random(struct pqtpm_tss *t, const uint8_t *data, size_t len);
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
/* The external mu (mu_len 64 bytes) of a HashML-DSA signature (FIPS 204 Algorithm 4) with the
 * ML-DSA key of public area pub: PH (ph_len bytes) the digest of the message by hash
 * (TPM_ALG_SHA256/384/512), ctx the context string. A key with allowExternalMu signs it with
 * pqtpm_tss_sign_digest (empty context), and the signature verifies as HashML-DSA. Computed
 * here from public values only (tss/mldsa_mu.c); PQTPM_TSS_RC_BAD_VALUE for another key type,
 * hash or length. */
TPM_RC pqtpm_tss_hash_mldsa_mu(const struct pqtpm_tss_public *pub, TPM_ALG_ID hash,
			       const uint8_t *ctx, size_t ctx_len, const uint8_t *ph,
			       size_t ph_len, uint8_t *mu, size_t mu_len);

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

/* ---- commands: PCR (tss/cmd_pcr.c) ----
 * A pcr_auth is the PCR's authValue (usually empty: NULL or ""). */
#define PQTPM_TSS_MAX_BANKS 8	/* digests in one TPML_DIGEST_VALUES */
#define PQTPM_TSS_MAX_EVENT 1024 /* TPM2B_EVENT */
struct pqtpm_tss_ha { /* TPMT_HA: a digest and its hash algorithm (size: that hash's) */
	TPM_ALG_ID hash;
	uint16_t size;
	uint8_t b[64];
};
/* PCR_Extend of one bank with the empty PCR authorization; len must be hash_alg's size. */
TPM_RC pqtpm_tss_pcr_extend(struct pqtpm_tss *t, TPM_HANDLE pcr, TPM_ALG_ID hash_alg,
			    const uint8_t *digest, size_t len);
/* PCR_Extend of several banks at once (n digests, at most PQTPM_TSS_MAX_BANKS). */
TPM_RC pqtpm_tss_pcr_extend_banks(struct pqtpm_tss *t, TPM_HANDLE pcr, const char *pcr_auth,
				  const struct pqtpm_tss_ha *digests, size_t n);
/* PCR_Event: the TPM hashes data (at most PQTPM_TSS_MAX_EVENT bytes) with every bank's hash and
 * extends each; the digests it extended land in out (room for cap), *n of them. */
TPM_RC pqtpm_tss_pcr_event(struct pqtpm_tss *t, TPM_HANDLE pcr, const char *pcr_auth,
			   const uint8_t *data, size_t len, struct pqtpm_tss_ha *out, size_t cap,
			   size_t *n);
TPM_RC pqtpm_tss_pcr_reset(struct pqtpm_tss *t, TPM_HANDLE pcr, const char *pcr_auth);

/* ---- commands: NV (tss/cmd_nv.c) ----
 * auth_handle is the handle whose authorization a command uses: the index itself (its
 * index_auth), or TPM_RH_OWNER / TPM_RH_PLATFORM as the index's attributes allow. */
struct pqtpm_tss_nv_public { /* TPMS_NV_PUBLIC */
	TPM_HANDLE index;
	TPM_ALG_ID name_alg;	/* 0 when defining: SHA-256 */
	uint32_t attributes;	/* TPMA_NV, the type in TPMA_NV_TPM2_NT_MASK */
	uint16_t policy_size;	/* authPolicy */
	uint8_t policy[64];
	uint16_t data_size;
};
/* NV_DefineSpace by hierarchy auth_handle (TPM_RH_OWNER or TPM_RH_PLATFORM). */
TPM_RC pqtpm_tss_nv_define_space(struct pqtpm_tss *t, TPM_HANDLE auth_handle,
				 const char *hierarchy_auth, const char *index_auth,
				 const struct pqtpm_tss_nv_public *pub);
TPM_RC pqtpm_tss_nv_undefine_space(struct pqtpm_tss *t, TPM_HANDLE auth_handle,
				   const char *hierarchy_auth, TPM_HANDLE index);
/* NV_Write / NV_Read of len bytes at offset, in as many commands as the TPM's
 * TPM_PT_NV_BUFFER_MAX (within PQTPM_TSS_MAX_BUFFER) asks for (a TPMA_NV_WRITEALL index takes
 * one piece: the TPM refuses a partial write); a counter reads as 8 bytes, big-endian. */
TPM_RC pqtpm_tss_nv_write(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			  TPM_HANDLE index, uint16_t offset, const uint8_t *data, size_t len);
TPM_RC pqtpm_tss_nv_read(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			 TPM_HANDLE index, uint16_t offset, uint8_t *out, size_t len);
/* NV_ReadPublic: the index's public area (any nameAlg and attributes) and Name. */
TPM_RC pqtpm_tss_nv_read_public(struct pqtpm_tss *t, TPM_HANDLE index,
				struct pqtpm_tss_nv_public *pub, struct pqtpm_tss_name *name);
TPM_RC pqtpm_tss_nv_increment(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			      TPM_HANDLE index);

/* ---- commands: asymmetric keys (tss/cmd_asym.c) ----
 * A scheme of 0 is TPM_ALG_NULL (the key's own); scheme_hash goes with schemes that have one
 * (RSASSA, RSAPSS, ECDSA, OAEP ...; not RSAES or ML-DSA). */
#define PQTPM_TSS_MAX_RSA 512 /* TPM2B_PUBLIC_KEY_RSA: RSA-4096 */
struct pqtpm_tss_ecc_point { /* TPMS_ECC_POINT: x and y, each up to BN P-638's 80 bytes */
	uint16_t x_size, y_size;
	uint8_t x[128], y[128];
};
/* Sign a digest; validation: the TPMT_TK_HASHCHECK from Hash or SequenceComplete (restricted
 * keys), or NULL for the NULL ticket. */
TPM_RC pqtpm_tss_sign(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
		      const uint8_t *digest, size_t dlen, TPM_ALG_ID sig_scheme,
		      TPM_ALG_ID scheme_hash, const struct pqtpm_tss_ticket *validation,
		      struct pqtpm_tss_signature *sig);
/* VerifySignature: TPM_RC_SIGNATURE (with its parameter number) if sig does not verify. */
TPM_RC pqtpm_tss_verify_signature(struct pqtpm_tss *t, TPM_HANDLE key, const uint8_t *digest,
				  size_t dlen, const struct pqtpm_tss_signature *sig,
				  struct pqtpm_tss_ticket *validation);
/* RSA_Encrypt / RSA_Decrypt; label as the TPM takes it (with its terminating zero, at most 64
 * bytes; NULL, 0: none). The result (at most cap bytes) in out, *out_len. */
TPM_RC pqtpm_tss_rsa_encrypt(struct pqtpm_tss *t, TPM_HANDLE key, const uint8_t *msg,
			     size_t len, TPM_ALG_ID enc_scheme, TPM_ALG_ID scheme_hash,
			     const uint8_t *label, size_t label_len, uint8_t *out, size_t cap,
			     size_t *out_len);
TPM_RC pqtpm_tss_rsa_decrypt(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			     const uint8_t *ct, size_t len, TPM_ALG_ID enc_scheme,
			     TPM_ALG_ID scheme_hash, const uint8_t *label, size_t label_len,
			     uint8_t *out, size_t cap, size_t *out_len);
/* ECDH_KeyGen: an ephemeral key pair on key's curve; z the shared point, pub the ephemeral
 * public point (for the other side's ZGen). z is secret: wipe it after use. */
TPM_RC pqtpm_tss_ecdh_keygen(struct pqtpm_tss *t, TPM_HANDLE key,
			     struct pqtpm_tss_ecc_point *z, struct pqtpm_tss_ecc_point *pub);
/* ECDH_ZGen: key's private scalar times the point in. */
TPM_RC pqtpm_tss_ecdh_zgen(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			   const struct pqtpm_tss_ecc_point *in, struct pqtpm_tss_ecc_point *z);

/* ---- commands: symmetric keys, hashes, HMACs (tss/cmd_sym.c) ----
 * Sequences continue with pqtpm_tss_sequence_update (above). A hierarchy of TPM_RH_NULL gives
 * the NULL ticket; validation may be NULL where the caller has no use for it. */
/* EncryptDecrypt2 of len bytes in pieces of PQTPM_TSS_MAX_BUFFER (CBC and ECB: a multiple of
 * the block); iv (iv_len bytes) in, the IV to continue with out; mode 0: the key's own. */
TPM_RC pqtpm_tss_encrypt_decrypt(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
				 int decrypt, TPM_ALG_ID mode, uint8_t *iv, size_t iv_len,
				 const uint8_t *in, size_t len, uint8_t *out);
/* HMAC of at most PQTPM_TSS_MAX_BUFFER bytes with a keyedHash key (hash 0: the key's own). */
TPM_RC pqtpm_tss_hmac(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
		      TPM_ALG_ID hash, const uint8_t *data, size_t len,
		      struct pqtpm_tss_digest *out);
/* Hash of at most PQTPM_TSS_MAX_BUFFER bytes; the ticket says whether hierarchy's TPM
 * produced it (for Sign with a restricted key). */
TPM_RC pqtpm_tss_hash(struct pqtpm_tss *t, TPM_ALG_ID hash, const uint8_t *data, size_t len,
		      TPM_HANDLE hierarchy, struct pqtpm_tss_digest *out,
		      struct pqtpm_tss_ticket *validation);
/* HashSequenceStart (hash TPM_ALG_NULL: an event sequence) and HMAC_Start: *seq is the
 * sequence, seq_auth its authValue. */
TPM_RC pqtpm_tss_hash_sequence_start(struct pqtpm_tss *t, const char *seq_auth,
				     TPM_ALG_ID hash, TPM_HANDLE *seq);
TPM_RC pqtpm_tss_hmac_start(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			    const char *seq_auth, TPM_ALG_ID hash, TPM_HANDLE *seq);
/* SequenceComplete with the last data (at most PQTPM_TSS_MAX_BUFFER bytes); ends seq. */
TPM_RC pqtpm_tss_sequence_complete(struct pqtpm_tss *t, TPM_HANDLE seq, const char *seq_auth,
				   const uint8_t *data, size_t len, TPM_HANDLE hierarchy,
				   struct pqtpm_tss_digest *result,
				   struct pqtpm_tss_ticket *validation);

/* ---- commands: hierarchies and objects (tss/cmd_hierarchy.c) ---- */
/* EvictControl by auth_handle (TPM_RH_OWNER, TPM_RH_PLATFORM): a transient object made
 * persistent at handle persistent, or a persistent object (both handles the same) evicted. */
TPM_RC pqtpm_tss_evict_control(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			       TPM_HANDLE object, TPM_HANDLE persistent);
/* Clear by auth_handle (TPM_RH_LOCKOUT or TPM_RH_PLATFORM): the owner and endorsement
 * hierarchies' objects, persistent and transient, and the owner's NV indices are gone, the
 * owner's seed is new, the owner, endorsement and lockout authValues are empty. */
TPM_RC pqtpm_tss_clear(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth);
/* HierarchyChangeAuth of TPM_RH_OWNER, _ENDORSEMENT, _PLATFORM or _LOCKOUT. */
TPM_RC pqtpm_tss_hierarchy_change_auth(struct pqtpm_tss *t, TPM_HANDLE hierarchy,
				       const char *auth, const char *new_auth);
/* DictionaryAttackLockReset and DictionaryAttackParameters (TPM_RH_LOCKOUT's authorization). */
TPM_RC pqtpm_tss_da_lock_reset(struct pqtpm_tss *t, const char *lockout_auth);
TPM_RC pqtpm_tss_da_parameters(struct pqtpm_tss *t, const char *lockout_auth,
			       uint32_t max_tries, uint32_t recovery_time,
			       uint32_t lockout_recovery);
/* ObjectChangeAuth: object (loaded under parent) with new_auth, as a new private area to Load
 * in place of the old one; the loaded object keeps its old authValue. */
TPM_RC pqtpm_tss_object_change_auth(struct pqtpm_tss *t, TPM_HANDLE object,
				    const char *object_auth, TPM_HANDLE parent,
				    const char *new_auth, struct pqtpm_tss_private *priv);

/* ---- commands: duplication (tss/cmd_dup.c) ---- */
struct pqtpm_tss_duplicate {
	struct pqtpm_tss_digest key;	 /* the inner wrapper's key (empty: no inner wrapper) */
	struct pqtpm_tss_private dup;	 /* TPM2B_PRIVATE: the duplicated sensitive area */
	struct pqtpm_tss_ciphertext seed; /* inSymSeed for the new parent (empty: no outer wrapper) */
};
/* Duplicate object to new_parent (TPM_RH_NULL: no outer wrapper). The object is authorized in
 * the DUP role, by a policy session only: give one the caller satisfied (e.g.
 * PolicyCommandCode(Duplicate)) with pqtpm_tss_use_sessions first; object_auth is its authValue,
 * used if the policy has PolicyAuthValue or PolicyPassword. key_in: the inner wrapper's key
 * (NULL, 0 with sym_alg TPM_ALG_AES: the TPM picks one); sym_alg 0 or TPM_ALG_NULL: no inner
 * wrapper, TPM_ALG_AES: AES-sym_bits-CFB. */
TPM_RC pqtpm_tss_duplicate(struct pqtpm_tss *t, TPM_HANDLE object, const char *object_auth,
			   TPM_HANDLE new_parent, const uint8_t *key_in, size_t key_len,
			   TPM_ALG_ID sym_alg, uint16_t sym_bits, struct pqtpm_tss_duplicate *out);
/* Import a duplicate of the object with public area pub under parent; sym_alg, sym_bits as
 * the duplicate was made. priv: the private area to Load under parent. */
TPM_RC pqtpm_tss_import(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			const struct pqtpm_tss_public *pub, const struct pqtpm_tss_duplicate *in,
			TPM_ALG_ID sym_alg, uint16_t sym_bits, struct pqtpm_tss_private *priv);
/* A key made outside the TPM as a duplicate for Import under parent (parent_pub its public
 * area: a storage key, RSA, ECC or ML-KEM, with AES-CFB), made here without a TPM
 * (tss/dup_make.c): pub is the key's public area (unique filled in, fixedTPM and fixedParent
 * clear; pqtpm_tss_template_public with unique), auth its authValue, priv the private part as
 * the TPM keeps it (RSA: one prime, half the modulus' bytes; ECC: the scalar, the curve's
 * bytes; ML-DSA: the 32-byte seed). An outer wrapper only (seed shared with the parent under
 * "DUPLICATE"), no inner one: Import it with sym_alg TPM_ALG_NULL. The TPM checks at Import
 * that priv belongs to pub (TPM_RC_BINDING). */
TPM_RC pqtpm_tss_duplicate_make(const struct pqtpm_tss_public *parent_pub,
				const struct pqtpm_tss_public *pub, const char *auth,
				const uint8_t *priv, size_t len, struct pqtpm_tss_duplicate *out);

/* ---- commands: capabilities (tss/cmd_cap.c) ---- */
/* GetCapability of cap from property up to limit, as many rounds as moreData asks for (each
 * of at most per_round entries; 0: what the TPM gives): the entries as marshalled (TPM_HANDLE,
 * TPMS_ALG_PROPERTY, TPMA_CC, TPM_CC, TPMS_TAGGED_PROPERTY, TPMS_TAGGED_PCR_SELECT,
 * TPM_ECC_CURVE) appended into data (cap_len bytes), *len bytes, *count entries. For
 * TPM_CAP_ALGS, _HANDLES, _COMMANDS, _PP_COMMANDS, _AUDIT_COMMANDS, _TPM_PROPERTIES,
 * _PCR_PROPERTIES, _ECC_CURVES; e.g. every persistent handle: TPM_CAP_HANDLES, 0x81000000,
 * 0x81FFFFFF. */
TPM_RC pqtpm_tss_get_capability_all(struct pqtpm_tss *t, uint32_t cap, uint32_t property,
				    uint32_t limit, uint32_t per_round, uint8_t *data,
				    size_t cap_len, size_t *len, uint32_t *count);
/* TestParms of a TPMT_PUBLIC_PARMS as marshalled (type, then that type's parameters). */
TPM_RC pqtpm_tss_test_parms(struct pqtpm_tss *t, const uint8_t *parms, size_t len);

/* ---- sessions (tss/session*.c, tss/salt.c) ----
 * HMAC, policy and trial sessions (Part 1 §19), salted with an RSA (OAEP, label "SECRET"), ECC
 * (ECDH, KDFe "SECRET") or ML-KEM (labeled KEM, "SECRET") key or not, bound to an entity or
 * not, with parameter encryption (AES-CFB or XOR) of the first parameter both ways.
 *
 *   struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .salt_key = k.handle,
 *       .salt_pub = &k.pub, .sym = TPM_ALG_AES, .sym_bits = 128,
 *       .attrs = TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT };
 *   pqtpm_tss_session_start(t, &p, &s);
 *   pqtpm_tss_use_sessions(t, s, NULL, NULL);
 *   pqtpm_tss_create(t, parent, "parentauth", &tmpl, "secret", &key);  (s authorizes parent)
 *   pqtpm_tss_session_free(s);  (flushes it from the TPM if it is still there)
 *
 * pqtpm_tss_use_sessions applies to the calling thread's next command on t only (the next one
 * the library sends: a function that sends several commands uses them for its first), whatever
 * command function sends it; the command functions keep their password arguments. Session k
 * (1-based) authorizes the command's k-th authorized handle, with the password that the
 * command function was given for that handle as the authValue (dropped from the HMAC key when
 * the session is bound to that entity, included in a policy session's HMAC after
 * PolicyAuthValue, sent in clear after PolicyPassword); authorized handles without a session
 * use their password; sessions after the authorized handles only encrypt, decrypt or audit.
 * Response HMACs are checked (PQTPM_TSS_RC_RESPONSE_HMAC), nonces rolled, and a session used
 * without continueSession is gone after a successful command (pqtpm_tss_session_handle gives
 * 0). When the command is sent, PQTPM_TSS_RC_BAD_VALUE for two sessions that decrypt (or
 * encrypt), for decrypt or encrypt on a session without a cipher or on a command whose first
 * parameter (response parameter) cannot be encrypted. Starting, flushing and freeing
 * sessions leave the thread's sessions for the next command. The Names that cpHash needs
 * come from responses the library parsed (CreatePrimary, Load, LoadExternal, ReadPublic) or
 * are asked for (ReadPublic, NV_ReadPublic).
 *
 * A session is used by one command at a time: do not give one session to two threads at
 * once. Free a connection's sessions before closing it. */
struct pqtpm_tss_session;
struct pqtpm_tss_session_params {
	uint8_t type;	 /* TPM_SE_HMAC, TPM_SE_POLICY, TPM_SE_TRIAL */
	TPM_ALG_ID hash; /* authHash: SHA-1/256/384/512; 0: SHA-256 */
	/* salt: tpmKey and its public area (RSA, ECC P-256/384/521, ML-KEM); 0: unsalted */
	TPM_HANDLE salt_key;
	const struct pqtpm_tss_public *salt_pub;
	TPM_HANDLE bind;       /* 0: unbound */
	const char *bind_auth; /* the bind entity's authValue (NULL: empty) */
	TPM_ALG_ID sym;	       /* 0 / TPM_ALG_NULL, TPM_ALG_AES, _CAMELLIA, _TDES (CFB), _XOR */
	uint16_t sym_bits;     /* AES, Camellia: 128, 192, 256; TDES: 128, 192 */
	uint8_t attrs;	       /* TPMA_SESSION_*: continueSession, decrypt, encrypt, audit */
};
TPM_RC pqtpm_tss_session_start(struct pqtpm_tss *t, const struct pqtpm_tss_session_params *p,
			       struct pqtpm_tss_session **out);
/* The attributes for the session's next uses (TPMA_SESSION_*). */
void pqtpm_tss_session_set_attrs(struct pqtpm_tss_session *s, uint8_t attrs);
/* The session's handle in the TPM; 0 once the TPM has forgotten it. */
TPM_HANDLE pqtpm_tss_session_handle(const struct pqtpm_tss_session *s);
/* FlushContext of the session (if the TPM still has it); the object stays until freed. */
TPM_RC pqtpm_tss_session_flush(struct pqtpm_tss_session *s);
/* Flush (if needed), wipe the session key, nonces and authValues, free. NULL is fine. */
void pqtpm_tss_session_free(struct pqtpm_tss_session *s);
/* Sessions 1..3 (NULL: fewer) for the calling thread's next command on t; all NULL: none.
 * PQTPM_TSS_RC_BAD_VALUE for a session of another connection, one already gone, a session
 * given twice, or a NULL before a session. */
TPM_RC pqtpm_tss_use_sessions(struct pqtpm_tss *t, struct pqtpm_tss_session *s1,
			      struct pqtpm_tss_session *s2, struct pqtpm_tss_session *s3);

/* ---- policy (tss/policy.c) ----
 * Policy commands on a policy or trial session; each extends the session's policyDigest in
 * the TPM. PolicySecret is authorized by auth_auth for auth_handle (a password, or a session
 * given with pqtpm_tss_use_sessions). PolicyPCR: pcr_digest NULL means "the current values". */
TPM_RC pqtpm_tss_policy_password(struct pqtpm_tss_session *s);
TPM_RC pqtpm_tss_policy_auth_value(struct pqtpm_tss_session *s);
TPM_RC pqtpm_tss_policy_command_code(struct pqtpm_tss_session *s, TPM_CC cc);
TPM_RC pqtpm_tss_policy_pcr(struct pqtpm_tss_session *s, const struct pqtpm_tss_digest *pcr_digest,
			    const struct pqtpm_tss_pcr_select *sel, size_t nsel);
/* PolicyOR of 2..8 branch digests */
TPM_RC pqtpm_tss_policy_or(struct pqtpm_tss_session *s, const struct pqtpm_tss_digest *branches,
			   size_t n);
/* PolicySecret with an empty nonceTPM, cpHashA and policyRef and expiration 0 (no ticket). */
TPM_RC pqtpm_tss_policy_secret(struct pqtpm_tss_session *s, TPM_HANDLE auth_handle,
			       const char *auth_auth);
TPM_RC pqtpm_tss_policy_get_digest(struct pqtpm_tss_session *s,
				   struct pqtpm_tss_digest *digest);
/* The same digests computed here, without a TPM (tss/policy_calc.c): start from zeros, then
 * one call per assertion in the order of the policy commands. PolicyPassword gives the digest
 * of PolicyAuthValue (Part 3 §23.18). PolicyPCR: pcr_digest = H(the selected PCR values, in
 * order). PolicyOR replaces d by the OR of the branches. PolicySecret: the Name of the
 * authorizing entity and policyRef (NULL: empty). */
TPM_RC pqtpm_tss_policy_calc_start(TPM_ALG_ID hash, struct pqtpm_tss_digest *d);
TPM_RC pqtpm_tss_policy_calc_command_code(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
					  TPM_CC cc);
TPM_RC pqtpm_tss_policy_calc_auth_value(struct pqtpm_tss_digest *d, TPM_ALG_ID hash);
TPM_RC pqtpm_tss_policy_calc_pcr(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
				 const struct pqtpm_tss_pcr_select *sel, size_t nsel,
				 const struct pqtpm_tss_digest *pcr_digest);
TPM_RC pqtpm_tss_policy_calc_or(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
				const struct pqtpm_tss_digest *branches, size_t n);
TPM_RC pqtpm_tss_policy_calc_secret(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
				    const struct pqtpm_tss_name *auth_name,
				    const struct pqtpm_tss_digest *policy_ref);

#ifdef __cplusplus
}
#endif

/* ---- commands: objects of the caller's data, sealed data (tss/cmd_seal.c) ----
 * Create with the caller's sensitive data (at most 128 bytes, Part 2's MAX_SYM_DATA) instead
 * of the TPM's (sensitiveDataOrigin clear): a symCipher key of a known value (AES: exactly the
 * key's size), a keyedHash HMAC key of a known value, or a sealed data object, a keyedHash
 * object without sign or decrypt whose data Unseal returns to whoever knows its authValue.
 * The PKCS#11 module seals each token's wrapping secret this way and makes its secret keys of
 * a known value (C_CreateObject, derived and KEM keys). */
#define PQTPM_TSS_MAX_SEALED 128
/* Create under parent an object of public area tmpl holding data (len bytes), with key_auth
 * as its authValue: key->priv and key->pub, no handle (Load it). */
TPM_RC pqtpm_tss_create_data(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			     const struct pqtpm_tss_public *tmpl, const char *key_auth,
			     const uint8_t *data, size_t len, struct pqtpm_tss_key *key);
/* pqtpm_tss_create_data of a sealed data object: tmpl a TPM_ALG_KEYEDHASH template with the
 * NULL scheme and neither sign nor decrypt. */
TPM_RC pqtpm_tss_create_sealed(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			       const struct pqtpm_tss_public *tmpl, const char *key_auth,
			       const uint8_t *data, size_t len, struct pqtpm_tss_key *key);
/* Unseal of a loaded data object: its data (at most cap bytes) in out, *len. */
TPM_RC pqtpm_tss_unseal(struct pqtpm_tss *t, TPM_HANDLE object, const char *auth, uint8_t *out,
			size_t cap, size_t *len);

/* ---- ECC public keys and ECDSA signatures taken apart and made (tss/ecc_parts.c) ----
 * For callers that speak other formats (X9.62 points, r || s). */
/* The curve and the point (unique) of an ECC public area; PQTPM_TSS_RC_BAD_VALUE for another
 * type. */
TPM_RC pqtpm_tss_public_ecc(const struct pqtpm_tss_public *pub, uint16_t *curve,
			    struct pqtpm_tss_ecc_point *point);
/* The public point of the private scalar d (len: exactly the curve's bytes) of curve (P-256,
 * P-384); PQTPM_TSS_RC_BAD_VALUE for another curve, a length that does not fit, or d outside
 * [1, n - 1]. */
TPM_RC pqtpm_tss_ecc_point_of(uint16_t curve, const uint8_t *d, size_t len,
			      struct pqtpm_tss_ecc_point *point);
/* An ECDSA signature's hash and its r and s (pointing into sig); PQTPM_TSS_RC_BAD_VALUE for
 * another algorithm. */
TPM_RC pqtpm_tss_signature_ecdsa(const struct pqtpm_tss_signature *sig, TPM_ALG_ID *hash,
				 const uint8_t **r, size_t *rlen, const uint8_t **s,
				 size_t *slen);
/* An ECDSA TPMT_SIGNATURE from hash, r and s (each at most 128 bytes). */
TPM_RC pqtpm_tss_signature_make_ecdsa(TPM_ALG_ID hash, const uint8_t *r, size_t rlen,
				      const uint8_t *s, size_t slen,
				      struct pqtpm_tss_signature *out);

#pragma GCC visibility pop
#endif
