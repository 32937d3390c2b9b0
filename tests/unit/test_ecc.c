/* ECDH_KeyGen, ECDH_ZGen, ECC_Parameters (core/cmd/ecc.c): the curve constants against FIPS
 * 186, KeyGen's Z against ZGen, ZGen against an ECDH computed outside the TPM, points off the
 * curve and malformed points, and the key checks with their exact codes. */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "unit_main.h"
#include "vectors.h"

#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define DECRYPT TPMA_OBJECT_DECRYPT
#define RESTRICTED TPMA_OBJECT_RESTRICTED

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

/* ---- points ---- */

struct point {
	struct tpm2b_ecc_parameter x, y;
};

static void wr_point(struct wr *w, const struct point *p)
{
	size_t mark;

	wr_size_begin(w, &mark);
	wr_tpm2b(w, p->x.b, p->x.size);
	wr_tpm2b(w, p->y.b, p->y.size);
	wr_size_end(w, mark);
}

static void rd_point(struct rd *r, struct point *p)
{
	struct rd sub;
	uint16_t size;

	CU_ASSERT_EQUAL_FATAL(rd_sub(r, &sub, &size), 0);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&sub, p->x.b, sizeof(p->x.b), &p->x.size), 0);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&sub, p->y.b, sizeof(p->y.b), &p->y.size), 0);
	CU_ASSERT_EQUAL(rd_left(&sub), 0);
}

static TPM_RC keygen(const struct key *k, struct point *z, struct point *pub)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ECDH_KeyGen);
	cmd_handle(&b, k->handle);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rd_point(&rsp, z);
	rd_point(&rsp, pub);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static TPM_RC zgen_raw(const struct key *k, const char *auth, const struct wr *params,
		       struct point *out)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ECDH_ZGen);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, auth);
	wr_bytes(&b.params, params->buf, params->off);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rd_point(&rsp, out);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static TPM_RC zgen_auth(const struct key *k, const char *auth, const struct point *in,
			struct point *out)
{
	uint8_t buf[256];
	struct wr w;

	wr_init(&w, buf, sizeof(buf));
	wr_point(&w, in);
	return zgen_raw(k, auth, &w, out);
}

static TPM_RC zgen(const struct key *k, const struct point *in, struct point *out)
{
	return zgen_auth(k, "", in, out);
}

static void ecdh_key(struct key *k, uint16_t curve, uint32_t attrs)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_ECC, attrs);
	t.curve_id = curve;
	if (attrs & RESTRICTED) {
		t.symmetric.alg = TPM_ALG_AES;
		t.symmetric.key_bits = 128;
		t.symmetric.mode = TPM_ALG_CFB;
	}
	key_primary(&h, &t, NULL, 0, k);
}

static bool same_point(const struct point *a, const struct point *b)
{
	return a->x.size == b->x.size && a->y.size == b->y.size &&
	       memcmp(a->x.b, b->x.b, a->x.size) == 0 && memcmp(a->y.b, b->y.b, a->y.size) == 0;
}

/* ---- ECDH ---- */

static void check_keygen_zgen(uint16_t curve, size_t len)
{
	struct point z, pub, out, mine, want;
	uint8_t d[MAX_ECC_KEY_BYTES];
	struct key k;

	ecdh_key(&k, curve, DECRYPT);
	CU_ASSERT_EQUAL_FATAL(keygen(&k, &z, &pub), 0);
	CU_ASSERT_EQUAL(z.x.size, len);
	CU_ASSERT_EQUAL(pub.x.size, len);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(curve, pub.x.b, len, pub.y.b, len), 0);
	/* the key's d times the ephemeral point is the Z KeyGen gave */
	CU_ASSERT_EQUAL_FATAL(zgen(&k, &pub, &out), 0);
	CU_ASSERT(same_point(&out, &z));

	/* and agrees with ECDH outside the TPM: d_mine * Q_key */
	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), curve, d, mine.x.b,
						  mine.y.b),
			      0);
	mine.x.size = mine.y.size = (uint16_t)len;
	want.x.size = want.y.size = (uint16_t)len;
	CU_ASSERT_EQUAL_FATAL(crypto_ecdh(curve, d, k.pub.x.b, k.pub.x.size, k.pub.y.b,
					  k.pub.y.size, want.x.b, want.y.b),
			      0);
	CU_ASSERT_EQUAL_FATAL(zgen(&k, &mine, &out), 0);
	CU_ASSERT(same_point(&out, &want));
	/* each KeyGen is a fresh ephemeral key */
	CU_ASSERT_EQUAL_FATAL(keygen(&k, &z, &mine), 0);
	CU_ASSERT(!same_point(&mine, &pub));
}

static void test_ecdh_p256(void)
{
	check_keygen_zgen(TPM_ECC_NIST_P256, 32);
}

static void test_ecdh_p384(void)
{
	check_keygen_zgen(TPM_ECC_NIST_P384, 48);
}

static void test_ecdh_p521(void)
{
	check_keygen_zgen(TPM_ECC_NIST_P521, 66);
}

static void test_zgen_bad_points(void)
{
	static const uint8_t zeros[MAX_ECC_KEY_BYTES + 1];
	struct point z, pub, out, p;
	uint8_t buf[256];
	struct wr w;
	struct key k;

	ecdh_key(&k, TPM_ECC_NIST_P256, DECRYPT);
	CU_ASSERT_EQUAL_FATAL(keygen(&k, &z, &pub), 0);

	/* off the curve */
	p = pub;
	p.y.b[31] ^= 1;
	CU_ASSERT_EQUAL(zgen(&k, &p, &out), RC_P(TPM_RC_ECC_POINT, 1));
	/* the point at infinity as (0, 0) */
	memset(&p, 0, sizeof(p));
	p.x.size = p.y.size = 32;
	CU_ASSERT_EQUAL(zgen(&k, &p, &out), RC_P(TPM_RC_ECC_POINT, 1));

	/* an empty TPM2B_ECC_POINT */
	wr_init(&w, buf, sizeof(buf));
	wr_u16(&w, 0);
	CU_ASSERT_EQUAL(zgen_raw(&k, "", &w, &out), RC_P(TPM_RC_SIZE, 1));
	/* a size that leaves a byte over */
	wr_init(&w, buf, sizeof(buf));
	wr_u16(&w, 2 + 32 + 2 + 32 + 1);
	wr_tpm2b(&w, pub.x.b, 32);
	wr_tpm2b(&w, pub.y.b, 32);
	wr_u8(&w, 0);
	CU_ASSERT_EQUAL(zgen_raw(&k, "", &w, &out), RC_P(TPM_RC_SIZE, 1));
	/* a size that cuts y short */
	wr_init(&w, buf, sizeof(buf));
	wr_u16(&w, 2 + 32 + 2 + 31);
	wr_tpm2b(&w, pub.x.b, 32);
	wr_tpm2b(&w, pub.y.b, 32);
	CU_ASSERT_EQUAL(zgen_raw(&k, "", &w, &out), RC_P(TPM_RC_SIZE, 1));
	/* a coordinate longer than any curve's */
	wr_init(&w, buf, sizeof(buf));
	wr_u16(&w, 2 + 49 + 2 + 32);
	wr_tpm2b(&w, zeros, sizeof(zeros));
	wr_tpm2b(&w, pub.y.b, 32);
	CU_ASSERT_EQUAL(zgen_raw(&k, "", &w, &out), RC_P(TPM_RC_SIZE, 1));
	/* the whole point missing */
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_EQUAL(zgen_raw(&k, "", &w, &out), RC_P(TPM_RC_INSUFFICIENT, 1));
}

static void test_zgen_keys(void)
{
	struct point z, pub, out;
	struct tpmt_public t;
	struct key dec, signer, storage, rsa;

	ecdh_key(&dec, TPM_ECC_NIST_P256, DECRYPT);
	ecdh_key(&signer, TPM_ECC_NIST_P256, SIGN);
	ecdh_key(&storage, TPM_ECC_NIST_P256, DECRYPT | RESTRICTED);
	key_template(&t, TPM_ALG_RSA, DECRYPT);
	key_primary(&h, &t, NULL, 0, &rsa);
	CU_ASSERT_EQUAL_FATAL(keygen(&dec, &z, &pub), 0);

	CU_ASSERT_EQUAL(zgen(&signer, &pub, &out), RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(zgen(&storage, &pub, &out), RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(zgen(&rsa, &pub, &out), RC_H(TPM_RC_KEY, 1));
	CU_ASSERT_EQUAL(keygen(&rsa, &z, &pub), RC_H(TPM_RC_KEY, 1));
	/* KeyGen uses only the public key: any ECC key will do */
	CU_ASSERT_EQUAL(keygen(&signer, &z, &pub), 0);
	CU_ASSERT_EQUAL(keygen(&storage, &z, &pub), 0);
	CU_ASSERT_EQUAL(zgen_auth(&dec, "wrong", &pub, &out), RC_S(TPM_RC_AUTH_FAIL, 1));
}

/* ---- ECC_Parameters ---- */

static const uint8_t p256_p[32] = {
	0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};
static const uint8_t p256_b[32] = {
	0x5A, 0xC6, 0x35, 0xD8, 0xAA, 0x3A, 0x93, 0xE7, 0xB3, 0xEB, 0xBD, 0x55, 0x76, 0x98, 0x86, 0xBC,
	0x65, 0x1D, 0x06, 0xB0, 0xCC, 0x53, 0xB0, 0xF6, 0x3B, 0xCE, 0x3C, 0x3E, 0x27, 0xD2, 0x60, 0x4B,
};
static const uint8_t p256_gx[32] = {
	0x6B, 0x17, 0xD1, 0xF2, 0xE1, 0x2C, 0x42, 0x47, 0xF8, 0xBC, 0xE6, 0xE5, 0x63, 0xA4, 0x40, 0xF2,
	0x77, 0x03, 0x7D, 0x81, 0x2D, 0xEB, 0x33, 0xA0, 0xF4, 0xA1, 0x39, 0x45, 0xD8, 0x98, 0xC2, 0x96,
};
static const uint8_t p256_gy[32] = {
	0x4F, 0xE3, 0x42, 0xE2, 0xFE, 0x1A, 0x7F, 0x9B, 0x8E, 0xE7, 0xEB, 0x4A, 0x7C, 0x0F, 0x9E, 0x16,
	0x2B, 0xCE, 0x33, 0x57, 0x6B, 0x31, 0x5E, 0xCE, 0xCB, 0xB6, 0x40, 0x68, 0x37, 0xBF, 0x51, 0xF5,
};
static const uint8_t p256_n[32] = {
	0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
};

struct curve_detail {
	uint16_t curve, key_size, kdf, sign;
	struct tpm2b_ecc_parameter p, a, b, gx, gy, n, h;
};

static TPM_RC ecc_parameters(uint16_t curve, struct curve_detail *c)
{
	struct tpm2b_ecc_parameter *f[] = { &c->p, &c->a, &c->b, &c->gx, &c->gy, &c->n, &c->h };
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ECC_Parameters);
	wr_u16(&b.params, curve);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_u16(&rsp, &c->curve), 0);
	CU_ASSERT_EQUAL(rd_u16(&rsp, &c->key_size), 0);
	CU_ASSERT_EQUAL(rd_u16(&rsp, &c->kdf), 0);
	CU_ASSERT_EQUAL(rd_u16(&rsp, &c->sign), 0);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&rsp, f[i]->b, sizeof(f[i]->b), &f[i]->size), 0);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static void test_ecc_parameters_p256(void)
{
	struct curve_detail c;

	CU_ASSERT_EQUAL_FATAL(ecc_parameters(TPM_ECC_NIST_P256, &c), 0);
	CU_ASSERT_EQUAL(c.curve, TPM_ECC_NIST_P256);
	CU_ASSERT_EQUAL(c.key_size, 256);
	CU_ASSERT_EQUAL(c.kdf, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(c.sign, TPM_ALG_NULL);
	CU_ASSERT_EQUAL_FATAL(c.p.size, 32);
	CU_ASSERT_EQUAL(memcmp(c.p.b, p256_p, 32), 0);
	/* a = p - 3 */
	CU_ASSERT_EQUAL_FATAL(c.a.size, 32);
	CU_ASSERT_EQUAL(memcmp(c.a.b, p256_p, 31), 0);
	CU_ASSERT_EQUAL(c.a.b[31], 0xFC);
	CU_ASSERT_EQUAL_FATAL(c.b.size, 32);
	CU_ASSERT_EQUAL(memcmp(c.b.b, p256_b, 32), 0);
	CU_ASSERT_EQUAL_FATAL(c.gx.size, 32);
	CU_ASSERT_EQUAL(memcmp(c.gx.b, p256_gx, 32), 0);
	CU_ASSERT_EQUAL_FATAL(c.gy.size, 32);
	CU_ASSERT_EQUAL(memcmp(c.gy.b, p256_gy, 32), 0);
	CU_ASSERT_EQUAL_FATAL(c.n.size, 32);
	CU_ASSERT_EQUAL(memcmp(c.n.b, p256_n, 32), 0);
	CU_ASSERT_EQUAL_FATAL(c.h.size, 1);
	CU_ASSERT_EQUAL(c.h.b[0], 1);
}

static void test_ecc_parameters_p384(void)
{
	struct curve_detail c;

	CU_ASSERT_EQUAL_FATAL(ecc_parameters(TPM_ECC_NIST_P384, &c), 0);
	CU_ASSERT_EQUAL(c.key_size, 384);
	CU_ASSERT_EQUAL(c.p.size, 48);
	CU_ASSERT_EQUAL(c.n.size, 48);
	/* the generator is on the curve the TPM describes */
	CU_ASSERT_EQUAL(crypto_ecc_check_point(TPM_ECC_NIST_P384, c.gx.b, c.gx.size, c.gy.b,
					       c.gy.size),
			0);
	/* p = 2^384 - 2^128 - 2^96 + 2^32 - 1 ends ...00000000FFFFFFFF */
	CU_ASSERT_EQUAL(c.p.b[0], 0xFF);
	CU_ASSERT_EQUAL(c.p.b[40], 0x00);
	CU_ASSERT_EQUAL(c.p.b[47], 0xFF);
	CU_ASSERT_EQUAL(c.h.size, 1);
}

/* P-521 (FIPS 186-4 D.1.2.5): p = 2^521 - 1, b and the generator as published, in 66 bytes */
static void test_ecc_parameters_p521(void)
{
	static const char b_hex[] =
		"0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef1"
		"09e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00";
	static const char gx_hex[] =
		"00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d"
		"3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66";
	uint8_t want[66];
	struct curve_detail c;

	CU_ASSERT_EQUAL_FATAL(ecc_parameters(TPM_ECC_NIST_P521, &c), 0);
	CU_ASSERT_EQUAL(c.curve, TPM_ECC_NIST_P521);
	CU_ASSERT_EQUAL(c.key_size, 521);
	CU_ASSERT_EQUAL_FATAL(c.p.size, 66);
	CU_ASSERT_EQUAL(c.p.b[0], 0x01);
	for (size_t i = 1; i < 66; i++)
		CU_ASSERT_EQUAL(c.p.b[i], 0xff);
	CU_ASSERT_EQUAL_FATAL(c.b.size, 66);
	vec_unhex(b_hex, want);
	CU_ASSERT_EQUAL(memcmp(c.b.b, want, 66), 0);
	CU_ASSERT_EQUAL_FATAL(c.gx.size, 66);
	vec_unhex(gx_hex, want);
	CU_ASSERT_EQUAL(memcmp(c.gx.b, want, 66), 0);
	CU_ASSERT_EQUAL(c.n.size, 66);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(TPM_ECC_NIST_P521, c.gx.b, c.gx.size, c.gy.b,
					       c.gy.size),
			0);
	CU_ASSERT(c.h.size == 1 && c.h.b[0] == 1);
}

static void test_ecc_parameters_unsupported(void)
{
	struct curve_detail c;

	CU_ASSERT_EQUAL(ecc_parameters(TPM_ECC_BN_P256, &c), RC_P(TPM_RC_CURVE, 1));
	CU_ASSERT_EQUAL(ecc_parameters(TPM_ECC_NONE, &c), RC_P(TPM_RC_CURVE, 1));
	CU_ASSERT_EQUAL(ecc_parameters(0xFFFF, &c), RC_P(TPM_RC_CURVE, 1));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ECDH P-256: KeyGen, ZGen, outside ECDH", test_ecdh_p256 },
		{ "ECDH P-384: KeyGen, ZGen, outside ECDH", test_ecdh_p384 },
		{ "ECDH P-521: KeyGen, ZGen, outside ECDH", test_ecdh_p521 },
		{ "ZGen refuses bad points", test_zgen_bad_points },
		{ "ZGen and KeyGen key checks", test_zgen_keys },
		{ "ECC_Parameters P-256", test_ecc_parameters_p256 },
		{ "ECC_Parameters P-384", test_ecc_parameters_p384 },
		{ "ECC_Parameters P-521", test_ecc_parameters_p521 },
		{ "ECC_Parameters unsupported curves", test_ecc_parameters_unsupported },
	};

	return UNIT_RUN("ecc", tests, setup, teardown);
}
