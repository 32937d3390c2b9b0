/* Crypto for the engine: thin wrappers over wolfSSL (no other folder includes wolfSSL headers)
 * and our own post-quantum code (mldsa.h, mlkem.h, keccak.h).
 *
 * Every function returns a TPM_RC: TPM_RC_SUCCESS, or the code the caller can pass on
 * (TPM_RC_VALUE for bad input, TPM_RC_SIGNATURE for a signature that does not verify,
 * TPM_RC_ECC_POINT for a point off the curve, TPM_RC_HASH / TPM_RC_CURVE / TPM_RC_KEY_SIZE /
 * TPM_RC_MODE / TPM_RC_SCHEME for unsupported algorithms, TPM_RC_FAILURE for internal errors).
 * Contexts are plain data: they can be copied with memcpy (sequence objects are context-saved).
 */
#ifndef PQTPM_CRYPTO_H
#define PQTPM_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pqtpm/tpm2.h>

#define CRYPTO_MAX_DIGEST 64	   /* SHA-512 */
#define CRYPTO_MAX_HASH_BLOCK 128  /* SHA-384/512 block */
#define CRYPTO_MAX_RSA_BYTES 512   /* modulus up to 4096 bits (LoadExternal); we create 2048/3072 */
#define CRYPTO_MAX_ECC_BYTES 66	   /* P-521 */
#define CRYPTO_MAX_SYM_KEY 32	   /* AES-256 */
#define CRYPTO_AES_BLOCK 16

/* ---- misc ---- */
void crypto_wipe(void *p, size_t n);				/* not optimized away */
void crypto_wipe_observed(const void *p, size_t n); /* a no-op test programs replace (util.c) */
#ifdef PQTPM_FUZZ_DETERMINISTIC_RNG
void crypto_fuzz_rng_reset(void); /* fuzz builds: the random stream starts over (rng.c) */
#endif
bool crypto_ct_equal(const void *a, const void *b, size_t n); /* constant time */
/* n without trailing zero octets; time depends on n only */
size_t crypto_ct_trim(const uint8_t *p, size_t n);
/* a[0..alen) and b[0..blen) equal once trailing zero octets are dropped (authValues, Part 1
 * §19.6.4); both buffers hold cap readable bytes, alen and blen <= cap; time depends on cap only */
bool crypto_ct_equal_trimmed(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
			     size_t cap);

/* ---- hashes: SHA-1, SHA-256, SHA-384, SHA-512 (SHA3 via keccak.h) ---- */
size_t crypto_hash_size(TPM_ALG_ID alg);  /* 0 if not supported */
size_t crypto_hash_block(TPM_ALG_ID alg); /* 0 if not supported */

struct crypto_hash_ctx {
	TPM_ALG_ID alg;
	_Alignas(16) uint8_t state[512]; /* wolfSSL's context; size checked in hash.c */
};
TPM_RC crypto_hash_start(struct crypto_hash_ctx *ctx, TPM_ALG_ID alg);
TPM_RC crypto_hash_update(struct crypto_hash_ctx *ctx, const void *data, size_t len);
/* Writes crypto_hash_size(alg) bytes; the context is wiped afterwards. */
TPM_RC crypto_hash_finish(struct crypto_hash_ctx *ctx, uint8_t *out);
TPM_RC crypto_hash(TPM_ALG_ID alg, const void *data, size_t len, uint8_t *out);

/* ---- HMAC (RFC 2104 over the hash contexts above) ---- */
struct crypto_hmac_ctx {
	struct crypto_hash_ctx inner, outer;
};
TPM_RC crypto_hmac_start(struct crypto_hmac_ctx *ctx, TPM_ALG_ID alg, const uint8_t *key,
			 size_t keylen);
TPM_RC crypto_hmac_update(struct crypto_hmac_ctx *ctx, const void *data, size_t len);
TPM_RC crypto_hmac_finish(struct crypto_hmac_ctx *ctx, uint8_t *out);
TPM_RC crypto_hmac(TPM_ALG_ID alg, const uint8_t *key, size_t keylen, const void *data,
		   size_t len, uint8_t *out);

/* ---- KDFs (Part 1, 11.4.10) ----
 * label is a NUL-terminated string; the terminating zero octet is part of the KDF input as
 * the spec requires. contextU/contextV may be NULL with length 0. bits is the output length
 * in bits; out receives (bits + 7) / 8 bytes, with excess high bits of the first byte masked. */
TPM_RC crypto_kdfa(TPM_ALG_ID hash, const uint8_t *key, size_t keylen, const char *label,
		   const uint8_t *ctx_u, size_t ulen, const uint8_t *ctx_v, size_t vlen,
		   uint32_t bits, uint8_t *out);
/* KDFe (SP 800-56A concatenation KDF): Z is the x coordinate of the shared point. */
TPM_RC crypto_kdfe(TPM_ALG_ID hash, const uint8_t *z, size_t zlen, const char *label,
		   const uint8_t *party_u, size_t ulen, const uint8_t *party_v, size_t vlen,
		   uint32_t bits, uint8_t *out);

/* KDF2 (IEEE 1363a, ISO/IEC 18033-2) with no other input: T(i) = H(Z || [i]32) from i = 1,
 * len bytes (TPM2_ECC_Encrypt / ECC_Decrypt's mask, TPM_ALG_KDF2). */
TPM_RC crypto_kdf2(TPM_ALG_ID hash, const uint8_t *z, size_t zlen, uint8_t *out, size_t len);

/* ---- random sources ----
 * Key generation takes a source so that primary keys come from a deterministic stream
 * (the hierarchy seed and the template) and ordinary keys from the system DRBG. */
struct crypto_rng {
	TPM_RC (*read)(struct crypto_rng *rng, uint8_t *out, size_t len);
};
/* The system DRBG (wolfSSL's Hash_DRBG seeded from the OS, one per thread: rng.c). */
struct crypto_rng *crypto_system_rng(void);
TPM_RC crypto_random(uint8_t *out, size_t len);
/* StirRandom: mixes caller data into the DRBG's additional input. */
TPM_RC crypto_stir_random(const uint8_t *data, size_t len);

/* Deterministic stream: block i = HMAC(seed, i || label || 0 || ctx_u || ctx_v), i = 1, 2 ...
 * (KDFa in counter mode without a length, so that it can be read without knowing how much
 * a prime search will need). Used for primary objects: seed = the hierarchy's primary seed,
 * label "Primary Object Creation", ctx_u = hash of the template, ctx_v = sensitive data. */
struct crypto_kdf_rng {
	struct crypto_rng rng;
	TPM_ALG_ID hash;
	uint8_t key[CRYPTO_MAX_DIGEST];
	size_t keylen;
	uint8_t ctx[3 * 256 + 64]; /* label || 0 || ctx_u || ctx_v */
	size_t ctxlen;
	uint32_t counter;
	uint8_t block[CRYPTO_MAX_DIGEST];
	size_t avail;
};
TPM_RC crypto_kdf_rng_init(struct crypto_kdf_rng *k, TPM_ALG_ID hash, const uint8_t *seed,
			   size_t seedlen, const char *label, const uint8_t *ctx_u, size_t ulen,
			   const uint8_t *ctx_v, size_t vlen);
void crypto_kdf_rng_wipe(struct crypto_kdf_rng *k);

/* ---- RSA ----
 * Keys are kept as the TPM keeps them: modulus n, public exponent e, one prime p.
 * e == 0 means the default 65537. */
struct crypto_rsa {
	const uint8_t *n;
	size_t nlen;
	uint32_t e;
	const uint8_t *p; /* NULL for a public key */
	size_t plen;
};
/* Deterministic for a deterministic rng: the same stream gives the same key.
 * n gets bits/8 bytes, p gets bits/16 bytes. */
TPM_RC crypto_rsa_generate(struct crypto_rng *rng, uint16_t bits, uint32_t e, uint8_t *n,
			   uint8_t *p);
/* scheme: TPM_ALG_OAEP (hash, label incl. its terminating zero as the TPM passes it),
 * TPM_ALG_RSAES (PKCS#1 v1.5), TPM_ALG_NULL (raw RSA, in must be < n). out gets nlen bytes
 * for encrypt; decrypt writes *outlen. */
TPM_RC crypto_rsa_encrypt(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			  const uint8_t *label, size_t labellen, const uint8_t *in, size_t inlen,
			  uint8_t *out, size_t *outlen);
TPM_RC crypto_rsa_decrypt(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			  const uint8_t *label, size_t labellen, const uint8_t *in, size_t inlen,
			  uint8_t *out, size_t *outlen);
/* scheme: TPM_ALG_RSASSA or TPM_ALG_RSAPSS (salt = digest size, as the TPM does). sig gets nlen. */
TPM_RC crypto_rsa_sign(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
		       const uint8_t *digest, size_t dlen, uint8_t *sig, size_t *siglen);
/* The same with the private keys kept between calls: building one from p (q, d, dP, dQ, qInv)
 * costs about as much as a tenth of an RSA-2048 signature. cache (from crypto_rsa_cache_new)
 * keeps them for the calls with the same n, e and p; any number of threads may use one cache
 * at once (each operation takes a built key of its own out of it). cache NULL: as
 * crypto_rsa_sign/_decrypt. */
struct crypto_rsa_cache;
struct crypto_rsa_cache *crypto_rsa_cache_new(void); /* NULL: no memory */
TPM_RC crypto_rsa_sign_cached(const struct crypto_rsa *key, struct crypto_rsa_cache *cache,
			      TPM_ALG_ID scheme, TPM_ALG_ID hash, const uint8_t *digest,
			      size_t dlen, uint8_t *sig, size_t *siglen);
TPM_RC crypto_rsa_decrypt_cached(const struct crypto_rsa *key, struct crypto_rsa_cache *cache,
				 TPM_ALG_ID scheme, TPM_ALG_ID hash, const uint8_t *label,
				 size_t labellen, const uint8_t *in, size_t inlen, uint8_t *out,
				 size_t *outlen);
/* Wipe and free the kept private keys; NULL is fine. No operation may be using it. */
void crypto_rsa_cache_free(struct crypto_rsa_cache *c);
/* PSS verification accepts any salt length (the TPM spec and tpm2-tools' OpenSSL do). */
TPM_RC crypto_rsa_verify(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			 const uint8_t *digest, size_t dlen, const uint8_t *sig, size_t siglen);

/* ---- ECC: TPM_ECC_NIST_P256, _P384, and _P521 when the wolfSSL linked has it ----
 * Scalars and coordinates are big-endian, exactly crypto_ecc_bytes(curve) long. */
size_t crypto_ecc_bytes(uint16_t curve); /* 0 if not supported */
/* d = (c mod (n - 1)) + 1 with c read from rng, 64 bits longer than n (FIPS 186 B.4.1). */
TPM_RC crypto_ecc_generate(struct crypto_rng *rng, uint16_t curve, uint8_t *d, uint8_t *x,
			   uint8_t *y);
TPM_RC crypto_ecc_public(uint16_t curve, const uint8_t *d, uint8_t *x, uint8_t *y);
TPM_RC crypto_ecc_check_point(uint16_t curve, const uint8_t *x, size_t xlen, const uint8_t *y,
			      size_t ylen); /* TPM_RC_ECC_POINT if not on the curve */
/* ECDSA; the digest is truncated to the order's length as FIPS 186 says. r and s get
 * crypto_ecc_bytes(curve) bytes each. */
TPM_RC crypto_ecdsa_sign(uint16_t curve, const uint8_t *d, const uint8_t *digest, size_t dlen,
			 uint8_t *r, uint8_t *s);
TPM_RC crypto_ecdsa_verify(uint16_t curve, const uint8_t *x, const uint8_t *y,
			   const uint8_t *digest, size_t dlen, const uint8_t *r, size_t rlen,
			   const uint8_t *s, size_t slen);
/* Shared point Z = d * Q (Q checked on the curve first). */
TPM_RC crypto_ecdh(uint16_t curve, const uint8_t *d, const uint8_t *qx, size_t qxlen,
		   const uint8_t *qy, size_t qylen, uint8_t *zx, uint8_t *zy);
/* ---- ECC arithmetic for the anonymous and two-phase schemes (ecc_ops.c) ----
 * [k]P (P NULL: the generator; k in [1, n - 1], P checked on the curve); P + Q
 * (TPM_RC_NO_RESULT at infinity); in mod n (scalar) or mod p (field) for a big-endian
 * number of any length; and a + b * m mod n. Everything crypto_ecc_bytes(curve) long. */
TPM_RC crypto_ecc_mul(uint16_t curve, const uint8_t *k, const uint8_t *px, const uint8_t *py,
		      uint8_t *rx, uint8_t *ry);
TPM_RC crypto_ecc_add(uint16_t curve, const uint8_t *px, const uint8_t *py, const uint8_t *qx,
		      const uint8_t *qy, uint8_t *rx, uint8_t *ry);
TPM_RC crypto_ecc_scalar_reduce(uint16_t curve, const uint8_t *in, size_t len, uint8_t *out);
TPM_RC crypto_ecc_field_reduce(uint16_t curve, const uint8_t *in, size_t len, uint8_t *out);
TPM_RC crypto_ecc_scalar_muladd(uint16_t curve, const uint8_t *a, const uint8_t *b,
				const uint8_t *m, uint8_t *out);
/* EC Schnorr (ecschnorr.c): e and s get crypto_ecc_bytes(curve) bytes; verify gives
 * TPM_RC_SIGNATURE for a signature that does not verify. */
TPM_RC crypto_ecschnorr_sign(uint16_t curve, TPM_ALG_ID hash, const uint8_t *d,
			     const uint8_t *digest, size_t dlen, uint8_t *e, uint8_t *s);
TPM_RC crypto_ecschnorr_verify(uint16_t curve, TPM_ALG_ID hash, const uint8_t *qx,
			       const uint8_t *qy, const uint8_t *digest, size_t dlen,
			       const uint8_t *e, size_t elen, const uint8_t *s, size_t slen);
/* Domain parameters for TPM2_ECC_Parameters: p, a, b, gx, gy, n each crypto_ecc_bytes long;
 * cofactor h is 1 for the NIST curves. */
struct crypto_ecc_params {
	uint16_t key_bits;
	const uint8_t *p, *a, *b, *gx, *gy, *n;
	size_t len;
};
TPM_RC crypto_ecc_params(uint16_t curve, struct crypto_ecc_params *out);

/* ---- block ciphers (sym.c): TPM_ALG_AES, and TPM_ALG_CAMELLIA and TPM_ALG_TDES where the
 * wolfSSL built against has them; modes TPM_ALG_CFB, CBC, CTR, OFB, ECB ----
 * Key sizes: AES and Camellia 128/192/256 bits, TDES 128 (two keys) and 192 (three keys).
 * iv (one block) is updated in place so that calls chain as TPM2_EncryptDecrypt's ivOut says.
 * CFB, CTR and OFB accept any length; CBC and ECB need whole blocks (TPM_RC_SIZE). Errors:
 * TPM_RC_SYMMETRIC (algorithm), TPM_RC_KEY_SIZE, TPM_RC_MODE, TPM_RC_VALUE (no iv). */
#define CRYPTO_MAX_SYM_BLOCK 16
/* The block size of alg, 0 if this build does not have it. */
size_t crypto_sym_block(TPM_ALG_ID alg);
/* Whether this build has alg with keys of key_bits. */
bool crypto_sym_supported(TPM_ALG_ID alg, uint16_t key_bits);
TPM_RC crypto_sym(TPM_ALG_ID alg, TPM_ALG_ID mode, bool encrypt, const uint8_t *key,
		  size_t keylen, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);
/* TDES keys as the TPM makes them (SP 800-67 §3.3): set_parity gives every byte odd parity;
 * key_ok: 16 or 24 bytes, no part weak or semi-weak, K1 != K2, K2 != K3 (parity ignored). */
void crypto_tdes_set_parity(uint8_t *key, size_t len);
bool crypto_tdes_key_ok(const uint8_t *key, size_t len);
/* crypto_sym with TPM_ALG_AES */
TPM_RC crypto_aes(TPM_ALG_ID mode, bool encrypt, const uint8_t *key, size_t keylen,
		  uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);

/* ---- AES-CMAC (cmac.c, SP 800-38B): 16-, 24- or 32-byte keys (TPM_RC_KEY_SIZE) ---- */
#define CRYPTO_CMAC_SIZE 16
struct crypto_cmac_ctx {
	uint8_t key[32];
	uint8_t keylen;
	uint8_t x[CRYPTO_CMAC_SIZE];	/* the chaining value */
	uint8_t buf[CRYPTO_CMAC_SIZE];	/* the last block, absorbed once more data comes */
	uint8_t n;			/* bytes in buf */
};
TPM_RC crypto_cmac_start(struct crypto_cmac_ctx *ctx, const uint8_t *key, size_t keylen);
TPM_RC crypto_cmac_update(struct crypto_cmac_ctx *ctx, const void *data, size_t len);
TPM_RC crypto_cmac_finish(struct crypto_cmac_ctx *ctx, uint8_t out[CRYPTO_CMAC_SIZE]);
TPM_RC crypto_cmac(const uint8_t *key, size_t keylen, const void *data, size_t len,
		   uint8_t out[CRYPTO_CMAC_SIZE]);

/* ---- teardown ----
 * wolfSSL keeps per-thread ECC tables (fixed-point caches, ~0.8 MB per cached point; they make
 * ECDSA ~100x faster): a thread that used ECC calls crypto_thread_cleanup before it exits, or
 * they leak; it frees the thread's DRBG too (which a thread's exit also does). crypto_cleanup
 * does that for the calling thread and ends wolfCrypt (for process exit; a later call starts
 * it and seeds again). */
void crypto_thread_cleanup(void);
void crypto_cleanup(void);

#endif
