/* In-memory forms of the TPM 2.0 structures the engine works with (Part 2), and their
 * marshalling (types_marshal.c). Unions of the spec are flattened: a field is meaningful for
 * the object types the comment names; the marshal functions read and write exactly the wire
 * form for the type at hand and reject selectors the engine does not implement. */
#ifndef PQTPM_TYPES_H
#define PQTPM_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "marshal.h"

#define MAX_DIGEST_SIZE 64
#define MAX_NAME_SIZE (2 + MAX_DIGEST_SIZE)
#define MAX_SYM_DATA 128	/* TPM2B_SENSITIVE_DATA, sealed data */
#define MAX_SYM_KEY_BYTES 32
#define MAX_RSA_KEY_BYTES 512
#define MAX_ECC_KEY_BYTES 66	/* P-521 */
#define MAX_PQ_PUBLIC 2592	/* ML-DSA-87 public key; ML-KEM-1024 ek is 1568 */
#define MAX_PQ_SIGNATURE 4627	/* ML-DSA-87 */
#define MAX_PQ_CIPHERTEXT 1568	/* ML-KEM-1024 */
#define MAX_PUBLIC_UNIQUE MAX_PQ_PUBLIC
#define MAX_SENSITIVE_KEY 256	/* RSA prime (<= 4096-bit key), ECC scalar, sym key, PQ seed */
#define MAX_PRIVATE_BLOB 1024	/* TPM2B_PRIVATE content */
#define MAX_CONTEXT_BLOB 7168	/* TPMS_CONTEXT contextBlob (object with PQ public area) */
#define MAX_PCR_BANKS 4
#define PCR_SELECT_MAX 3	/* 24 PCRs */
#define MAX_DATA 1024		/* TPM2B_MAX_BUFFER */
#define MAX_BUFFER 1024
#define TPMA_OBJECT_RESERVED 0xFFF0F309u /* TPMA_OBJECT bits 0, 3, 8, 9, 12-15, 20-31 */

struct tpm2b_digest {
	uint16_t size;
	uint8_t b[MAX_DIGEST_SIZE];
};
struct tpm2b_name {
	uint16_t size;
	uint8_t b[MAX_NAME_SIZE];
};
struct tpm2b_data { /* TPM2B_DATA, TPM2B_NONCE, TPM2B_AUTH share the digest's limit + labels */
	uint16_t size;
	uint8_t b[MAX_DIGEST_SIZE];
};
struct tpm2b_max_buffer {
	uint16_t size;
	uint8_t b[MAX_BUFFER];
};
struct tpm2b_sensitive_data {
	uint16_t size;
	uint8_t b[MAX_SYM_DATA];
};
struct tpm2b_ecc_parameter {
	uint16_t size;
	uint8_t b[MAX_ECC_KEY_BYTES];
};
struct tpm2b_private_key { /* TPMU_SENSITIVE_COMPOSITE: any arm */
	uint16_t size;
	uint8_t b[MAX_SENSITIVE_KEY];
};
struct tpm2b_unique {	/* TPMU_PUBLIC_ID except ECC: RSA n, keyedHash/sym digest, PQ key */
	uint16_t size;
	uint8_t b[MAX_PUBLIC_UNIQUE];
};
struct tpm2b_private {
	uint16_t size;
	uint8_t b[MAX_PRIVATE_BLOB];
};

/* TPMT_SYM_DEF(_OBJECT): alg NULL means none. For TPM_ALG_XOR, key_bits holds the hash. */
struct tpmt_sym_def {
	TPM_ALG_ID alg;
	uint16_t key_bits;
	TPM_ALG_ID mode;
};

/* Any TPMT_*_SCHEME: scheme NULL means none. count only for ECDAA; kdf only for keyedHash XOR. */
struct tpmt_scheme {
	TPM_ALG_ID scheme;
	TPM_ALG_ID hash_alg;
	uint16_t count;
	TPM_ALG_ID kdf;
};

/* TPMT_PUBLIC */
struct tpmt_public {
	TPM_ALG_ID type;	/* RSA, ECC, KEYEDHASH, SYMCIPHER, MLDSA, HASH_MLDSA, MLKEM */
	TPM_ALG_ID name_alg;
	uint32_t attributes;	/* TPMA_OBJECT */
	struct tpm2b_digest auth_policy;
	/* parameters */
	struct tpmt_sym_def symmetric;	/* RSA/ECC/MLKEM: storage key sym; SYMCIPHER: the cipher */
	struct tpmt_scheme scheme;	/* RSA/ECC/KEYEDHASH signing or decryption scheme */
	uint16_t key_bits;		/* RSA */
	uint32_t exponent;		/* RSA, 0 = 65537 */
	uint16_t curve_id;		/* ECC */
	struct tpmt_scheme kdf;		/* ECC kdf (scheme + hash_alg) */
	uint16_t parameter_set;		/* MLDSA, HASH_MLDSA, MLKEM */
	uint8_t allow_external_mu;	/* MLDSA */
	TPM_ALG_ID pre_hash;		/* HASH_MLDSA */
	/* unique */
	struct tpm2b_ecc_parameter x, y; /* ECC */
	struct tpm2b_unique unique;	 /* everything else */
};

/* TPMT_SENSITIVE */
struct tpmt_sensitive {
	TPM_ALG_ID type;
	struct tpm2b_digest auth_value;
	struct tpm2b_digest seed_value;	 /* obfuscation value / storage seed */
	struct tpm2b_private_key sensitive; /* RSA prime, ECC d, keyedHash data, AES key, PQ seed */
};

/* TPMS_SENSITIVE_CREATE */
struct tpms_sensitive_create {
	struct tpm2b_digest user_auth;
	struct tpm2b_sensitive_data data;
};

/* TPML_PCR_SELECTION */
struct tpms_pcr_selection {
	TPM_ALG_ID hash;
	uint8_t size_of_select;
	uint8_t select[PCR_SELECT_MAX];
};
struct tpml_pcr_selection {
	uint32_t count;
	struct tpms_pcr_selection sel[MAX_PCR_BANKS];
};

/* TPMT_SIGNATURE */
struct tpmt_signature {
	TPM_ALG_ID sig_alg;	/* RSASSA, RSAPSS, ECDSA, HMAC, MLDSA, HASH_MLDSA, NULL */
	TPM_ALG_ID hash;	/* RSA/ECC/HMAC/HASH_MLDSA */
	uint16_t size;		/* RSA sig, HMAC digest, ML-DSA signature length */
	uint8_t sig[MAX_PQ_SIGNATURE];
	struct tpm2b_ecc_parameter r, s;
};

/* TPMT_TK_CREATION, TPMT_TK_VERIFIED, TPMT_TK_HASHCHECK, TPMT_TK_AUTH. digest is the HMAC
 * (v1.85 calls it hmac in TPMT_TK_VERIFIED). metadata: TPMU_TK_VERIFIED_META, on the wire only
 * for TPM_ST_DIGEST_VERIFIED (the hash or XOF that made the verified digest). */
struct tpmt_ticket {
	uint16_t tag;
	TPM_HANDLE hierarchy;
	struct tpm2b_digest digest;
	TPM_ALG_ID metadata;
};

/* TPM2B_SIGNATURE_CTX (v1.85): the ML-DSA context string, 0 to 255 bytes */
#define MAX_SIGNATURE_CTX 255
struct tpm2b_signature_ctx {
	uint16_t size;
	uint8_t b[MAX_SIGNATURE_CTX];
};
/* TPM2B_SIGNATURE_HINT (v1.85): EdDSA only; every scheme here takes it empty */
#define MAX_SIGNATURE_HINT 256

/* TPMS_CONTEXT */
struct tpms_context {
	uint64_t sequence;
	TPM_HANDLE saved_handle;
	TPM_HANDLE hierarchy;
	uint16_t blob_size;
	uint8_t blob[MAX_CONTEXT_BLOB];
};

/* ---- marshalling (types_marshal.c) ----
 * rd_* reject unknown selectors with TPM_RC_TYPE / TPM_RC_SYMMETRIC / TPM_RC_SCHEME /
 * TPM_RC_HASH / TPM_RC_CURVE / TPM_RC_VALUE as Part 2's unmarshalling tables say.
 * allow_null says whether TPM_ALG_NULL is accepted where the spec marks the type with '+'. */
TPM_RC rd_tpm2b_digest(struct rd *r, struct tpm2b_digest *d);
TPM_RC wr_tpm2b_digest(struct wr *w, const struct tpm2b_digest *d);
TPM_RC rd_tpm2b_name(struct rd *r, struct tpm2b_name *n);
TPM_RC wr_tpm2b_name(struct wr *w, const struct tpm2b_name *n);
TPM_RC rd_hash_alg(struct rd *r, TPM_ALG_ID *alg, bool allow_null); /* TPMI_ALG_HASH */
/* TPM2B_ECC_POINT: a size, then x and y as TPM2B_ECC_PARAMETER exactly filling it
 * (TPM_RC_SIZE otherwise); allow_empty: also the Empty Point, size 0 or both coordinates
 * empty (x and y get size 0). Written: both coordinates len bytes. */
TPM_RC rd_tpm2b_ecc_point(struct rd *r, struct tpm2b_ecc_parameter *x,
			  struct tpm2b_ecc_parameter *y, bool allow_empty);
TPM_RC wr_tpm2b_ecc_point(struct wr *w, const uint8_t *x, const uint8_t *y, size_t len);
/* TPMI_ALG_MAC_SCHEME: a hash (rd_hash_alg, with NULL) or TPM_ALG_CMAC. */
TPM_RC rd_mac_scheme(struct rd *r, TPM_ALG_ID *alg);
/* TPML_CC: count, then count command codes; TPM_RC_SIZE past TPML_CC_MAX (MAX_CAP_CC). */
#define TPML_CC_MAX 254
TPM_RC rd_tpml_cc(struct rd *r, TPM_CC list[TPML_CC_MAX], uint32_t *count);
TPM_RC rd_rh_hierarchy(struct rd *r, TPM_HANDLE *h, bool allow_null); /* TPMI_RH_HIERARCHY */
TPM_RC rd_sym_def(struct rd *r, struct tpmt_sym_def *s, bool allow_null);	/* TPMT_SYM_DEF */
TPM_RC rd_sym_def_object(struct rd *r, struct tpmt_sym_def *s, bool allow_null);
TPM_RC wr_sym_def(struct wr *w, const struct tpmt_sym_def *s);
TPM_RC rd_sig_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null); /* TPMT_SIG_SCHEME */
TPM_RC rd_rsa_decrypt_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null); /* TPMT_RSA_DECRYPT */
TPM_RC rd_ecc_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null);
/* TPMI_ALG_KDF: MGF1, KDF1_SP800_56A, KDF2, KDF1_SP800_108 (Part 2 §9.32) */
bool alg_is_kdf(TPM_ALG_ID alg);
/* TPMT_KDF_SCHEME: one of them and its hash (TPM_RC_KDF for another selector) */
TPM_RC rd_kdf_scheme(struct rd *r, struct tpmt_scheme *s, bool allow_null);
TPM_RC wr_scheme(struct wr *w, const struct tpmt_scheme *s);
/* TPMT_PUBLIC and TPM2B_PUBLIC. TPM2B_PUBLIC with size 0 gives TPM_RC_SIZE. */
TPM_RC rd_public(struct rd *r, struct tpmt_public *p);
TPM_RC rd_tpm2b_public(struct rd *r, struct tpmt_public *p);
TPM_RC wr_public(struct wr *w, const struct tpmt_public *p);
TPM_RC wr_tpm2b_public(struct wr *w, const struct tpmt_public *p);
/* TPMT_SENSITIVE and TPM2B_SENSITIVE (LoadExternal) */
TPM_RC rd_sensitive(struct rd *r, struct tpmt_sensitive *s);
TPM_RC rd_tpm2b_sensitive(struct rd *r, struct tpmt_sensitive *s);
TPM_RC wr_sensitive(struct wr *w, const struct tpmt_sensitive *s);
/* TPM2B_SENSITIVE_CREATE */
TPM_RC rd_tpm2b_sensitive_create(struct rd *r, struct tpms_sensitive_create *s);
TPM_RC rd_pcr_selection(struct rd *r, struct tpml_pcr_selection *s);
TPM_RC wr_pcr_selection(struct wr *w, const struct tpml_pcr_selection *s);
TPM_RC rd_signature(struct rd *r, struct tpmt_signature *s);
TPM_RC wr_signature(struct wr *w, const struct tpmt_signature *s);
TPM_RC rd_ticket(struct rd *r, struct tpmt_ticket *t);
/* TPM2B_SIGNATURE_CTX (TPM_RC_SIZE beyond 255 bytes), TPM2B_SIGNATURE_HINT (read, then
 * TPM_RC_VALUE unless empty: no scheme here takes a hint) */
TPM_RC rd_signature_ctx(struct rd *r, struct tpm2b_signature_ctx *c);
TPM_RC rd_signature_hint(struct rd *r);
TPM_RC wr_ticket(struct wr *w, const struct tpmt_ticket *t);
TPM_RC rd_context(struct rd *r, struct tpms_context *c);
TPM_RC wr_context(struct wr *w, const struct tpms_context *c);

#endif
