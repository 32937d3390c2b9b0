/* Part 2 wire forms (core/types_marshal.c): known encodings laid out by hand, round trips of
 * every object type and signature arm, every truncation point, oversize TPM2Bs, unknown
 * selectors with the codes Part 2 names. */
#include <string.h>

#include <CUnit/Basic.h>

#include "types.h"
#include "unit_main.h"

static uint8_t buf[8192];

/* ---- public areas ---- */

static void base(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->name_alg = TPM_ALG_SHA256;
	p->attributes = attrs;
	p->symmetric.alg = TPM_ALG_NULL;
	p->scheme.scheme = p->scheme.hash_alg = p->scheme.kdf = TPM_ALG_NULL;
	p->kdf.scheme = p->kdf.hash_alg = p->kdf.kdf = TPM_ALG_NULL;
	p->pre_hash = TPM_ALG_NULL;
}

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

static void aes_cfb(struct tpmt_sym_def *s, uint16_t bits)
{
	s->alg = TPM_ALG_AES;
	s->key_bits = bits;
	s->mode = TPM_ALG_CFB;
}

#define STORAGE (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | \
		 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
#define SIGNING (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | \
		 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT)

enum { P_RSA, P_ECC, P_HMAC, P_XOR, P_SYM, P_MLDSA, P_HASH_MLDSA, P_MLKEM, P_COUNT };

static void sample(struct tpmt_public *p, int which)
{
	switch (which) {
	case P_RSA:
		base(p, TPM_ALG_RSA, STORAGE);
		aes_cfb(&p->symmetric, 128);
		p->key_bits = 2048;
		p->unique.size = 256;
		break;
	case P_ECC:
		base(p, TPM_ALG_ECC, SIGNING);
		p->auth_policy.size = 32;
		fill(p->auth_policy.b, 32, 9);
		p->scheme.scheme = TPM_ALG_ECDSA;
		p->scheme.hash_alg = TPM_ALG_SHA384;
		p->curve_id = TPM_ECC_NIST_P384;
		p->x.size = p->y.size = 48;
		fill(p->x.b, 48, 1);
		fill(p->y.b, 48, 2);
		return;
	case P_HMAC:
		base(p, TPM_ALG_KEYEDHASH, SIGNING);
		p->scheme.scheme = TPM_ALG_HMAC;
		p->scheme.hash_alg = TPM_ALG_SHA256;
		p->unique.size = 32;
		break;
	case P_XOR:
		base(p, TPM_ALG_KEYEDHASH, TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_DECRYPT);
		p->scheme.scheme = TPM_ALG_XOR;
		p->scheme.hash_alg = TPM_ALG_SHA1;
		p->scheme.kdf = TPM_ALG_KDF1_SP800_108;
		p->unique.size = 20;
		break;
	case P_SYM:
		base(p, TPM_ALG_SYMCIPHER, TPMA_OBJECT_DECRYPT | TPMA_OBJECT_SIGN_ENCRYPT);
		aes_cfb(&p->symmetric, 256);
		p->symmetric.mode = TPM_ALG_CTR;
		p->unique.size = 32;
		break;
	case P_MLDSA:
		base(p, TPM_ALG_MLDSA, SIGNING);
		p->parameter_set = TPM_MLDSA_65;
		p->allow_external_mu = 1;
		p->unique.size = 1952;
		break;
	case P_HASH_MLDSA:
		base(p, TPM_ALG_HASH_MLDSA, SIGNING);
		p->parameter_set = TPM_MLDSA_87;
		p->pre_hash = TPM_ALG_SHA512;
		p->unique.size = 2592;
		break;
	case P_MLKEM:
		base(p, TPM_ALG_MLKEM, STORAGE);
		aes_cfb(&p->symmetric, 128);
		p->parameter_set = TPM_MLKEM_1024;
		p->unique.size = 1568;
		break;
	}
	fill(p->unique.b, p->unique.size, (uint8_t)which);
}

static size_t put_public(const struct tpmt_public *p)
{
	struct wr w;

	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(wr_public(&w, p), TPM_RC_SUCCESS);
	return w.off;
}

static TPM_RC get_public(const uint8_t *b, size_t n, struct tpmt_public *p)
{
	struct rd r;
	TPM_RC rc;

	rd_init(&r, b, n);
	rc = rd_public(&r, p);
	if (rc == TPM_RC_SUCCESS && rd_left(&r))
		return TPM_RC_SIZE;
	return rc;
}

/* The classic SRK template (tpm2-tools' default RSA primary), byte by byte. */
static void test_public_known_rsa(void)
{
	static const uint8_t want[] = {
		0x00, 0x01, 0x00, 0x0B, 0x00, 0x03, 0x00, 0x72, /* RSA, SHA256, attributes */
		0x00, 0x00,				    /* authPolicy */
		0x00, 0x06, 0x00, 0x80, 0x00, 0x43,	    /* AES 128 CFB */
		0x00, 0x10,				    /* scheme NULL */
		0x08, 0x00, 0x00, 0x00, 0x00, 0x00,	    /* 2048, exponent 0 */
		0x00, 0x00,				    /* unique */
	};
	struct tpmt_public p, q;

	sample(&p, P_RSA);
	p.unique.size = 0;
	CU_ASSERT_EQUAL(put_public(&p), sizeof(want));
	CU_ASSERT(memcmp(buf, want, sizeof(want)) == 0);
	CU_ASSERT_EQUAL(get_public(want, sizeof(want), &q), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(q.attributes, 0x00030072u);
	CU_ASSERT_EQUAL(q.symmetric.key_bits, 128);
	CU_ASSERT_EQUAL(q.symmetric.mode, TPM_ALG_CFB);
	CU_ASSERT_EQUAL(q.scheme.scheme, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(q.key_bits, 2048);
}

/* ECC: symmetric, scheme + hash, curve, kdf, then the point. */
static void test_public_known_ecc(void)
{
	static const uint8_t want[] = {
		0x00, 0x23, 0x00, 0x0B, 0x00, 0x04, 0x00, 0x72, 0x00, 0x00,
		0x00, 0x10,		    /* symmetric NULL */
		0x00, 0x18, 0x00, 0x0B,	    /* ECDSA SHA256 */
		0x00, 0x03,		    /* P-256 */
		0x00, 0x10,		    /* kdf NULL */
		0x00, 0x01, 0xAA, 0x00, 0x01, 0xBB, /* x, y */
	};
	struct tpmt_public p;

	CU_ASSERT_EQUAL(get_public(want, sizeof(want), &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.type, TPM_ALG_ECC);
	CU_ASSERT_EQUAL(p.scheme.scheme, TPM_ALG_ECDSA);
	CU_ASSERT_EQUAL(p.scheme.hash_alg, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(p.curve_id, TPM_ECC_NIST_P256);
	CU_ASSERT_EQUAL(p.kdf.scheme, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(p.x.size, 1);
	CU_ASSERT_EQUAL(p.y.b[0], 0xBB);
	CU_ASSERT_EQUAL(put_public(&p), sizeof(want));
	CU_ASSERT(memcmp(buf, want, sizeof(want)) == 0);
}

/* v1.85: TPMS_MLDSA_PARMS = parameterSet, allowExternalMu; TPMS_HASH_MLDSA_PARMS =
 * parameterSet, hashAlg; TPMS_MLKEM_PARMS = symmetric, parameterSet. */
static void test_public_known_pq(void)
{
	static const uint8_t mldsa[] = { 0x00, 0xA1, 0x00, 0x0B, 0x00, 0x04, 0x00, 0x72, 0x00, 0x00,
					 0x00, 0x02, 0x01, 0x00, 0x00 };
	static const uint8_t hash_mldsa[] = { 0x00, 0xA2, 0x00, 0x0B, 0x00, 0x04, 0x00, 0x72,
					      0x00, 0x00, 0x00, 0x01, 0x00, 0x0C, 0x00, 0x00 };
	static const uint8_t mlkem[] = { 0x00, 0xA0, 0x00, 0x0B, 0x00, 0x03, 0x00, 0x72, 0x00, 0x00,
					 0x00, 0x06, 0x00, 0x80, 0x00, 0x43, 0x00, 0x03, 0x00, 0x00 };
	struct tpmt_public p;

	CU_ASSERT_EQUAL(get_public(mldsa, sizeof(mldsa), &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.parameter_set, TPM_MLDSA_65);
	CU_ASSERT_EQUAL(p.allow_external_mu, 1);
	CU_ASSERT_EQUAL(put_public(&p), sizeof(mldsa));
	CU_ASSERT(memcmp(buf, mldsa, sizeof(mldsa)) == 0);

	CU_ASSERT_EQUAL(get_public(hash_mldsa, sizeof(hash_mldsa), &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.parameter_set, TPM_MLDSA_44);
	CU_ASSERT_EQUAL(p.pre_hash, TPM_ALG_SHA384);
	CU_ASSERT_EQUAL(put_public(&p), sizeof(hash_mldsa));
	CU_ASSERT(memcmp(buf, hash_mldsa, sizeof(hash_mldsa)) == 0);

	CU_ASSERT_EQUAL(get_public(mlkem, sizeof(mlkem), &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.symmetric.alg, TPM_ALG_AES);
	CU_ASSERT_EQUAL(p.parameter_set, TPM_MLKEM_1024);
	CU_ASSERT_EQUAL(put_public(&p), sizeof(mlkem));
	CU_ASSERT(memcmp(buf, mlkem, sizeof(mlkem)) == 0);
}

static void test_public_round_trip(void)
{
	static uint8_t again[8192];

	for (int i = 0; i < P_COUNT; i++) {
		struct tpmt_public p, q;
		struct wr w;
		struct rd r;
		size_t n;

		sample(&p, i);
		wr_init(&w, buf, sizeof(buf));
		CU_ASSERT_EQUAL_FATAL(wr_tpm2b_public(&w, &p), TPM_RC_SUCCESS);
		n = w.off;
		CU_ASSERT_EQUAL((size_t)(buf[0] << 8 | buf[1]), n - 2);
		rd_init(&r, buf, n);
		CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &q), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_left(&r), 0);
		CU_ASSERT(memcmp(&p, &q, sizeof(p)) == 0);
		wr_init(&w, again, sizeof(again));
		CU_ASSERT_EQUAL(wr_tpm2b_public(&w, &q), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(w.off, n);
		CU_ASSERT(memcmp(buf, again, n) == 0);
	}
}

/* Every prefix of a marshalled public area is short; inside a TPM2B_PUBLIC whose size says
 * less than the content, it is the size that is wrong. */
static void test_public_truncation(void)
{
	for (int i = 0; i < P_COUNT; i++) {
		struct tpmt_public p, q;
		struct wr w;
		struct rd r;
		size_t n;
		int bad = 0;

		sample(&p, i);
		n = put_public(&p);
		for (size_t k = 0; k < n; k++)
			bad += get_public(buf, k, &q) != TPM_RC_INSUFFICIENT;
		CU_ASSERT_EQUAL(bad, 0);

		wr_init(&w, buf, sizeof(buf));
		CU_ASSERT_EQUAL_FATAL(wr_tpm2b_public(&w, &p), TPM_RC_SUCCESS);
		n = w.off;
		for (size_t k = 0; k < n; k++) {
			rd_init(&r, buf, k);
			bad += rd_tpm2b_public(&r, &q) != TPM_RC_INSUFFICIENT;
		}
		CU_ASSERT_EQUAL(bad, 0);
		for (size_t size = 1; size < n - 2; size++) {
			buf[0] = (uint8_t)(size >> 8);
			buf[1] = (uint8_t)size;
			rd_init(&r, buf, n);
			bad += rd_tpm2b_public(&r, &q) != TPM_RC_SIZE;
		}
		CU_ASSERT_EQUAL(bad, 0);
	}
}

static void test_public_sized(void)
{
	static const uint8_t zero[] = { 0x00, 0x00 };
	struct tpmt_public p, q;
	struct wr w;
	struct rd r;
	size_t n;

	rd_init(&r, zero, sizeof(zero));
	CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &q), TPM_RC_SIZE);

	/* a trailing byte inside the size */
	sample(&p, P_ECC);
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(wr_tpm2b_public(&w, &p), TPM_RC_SUCCESS);
	n = w.off;
	buf[n] = 0;
	buf[1]++;
	rd_init(&r, buf, n + 1);
	CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &q), TPM_RC_SIZE);
}

/* Patch one u16 at off in a marshalled sample and expect rc from rd_public. */
static void expect_u16(int which, size_t off, uint16_t v, TPM_RC rc)
{
	struct tpmt_public p;
	size_t n;

	sample(&p, which);
	n = put_public(&p);
	buf[off] = (uint8_t)(v >> 8);
	buf[off + 1] = (uint8_t)v;
	CU_ASSERT_EQUAL(get_public(buf, n, &p), rc);
}

static void test_public_selectors(void)
{
	struct tpmt_public p;
	size_t n;

	expect_u16(P_RSA, 0, 0x0099, TPM_RC_TYPE);
	expect_u16(P_RSA, 0, TPM_ALG_AES, TPM_RC_TYPE);
	expect_u16(P_RSA, 2, TPM_ALG_SM3_256, TPM_RC_HASH);
	expect_u16(P_RSA, 2, TPM_ALG_NULL, TPM_RC_SUCCESS); /* nameAlg NULL: LoadExternal */
	/* RSA: attributes at 4, authPolicy at 8, symmetric at 10, scheme at 16, keyBits at 18 */
	expect_u16(P_RSA, 4, 0x8000, TPM_RC_RESERVED_BITS);
	expect_u16(P_RSA, 6, 0x0073, TPM_RC_RESERVED_BITS);
	expect_u16(P_RSA, 8, 65, TPM_RC_SIZE);
	expect_u16(P_RSA, 10, TPM_ALG_SM4, TPM_RC_SYMMETRIC);
	expect_u16(P_RSA, 10, TPM_ALG_XOR, TPM_RC_SYMMETRIC);
	expect_u16(P_RSA, 12, 100, TPM_RC_VALUE);
	expect_u16(P_RSA, 14, 0x0099, TPM_RC_MODE);
	expect_u16(P_RSA, 16, TPM_ALG_ECDSA, TPM_RC_VALUE);
	expect_u16(P_RSA, 18, 1000, TPM_RC_VALUE);
	expect_u16(P_RSA, 24, MAX_RSA_KEY_BYTES + 1, TPM_RC_SIZE);
	/* ECC with a policy: symmetric at 42, scheme 44, hash 46, curve 48, kdf 50, x 52 */
	expect_u16(P_ECC, 44, TPM_ALG_RSASSA, TPM_RC_SCHEME);
	expect_u16(P_ECC, 46, TPM_ALG_NULL, TPM_RC_HASH);
	expect_u16(P_ECC, 48, TPM_ECC_BN_P256, TPM_RC_CURVE);
	expect_u16(P_ECC, 50, TPM_ALG_SHA256, TPM_RC_KDF);
	expect_u16(P_ECC, 52, MAX_ECC_KEY_BYTES + 1, TPM_RC_SIZE);
	/* keyedHash: scheme at 10, hash 12; XOR kdf 14 */
	expect_u16(P_HMAC, 10, TPM_ALG_ECDSA, TPM_RC_VALUE);
	expect_u16(P_HMAC, 14, MAX_DIGEST_SIZE + 1, TPM_RC_SIZE);
	expect_u16(P_XOR, 14, TPM_ALG_SHA256, TPM_RC_KDF);
	/* any TPMI_ALG_KDF (Part 2 §9.32) */
	expect_u16(P_XOR, 14, TPM_ALG_KDF2, TPM_RC_SUCCESS);
	expect_u16(P_XOR, 14, TPM_ALG_MGF1, TPM_RC_SUCCESS);
	expect_u16(P_XOR, 14, TPM_ALG_KDF1_SP800_56A, TPM_RC_SUCCESS);
	/* symCipher: the symmetric definition may not be NULL */
	expect_u16(P_SYM, 10, TPM_ALG_NULL, TPM_RC_SYMMETRIC);
	/* PQ: parameter sets, allowExternalMu, hash, unique limits */
	expect_u16(P_MLDSA, 10, 0, TPM_RC_PARMS);
	expect_u16(P_MLDSA, 10, 4, TPM_RC_PARMS);
	expect_u16(P_MLDSA, 13, MAX_PQ_PUBLIC + 1, TPM_RC_SIZE);
	expect_u16(P_HASH_MLDSA, 12, TPM_ALG_NULL, TPM_RC_HASH);
	expect_u16(P_MLKEM, 16, 7, TPM_RC_PARMS);
	expect_u16(P_MLKEM, 18, 1569, TPM_RC_SIZE);

	sample(&p, P_MLDSA);
	n = put_public(&p);
	buf[12] = 2;
	CU_ASSERT_EQUAL(get_public(buf, n, &p), TPM_RC_VALUE);
}

/* ---- sensitive ---- */

static void test_sensitive(void)
{
	static const uint8_t ecc[] = { 0x00, 0x23, 0x00, 0x02, 'p', 'w', 0x00, 0x01, 0x55,
				       0x00, 0x03, 0x01, 0x02, 0x03 };
	struct tpmt_sensitive s, t;
	struct tpms_sensitive_create sc;
	struct wr w;
	struct rd r;
	size_t mark;

	rd_init(&r, ecc, sizeof(ecc));
	CU_ASSERT_EQUAL(rd_sensitive(&r, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.type, TPM_ALG_ECC);
	CU_ASSERT_EQUAL(s.auth_value.size, 2);
	CU_ASSERT_EQUAL(s.seed_value.b[0], 0x55);
	CU_ASSERT_EQUAL(s.sensitive.size, 3);

	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(wr_size_begin(&w, &mark), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(wr_sensitive(&w, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(wr_size_end(&w, mark), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(w.off, sizeof(ecc) + 2);
	CU_ASSERT(memcmp(buf + 2, ecc, sizeof(ecc)) == 0);
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL(rd_tpm2b_sensitive(&r, &t), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(&s, &t, sizeof(s)) == 0);

	/* size 0: no private part */
	rd_init(&r, (const uint8_t[]){ 0, 0 }, 2);
	CU_ASSERT_EQUAL(rd_tpm2b_sensitive(&r, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(t.type, TPM_ALG_NULL);

	/* the private arm's limit follows the type: an ML-DSA seed is 32 bytes */
	memset(&s, 0, sizeof(s));
	s.type = TPM_ALG_MLDSA;
	s.sensitive.size = 33;
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(wr_sensitive(&w, &s), TPM_RC_SUCCESS);
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL(rd_sensitive(&r, &t), TPM_RC_SIZE);
	s.type = TPM_ALG_MLKEM;
	s.sensitive.size = 64;
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(wr_sensitive(&w, &s), TPM_RC_SUCCESS);
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL(rd_sensitive(&r, &t), TPM_RC_SUCCESS);

	/* TPM2B_SENSITIVE_CREATE: size 0 and trailing bytes are TPM_RC_SIZE */
	rd_init(&r, (const uint8_t[]){ 0, 0 }, 2);
	CU_ASSERT_EQUAL(rd_tpm2b_sensitive_create(&r, &sc), TPM_RC_SIZE);
	rd_init(&r, (const uint8_t[]){ 0, 7, 0, 1, 'a', 0, 1, 'd', 0 }, 9);
	CU_ASSERT_EQUAL(rd_tpm2b_sensitive_create(&r, &sc), TPM_RC_SIZE);
	rd_init(&r, (const uint8_t[]){ 0, 6, 0, 1, 'a', 0, 1, 'd' }, 8);
	CU_ASSERT_EQUAL(rd_tpm2b_sensitive_create(&r, &sc), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sc.user_auth.size, 1);
	CU_ASSERT_EQUAL(sc.data.b[0], 'd');
	rd_init(&r, (const uint8_t[]){ 0, 6, 0, 1, 'a', 0, 2, 'd' }, 8);
	CU_ASSERT_EQUAL(rd_tpm2b_sensitive_create(&r, &sc), TPM_RC_SIZE);
}

/* ---- signatures ---- */

static void sig_round_trip(const struct tpmt_signature *s, size_t want_len)
{
	static struct tpmt_signature t;
	struct wr w;
	struct rd r;

	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(wr_signature(&w, s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(w.off, want_len);
	memset(&t, 0xEE, sizeof(t));
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL(rd_signature(&r, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(t.sig_alg, s->sig_alg);
	CU_ASSERT_EQUAL(t.hash, s->hash);
	CU_ASSERT_EQUAL(t.size, s->size);
	CU_ASSERT(memcmp(t.sig, s->sig, s->size) == 0);
	CU_ASSERT_EQUAL(t.r.size, s->r.size);
	CU_ASSERT(memcmp(t.r.b, s->r.b, s->r.size) == 0);
	CU_ASSERT(memcmp(t.s.b, s->s.b, s->s.size) == 0);
	for (size_t k = 0; k < w.off; k++) {
		rd_init(&r, buf, k);
		CU_ASSERT_EQUAL(rd_signature(&r, &t), TPM_RC_INSUFFICIENT);
	}
}

static void test_signature(void)
{
	static struct tpmt_signature s;
	struct rd r;

	memset(&s, 0, sizeof(s));
	s.sig_alg = TPM_ALG_RSASSA;
	s.hash = TPM_ALG_SHA256;
	s.size = 256;
	fill(s.sig, 256, 3);
	sig_round_trip(&s, 2 + 2 + 2 + 256);
	s.sig_alg = TPM_ALG_RSAPSS;
	sig_round_trip(&s, 2 + 2 + 2 + 256);

	memset(&s, 0, sizeof(s));
	s.sig_alg = TPM_ALG_ECDSA;
	s.hash = TPM_ALG_SHA384;
	s.r.size = s.s.size = 48;
	fill(s.r.b, 48, 4);
	fill(s.s.b, 48, 5);
	sig_round_trip(&s, 2 + 2 + 50 + 50);

	/* TPMT_HA: no size field, the hash says how long */
	memset(&s, 0, sizeof(s));
	s.sig_alg = TPM_ALG_HMAC;
	s.hash = TPM_ALG_SHA1;
	s.size = 20;
	fill(s.sig, 20, 6);
	sig_round_trip(&s, 2 + 2 + 20);
	CU_ASSERT_EQUAL(buf[4], s.sig[0]);

	memset(&s, 0, sizeof(s));
	s.sig_alg = TPM_ALG_MLDSA;
	s.hash = TPM_ALG_NULL;
	s.size = MAX_PQ_SIGNATURE;
	fill(s.sig, s.size, 7);
	sig_round_trip(&s, 2 + 2 + MAX_PQ_SIGNATURE);
	CU_ASSERT_EQUAL(buf[2] << 8 | buf[3], MAX_PQ_SIGNATURE);

	s.sig_alg = TPM_ALG_HASH_MLDSA;
	s.hash = TPM_ALG_SHA256;
	s.size = 2420;
	sig_round_trip(&s, 2 + 2 + 2 + 2420);

	/* NULL is written (a NULL signing key) but never accepted as input */
	memset(&s, 0, sizeof(s));
	s.sig_alg = TPM_ALG_NULL;
	{
		struct wr w;

		wr_init(&w, buf, sizeof(buf));
		CU_ASSERT_EQUAL(wr_signature(&w, &s), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(w.off, 2);
		rd_init(&r, buf, w.off);
		CU_ASSERT_EQUAL(rd_signature(&r, &s), TPM_RC_SCHEME);
	}
	rd_init(&r, (const uint8_t[]){ 0x00, 0x15, 0x00, 0x0B }, 4);
	CU_ASSERT_EQUAL(rd_signature(&r, &s), TPM_RC_SCHEME);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x14, 0x00, 0x10 }, 4);
	CU_ASSERT_EQUAL(rd_signature(&r, &s), TPM_RC_HASH);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x14, 0x00, 0x0B, 0x02, 0x01 }, 6);
	CU_ASSERT_EQUAL(rd_signature(&r, &s), TPM_RC_SIZE);
	rd_init(&r, (const uint8_t[]){ 0x00, 0xA1, 0x12, 0x14 }, 4);
	CU_ASSERT_EQUAL(rd_signature(&r, &s), TPM_RC_SIZE);
}

/* ---- schemes and symmetric definitions ---- */

static void test_schemes(void)
{
	struct tpmt_scheme s;
	struct tpmt_sym_def d;
	struct wr w;
	struct rd r;

	rd_init(&r, (const uint8_t[]){ 0x00, 0x10 }, 2);
	CU_ASSERT_EQUAL(rd_sig_scheme(&r, &s, true), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.scheme, TPM_ALG_NULL);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x10 }, 2);
	CU_ASSERT_EQUAL(rd_sig_scheme(&r, &s, false), TPM_RC_SCHEME);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x17, 0x00, 0x0B }, 4);
	CU_ASSERT_EQUAL(rd_sig_scheme(&r, &s, true), TPM_RC_SCHEME);
	rd_init(&r, (const uint8_t[]){ 0x00, 0xA1 }, 2); /* ML-DSA: no details */
	CU_ASSERT_EQUAL(rd_sig_scheme(&r, &s, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	rd_init(&r, (const uint8_t[]){ 0x00, 0xA2, 0x00, 0x0D }, 4);
	CU_ASSERT_EQUAL(rd_sig_scheme(&r, &s, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.hash_alg, TPM_ALG_SHA512);

	rd_init(&r, (const uint8_t[]){ 0x00, 0x17, 0x00, 0x0C }, 4);
	CU_ASSERT_EQUAL(rd_rsa_decrypt_scheme(&r, &s, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.scheme, TPM_ALG_OAEP);
	CU_ASSERT_EQUAL(s.hash_alg, TPM_ALG_SHA384);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x15 }, 2); /* RSAES: no details */
	CU_ASSERT_EQUAL(rd_rsa_decrypt_scheme(&r, &s, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x14, 0x00, 0x0B }, 4);
	CU_ASSERT_EQUAL(rd_rsa_decrypt_scheme(&r, &s, true), TPM_RC_VALUE);

	rd_init(&r, (const uint8_t[]){ 0x00, 0x19, 0x00, 0x0B }, 4);
	CU_ASSERT_EQUAL(rd_ecc_scheme(&r, &s, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.scheme, TPM_ALG_ECDH);
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(wr_scheme(&w, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(w.off, 4);

	/* session symmetric: XOR carries a hash in place of the key size, and no mode */
	rd_init(&r, (const uint8_t[]){ 0x00, 0x0A, 0x00, 0x0B }, 4);
	CU_ASSERT_EQUAL(rd_sym_def(&r, &d, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(d.alg, TPM_ALG_XOR);
	CU_ASSERT_EQUAL(d.key_bits, TPM_ALG_SHA256);
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(wr_sym_def(&w, &d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(w.off, 4);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x0A, 0x00, 0x10 }, 4);
	CU_ASSERT_EQUAL(rd_sym_def(&r, &d, false), TPM_RC_HASH);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x10 }, 2);
	CU_ASSERT_EQUAL(rd_sym_def(&r, &d, false), TPM_RC_SYMMETRIC);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x10 }, 2);
	CU_ASSERT_EQUAL(rd_sym_def(&r, &d, true), TPM_RC_SUCCESS);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x06, 0x00, 0xC0, 0x00, 0x42 }, 6);
	CU_ASSERT_EQUAL(rd_sym_def(&r, &d, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(d.key_bits, 192);
	CU_ASSERT_EQUAL(d.mode, TPM_ALG_CBC);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x0A, 0x00, 0x0B }, 4);
	CU_ASSERT_EQUAL(rd_sym_def_object(&r, &d, true), TPM_RC_SYMMETRIC);

	rd_init(&r, (const uint8_t[]){ 0x00, 0x0B }, 2);
	CU_ASSERT_EQUAL(rd_hash_alg(&r, &s.hash_alg, false), TPM_RC_SUCCESS);
	rd_init(&r, (const uint8_t[]){ 0x00, 0x27 }, 2);
	CU_ASSERT_EQUAL(rd_hash_alg(&r, &s.hash_alg, true), TPM_RC_HASH);
}

/* ---- PCR selections, tickets, contexts, names ---- */

static void test_pcr_selection(void)
{
	static const uint8_t two[] = { 0, 0, 0, 2, 0x00, 0x04, 3, 0x01, 0x00, 0x80,
				       0x00, 0x0B, 3, 0xFF, 0xFF, 0xFF };
	struct tpml_pcr_selection s;
	struct wr w;
	struct rd r;

	rd_init(&r, two, sizeof(two));
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.count, 2);
	CU_ASSERT_EQUAL(s.sel[0].hash, TPM_ALG_SHA1);
	CU_ASSERT_EQUAL(s.sel[0].select[2], 0x80);
	CU_ASSERT_EQUAL(s.sel[1].hash, TPM_ALG_SHA256);
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(wr_pcr_selection(&w, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(w.off, sizeof(two));
	CU_ASSERT(memcmp(buf, two, sizeof(two)) == 0);
	for (size_t k = 0; k < sizeof(two); k++) {
		rd_init(&r, two, k);
		CU_ASSERT_EQUAL(rd_pcr_selection(&r, &s), TPM_RC_INSUFFICIENT);
	}

	rd_init(&r, (const uint8_t[]){ 0, 0, 0, MAX_PCR_BANKS + 1 }, 4);
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &s), TPM_RC_SIZE);
	rd_init(&r, (const uint8_t[]){ 0, 0, 0, 1, 0x00, 0x0B, 2, 0xFF, 0xFF }, 9);
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &s), TPM_RC_VALUE);
	rd_init(&r, (const uint8_t[]){ 0, 0, 0, 1, 0x00, 0x0B, 4, 0, 0, 0, 0 }, 11);
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &s), TPM_RC_VALUE);
	rd_init(&r, (const uint8_t[]){ 0, 0, 0, 1, 0x00, 0x10, 3, 0, 0, 0 }, 10);
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &s), TPM_RC_HASH);
}

static void test_ticket(void)
{
	static const uint8_t tk[] = { 0x80, 0x21, 0x40, 0x00, 0x00, 0x01, 0x00, 0x02, 0xAB, 0xCD };
	struct tpmt_ticket t;
	struct wr w;
	struct rd r;

	rd_init(&r, tk, sizeof(tk));
	CU_ASSERT_EQUAL(rd_ticket(&r, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(t.tag, TPM_ST_CREATION);
	CU_ASSERT_EQUAL(t.hierarchy, TPM_RH_OWNER);
	CU_ASSERT_EQUAL(t.digest.size, 2);
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(wr_ticket(&w, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(w.off, sizeof(tk));
	CU_ASSERT(memcmp(buf, tk, sizeof(tk)) == 0);

	memcpy(buf, tk, sizeof(tk));
	buf[1] = 0x14; /* TPM_ST_ATTEST_NV is no ticket */
	rd_init(&r, buf, sizeof(tk));
	CU_ASSERT_EQUAL(rd_ticket(&r, &t), TPM_RC_TAG);
	memcpy(buf, tk, sizeof(tk));
	buf[5] = 0x0A; /* TPM_RH_LOCKOUT is no hierarchy */
	rd_init(&r, buf, sizeof(tk));
	CU_ASSERT_EQUAL(rd_ticket(&r, &t), TPM_RC_VALUE);

	/* TPMI_RH_HIERARCHY and TPMI_RH_HIERARCHY+ */
	rd_init(&r, (const uint8_t[]){ 0x40, 0, 0, 0x07 }, 4);
	CU_ASSERT_EQUAL(rd_rh_hierarchy(&r, &t.hierarchy, false), TPM_RC_VALUE);
	rd_init(&r, (const uint8_t[]){ 0x40, 0, 0, 0x07 }, 4);
	CU_ASSERT_EQUAL(rd_rh_hierarchy(&r, &t.hierarchy, true), TPM_RC_SUCCESS);
	rd_init(&r, (const uint8_t[]){ 0x40, 0, 0, 0x0C }, 4);
	CU_ASSERT_EQUAL(rd_rh_hierarchy(&r, &t.hierarchy, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(t.hierarchy, TPM_RH_PLATFORM);
	rd_init(&r, (const uint8_t[]){ 0x40, 0, 0, 0x0B }, 3);
	CU_ASSERT_EQUAL(rd_rh_hierarchy(&r, &t.hierarchy, false), TPM_RC_INSUFFICIENT);
}

static void test_context(void)
{
	static struct tpms_context c, d;
	struct wr w;
	struct rd r;

	memset(&c, 0, sizeof(c));
	c.sequence = 0x0102030405060708ull;
	c.saved_handle = 0x80000001u;
	c.hierarchy = TPM_RH_NULL;
	c.blob_size = MAX_CONTEXT_BLOB;
	fill(c.blob, c.blob_size, 8);
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(wr_context(&w, &c), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(w.off, 8 + 4 + 4 + 2 + MAX_CONTEXT_BLOB);
	CU_ASSERT_EQUAL(buf[0], 0x01);
	CU_ASSERT_EQUAL(buf[7], 0x08);
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL(rd_context(&r, &d), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(&c, &d, sizeof(c)) == 0);

	buf[16] = (MAX_CONTEXT_BLOB + 1) >> 8;
	buf[17] = (uint8_t)(MAX_CONTEXT_BLOB + 1);
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL(rd_context(&r, &d), TPM_RC_SIZE);
	buf[8] = 0x81; /* a persistent handle is never a saved handle */
	rd_init(&r, buf, w.off);
	CU_ASSERT_EQUAL(rd_context(&r, &d), TPM_RC_VALUE);
	buf[8] = 0x02; /* an HMAC session is */
	buf[16] = 0;
	buf[17] = 0;
	rd_init(&r, buf, 18);
	CU_ASSERT_EQUAL(rd_context(&r, &d), TPM_RC_SUCCESS);
}

static void test_tpm2b_limits(void)
{
	struct tpm2b_digest d;
	struct tpm2b_name n;
	struct rd r;

	memset(buf, 0, sizeof(buf));
	buf[1] = MAX_DIGEST_SIZE;
	rd_init(&r, buf, 2 + MAX_DIGEST_SIZE);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &d), TPM_RC_SUCCESS);
	buf[1] = MAX_DIGEST_SIZE + 1;
	rd_init(&r, buf, 3 + MAX_DIGEST_SIZE);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &d), TPM_RC_SIZE);
	buf[1] = MAX_NAME_SIZE;
	rd_init(&r, buf, 2 + MAX_NAME_SIZE);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &n), TPM_RC_SUCCESS);
	buf[1] = MAX_NAME_SIZE + 1;
	rd_init(&r, buf, 3 + MAX_NAME_SIZE);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &n), TPM_RC_SIZE);
	buf[1] = 5;
	rd_init(&r, buf, 6);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &n), TPM_RC_INSUFFICIENT);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "public known RSA", test_public_known_rsa },
		{ "public known ECC", test_public_known_ecc },
		{ "public known PQ", test_public_known_pq },
		{ "public round trip", test_public_round_trip },
		{ "public truncation", test_public_truncation },
		{ "public sized", test_public_sized },
		{ "public selectors", test_public_selectors },
		{ "sensitive", test_sensitive },
		{ "signature", test_signature },
		{ "schemes", test_schemes },
		{ "pcr selection", test_pcr_selection },
		{ "ticket", test_ticket },
		{ "context", test_context },
		{ "tpm2b limits", test_tpm2b_limits },
	};

	return UNIT_RUN("marshal", tests, NULL, NULL);
}
