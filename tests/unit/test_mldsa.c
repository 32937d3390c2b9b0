/*
 * ML-DSA (core/crypto/mldsa) against every record of the NIST ACVP subset in tests/vectors
 * (keygen, siggen through every interface, sigver), plus malformed inputs and round trips.
 * On a CPU with AVX2 the records and round trips run twice, with the AVX2 code and with the
 * portable code (crypto_cpu_allow_avx2), and the AVX2 NTT and samplers are compared with the
 * portable ones on inputs at the edges of their ranges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <wolfssl/options.h>
#include <wolfssl/wolfcrypt/hash.h>

#include "crypto/cpu.h"
#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "crypto/mldsa/params.h"
#include "crypto/mldsa/poly.h"

#include "unit_main.h"
#include "vectors.h"

/* ---- helpers ---- */

static int set_of(const struct vec_record *r)
{
	const char *s = vec_field(r, "parameterSet");

	if (s && strcmp(s, "ML-DSA-44") == 0)
		return MLDSA_44;
	if (s && strcmp(s, "ML-DSA-65") == 0)
		return MLDSA_65;
	if (s && strcmp(s, "ML-DSA-87") == 0)
		return MLDSA_87;
	return 0;
}

/* PH for HashML-DSA, independent of the table in the implementation */
struct prehash {
	const char *name;
	uint16_t tpm_alg;	/* 0: no TPM_ALG_ID, tested through the internal interface */
	uint8_t oid_last;	/* 2.16.840.1.101.3.4.2.x */
	size_t dlen;
};

static const struct prehash prehashes[] = {
	{ "SHA2-224", 0, 0x04, 28 },
	{ "SHA2-256", 0x000B, 0x01, 32 },
	{ "SHA2-384", 0x000C, 0x02, 48 },
	{ "SHA2-512", 0x000D, 0x03, 64 },
	{ "SHA2-512/256", 0, 0x06, 32 },
	{ "SHA3-256", 0x0027, 0x08, 32 },
	{ "SHA3-384", 0x0028, 0x09, 48 },
	{ "SHA3-512", 0x0029, 0x0A, 64 },
	{ "SHAKE-128", 0x002A, 0x0B, 32 },
	{ "SHAKE-256", 0x002B, 0x0C, 64 },
};

static const struct prehash *prehash_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(prehashes) / sizeof(prehashes[0]); i++)
		if (name && strcmp(prehashes[i].name, name) == 0)
			return &prehashes[i];
	return NULL;
}

static void ph(const struct prehash *h, uint8_t *out, const uint8_t *m, size_t len)
{
	int rc = 0;

	if (strcmp(h->name, "SHA2-224") == 0)
		rc = wc_Sha224Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHA2-256") == 0)
		rc = wc_Sha256Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHA2-384") == 0)
		rc = wc_Sha384Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHA2-512") == 0)
		rc = wc_Sha512Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHA2-512/256") == 0)
		rc = wc_Sha512_256Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHA3-256") == 0)
		rc = wc_Sha3_256Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHA3-384") == 0)
		rc = wc_Sha3_384Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHA3-512") == 0)
		rc = wc_Sha3_512Hash(m, (word32)len, out);
	else if (strcmp(h->name, "SHAKE-128") == 0)
		shake128(out, 32, m, len);	/* this wolfSSL build has no SHAKE128 */
	else if (strcmp(h->name, "SHAKE-256") == 0)
		rc = wc_Shake256Hash(m, (word32)len, out, 64);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* what a record asks to sign or verify, in every form the API takes */
struct message {
	int interface;		/* 'p'ure, 'h'ash, 'i'nternal, 'm'u */
	uint8_t *msg, *ctx, *mu;
	size_t msglen, ctxlen;
	const struct prehash *hash;
	uint8_t digest[64];
	uint8_t *mprime;	/* M' built here, for the internal interface */
	size_t mprime_len;
};

static void message_load(struct message *m, const struct vec_record *r)
{
	memset(m, 0, sizeof(*m));
	if (vec_is(r, "signatureInterface", "internal")) {
		if (vec_is(r, "externalMu", "true")) {
			m->interface = 'm';
			m->mu = vec_bytes(r, "mu", NULL);
			return;
		}
		m->interface = 'i';
		m->mprime = vec_bytes(r, "message", &m->mprime_len);
		return;
	}
	m->msg = vec_bytes(r, "message", &m->msglen);
	m->ctx = vec_bytes(r, "context", &m->ctxlen);
	m->mprime = malloc(2 + m->ctxlen + 11 + 64 + m->msglen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m->mprime);
	m->mprime[1] = (uint8_t)m->ctxlen;
	memcpy(m->mprime + 2, m->ctx, m->ctxlen);
	m->mprime_len = 2 + m->ctxlen;
	if (vec_is(r, "preHash", "preHash")) {
		static const uint8_t oid[10] = { 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02 };

		m->interface = 'h';
		m->hash = prehash_of(vec_field(r, "hashAlg"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(m->hash);
		ph(m->hash, m->digest, m->msg, m->msglen);
		m->mprime[0] = 1;
		memcpy(m->mprime + m->mprime_len, oid, sizeof(oid));
		m->mprime[m->mprime_len + 10] = m->hash->oid_last;
		memcpy(m->mprime + m->mprime_len + 11, m->digest, m->hash->dlen);
		m->mprime_len += 11 + m->hash->dlen;
	} else {
		CU_ASSERT_FATAL(vec_is(r, "preHash", "pure"));
		m->interface = 'p';
		m->mprime[0] = 0;
		memcpy(m->mprime + m->mprime_len, m->msg, m->msglen);
		m->mprime_len += m->msglen;
	}
}

static void message_free(struct message *m)
{
	free(m->msg);
	free(m->ctx);
	free(m->mu);
	free(m->mprime);
}

/* verification through the record's own interface */
static int verify_message(int set, const uint8_t *pk, const struct message *m, const uint8_t *sig, size_t siglen)
{
	switch (m->interface) {
	case 'p':
		return mldsa_verify(set, pk, m->msg, m->msglen, m->ctx, m->ctxlen, sig, siglen);
	case 'h':
		if (!m->hash->tpm_alg)
			return mldsa_verify_internal(set, pk, m->mprime, m->mprime_len, sig, siglen);
		return mldsa_verify_hash(set, pk, m->hash->tpm_alg, m->digest, m->hash->dlen,
			m->ctx, m->ctxlen, sig, siglen);
	case 'i':
		return mldsa_verify_internal(set, pk, m->mprime, m->mprime_len, sig, siglen);
	default:
		return mldsa_verify_mu(set, pk, m->mu, sig, siglen);
	}
}

static int sign_message(int set, const uint8_t *sk, const struct message *m, const uint8_t *rnd, uint8_t *sig)
{
	switch (m->interface) {
	case 'p':
		return mldsa_sign(set, sk, m->msg, m->msglen, m->ctx, m->ctxlen, rnd, sig);
	case 'h':
		return mldsa_sign_hash(set, sk, m->hash->tpm_alg, m->digest, m->hash->dlen,
			m->ctx, m->ctxlen, rnd, sig);
	case 'i':
		return mldsa_sign_internal(set, sk, m->mprime, m->mprime_len, rnd, sig);
	default:
		return mldsa_sign_mu(set, sk, m->mu, rnd, sig);
	}
}

/* mu of a record: given, or H(H(pk) || M') with M' built by the test */
static void message_mu(int set, const uint8_t *pk, const struct message *m, uint8_t mu[64])
{
	if (m->interface == 'm')
		memcpy(mu, m->mu, 64);
	else
		CU_ASSERT_EQUAL_FATAL(mldsa_compute_mu(set, pk, m->mprime, m->mprime_len, mu), 0);
}

/* ---- ACVP records ---- */

static void test_keygen_vectors(void)
{
	FILE *f = vec_open("mldsa_keygen.txt");
	static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES];
	struct vec_record r;
	unsigned count = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (vec_read(f, &r)) {
		int set = set_of(&r);
		size_t pklen, sklen;
		uint8_t *seed = vec_bytes(&r, "seed", NULL), *want_pk = vec_bytes(&r, "pk", &pklen),
			*want_sk = vec_bytes(&r, "sk", &sklen);

		CU_ASSERT_NOT_EQUAL(set, 0);
		CU_ASSERT_EQUAL(pklen, mldsa_pk_bytes(set));
		CU_ASSERT_EQUAL(sklen, mldsa_sk_bytes(set));
		CU_ASSERT_EQUAL(mldsa_keygen(set, seed, pk, sk), 0);
		CU_ASSERT_EQUAL(memcmp(pk, want_pk, pklen), 0);
		CU_ASSERT_EQUAL(memcmp(sk, want_sk, sklen), 0);
		free(seed);
		free(want_pk);
		free(want_sk);
		vec_free(&r);
		count++;
	}
	fclose(f);
	printf("\n    %u keygen records ", count);
	CU_ASSERT(count > 0);
}

static void test_siggen_vectors(void)
{
	FILE *f = vec_open("mldsa_siggen.txt");
	static uint8_t sig[MLDSA_MAX_SIG_BYTES], seed_pk[MLDSA_MAX_PK_BYTES], seed_sk[MLDSA_MAX_SK_BYTES];
	struct mldsa_expanded *exp;
	struct vec_record r;
	unsigned count = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	exp = malloc(mldsa_expanded_size());
	CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
	while (vec_read(f, &r)) {
		int set = set_of(&r);
		size_t siglen, pklen;
		uint8_t *want = vec_bytes(&r, "signature", &siglen), *pk = vec_bytes(&r, "pk_derived", &pklen);
		uint8_t *rnd = vec_is(&r, "deterministic", "true") ? NULL : vec_bytes(&r, "rnd", NULL);
		uint8_t *sk_field = NULL, mu[64];
		const uint8_t *sk;
		struct message m;

		CU_ASSERT_NOT_EQUAL(set, 0);
		CU_ASSERT_EQUAL(siglen, mldsa_sig_bytes(set));
		if (vec_is(&r, "keyFormat", "seed")) {
			uint8_t *seed = vec_bytes(&r, "seed", NULL);

			CU_ASSERT_EQUAL(mldsa_keygen(set, seed, seed_pk, seed_sk), 0);
			CU_ASSERT_EQUAL(memcmp(seed_pk, pk, pklen), 0);
			free(seed);
			sk = seed_sk;
		} else {
			CU_ASSERT_FATAL(vec_is(&r, "keyFormat", "expanded"));
			sk = sk_field = vec_bytes(&r, "sk", NULL);
		}
		message_load(&m, &r);
		/* through the record's interface */
		memset(sig, 0xee, sizeof(sig));
		CU_ASSERT_EQUAL(sign_message(set, sk, &m, rnd, sig), 0);
		CU_ASSERT_EQUAL(memcmp(sig, want, siglen), 0);
		/* through an expanded key and mu */
		message_mu(set, pk, &m, mu);
		memset(sig, 0xee, sizeof(sig));
		CU_ASSERT_EQUAL_FATAL(mldsa_expand(set, sk, exp), 0);
		CU_ASSERT_EQUAL(mldsa_sign_mu_expanded(exp, mu, rnd, sig), 0);
		CU_ASSERT_EQUAL(memcmp(sig, want, siglen), 0);
		mldsa_expanded_wipe(exp);
		/* and M' built here through the internal interface */
		if (m.interface != 'm') {
			CU_ASSERT_EQUAL(mldsa_sign_internal(set, sk, m.mprime, m.mprime_len, rnd, sig), 0);
			CU_ASSERT_EQUAL(memcmp(sig, want, siglen), 0);
		}
		/* the signature verifies under the matching public key, also from mu */
		CU_ASSERT_EQUAL(verify_message(set, pk, &m, want, siglen), 0);
		CU_ASSERT_EQUAL(mldsa_verify_mu(set, pk, mu, want, siglen), 0);
		message_free(&m);
		free(sk_field);
		free(rnd);
		free(pk);
		free(want);
		vec_free(&r);
		count++;
	}
	fclose(f);
	free(exp);
	printf("\n    %u siggen records ", count);
	CU_ASSERT(count > 0);
}

static void test_sigver_vectors(void)
{
	FILE *f = vec_open("mldsa_sigver.txt");
	struct vec_record r;
	unsigned count = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (vec_read(f, &r)) {
		int set = set_of(&r), want = vec_is(&r, "testPassed", "true") ? 0 : -1;
		size_t siglen;
		uint8_t *pk = vec_bytes(&r, "pk", NULL), *sig = vec_bytes(&r, "signature", &siglen), mu[64];
		struct message m;

		CU_ASSERT_NOT_EQUAL(set, 0);
		CU_ASSERT(want == 0 || vec_is(&r, "testPassed", "false"));
		message_load(&m, &r);
		CU_ASSERT_EQUAL(verify_message(set, pk, &m, sig, siglen), want);
		message_mu(set, pk, &m, mu);
		CU_ASSERT_EQUAL(mldsa_verify_mu(set, pk, mu, sig, siglen), want);
		if (m.interface != 'm')
			CU_ASSERT_EQUAL(mldsa_verify_internal(set, pk, m.mprime, m.mprime_len, sig, siglen), want);
		message_free(&m);
		free(pk);
		free(sig);
		vec_free(&r);
		count++;
	}
	fclose(f);
	printf("\n    %u sigver records ", count);
	CU_ASSERT(count > 0);
}

/* ---- API behaviour ---- */

static void seed_for(uint8_t seed[32], unsigned i)
{
	unsigned j;

	for (j = 0; j < 32; j++)
		seed[j] = (uint8_t)(i * 31 + j * 7 + 1);
}

static void test_malformed(void)
{
	static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], sig[MLDSA_MAX_SIG_BYTES];
	static const int bad_sets[] = { 0, 4, -1 };
	uint8_t seed[32], mu[64] = { 0 }, ctx[256] = { 0 }, digest[64] = { 0 };
	const uint8_t msg[] = "message";
	struct mldsa_expanded *exp = malloc(mldsa_expanded_size());
	size_t i, siglen = mldsa_sig_bytes(MLDSA_44);

	CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
	seed_for(seed, 1);
	for (i = 0; i < 3; i++) {
		int set = bad_sets[i];

		CU_ASSERT_EQUAL(mldsa_pk_bytes(set), 0);
		CU_ASSERT_EQUAL(mldsa_sk_bytes(set), 0);
		CU_ASSERT_EQUAL(mldsa_sig_bytes(set), 0);
		CU_ASSERT_EQUAL(mldsa_keygen(set, seed, pk, sk), -1);
		CU_ASSERT_EQUAL(mldsa_sign(set, sk, msg, sizeof(msg), NULL, 0, NULL, sig), -1);
		CU_ASSERT_EQUAL(mldsa_sign_mu(set, sk, mu, NULL, sig), -1);
		CU_ASSERT_EQUAL(mldsa_verify(set, pk, msg, sizeof(msg), NULL, 0, sig, siglen), -1);
		CU_ASSERT_EQUAL(mldsa_verify_mu(set, pk, mu, sig, siglen), -1);
		CU_ASSERT_EQUAL(mldsa_compute_mu(set, pk, msg, sizeof(msg), mu), -1);
		CU_ASSERT_EQUAL(mldsa_expand(set, sk, exp), -1);
	}
	CU_ASSERT_EQUAL_FATAL(mldsa_keygen(MLDSA_44, seed, pk, sk), 0);
	CU_ASSERT_EQUAL_FATAL(mldsa_sign(MLDSA_44, sk, msg, sizeof(msg), ctx, 255, NULL, sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_44, pk, msg, sizeof(msg), ctx, 255, sig, siglen), 0);
	/* signature length other than the set's */
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_44, pk, msg, sizeof(msg), ctx, 255, sig, siglen - 1), -1);
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_44, pk, msg, sizeof(msg), ctx, 255, sig, siglen + 1), -1);
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_44, pk, msg, sizeof(msg), ctx, 255, sig, 0), -1);
	/* context of 256 bytes */
	CU_ASSERT_EQUAL(mldsa_sign(MLDSA_44, sk, msg, sizeof(msg), ctx, 256, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_44, pk, msg, sizeof(msg), ctx, 256, sig, siglen), -1);
	CU_ASSERT_EQUAL(mldsa_sign_hash(MLDSA_44, sk, 0x000B, digest, 32, ctx, 256, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_verify_hash(MLDSA_44, pk, 0x000B, digest, 32, ctx, 256, sig, siglen), -1);
	/* unknown hash (SHA-1, none) and digest length not the hash's */
	CU_ASSERT_EQUAL(mldsa_sign_hash(MLDSA_44, sk, 0x0004, digest, 20, NULL, 0, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_sign_hash(MLDSA_44, sk, 0x0000, digest, 32, NULL, 0, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_verify_hash(MLDSA_44, pk, 0x0010, digest, 32, NULL, 0, sig, siglen), -1);
	CU_ASSERT_EQUAL(mldsa_sign_hash(MLDSA_44, sk, 0x000B, digest, 31, NULL, 0, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_sign_hash(MLDSA_44, sk, 0x002B, digest, 32, NULL, 0, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_verify_hash(MLDSA_44, pk, 0x000D, digest, 48, NULL, 0, sig, siglen), -1);
	/* missing buffers */
	CU_ASSERT_EQUAL(mldsa_keygen(MLDSA_44, NULL, pk, sk), -1);
	CU_ASSERT_EQUAL(mldsa_sign(MLDSA_44, sk, NULL, 5, NULL, 0, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_sign(MLDSA_44, sk, msg, sizeof(msg), NULL, 3, NULL, sig), -1);
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_44, pk, msg, sizeof(msg), NULL, 0, NULL, siglen), -1);
	CU_ASSERT_EQUAL(mldsa_sign_mu_expanded(NULL, mu, NULL, sig), -1);
	/* an empty message is fine */
	CU_ASSERT_EQUAL(mldsa_sign(MLDSA_44, sk, NULL, 0, NULL, 0, NULL, sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_44, pk, NULL, 0, NULL, 0, sig, siglen), 0);
	free(exp);
}

/* a malformed hint encoding is rejected (HintBitUnpack returns bottom) */
static void test_bad_hints(void)
{
	static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], sig[MLDSA_MAX_SIG_BYTES];
	const size_t siglen = mldsa_sig_bytes(MLDSA_65), omega = 55, k = 6;
	uint8_t seed[32], *y = sig + siglen - omega - k;
	const uint8_t msg[] = "hints";
	unsigned i;

	seed_for(seed, 2);
	CU_ASSERT_EQUAL_FATAL(mldsa_keygen(MLDSA_65, seed, pk, sk), 0);
	CU_ASSERT_EQUAL_FATAL(mldsa_sign(MLDSA_65, sk, msg, sizeof(msg), NULL, 0, NULL, sig), 0);
	CU_ASSERT_EQUAL_FATAL(mldsa_verify(MLDSA_65, pk, msg, sizeof(msg), NULL, 0, sig, siglen), 0);
	/* a count above omega */
	y[omega + k - 1] = (uint8_t)(omega + 1);
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_65, pk, msg, sizeof(msg), NULL, 0, sig, siglen), -1);
	/* counts that decrease */
	CU_ASSERT_EQUAL_FATAL(mldsa_sign(MLDSA_65, sk, msg, sizeof(msg), NULL, 0, NULL, sig), 0);
	for (i = 0; i < k && y[omega + i] == 0; i++)
		;
	CU_ASSERT_FATAL(i < k - 1);
	y[omega + k - 1] = 0;
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_65, pk, msg, sizeof(msg), NULL, 0, sig, siglen), -1);
	/* nonzero padding after the last position */
	CU_ASSERT_EQUAL_FATAL(mldsa_sign(MLDSA_65, sk, msg, sizeof(msg), NULL, 0, NULL, sig), 0);
	CU_ASSERT_FATAL(y[omega + k - 1] < omega);
	y[omega - 1] = 1;
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_65, pk, msg, sizeof(msg), NULL, 0, sig, siglen), -1);
	/* positions not increasing within a polynomial */
	CU_ASSERT_EQUAL_FATAL(mldsa_sign(MLDSA_65, sk, msg, sizeof(msg), NULL, 0, NULL, sig), 0);
	CU_ASSERT_FATAL(y[omega] >= 2);
	y[1] = y[0];
	CU_ASSERT_EQUAL(mldsa_verify(MLDSA_65, pk, msg, sizeof(msg), NULL, 0, sig, siglen), -1);
}

static void test_round_trips(void)
{
	static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], sig[MLDSA_MAX_SIG_BYTES],
		sig2[MLDSA_MAX_SIG_BYTES];
	struct mldsa_expanded *exp = malloc(mldsa_expanded_size());
	uint8_t seed[32], rnd[32], mu[64], digest[64], msg[100], ctx[8] = "context", other[8] = "contexu";
	int set;
	unsigned i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
	for (set = MLDSA_44; set <= MLDSA_87; set++) {
		size_t siglen = mldsa_sig_bytes(set);

		for (i = 0; i < 8; i++) {
			seed_for(seed, 10 * (unsigned)set + i);
			seed_for(rnd, 100 + i);
			memset(msg, (int)i, sizeof(msg));
			CU_ASSERT_EQUAL_FATAL(mldsa_keygen(set, seed, pk, sk), 0);
			/* pure, hedged: verifies, fails with another context, message or a flipped bit */
			CU_ASSERT_EQUAL(mldsa_sign(set, sk, msg, sizeof(msg), ctx, sizeof(ctx), rnd, sig), 0);
			CU_ASSERT_EQUAL(mldsa_verify(set, pk, msg, sizeof(msg), ctx, sizeof(ctx), sig, siglen), 0);
			CU_ASSERT_EQUAL(mldsa_verify(set, pk, msg, sizeof(msg), other, sizeof(other), sig, siglen), -1);
			CU_ASSERT_EQUAL(mldsa_verify(set, pk, msg, sizeof(msg), NULL, 0, sig, siglen), -1);
			CU_ASSERT_EQUAL(mldsa_verify(set, pk, msg, sizeof(msg) - 1, ctx, sizeof(ctx), sig, siglen), -1);
			sig[(i * 997) % siglen] ^= 0x10;
			CU_ASSERT_EQUAL(mldsa_verify(set, pk, msg, sizeof(msg), ctx, sizeof(ctx), sig, siglen), -1);
			/* deterministic signing repeats; the expanded key gives the same signature */
			CU_ASSERT_EQUAL(mldsa_sign(set, sk, msg, sizeof(msg), ctx, sizeof(ctx), NULL, sig), 0);
			CU_ASSERT_EQUAL(mldsa_sign(set, sk, msg, sizeof(msg), ctx, sizeof(ctx), NULL, sig2), 0);
			CU_ASSERT_EQUAL(memcmp(sig, sig2, siglen), 0);
			{
				uint8_t mprime[2 + sizeof(ctx) + sizeof(msg)] = { 0, sizeof(ctx) };

				memcpy(mprime + 2, ctx, sizeof(ctx));
				memcpy(mprime + 2 + sizeof(ctx), msg, sizeof(msg));
				CU_ASSERT_EQUAL(mldsa_compute_mu(set, pk, mprime, sizeof(mprime), mu), 0);
			}
			CU_ASSERT_EQUAL_FATAL(mldsa_expand(set, sk, exp), 0);
			CU_ASSERT_EQUAL(mldsa_sign_mu_expanded(exp, mu, NULL, sig2), 0);
			CU_ASSERT_EQUAL(memcmp(sig, sig2, siglen), 0);
			mldsa_expanded_wipe(exp);
			/* a pure signature is not a HashML-DSA one and the other way round */
			shake256(digest, 64, msg, sizeof(msg));
			CU_ASSERT_EQUAL(mldsa_sign_hash(set, sk, 0x002B, digest, 64, ctx, sizeof(ctx), rnd, sig2), 0);
			CU_ASSERT_EQUAL(mldsa_verify_hash(set, pk, 0x002B, digest, 64, ctx, sizeof(ctx), sig2, siglen), 0);
			CU_ASSERT_EQUAL(mldsa_verify_hash(set, pk, 0x002B, digest, 64, other, sizeof(other), sig2, siglen), -1);
			CU_ASSERT_EQUAL(mldsa_verify_hash(set, pk, 0x0029, digest, 64, ctx, sizeof(ctx), sig2, siglen), -1);
			CU_ASSERT_EQUAL(mldsa_verify(set, pk, digest, 64, ctx, sizeof(ctx), sig2, siglen), -1);
			CU_ASSERT_EQUAL(mldsa_verify_hash(set, pk, 0x002B, digest, 64, ctx, sizeof(ctx), sig, siglen), -1);
			/* internal and mu */
			CU_ASSERT_EQUAL(mldsa_sign_internal(set, sk, msg, sizeof(msg), rnd, sig), 0);
			CU_ASSERT_EQUAL(mldsa_verify_internal(set, pk, msg, sizeof(msg), sig, siglen), 0);
			CU_ASSERT_EQUAL(mldsa_compute_mu(set, pk, msg, sizeof(msg), mu), 0);
			CU_ASSERT_EQUAL(mldsa_verify_mu(set, pk, mu, sig, siglen), 0);
			mu[0] ^= 1;
			CU_ASSERT_EQUAL(mldsa_verify_mu(set, pk, mu, sig, siglen), -1);
			CU_ASSERT_EQUAL(mldsa_sign_mu(set, sk, mu, NULL, sig), 0);
			CU_ASSERT_EQUAL(mldsa_verify_mu(set, pk, mu, sig, siglen), 0);
		}
	}
	free(exp);
}

/* ---- rounding against the definitions of FIPS 204 ---- */

#define Q MLDSA_Q

/* Decompose (Alg. 36) as written: r0 = r mod+- 2 gamma2, the top case wrapped to 0 */
static void decompose_ref(int32_t r, int32_t gamma2, int32_t *r1, int32_t *r0)
{
	int32_t lo = r % (2 * gamma2);

	if (lo > gamma2)
		lo -= 2 * gamma2;
	if (r - lo == Q - 1) {
		*r1 = 0;
		*r0 = lo - 1;
	} else {
		*r1 = (r - lo) / (2 * gamma2);
		*r0 = lo;
	}
}

/* every r in [0, q), given as r and as r - q (the inverse NTT's range is (-q, q)) */
static void test_decompose_all(void)
{
	static const int32_t gammas[] = { (Q - 1) / 88, (Q - 1) / 32 };
	struct mldsa_poly r, r1, r0;
	unsigned g, i, bad = 0;
	int32_t base, v, want1, want0;

	for (g = 0; g < 2; g++) {
		for (base = 0; base < Q; base += MLDSA_N) {
			for (i = 0; i < MLDSA_N; i++) {
				v = (base + (int32_t)i) % Q;
				r.c[i] = i % 2 && v > 0 ? v - Q : v;
			}
			mldsa_poly_decompose(&r1, &r0, &r, gammas[g]);
			for (i = 0; i < MLDSA_N; i++) {
				decompose_ref((base + (int32_t)i) % Q, gammas[g], &want1, &want0);
				bad += r1.c[i] != want1 || r0.c[i] != want0;
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * The hints from LowBits(w - c s2) + c t0 and HighBits(w) against MakeHint(-c t0, w - c s2 + c t0)
 * as written, for w over [0, q) and pseudo-random c s2, c t0 in their ranges, wherever the
 * r0 check passes (signing computes hints only then).
 */
static void test_make_hint(void)
{
	static const struct { int32_t gamma2, beta; } sets[] = { { (Q - 1) / 88, 78 }, { (Q - 1) / 32, 196 } };
	struct mldsa_poly a0, a1, h;
	int32_t want[MLDSA_N], w, cs2, ct0, r1, r0, v1, v0, hi_w, lo_w;
	uint32_t x = 12345;
	unsigned g, i, n, bad = 0, ones = 0, checked = 0;

	for (g = 0; g < 2; g++) {
		int32_t gamma2 = sets[g].gamma2, beta = sets[g].beta;

		for (w = 0, n = 0; w < Q; w += 5) {
			x = x * 1103515245u + 12345u;
			cs2 = (int32_t)(x >> 8) % (2 * beta + 1) - beta;
			ct0 = (int32_t)((x * 2654435761u) >> 8) % (2 * gamma2 - 1) - (gamma2 - 1);
			decompose_ref(w, gamma2, &hi_w, &lo_w);
			if (lo_w - cs2 >= gamma2 - beta || lo_w - cs2 <= -(gamma2 - beta))
				continue;
			/* every other case lands exactly on the boundary that MakeHint treats specially */
			if (n % 2)
				ct0 = -gamma2 - (lo_w - cs2);
			decompose_ref(((w - cs2) % Q + Q) % Q, gamma2, &r1, &r0);
			decompose_ref(((w - cs2 + ct0) % Q + Q) % Q, gamma2, &v1, &v0);
			a0.c[n] = lo_w - cs2 + ct0;
			a1.c[n] = hi_w;
			want[n] = r1 != v1;
			if (++n == MLDSA_N || w + 5 >= Q) {
				ones += mldsa_poly_make_hint(&h, &a0, &a1, gamma2);
				for (i = 0; i < n; i++)
					bad += h.c[i] != want[i];
				checked += n;
				n = 0;
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* both outcomes occurred */
	CU_ASSERT(ones > 1000);
	CU_ASSERT(checked - ones > 1000);
}

/* ---- the AVX2 code against the portable code ---- */

static uint32_t rng_state = 2463534242u;

static uint32_t next_random(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* coefficients in (-bound, bound): random, or (every fourth polynomial) all at the edges */
static void random_poly(struct mldsa_poly *a, int32_t bound, unsigned kind)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++) {
		if (kind % 4 == 3)
			a->c[i] = next_random() % 2 ? bound - 1 : -(bound - 1);
		else
			a->c[i] = (int32_t)(next_random() % (uint32_t)(2 * bound - 1)) - (bound - 1);
	}
}

static int same(const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	return memcmp(a->c, b->c, sizeof(a->c)) == 0;
}

/* the first statement with the portable code, the second as the CPU allows */
#define BOTH(plain, fast) do { \
	crypto_cpu_allow_avx2(false); \
	plain; \
	crypto_cpu_allow_avx2(true); \
	fast; \
} while (0)

static void test_ntt_paths(void)
{
	static struct mldsa_poly a[7], b[7], plain, fast;
	unsigned t, j, n, bad = 0;

	if (!crypto_cpu_avx2())
		printf("\n    no AVX2 on this CPU: the portable code against itself ");
	for (t = 0; t < 200; t++) {
		/* NTT and its inverse: inputs |c| < q */
		random_poly(&a[0], MLDSA_Q, t);
		BOTH((plain = a[0], mldsa_poly_ntt(&plain)), (fast = a[0], mldsa_poly_ntt(&fast)));
		bad += !same(&plain, &fast);
		BOTH((plain = a[0], mldsa_poly_invntt(&plain)), (fast = a[0], mldsa_poly_invntt(&fast)));
		bad += !same(&plain, &fast);
		/* products of NTT outputs, |c| < 9q */
		random_poly(&a[1], 9 * MLDSA_Q, t);
		random_poly(&b[1], 9 * MLDSA_Q, t + 1);
		BOTH(mldsa_poly_pointwise(&plain, &a[1], &b[1]), mldsa_poly_pointwise(&fast, &a[1], &b[1]));
		bad += !same(&plain, &fast);
		random_poly(&a[2], MLDSA_Q, t);
		BOTH((plain = a[2], mldsa_poly_pointwise_acc(&plain, &a[1], &b[1])),
			(fast = a[2], mldsa_poly_pointwise_acc(&fast, &a[1], &b[1])));
		bad += !same(&plain, &fast);
		/* rows of A (|c| < q) times NTT outputs */
		n = 1 + t % 7;
		for (j = 0; j < n; j++) {
			random_poly(&a[j], MLDSA_Q, t + j);
			random_poly(&b[j], 9 * MLDSA_Q, t + 2 * j);
		}
		BOTH(mldsa_poly_dot(&plain, a, b, n), mldsa_poly_dot(&fast, a, b, n));
		bad += !same(&plain, &fast);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* the samplers four at a time give what they give one at a time, for every batch size */
static void test_sampler_batches(void)
{
	static struct mldsa_poly one[4], four[4];
	struct mldsa_poly *out[4] = { &four[0], &four[1], &four[2], &four[3] };
	const struct mldsa_params *p65 = mldsa_params_get(MLDSA_65), *p87 = mldsa_params_get(MLDSA_87);
	uint8_t seed[64];
	uint16_t nonce[4];
	unsigned n, i, bad = 0;

	for (i = 0; i < sizeof(seed); i++)
		seed[i] = (uint8_t)next_random();
	for (n = 1; n <= 4; n++) {
		for (i = 0; i < n; i++)
			nonce[i] = (uint16_t)(0x0102 * i + n);
		mldsa_poly_uniform_x4(out, seed, nonce, n);
		for (i = 0; i < n; i++) {
			mldsa_poly_uniform(&one[i], seed, (uint8_t)nonce[i], (uint8_t)(nonce[i] >> 8));
			bad += !same(&one[i], &four[i]);
		}
		mldsa_poly_eta_x4(out, seed, nonce, n, 2);
		for (i = 0; i < n; i++) {
			mldsa_poly_eta(&one[i], seed, nonce[i], 2);
			bad += !same(&one[i], &four[i]);
		}
		mldsa_poly_eta_x4(out, seed, nonce, n, 4);
		for (i = 0; i < n; i++) {
			mldsa_poly_eta(&one[i], seed, nonce[i], 4);
			bad += !same(&one[i], &four[i]);
		}
		mldsa_poly_mask_x4(out, seed, nonce, n, n % 2 ? p65 : p87);
		for (i = 0; i < n; i++) {
			mldsa_poly_mask(&one[i], seed, nonce[i], n % 2 ? p65 : p87);
			bad += !same(&one[i], &four[i]);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* the records and round trips again with the portable code; the suite's setup allows AVX2 again */
static void portable_keygen(void)
{
	crypto_cpu_allow_avx2(false);
	test_keygen_vectors();
}

static void portable_siggen(void)
{
	crypto_cpu_allow_avx2(false);
	test_siggen_vectors();
}

static void portable_sigver(void)
{
	crypto_cpu_allow_avx2(false);
	test_sigver_vectors();
}

static void portable_round_trips(void)
{
	crypto_cpu_allow_avx2(false);
	test_round_trips();
}

static void allow_avx2(void)
{
	crypto_cpu_allow_avx2(true);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ACVP keyGen records", test_keygen_vectors },
		{ "ACVP sigGen records (all interfaces)", test_siggen_vectors },
		{ "ACVP sigVer records", test_sigver_vectors },
		{ "malformed inputs", test_malformed },
		{ "malformed hint encodings", test_bad_hints },
		{ "sign/verify round trips", test_round_trips },
		{ "Decompose of every r against Alg. 36", test_decompose_all },
		{ "hints against MakeHint (Alg. 39)", test_make_hint },
		{ "AVX2 NTT and products against the portable code", test_ntt_paths },
		{ "samplers four at a time against one at a time", test_sampler_batches },
		{ "ACVP keyGen records, portable code", portable_keygen },
		{ "ACVP sigGen records, portable code", portable_siggen },
		{ "ACVP sigVer records, portable code", portable_sigver },
		{ "sign/verify round trips, portable code", portable_round_trips },
	};

	printf("AVX2 code: %s\n", crypto_cpu_avx2() ? "used where the tests do not turn it off" :
	       "not used (the CPU lacks AVX2 or PQTPM_NO_AVX2 is set): every test runs the portable code");
	return UNIT_RUN("mldsa", tests, allow_avx2, NULL);
}
