/*
 * The message representative mu = H(tr || M', 64) for each way of forming M' (FIPS 204 sections
 * 5.2, 5.4 and Alg. 7 line 6), and the sign/verify entry points that take a message.
 * M' is never built in memory: its pieces are absorbed one after the other.
 */
#include <string.h>

#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "crypto/mldsa/params.h"

#define MAX_CTX 255

/* PH for HashML-DSA: TPM_ALG_ID, last byte of the NIST OID 2.16.840.1.101.3.4.2.x, digest length */
static const struct {
	uint16_t alg;
	uint8_t oid_last;
	uint8_t dlen;
} hashes[] = {
	{ 0x000B, 0x01, 32 },	/* SHA256 */
	{ 0x000C, 0x02, 48 },	/* SHA384 */
	{ 0x000D, 0x03, 64 },	/* SHA512 */
	{ 0x0027, 0x08, 32 },	/* SHA3_256 */
	{ 0x0028, 0x09, 48 },	/* SHA3_384 */
	{ 0x0029, 0x0A, 64 },	/* SHA3_512 */
	{ 0x002A, 0x0B, 32 },	/* SHAKE128, 256-bit output */
	{ 0x002B, 0x0C, 64 },	/* SHAKE256, 512-bit output */
};

/* DER of the OID: tag 06, length 09, 60 86 48 01 65 03 04 02 x */
static int hash_oid(uint8_t oid[11], uint16_t alg, size_t dlen)
{
	static const uint8_t prefix[10] = { 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02 };
	size_t i;

	for (i = 0; i < sizeof(hashes) / sizeof(hashes[0]); i++) {
		if (hashes[i].alg == alg) {
			if (hashes[i].dlen != dlen)
				return -1;
			memcpy(oid, prefix, sizeof(prefix));
			oid[10] = hashes[i].oid_last;
			return 0;
		}
	}
	return -1;
}

static void mu_begin(struct keccak_ctx *h, const uint8_t tr[64])
{
	shake256_init(h);
	keccak_absorb(h, tr, 64);
}

static void mu_end(struct keccak_ctx *h, uint8_t mu[64])
{
	keccak_finalize(h);
	keccak_squeeze(h, mu, MLDSA_MU_BYTES);
}

/* M' = 0 || |ctx| || ctx || M */
static int mu_pure(uint8_t mu[64], const uint8_t tr[64], const uint8_t *msg, size_t msglen,
	const uint8_t *ctx, size_t ctxlen)
{
	struct keccak_ctx h;
	uint8_t head[2] = { 0, (uint8_t)ctxlen };

	if (ctxlen > MAX_CTX || (!ctx && ctxlen) || (!msg && msglen))
		return -1;
	mu_begin(&h, tr);
	keccak_absorb(&h, head, sizeof(head));
	keccak_absorb(&h, ctx, ctxlen);
	keccak_absorb(&h, msg, msglen);
	mu_end(&h, mu);
	return 0;
}

/* M' = 1 || |ctx| || ctx || OID(PH) || PH(M) */
static int mu_hash(uint8_t mu[64], const uint8_t tr[64], uint16_t alg, const uint8_t *digest, size_t dlen,
	const uint8_t *ctx, size_t ctxlen)
{
	struct keccak_ctx h;
	uint8_t head[2] = { 1, (uint8_t)ctxlen }, oid[11];

	if (ctxlen > MAX_CTX || (!ctx && ctxlen) || !digest || hash_oid(oid, alg, dlen))
		return -1;
	mu_begin(&h, tr);
	keccak_absorb(&h, head, sizeof(head));
	keccak_absorb(&h, ctx, ctxlen);
	keccak_absorb(&h, oid, sizeof(oid));
	keccak_absorb(&h, digest, dlen);
	mu_end(&h, mu);
	return 0;
}

static int mu_internal(uint8_t mu[64], const uint8_t tr[64], const uint8_t *mprime, size_t len)
{
	struct keccak_ctx h;

	if (!mprime && len)
		return -1;
	mu_begin(&h, tr);
	keccak_absorb(&h, mprime, len);
	mu_end(&h, mu);
	return 0;
}

/* tr = H(pk, 64) is also the sk bytes 64..127 */
static int pk_tr(uint8_t tr[64], int set, const uint8_t *pk)
{
	size_t len = mldsa_pk_bytes(set);

	if (!len || !pk)
		return -1;
	shake256(tr, 64, pk, len);
	return 0;
}

static const uint8_t *sk_tr(int set, const uint8_t *sk)
{
	return mldsa_params_get(set) && sk ? sk + 64 : NULL;
}

int mldsa_compute_mu(int set, const uint8_t *pk, const uint8_t *mprime, size_t len, uint8_t mu[64])
{
	uint8_t tr[64];

	if (!mu || pk_tr(tr, set, pk))
		return -1;
	return mu_internal(mu, tr, mprime, len);
}

int mldsa_sign(int set, const uint8_t *sk, const uint8_t *msg, size_t msglen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *rnd, uint8_t *sig)
{
	const uint8_t *tr = sk_tr(set, sk);
	uint8_t mu[64];

	if (!tr || mu_pure(mu, tr, msg, msglen, ctx, ctxlen))
		return -1;
	return mldsa_sign_mu(set, sk, mu, rnd, sig);
}

int mldsa_sign_hash(int set, const uint8_t *sk, uint16_t hash_alg, const uint8_t *digest, size_t dlen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *rnd, uint8_t *sig)
{
	const uint8_t *tr = sk_tr(set, sk);
	uint8_t mu[64];

	if (!tr || mu_hash(mu, tr, hash_alg, digest, dlen, ctx, ctxlen))
		return -1;
	return mldsa_sign_mu(set, sk, mu, rnd, sig);
}

int mldsa_sign_internal(int set, const uint8_t *sk, const uint8_t *mprime, size_t len,
	const uint8_t *rnd, uint8_t *sig)
{
	const uint8_t *tr = sk_tr(set, sk);
	uint8_t mu[64];

	if (!tr || mu_internal(mu, tr, mprime, len))
		return -1;
	return mldsa_sign_mu(set, sk, mu, rnd, sig);
}

int mldsa_verify(int set, const uint8_t *pk, const uint8_t *msg, size_t msglen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *sig, size_t siglen)
{
	uint8_t tr[64], mu[64];

	if (pk_tr(tr, set, pk) || mu_pure(mu, tr, msg, msglen, ctx, ctxlen))
		return -1;
	return mldsa_verify_mu(set, pk, mu, sig, siglen);
}

int mldsa_verify_hash(int set, const uint8_t *pk, uint16_t hash_alg, const uint8_t *digest, size_t dlen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *sig, size_t siglen)
{
	uint8_t tr[64], mu[64];

	if (pk_tr(tr, set, pk) || mu_hash(mu, tr, hash_alg, digest, dlen, ctx, ctxlen))
		return -1;
	return mldsa_verify_mu(set, pk, mu, sig, siglen);
}

int mldsa_verify_internal(int set, const uint8_t *pk, const uint8_t *mprime, size_t len,
	const uint8_t *sig, size_t siglen)
{
	uint8_t tr[64], mu[64];

	if (pk_tr(tr, set, pk) || mu_internal(mu, tr, mprime, len))
		return -1;
	return mldsa_verify_mu(set, pk, mu, sig, siglen);
}
