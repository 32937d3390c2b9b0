/* EC_Ephemeral, Commit, ZGen_2Phase, and the ECDAA and EC Schnorr sign schemes: each checked
 * against the other party's side computed here with the test's own scalars: ECDH's
 * ephemeral Z2 = [x]QeA, ECMQV's Z from B's implicit signature, the ECDAA equation
 * [s]G = E + [T]Q with E from Commit; a commit is used once; EC Schnorr signatures verify
 * in VerifySignature and a changed digest does not. Each on P-256 and on P-521 (whose order
 * of 521 bits is no whole number of bytes: ECMQV's avf, the commit's r). */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "unit_main.h"

#define MAXLEN 66 /* P-521 */

static struct harness h;
static struct cmdbuf b;
/* the curve of the test running, and its size in bytes */
static uint16_t CURVE;
static size_t LEN;

struct pt {
	uint8_t x[MAXLEN], y[MAXLEN];
};

static bool pt_eq(const struct pt *a, const struct pt *b)
{
	return memcmp(a->x, b->x, LEN) == 0 && memcmp(a->y, b->y, LEN) == 0;
}

static void rd_pt(struct rd *r, struct pt *p)
{
	struct tpm2b_ecc_parameter x, y;

	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_ecc_point(r, &x, &y, false), 0);
	CU_ASSERT_EQUAL_FATAL(x.size, LEN);
	CU_ASSERT_EQUAL_FATAL(y.size, LEN);
	memcpy(p->x, x.b, LEN);
	memcpy(p->y, y.b, LEN);
}

static void key_with(TPM_ALG_ID scheme, uint32_t attrs, struct key *k)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_ECC, attrs);
	t.curve_id = CURVE;
	t.scheme.scheme = scheme;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	key_primary(&h, &t, NULL, 0, k);
}

/* A scalar and its point, made here: the other party's keys. */
static void party(uint8_t *d, struct pt *q)
{
	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), CURVE, d, q->x, q->y), 0);
}

static void key_pt(const struct key *k, struct pt *q)
{
	memcpy(q->x, k->pub.x.b, LEN);
	memcpy(q->y, k->pub.y.b, LEN);
}

static TPM_RC ephemeral(struct pt *q, uint16_t *counter)
{
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_EC_Ephemeral);
	wr_u16(&b.params, CURVE);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		rd_pt(&r, q);
		CU_ASSERT_EQUAL(rd_u16(&r, counter), 0);
	}
	return rc;
}

static TPM_RC zgen(const struct key *k, const struct pt *qs, const struct pt *qe,
		   TPM_ALG_ID scheme, uint16_t counter, struct pt *z1, struct pt *z2)
{
	struct tpm2b_ecc_parameter x, y;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ZGen_2Phase);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b_ecc_point(&b.params, qs->x, qs->y, LEN);
	wr_tpm2b_ecc_point(&b.params, qe->x, qe->y, LEN);
	wr_u16(&b.params, scheme);
	wr_u16(&b.params, counter);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rd_pt(&r, z1);
	if (z2)
		rd_pt(&r, z2);
	else /* the Empty Point */
		CU_ASSERT(rd_tpm2b_ecc_point(&r, &x, &y, true) == 0 && x.size == 0 && y.size == 0);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static void ephemeral_counters(void)
{
	struct pt q;
	uint16_t c0 = 99, c1 = 99;

	harness_open(&h);
	CU_ASSERT_EQUAL(ephemeral(&q, &c0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(CURVE, q.x, LEN, q.y, LEN), 0);
	CU_ASSERT_EQUAL(ephemeral(&q, &c1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(c0, 0);
	CU_ASSERT_EQUAL(c1, 1);
	cmd_begin(&b, TPM_CC_EC_Ephemeral);
	wr_u16(&b.params, 0x7777);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_CURVE, 1));
	harness_close(&h);
}

/* ECDH: Z1 = [dsA]QsB = [dsB]QsA, Z2 = [r]QeB = [deB]QeA; the commit is used once. */
static void zgen_ecdh(void)
{
	uint8_t dsb[MAXLEN], deb[MAXLEN];
	struct pt qsb, qeb, qea, qsa, z1, z2, want;
	uint16_t counter;
	struct key k;

	harness_open(&h);
	key_with(TPM_ALG_ECDH, TPMA_OBJECT_DECRYPT, &k);
	key_pt(&k, &qsa);
	party(dsb, &qsb);
	party(deb, &qeb);
	CU_ASSERT_EQUAL_FATAL(ephemeral(&qea, &counter), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(zgen(&k, &qsb, &qeb, TPM_ALG_ECDH, counter, &z1, &z2), 0);
	CU_ASSERT_EQUAL(crypto_ecc_mul(CURVE, dsb, qsa.x, qsa.y, want.x, want.y), 0);
	CU_ASSERT(pt_eq(&z1, &want));
	CU_ASSERT_EQUAL(crypto_ecc_mul(CURVE, deb, qea.x, qea.y, want.x, want.y), 0);
	CU_ASSERT(pt_eq(&z2, &want));
	CU_ASSERT_EQUAL(zgen(&k, &qsb, &qeb, TPM_ALG_ECDH, counter, &z1, &z2),
			RC_P(TPM_RC_VALUE, 4));
	CU_ASSERT_EQUAL(zgen(&k, &qsb, &qeb, TPM_ALG_ECDH, counter + 1, &z1, &z2),
			RC_P(TPM_RC_VALUE, 4));
	/* the key's scheme decides; ECMQV is not this key's */
	CU_ASSERT_EQUAL_FATAL(ephemeral(&qea, &counter), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(zgen(&k, &qsb, &qeb, TPM_ALG_ECMQV, counter, &z1, NULL),
			RC_P(TPM_RC_SCHEME, 3));
	qeb.y[LEN - 1] ^= 1;
	CU_ASSERT_EQUAL(zgen(&k, &qsb, &qeb, TPM_ALG_ECDH, counter, &z1, &z2),
			RC_P(TPM_RC_ECC_POINT, 2));
	harness_close(&h);
}

/* avf(Q) = (Q.x mod 2^h) + 2^h, h = ceil(f / 2) for an order of f bits (SP 800-56A), bit by
 * bit here for B's side: h = 128 on P-256, 261 on P-521. */
static void avf_b(const uint8_t *x, uint8_t *out)
{
	struct crypto_ecc_params p;
	unsigned h;

	CU_ASSERT_EQUAL_FATAL(crypto_ecc_params(CURVE, &p), 0);
	h = (p.key_bits + 1) / 2;
	memset(out, 0, LEN);
	for (unsigned bit = 0; bit <= h; bit++) {
		size_t at = LEN - 1 - bit / 8;
		uint8_t m = (uint8_t)(1u << (bit % 8));

		if (bit == h || (x[at] & m))
			out[at] |= m;
	}
}

/* ECMQV: B computes sB = deB + avf(QeB) dsB and Z = [sB](QeA + [avf(QeA)]QsA). */
static void zgen_ecmqv(void)
{
	uint8_t dsb[MAXLEN], deb[MAXLEN], va[MAXLEN], vb[MAXLEN], sb[MAXLEN];
	struct pt qsb, qeb, qea, qsa, z1, t, want;
	uint16_t counter;
	struct key k;

	harness_open(&h);
	key_with(TPM_ALG_ECMQV, TPMA_OBJECT_DECRYPT, &k);
	key_pt(&k, &qsa);
	party(dsb, &qsb);
	party(deb, &qeb);
	CU_ASSERT_EQUAL_FATAL(ephemeral(&qea, &counter), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(zgen(&k, &qsb, &qeb, TPM_ALG_ECMQV, counter, &z1, NULL), 0);
	avf_b(qeb.x, vb);
	avf_b(qea.x, va);
	CU_ASSERT_EQUAL(crypto_ecc_scalar_muladd(CURVE, deb, vb, dsb, sb), 0);
	CU_ASSERT_EQUAL(crypto_ecc_mul(CURVE, va, qsa.x, qsa.y, t.x, t.y), 0);
	CU_ASSERT_EQUAL(crypto_ecc_add(CURVE, qea.x, qea.y, t.x, t.y, t.x, t.y), 0);
	CU_ASSERT_EQUAL(crypto_ecc_mul(CURVE, sb, t.x, t.y, want.x, want.y), 0);
	CU_ASSERT(pt_eq(&z1, &want));
	harness_close(&h);
}

static TPM_RC commit(const struct key *k, struct pt *e, uint16_t *counter)
{
	struct tpm2b_ecc_parameter x, y;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Commit);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, "", 0);
	wr_tpm2b(&b.params, "", 0);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	/* K and L: Empty Points without P2 */
	for (int i = 0; i < 2; i++)
		CU_ASSERT(rd_tpm2b_ecc_point(&r, &x, &y, true) == 0 && x.size == 0);
	rd_pt(&r, e);
	CU_ASSERT_EQUAL(rd_u16(&r, counter), 0);
	return rc;
}

static TPM_RC sign(const struct key *k, TPM_ALG_ID scheme, uint16_t count,
		   const uint8_t *digest, struct tpmt_signature *sig)
{
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, digest, 32);
	wr_u16(&b.params, scheme);
	if (scheme != TPM_ALG_NULL)
		wr_u16(&b.params, TPM_ALG_SHA256);
	if (scheme == TPM_ALG_ECDAA)
		wr_u16(&b.params, count);
	wr_u16(&b.params, TPM_ST_HASHCHECK);
	wr_u32(&b.params, TPM_RH_NULL);
	wr_u16(&b.params, 0);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_signature(&r, sig), 0);
	return rc;
}

/* ECDAA: T = H(R || digest) mod n, and [S]G = E + [T]Q with E = [r]G from the commit. */
static void commit_ecdaa(void)
{
	static const uint8_t digest[32] = { 1, 2, 3 };
	struct tpmt_signature sig;
	struct pt e0, e1, q, lhs, rhs, tq;
	uint8_t hin[MAXLEN + 32], t[32], tn[MAXLEN];
	uint16_t c0, c1;
	struct key k, ecdsa;

	harness_open(&h);
	key_with(TPM_ALG_ECDAA, TPMA_OBJECT_SIGN_ENCRYPT, &k);
	key_pt(&k, &q);
	CU_ASSERT_EQUAL_FATAL(commit(&k, &e0, &c0), 0);
	CU_ASSERT_EQUAL_FATAL(commit(&k, &e1, &c1), 0);
	CU_ASSERT_EQUAL(c1, c0 + 1);
	CU_ASSERT_EQUAL_FATAL(sign(&k, TPM_ALG_ECDAA, c1, digest, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_ECDAA);
	CU_ASSERT_EQUAL_FATAL(sig.r.size, LEN);
	memcpy(hin, sig.r.b, LEN);
	memcpy(hin + LEN, digest, 32);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, hin, LEN + 32, t), 0);
	CU_ASSERT_EQUAL(crypto_ecc_scalar_reduce(CURVE, t, 32, tn), 0);
	CU_ASSERT_EQUAL(crypto_ecc_mul(CURVE, sig.s.b, NULL, NULL, lhs.x, lhs.y), 0);
	CU_ASSERT_EQUAL(crypto_ecc_mul(CURVE, tn, q.x, q.y, tq.x, tq.y), 0);
	CU_ASSERT_EQUAL(crypto_ecc_add(CURVE, e1.x, e1.y, tq.x, tq.y, rhs.x, rhs.y), 0);
	CU_ASSERT(pt_eq(&lhs, &rhs));
	/* used: not again; the other commit (the key's default count 0) still signs */
	CU_ASSERT_EQUAL(sign(&k, TPM_ALG_ECDAA, c1, digest, &sig), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(sign(&k, TPM_ALG_NULL, 0, digest, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sign(&k, TPM_ALG_NULL, 0, digest, &sig), RC_P(TPM_RC_VALUE, 2));
	/* Commit is for a key of the anonymous scheme */
	key_with(TPM_ALG_ECDSA, TPMA_OBJECT_SIGN_ENCRYPT, &ecdsa);
	CU_ASSERT_EQUAL(commit(&ecdsa, &e0, &c0), RC_H(TPM_RC_SCHEME, 1));
	harness_close(&h);
}

static TPM_RC verify(const struct key *k, const uint8_t *digest, const struct tpmt_signature *s)
{
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, k->handle);
	wr_tpm2b(&b.params, digest, 32);
	wr_signature(&b.params, s);
	return harness_run(&h, &b, NULL, NULL);
}

static void ecschnorr(void)
{
	uint8_t digest[32] = { 9, 8, 7 };
	struct tpmt_signature sig;
	struct key k;

	harness_open(&h);
	key_with(TPM_ALG_ECSCHNORR, TPMA_OBJECT_SIGN_ENCRYPT, &k);
	CU_ASSERT_EQUAL_FATAL(sign(&k, TPM_ALG_NULL, 0, digest, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_ECSCHNORR);
	CU_ASSERT_EQUAL(verify(&k, digest, &sig), TPM_RC_SUCCESS);
	digest[0] ^= 1;
	CU_ASSERT_EQUAL(verify(&k, digest, &sig), RC_P(TPM_RC_SIGNATURE, 2));
	digest[0] ^= 1;
	sig.s.b[LEN - 1] ^= 1;
	CU_ASSERT_EQUAL(verify(&k, digest, &sig), RC_P(TPM_RC_SIGNATURE, 2));
	harness_close(&h);
}

/* Each test on P-256, then on P-521 */
#define ON_BOTH(name)                                                                      \
	static void test_##name(void)                                                      \
	{                                                                                  \
		CURVE = TPM_ECC_NIST_P256;                                                 \
		LEN = 32;                                                                  \
		name();                                                                    \
		CURVE = TPM_ECC_NIST_P521;                                                 \
		LEN = 66;                                                                  \
		name();                                                                    \
	}
ON_BOTH(ephemeral_counters)
ON_BOTH(zgen_ecdh)
ON_BOTH(zgen_ecmqv)
ON_BOTH(commit_ecdaa)
ON_BOTH(ecschnorr)

int main(void)
{
	static const struct unit_test tests[] = {
		{ "EC_Ephemeral counts its commits", test_ephemeral_counters },
		{ "ZGen_2Phase ECDH against the other party", test_zgen_ecdh },
		{ "ZGen_2Phase ECMQV against the other party", test_zgen_ecmqv },
		{ "Commit and an ECDAA signature", test_commit_ecdaa },
		{ "EC Schnorr sign and verify", test_ecschnorr },
	};

	return UNIT_RUN("ecc commit", tests, NULL, NULL);
}
