/* ECC_Encrypt and ECC_Decrypt (core/cmd/ecc_encrypt.c), the TPM's use of TPM_ALG_KDF2: what
 * the TPM encrypts decrypts here with the key's d (P2 = [d]C1, C2 XOR KDF2(x2 || y2) with a
 * KDF2 written here over crypto_hash, C3 = H(x2 || M || y2)); what is encrypted here with a k
 * of the test's own decrypts in the TPM; on P-256, P-384 and P-521 with long and empty
 * messages; the scheme rules (the key's kdf or inScheme, KDF2 only) and the refusals with
 * their numbers. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "harness.h"
#include "keys.h"
#include "unit_main.h"

#define MAXLEN 66
#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define DECRYPT TPMA_OBJECT_DECRYPT

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

struct ekey {
	TPM_HANDLE handle;
	uint16_t curve;
	size_t len;
	uint8_t d[MAXLEN], x[MAXLEN], y[MAXLEN];
};

/* An ECC key of the test's own, loaded with LoadExternal (private part unless public_only),
 * with attributes attrs and kdf (TPM_ALG_NULL: none) */
static TPM_RC load_key(uint16_t curve, uint32_t attrs, TPM_ALG_ID kdf, TPM_ALG_ID kdf_hash,
		       bool public_only, struct ekey *k)
{
	struct tpmt_public p;
	struct tpmt_sensitive s;
	struct cmdbuf b;
	size_t mark;

	k->curve = curve;
	k->len = crypto_ecc_bytes(curve);
	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), curve, k->d, k->x, k->y),
			      TPM_RC_SUCCESS);
	key_template_attrs(&p, TPM_ALG_ECC, TPMA_OBJECT_USERWITHAUTH | attrs);
	p.curve_id = curve;
	p.kdf.scheme = kdf;
	p.kdf.hash_alg = kdf == TPM_ALG_NULL ? TPM_ALG_NULL : kdf_hash;
	p.x.size = p.y.size = (uint16_t)k->len;
	memcpy(p.x.b, k->x, k->len);
	memcpy(p.y.b, k->y, k->len);
	memset(&s, 0, sizeof(s));
	s.type = TPM_ALG_ECC;
	s.sensitive.size = (uint16_t)k->len;
	memcpy(s.sensitive.b, k->d, k->len);
	cmd_begin(&b, TPM_CC_LoadExternal);
	wr_size_begin(&b.params, &mark);
	if (!public_only)
		wr_sensitive(&b.params, &s);
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, &p);
	wr_u32(&b.params, TPM_RH_NULL);
	return harness_run(&h, &b, NULL, &k->handle);
}

struct ct {
	struct tpm2b_ecc_parameter x1, y1;
	uint16_t c2_len;
	uint8_t c2[MAX_BUFFER];
	struct tpm2b_digest c3;
};

static void wr_kdf(struct wr *w, TPM_ALG_ID scheme, TPM_ALG_ID hash)
{
	wr_u16(w, scheme);
	if (scheme != TPM_ALG_NULL)
		wr_u16(w, hash);
}

static TPM_RC encrypt(const struct ekey *k, const uint8_t *m, uint16_t len, TPM_ALG_ID scheme,
		      TPM_ALG_ID hash, struct ct *out)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ECC_Encrypt);
	cmd_handle(&b, k->handle);
	wr_tpm2b(&b.params, m, len);
	wr_kdf(&b.params, scheme, hash);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_ecc_point(&r, &out->x1, &out->y1, false), 0);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out->c2, sizeof(out->c2), &out->c2_len), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &out->c3), 0);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static TPM_RC decrypt(const struct ekey *k, const struct ct *in, TPM_ALG_ID scheme,
		      TPM_ALG_ID hash, uint8_t *m, uint16_t *len)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ECC_Decrypt);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b_ecc_point(&b.params, in->x1.b, in->y1.b, in->x1.size);
	wr_tpm2b(&b.params, in->c2, in->c2_len);
	wr_tpm2b_digest(&b.params, &in->c3);
	wr_kdf(&b.params, scheme, hash);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&r, m, MAX_BUFFER, len), 0);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

/* KDF2 over crypto_hash, as IEEE 1363a defines it: T(i) = H(Z || [i]32), i = 1, 2 ... */
static void kdf2_here(TPM_ALG_ID hash, const uint8_t *z, size_t zlen, uint8_t *out, size_t len)
{
	uint8_t in[2 * MAXLEN + 4], t[64];
	size_t dsize = crypto_hash_size(hash);

	memcpy(in, z, zlen);
	for (uint32_t i = 1; (i - 1) * dsize < len; i++) {
		size_t at = (i - 1) * dsize, n = len - at < dsize ? len - at : dsize;

		in[zlen] = (uint8_t)(i >> 24);
		in[zlen + 1] = (uint8_t)(i >> 16);
		in[zlen + 2] = (uint8_t)(i >> 8);
		in[zlen + 3] = (uint8_t)i;
		CU_ASSERT_EQUAL(crypto_hash(hash, in, zlen + 4, t), 0);
		memcpy(out + at, t, n);
	}
}

/* m from a ciphertext with P2 given: C2 XOR KDF2(x2 || y2); and whether C3 = H(x2 || m || y2) */
static bool open_here(size_t len, TPM_ALG_ID hash, const uint8_t *x2, const uint8_t *y2,
		      const struct ct *c, uint8_t *m)
{
	uint8_t z[2 * MAXLEN], mask[MAX_BUFFER], in[2 * MAXLEN + MAX_BUFFER], d[64];

	memcpy(z, x2, len);
	memcpy(z + len, y2, len);
	kdf2_here(hash, z, 2 * len, mask, c->c2_len);
	for (size_t i = 0; i < c->c2_len; i++)
		m[i] = c->c2[i] ^ mask[i];
	memcpy(in, x2, len);
	memcpy(in + len, m, c->c2_len);
	memcpy(in + len + c->c2_len, y2, len);
	CU_ASSERT_EQUAL(crypto_hash(hash, in, 2 * len + c->c2_len, d), 0);
	return c->c3.size == crypto_hash_size(hash) && memcmp(d, c->c3.b, c->c3.size) == 0;
}

/* C1 = [k]G, P2 = [k]Q with a k of the test's, then C2 and C3 over m */
static void seal_here(const struct ekey *key, TPM_ALG_ID hash, const uint8_t *m, uint16_t len,
		      struct ct *c)
{
	uint8_t k[MAXLEN], x2[MAXLEN], y2[MAXLEN], z[2 * MAXLEN], mask[MAX_BUFFER];
	uint8_t in[2 * MAXLEN + MAX_BUFFER];
	size_t n = key->len;

	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), key->curve, k, c->x1.b,
						  c->y1.b),
			      0);
	c->x1.size = c->y1.size = (uint16_t)n;
	CU_ASSERT_EQUAL_FATAL(crypto_ecdh(key->curve, k, key->x, n, key->y, n, x2, y2), 0);
	memcpy(z, x2, n);
	memcpy(z + n, y2, n);
	kdf2_here(hash, z, 2 * n, mask, len);
	for (size_t i = 0; i < len; i++)
		c->c2[i] = m[i] ^ mask[i];
	c->c2_len = len;
	memcpy(in, x2, n);
	memcpy(in + n, m, len);
	memcpy(in + n + len, y2, n);
	c->c3.size = (uint16_t)crypto_hash_size(hash);
	CU_ASSERT_EQUAL(crypto_hash(hash, in, 2 * n + len, c->c3.b), 0);
}

/* Both directions on each curve with its hash, for messages of 0, 1, 100 and 1024 bytes */
static void test_round_trips(void)
{
	static const struct {
		uint16_t curve;
		TPM_ALG_ID hash;
	} kinds[] = {
		{ TPM_ECC_NIST_P256, TPM_ALG_SHA256 },
		{ TPM_ECC_NIST_P384, TPM_ALG_SHA384 },
		{ TPM_ECC_NIST_P521, TPM_ALG_SHA512 },
		{ TPM_ECC_NIST_P256, TPM_ALG_SHA1 },
	};
	static const uint16_t lens[] = { 0, 1, 100, MAX_BUFFER };
	static uint8_t m[MAX_BUFFER], got[MAX_BUFFER];
	static struct ct c;

	for (size_t i = 0; i < sizeof(m); i++)
		m[i] = (uint8_t)(i * 31 + 7);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct ekey k;

		CU_ASSERT_EQUAL_FATAL(load_key(kinds[i].curve, DECRYPT, TPM_ALG_NULL, 0, false, &k),
				      TPM_RC_SUCCESS);
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			uint8_t x2[MAXLEN], y2[MAXLEN];
			uint16_t n = 0;

			/* the TPM's, opened here */
			CU_ASSERT_EQUAL_FATAL(encrypt(&k, m, lens[l], TPM_ALG_KDF2, kinds[i].hash,
						      &c),
					      TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(c.x1.size, k.len);
			CU_ASSERT_EQUAL(c.c2_len, lens[l]);
			CU_ASSERT_EQUAL(crypto_ecdh(k.curve, k.d, c.x1.b, c.x1.size, c.y1.b,
						    c.y1.size, x2, y2),
					0);
			CU_ASSERT(open_here(k.len, kinds[i].hash, x2, y2, &c, got));
			CU_ASSERT_EQUAL(memcmp(got, m, lens[l]), 0);
			/* and in the TPM */
			CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_KDF2, kinds[i].hash, got, &n),
					TPM_RC_SUCCESS);
			CU_ASSERT(n == lens[l] && memcmp(got, m, n) == 0);
			/* sealed here, opened in the TPM */
			seal_here(&k, kinds[i].hash, m, lens[l], &c);
			CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_KDF2, kinds[i].hash, got, &n),
					TPM_RC_SUCCESS);
			CU_ASSERT(n == lens[l] && memcmp(got, m, n) == 0);
		}
	}
}

/* The key's kdf, or inScheme when the key has none; equal when both are given; KDF2 only */
static void test_schemes(void)
{
	static const uint8_t m[] = "scheme";
	struct ekey none, kdf2, kdf1;
	uint8_t got[MAX_BUFFER];
	uint16_t n;
	struct ct c;

	CU_ASSERT_EQUAL_FATAL(load_key(TPM_ECC_NIST_P256, DECRYPT, TPM_ALG_NULL, 0, false, &none),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load_key(TPM_ECC_NIST_P256, DECRYPT, TPM_ALG_KDF2, TPM_ALG_SHA384,
				       false, &kdf2),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load_key(TPM_ECC_NIST_P256, DECRYPT, TPM_ALG_KDF1_SP800_56A,
				       TPM_ALG_SHA256, false, &kdf1),
			      TPM_RC_SUCCESS);
	/* the key's KDF2 with SHA-384: C3 is a SHA-384 digest */
	CU_ASSERT_EQUAL_FATAL(encrypt(&kdf2, m, 6, TPM_ALG_NULL, 0, &c), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(c.c3.size, 48);
	CU_ASSERT_EQUAL(decrypt(&kdf2, &c, TPM_ALG_NULL, 0, got, &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(decrypt(&kdf2, &c, TPM_ALG_KDF2, TPM_ALG_SHA384, got, &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(decrypt(&kdf2, &c, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			RC_P(TPM_RC_SCHEME, 4));
	CU_ASSERT_EQUAL(encrypt(&kdf2, m, 6, TPM_ALG_KDF2, TPM_ALG_SHA256, &c),
			RC_P(TPM_RC_SCHEME, 2));
	/* neither gives one; another KDF than KDF2; not a KDF at all */
	CU_ASSERT_EQUAL(encrypt(&none, m, 6, TPM_ALG_NULL, 0, &c), RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(encrypt(&none, m, 6, TPM_ALG_KDF1_SP800_108, TPM_ALG_SHA256, &c),
			RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(encrypt(&kdf1, m, 6, TPM_ALG_NULL, 0, &c), RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(encrypt(&none, m, 6, TPM_ALG_SHA256, TPM_ALG_SHA256, &c),
			RC_P(TPM_RC_KDF, 2));
	CU_ASSERT_EQUAL(encrypt(&none, m, 6, TPM_ALG_KDF2, TPM_ALG_NULL, &c),
			RC_P(TPM_RC_HASH, 2));
}

/* Refusals: a changed C2 or C3 (TPM_RC_VALUE, C3), C1 off the curve, the wrong key; a key of
 * another type, a restricted or a signing key, a key without its private part. Encrypt needs
 * only the public key. */
static void test_refusals(void)
{
	static const uint8_t m[] = "refused";
	struct ekey k, other, signer, pub_only;
	struct tpmt_public t;
	struct key rsa, restricted;
	uint8_t got[MAX_BUFFER];
	uint16_t n;
	struct ct c, bad;

	CU_ASSERT_EQUAL_FATAL(load_key(TPM_ECC_NIST_P256, DECRYPT, TPM_ALG_NULL, 0, false, &k),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load_key(TPM_ECC_NIST_P256, DECRYPT, TPM_ALG_NULL, 0, false, &other),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load_key(TPM_ECC_NIST_P256, SIGN, TPM_ALG_NULL, 0, false, &signer),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load_key(TPM_ECC_NIST_P256, DECRYPT, TPM_ALG_NULL, 0, true,
				       &pub_only),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, m, 7, TPM_ALG_KDF2, TPM_ALG_SHA256, &c), TPM_RC_SUCCESS);

	bad = c;
	bad.c2[0] ^= 1;
	CU_ASSERT_EQUAL(decrypt(&k, &bad, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			RC_P(TPM_RC_VALUE, 3));
	bad = c;
	bad.c3.b[5] ^= 1;
	CU_ASSERT_EQUAL(decrypt(&k, &bad, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			RC_P(TPM_RC_VALUE, 3));
	bad = c;
	bad.c3.size = 20;
	CU_ASSERT_EQUAL(decrypt(&k, &bad, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			RC_P(TPM_RC_VALUE, 3));
	bad = c;
	bad.y1.b[0] ^= 1;
	CU_ASSERT_EQUAL(decrypt(&k, &bad, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			RC_P(TPM_RC_ECC_POINT, 1));
	CU_ASSERT_EQUAL(decrypt(&other, &c, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			RC_P(TPM_RC_VALUE, 3));

	CU_ASSERT_EQUAL(decrypt(&signer, &c, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(decrypt(&pub_only, &c, TPM_ALG_KDF2, TPM_ALG_SHA256, got, &n),
			TPM_RC_AUTH_UNAVAILABLE);
	CU_ASSERT_EQUAL(encrypt(&pub_only, m, 7, TPM_ALG_KDF2, TPM_ALG_SHA256, &c),
			TPM_RC_SUCCESS);
	key_storage_template(&t, TPM_ALG_ECC, KEY_BASE | TPMA_OBJECT_RESTRICTED | DECRYPT);
	key_primary(&h, &t, NULL, 0, &restricted);
	CU_ASSERT_EQUAL(decrypt(&(struct ekey){ .handle = restricted.handle }, &c, TPM_ALG_KDF2,
				TPM_ALG_SHA256, got, &n),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	key_template(&t, TPM_ALG_RSA, DECRYPT);
	key_primary(&h, &t, NULL, 0, &rsa);
	CU_ASSERT_EQUAL(encrypt(&(struct ekey){ .handle = rsa.handle }, m, 7, TPM_ALG_KDF2,
				TPM_ALG_SHA256, &c),
			RC_H(TPM_RC_KEY, 1));
	CU_ASSERT_EQUAL(decrypt(&(struct ekey){ .handle = rsa.handle }, &c, TPM_ALG_KDF2,
				TPM_ALG_SHA256, got, &n),
			RC_H(TPM_RC_KEY, 1));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "round trips on P-256/384/521, checked outside the TPM", test_round_trips },
		{ "the key's kdf or inScheme, KDF2 only", test_schemes },
		{ "refusals", test_refusals },
	};

	return UNIT_RUN("ecc_encrypt", tests, setup, teardown);
}
