/* The client library's parsers are those of a client of any TPM 2.0: public areas with curves,
 * schemes, ciphers and hashes this library does not implement (BN-256, P-521, SM2, SM4,
 * Camellia, ECDAA, IDs it has never heard of, as long as their wire layout is known) parse;
 * every truncation and every trailing byte is refused with PQTPM_TSS_RC_MALFORMED; the same for
 * signatures of every kind and tickets (with the v1.85 DIGEST_VERIFIED metadata). Inputs are
 * built here byte by byte, as another TPM would send them. */
#include <string.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "tss_int.h"
#include "unit_main.h"

#define ALG_UNKNOWN_SCHEME 0x00F1 /* no TCG algorithm: a scheme with a hash, as Part 2's arms */
#define ALG_UNKNOWN_CIPHER 0x00F2 /* no TCG algorithm: a block cipher (keyBits, mode) */
#define OBJ_ATTRS 0x00060072u

static uint8_t buf[PQTPM_TSS_MAX_PUBLIC];
static struct wr w;

static void start(void)
{
	wr_init(&w, buf, sizeof(buf));
}

static void u16(uint16_t v)
{
	CU_ASSERT_EQUAL_FATAL(wr_u16(&w, v), TPM_RC_SUCCESS);
}

static void u32(uint32_t v)
{
	CU_ASSERT_EQUAL_FATAL(wr_u32(&w, v), TPM_RC_SUCCESS);
}

/* a TPM2B of n bytes of value v */
static void b2(uint16_t n, uint8_t v)
{
	uint8_t b[600];

	CU_ASSERT_FATAL(n <= sizeof(b));
	memset(b, v, n);
	CU_ASSERT_EQUAL_FATAL(wr_tpm2b(&w, b, n), TPM_RC_SUCCESS);
}

static void header(TPM_ALG_ID type, TPM_ALG_ID name_alg)
{
	start();
	u16(type);
	u16(name_alg);
	u32(OBJ_ATTRS);
	b2(32, 0x50); /* authPolicy */
}

/* The walk accepts exactly the bytes written: every shorter prefix and one byte more are
 * refused. */
static void expect_exact(const char *what, struct tss_public *p)
{
	size_t len = w.off;

	CU_ASSERT_EQUAL(tss_public_walk(buf, len, p), TPM_RC_SUCCESS);
	for (size_t cut = 0; cut < len; cut++) {
		struct tss_public q;

		if (tss_public_walk(buf, cut, &q) != PQTPM_TSS_RC_MALFORMED) {
			printf("%s: a cut at %zu of %zu was not refused\n", what, cut, len);
			CU_FAIL("truncation accepted");
		}
	}
	buf[len] = 0;
	{
		struct tss_public q;

		CU_ASSERT_EQUAL(tss_public_walk(buf, len + 1, &q), PQTPM_TSS_RC_MALFORMED);
	}
	CU_ASSERT_EQUAL(tss_public_walk(buf, len, p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p->name_alg, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(p->attributes, OBJ_ATTRS);
	CU_ASSERT_EQUAL(p->policy.size, 32);
}

static void ecc(uint16_t curve, TPM_ALG_ID scheme, TPM_ALG_ID kdf, uint16_t coord)
{
	struct tss_public p;
	const uint8_t *key;
	size_t len;
	struct pqtpm_tss_public pub;

	header(TPM_ALG_ECC, TPM_ALG_SHA256);
	u16(TPM_ALG_NULL); /* symmetric */
	u16(scheme);
	if (scheme != TPM_ALG_NULL)
		u16(TPM_ALG_SHA384);
	if (scheme == TPM_ALG_ECDAA)
		u16(7); /* count */
	u16(curve);
	u16(kdf);
	if (kdf != TPM_ALG_NULL)
		u16(TPM_ALG_SHA256);
	b2(coord, 0x11);
	b2(coord, 0x22);
	expect_exact("ecc", &p);
	CU_ASSERT_EQUAL(p.type, TPM_ALG_ECC);
	CU_ASSERT_EQUAL(p.curve, curve);
	CU_ASSERT_EQUAL(p.scheme.scheme, scheme);
	CU_ASSERT_EQUAL(p.scheme.hash, scheme == TPM_ALG_NULL ? TPM_ALG_NULL : TPM_ALG_SHA384);
	CU_ASSERT_EQUAL(p.scheme.count, scheme == TPM_ALG_ECDAA ? 7 : 0);
	CU_ASSERT_EQUAL(p.kdf.scheme, kdf);
	CU_ASSERT_EQUAL(p.unique.size, coord);
	CU_ASSERT_EQUAL(p.unique_y.size, coord);
	CU_ASSERT(coord == 0 || (p.unique.b[0] == 0x11 && p.unique_y.b[0] == 0x22));
	/* the public API says the same */
	memcpy(pub.b, buf, w.off);
	pub.size = (uint16_t)w.off;
	CU_ASSERT_EQUAL(pqtpm_tss_public_type(&pub), TPM_ALG_ECC);
	CU_ASSERT_EQUAL(pqtpm_tss_public_key(&pub, &key, &len), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(len, coord);
	CU_ASSERT(coord == 0 || key[0] == 0x11);
}

static void test_ecc_curves(void)
{
	ecc(TPM_ECC_BN_P256, TPM_ALG_ECDAA, TPM_ALG_NULL, 32);
	ecc(TPM_ECC_NIST_P521, TPM_ALG_ECDSA, TPM_ALG_KDF2, 66);
	ecc(TPM_ECC_SM2_P256, TPM_ALG_SM2, TPM_ALG_KDF1_SP800_56A, 32);
	ecc(TPM_ECC_BN_P638, TPM_ALG_ECSCHNORR, TPM_ALG_MGF1, 80);
	ecc(0x7777, TPM_ALG_ECMQV, ALG_UNKNOWN_SCHEME, 0); /* a curve ID nobody assigned */
	ecc(TPM_ECC_NIST_P256, TPM_ALG_NULL, TPM_ALG_NULL, 0); /* a template */
	ecc(TPM_ECC_NIST_P384, ALG_UNKNOWN_SCHEME, TPM_ALG_NULL, 48);
}

static void rsa(TPM_ALG_ID sym, TPM_ALG_ID scheme, int scheme_has_hash)
{
	struct tss_public p;

	header(TPM_ALG_RSA, TPM_ALG_SHA256);
	u16(sym);
	if (sym != TPM_ALG_NULL) {
		u16(128);
		u16(TPM_ALG_CFB);
	}
	u16(scheme);
	if (scheme_has_hash)
		u16(TPM_ALG_SHA1);
	u16(4096);
	u32(65537);
	b2(512, 0xA5);
	expect_exact("rsa", &p);
	CU_ASSERT_EQUAL(p.type, TPM_ALG_RSA);
	CU_ASSERT_EQUAL(p.sym.alg, sym);
	CU_ASSERT_EQUAL(p.sym.bits, sym == TPM_ALG_NULL ? 0 : 128);
	CU_ASSERT_EQUAL(p.scheme.scheme, scheme);
	CU_ASSERT_EQUAL(p.scheme.hash, scheme_has_hash ? TPM_ALG_SHA1 : TPM_ALG_NULL);
	CU_ASSERT_EQUAL(p.rsa_bits, 4096);
	CU_ASSERT_EQUAL(p.exponent, 65537);
	CU_ASSERT_EQUAL(p.unique.size, 512);
}

static void test_rsa(void)
{
	rsa(TPM_ALG_AES, TPM_ALG_NULL, 0);
	rsa(TPM_ALG_SM4, TPM_ALG_OAEP, 1);
	rsa(TPM_ALG_CAMELLIA, TPM_ALG_RSAES, 0);
	rsa(ALG_UNKNOWN_CIPHER, TPM_ALG_RSAPSS, 1);
	rsa(TPM_ALG_NULL, ALG_UNKNOWN_SCHEME, 1);
}

static void test_keyedhash_symcipher(void)
{
	struct tss_public p;

	header(TPM_ALG_KEYEDHASH, TPM_ALG_SHA256);
	u16(TPM_ALG_XOR);
	u16(TPM_ALG_SHA512);
	u16(TPM_ALG_KDF1_SP800_108);
	b2(64, 1);
	expect_exact("xor", &p);
	CU_ASSERT_EQUAL(p.scheme.scheme, TPM_ALG_XOR);
	CU_ASSERT_EQUAL(p.scheme.hash, TPM_ALG_SHA512);
	CU_ASSERT_EQUAL(p.scheme.kdf, TPM_ALG_KDF1_SP800_108);

	header(TPM_ALG_KEYEDHASH, TPM_ALG_SHA256);
	u16(TPM_ALG_HMAC);
	u16(TPM_ALG_SM3_256);
	b2(32, 1);
	expect_exact("hmac", &p);
	CU_ASSERT_EQUAL(p.scheme.hash, TPM_ALG_SM3_256);

	header(TPM_ALG_KEYEDHASH, TPM_ALG_SHA256);
	u16(TPM_ALG_NULL);
	b2(0, 0);
	expect_exact("sealed", &p);

	header(TPM_ALG_SYMCIPHER, TPM_ALG_SHA256);
	u16(TPM_ALG_SM4);
	u16(128);
	u16(TPM_ALG_CBC);
	b2(32, 3);
	expect_exact("symcipher", &p);
	CU_ASSERT_EQUAL(p.sym.alg, TPM_ALG_SM4);
	CU_ASSERT_EQUAL(p.sym.mode, TPM_ALG_CBC);

	header(TPM_ALG_SYMCIPHER, TPM_ALG_SHA256);
	u16(ALG_UNKNOWN_CIPHER);
	u16(256);
	u16(TPM_ALG_CTR);
	b2(32, 3);
	expect_exact("unknown cipher", &p);
	CU_ASSERT_EQUAL(p.sym.bits, 256);
}

static void test_pq(void)
{
	struct tss_public p;

	header(TPM_ALG_MLDSA, TPM_ALG_SHA256);
	u16(TPM_MLDSA_87);
	CU_ASSERT_EQUAL_FATAL(wr_u8(&w, 1), TPM_RC_SUCCESS);
	b2(600, 9); /* shortened: the walk judges the shape, not the key's size */
	expect_exact("mldsa", &p);
	CU_ASSERT_EQUAL(p.parameter_set, TPM_MLDSA_87);
	CU_ASSERT_EQUAL(p.allow_external_mu, 1);

	header(TPM_ALG_HASH_MLDSA, TPM_ALG_SHA256);
	u16(TPM_MLDSA_44);
	u16(TPM_ALG_SHA3_512);
	b2(500, 9);
	expect_exact("hash-mldsa", &p);
	CU_ASSERT_EQUAL(p.pre_hash, TPM_ALG_SHA3_512);

	header(TPM_ALG_MLKEM, TPM_ALG_SHA256);
	u16(TPM_ALG_AES);
	u16(256);
	u16(TPM_ALG_CFB);
	u16(TPM_MLKEM_1024);
	b2(568, 8);
	expect_exact("mlkem", &p);
	CU_ASSERT_EQUAL(p.parameter_set, TPM_MLKEM_1024);
	CU_ASSERT_EQUAL(p.sym.bits, 256);
	CU_ASSERT_EQUAL(p.unique.size, 568);
}

/* No layout known for an unknown object type: refused, not guessed. */
static void test_unknown_type(void)
{
	struct tss_public p;

	header(0x00F3, TPM_ALG_SHA256);
	b2(4, 0);
	CU_ASSERT_EQUAL(tss_public_walk(buf, w.off, &p), PQTPM_TSS_RC_MALFORMED);
}

/* Each template the library builds walks back to what was asked. */
static void test_templates(void)
{
	static const TPM_ALG_ID types[] = { TPM_ALG_RSA,   TPM_ALG_ECC,	   TPM_ALG_KEYEDHASH,
					    TPM_ALG_SYMCIPHER, TPM_ALG_MLDSA, TPM_ALG_HASH_MLDSA,
					    TPM_ALG_MLKEM };
	static struct pqtpm_tss_public pub;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct pqtpm_tss_template t = {
			.type = types[i],
			.attributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
			.parameter_set = 2,
			.curve = TPM_ECC_BN_P256,
		};
		struct tss_public p;

		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&t, &pub), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(tss_public_walk(pub.b, pub.size, &p), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(p.type, types[i]);
		CU_ASSERT_EQUAL(p.name_alg, TPM_ALG_SHA256);
		if (types[i] == TPM_ALG_ECC)
			CU_ASSERT_EQUAL(p.curve, TPM_ECC_BN_P256);
		if (types[i] == TPM_ALG_RSA || types[i] == TPM_ALG_MLKEM ||
		    types[i] == TPM_ALG_SYMCIPHER)
			CU_ASSERT_EQUAL(p.sym.alg, TPM_ALG_AES);
	}
	{
		struct pqtpm_tss_template t = { .type = 0x00F3 };

		CU_ASSERT_EQUAL(pqtpm_tss_template_public(&t, &pub), PQTPM_TSS_RC_BAD_VALUE);
	}
	{
		/* a symCipher key's mode, a public key given as unique */
		static const uint8_t ek[3] = { 1, 2, 3 };
		struct pqtpm_tss_template t = { .type = TPM_ALG_SYMCIPHER,
						.sym_bits = 256,
						.sym_mode = TPM_ALG_NULL };
		struct tss_public p;

		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&t, &pub), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(tss_public_walk(pub.b, pub.size, &p), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(p.sym.bits, 256);
		CU_ASSERT_EQUAL(p.sym.mode, TPM_ALG_NULL);
		t.sym_mode = 0;
		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&t, &pub), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(tss_public_walk(pub.b, pub.size, &p), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(p.sym.mode, TPM_ALG_CFB);
		t = (struct pqtpm_tss_template){ .type = TPM_ALG_MLKEM,
						 .parameter_set = 1,
						 .unique = ek,
						 .unique_len = sizeof(ek) };
		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&t, &pub), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(tss_public_walk(pub.b, pub.size, &p), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(p.unique.size, sizeof(ek));
		CU_ASSERT_EQUAL(memcmp(p.unique.b, ek, sizeof(ek)), 0);
		t.unique = NULL;
		CU_ASSERT_EQUAL(pqtpm_tss_template_public(&t, &pub), PQTPM_TSS_RC_BAD_VALUE);
		t.unique = ek;
		t.type = TPM_ALG_ECC; /* two coordinates: not one unique */
		CU_ASSERT_EQUAL(pqtpm_tss_template_public(&t, &pub), PQTPM_TSS_RC_BAD_VALUE);
		t.unique_y = ek + 1;
		t.unique_y_len = 2;
		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&t, &pub), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(tss_public_walk(pub.b, pub.size, &p), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(p.unique.size, sizeof(ek));
		CU_ASSERT_EQUAL(p.unique_y.size, 2);
		CU_ASSERT_EQUAL(p.unique_y.b[0], 2);
		t.unique_len = 0; /* y without x */
		CU_ASSERT_EQUAL(pqtpm_tss_template_public(&t, &pub), PQTPM_TSS_RC_BAD_VALUE);
		t.unique_len = sizeof(ek);
		t.type = TPM_ALG_MLKEM; /* a second coordinate only for ECC */
		CU_ASSERT_EQUAL(pqtpm_tss_template_public(&t, &pub), PQTPM_TSS_RC_BAD_VALUE);
	}
}

/* A TPM2B_PUBLIC in a response: taken by its size, refused when empty, larger than what
 * remains, or larger than a pqtpm_tss_public holds. */
static void test_tpm2b_public(void)
{
	static uint8_t rsp[PQTPM_TSS_MAX_PUBLIC + 16];
	static struct pqtpm_tss_public pub;
	struct wr o;
	struct rd r;

	wr_init(&o, rsp, sizeof(rsp));
	CU_ASSERT_EQUAL(wr_u16(&o, 6), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(wr_u16(&o, 0x00F3), TPM_RC_SUCCESS); /* a type unknown here: passed on */
	CU_ASSERT_EQUAL(wr_u32(&o, 0), TPM_RC_SUCCESS);
	rd_init(&r, rsp, o.off);
	CU_ASSERT_EQUAL(tss_rd_public(&r, &pub), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pub.size, 6);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	for (size_t cut = 0; cut < o.off; cut++) {
		rd_init(&r, rsp, cut);
		CU_ASSERT_EQUAL(tss_rd_public(&r, &pub), PQTPM_TSS_RC_MALFORMED);
	}
	rsp[0] = rsp[1] = 0;
	rd_init(&r, rsp, 2);
	CU_ASSERT_EQUAL(tss_rd_public(&r, &pub), PQTPM_TSS_RC_MALFORMED);
	wr_init(&o, rsp, sizeof(rsp));
	CU_ASSERT_EQUAL(wr_u16(&o, PQTPM_TSS_MAX_PUBLIC + 1), TPM_RC_SUCCESS);
	memset(rsp + 2, 0, PQTPM_TSS_MAX_PUBLIC + 1);
	rd_init(&r, rsp, PQTPM_TSS_MAX_PUBLIC + 3);
	CU_ASSERT_EQUAL(tss_rd_public(&r, &pub), PQTPM_TSS_RC_MALFORMED);
}

/* One signature: taken whole from a stream (every cut refused), then parsed by the API. */
static void signature(const char *what, TPM_RC want_parse, TPM_ALG_ID want_alg,
		      TPM_ALG_ID want_hash, size_t want_len)
{
	static struct pqtpm_tss_signature s;
	size_t len = w.off, slen = 0;
	const uint8_t *sig;
	TPM_ALG_ID alg, hash;
	struct rd r;

	rd_init(&r, buf, len);
	CU_ASSERT_EQUAL(tss_rd_signature(&r, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.size, len);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	for (size_t cut = 0; cut < len; cut++) {
		rd_init(&r, buf, cut);
		if (tss_rd_signature(&r, &s) != PQTPM_TSS_RC_MALFORMED) {
			printf("%s: a cut at %zu of %zu was not refused\n", what, cut, len);
			CU_FAIL("truncation accepted");
		}
	}
	memcpy(s.b, buf, len);
	s.size = (uint16_t)len;
	CU_ASSERT_EQUAL(pqtpm_tss_signature_parse(&s, &alg, &hash, &sig, &slen), want_parse);
	if (want_parse == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(alg, want_alg);
		CU_ASSERT_EQUAL(hash, want_hash);
		CU_ASSERT_EQUAL(slen, want_len);
	}
	s.b[len] = 0;
	s.size = (uint16_t)(len + 1); /* a trailing byte */
	CU_ASSERT_EQUAL(pqtpm_tss_signature_parse(&s, &alg, &hash, &sig, &slen),
			PQTPM_TSS_RC_MALFORMED);
}

static void test_signatures(void)
{
	static const TPM_ALG_ID ecc_kinds[] = { TPM_ALG_ECDSA, TPM_ALG_ECDAA, TPM_ALG_SM2,
						TPM_ALG_ECSCHNORR };
	static const TPM_ALG_ID rsa_kinds[] = { TPM_ALG_RSASSA, TPM_ALG_RSAPSS };
	struct pqtpm_tss_signature s;
	const uint8_t *sig;
	TPM_ALG_ID alg, hash;
	size_t slen;

	for (size_t i = 0; i < 2; i++) {
		start();
		u16(rsa_kinds[i]);
		u16(TPM_ALG_SHA256);
		b2(256, 0x33);
		signature("rsa", TPM_RC_SUCCESS, rsa_kinds[i], TPM_ALG_SHA256, 256);
	}
	for (size_t i = 0; i < 4; i++) { /* two values: the API has no one byte string */
		start();
		u16(ecc_kinds[i]);
		u16(TPM_ALG_SM3_256);
		b2(32, 1);
		b2(32, 2);
		signature("ecc", PQTPM_TSS_RC_BAD_VALUE, 0, 0, 0);
	}
	start();
	u16(TPM_ALG_HMAC);
	u16(TPM_ALG_SHA384);
	for (int i = 0; i < 48; i++)
		CU_ASSERT_EQUAL_FATAL(wr_u8(&w, (uint8_t)i), TPM_RC_SUCCESS);
	signature("hmac", TPM_RC_SUCCESS, TPM_ALG_HMAC, TPM_ALG_SHA384, 48);
	start();
	u16(TPM_ALG_MLDSA);
	b2(580, 4);
	signature("mldsa", TPM_RC_SUCCESS, TPM_ALG_MLDSA, TPM_ALG_NULL, 580);
	start();
	u16(TPM_ALG_HASH_MLDSA);
	u16(TPM_ALG_SHA512);
	b2(580, 4);
	signature("hash-mldsa", TPM_RC_SUCCESS, TPM_ALG_HASH_MLDSA, TPM_ALG_SHA512, 580);
	start();
	u16(TPM_ALG_NULL);
	signature("null", PQTPM_TSS_RC_BAD_VALUE, 0, 0, 0);

	/* no length can be told: an unknown signature kind, an HMAC of an unknown hash */
	s.size = 4;
	memcpy(s.b, "\x00\xF1\x00\x0B", 4);
	CU_ASSERT_EQUAL(pqtpm_tss_signature_parse(&s, &alg, &hash, &sig, &slen),
			PQTPM_TSS_RC_MALFORMED);
	memcpy(s.b, "\x00\x05\x00\xF1", 4);
	CU_ASSERT_EQUAL(pqtpm_tss_signature_parse(&s, &alg, &hash, &sig, &slen),
			PQTPM_TSS_RC_MALFORMED);

	/* signature_make writes what signature_parse reads */
	CU_ASSERT_EQUAL(pqtpm_tss_signature_make(TPM_ALG_RSAPSS, TPM_ALG_SHA256, buf, 256, &s),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_tss_signature_parse(&s, &alg, &hash, &sig, &slen), TPM_RC_SUCCESS);
	CU_ASSERT(alg == TPM_ALG_RSAPSS && hash == TPM_ALG_SHA256 && slen == 256 && sig == s.b + 6);
	CU_ASSERT_EQUAL(pqtpm_tss_signature_make(TPM_ALG_ECDSA, TPM_ALG_SHA256, buf, 64, &s),
			PQTPM_TSS_RC_BAD_VALUE);
}

static void ticket(uint16_t tag, TPM_ALG_ID meta, uint16_t dlen, TPM_RC want)
{
	struct pqtpm_tss_ticket tk;
	TPM_HANDLE h;
	TPM_ALG_ID m;
	uint16_t tg;
	size_t len;
	struct rd r;

	start();
	u16(tag);
	u32(TPM_RH_OWNER);
	if (tag == TPM_ST_DIGEST_VERIFIED)
		u16(meta);
	b2(dlen, 7);
	len = w.off;
	rd_init(&r, buf, len);
	CU_ASSERT_EQUAL(tss_rd_ticket(&r, &tk), want);
	if (want != TPM_RC_SUCCESS)
		return;
	CU_ASSERT_EQUAL(tk.size, len);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, &tg, &h, &m), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(tg, tag);
	CU_ASSERT_EQUAL(h, TPM_RH_OWNER);
	CU_ASSERT_EQUAL(m, tag == TPM_ST_DIGEST_VERIFIED ? meta : TPM_ALG_NULL);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, NULL, NULL, NULL), TPM_RC_SUCCESS);
	for (size_t cut = 0; cut < len; cut++) {
		rd_init(&r, buf, cut);
		CU_ASSERT_EQUAL(tss_rd_ticket(&r, &tk), PQTPM_TSS_RC_MALFORMED);
	}
	memcpy(tk.b, buf, len);
	tk.b[len] = 0;
	tk.size = (uint16_t)(len + 1);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, &tg, &h, &m), PQTPM_TSS_RC_MALFORMED);
}

static void test_tickets(void)
{
	ticket(TPM_ST_CREATION, 0, 32, TPM_RC_SUCCESS);
	ticket(TPM_ST_VERIFIED, 0, 48, TPM_RC_SUCCESS);
	ticket(TPM_ST_HASHCHECK, 0, 0, TPM_RC_SUCCESS); /* the NULL ticket */
	ticket(TPM_ST_AUTH_SECRET, 0, 64, TPM_RC_SUCCESS);
	ticket(TPM_ST_MESSAGE_VERIFIED, 0, 32, TPM_RC_SUCCESS);
	ticket(TPM_ST_DIGEST_VERIFIED, TPM_ALG_SHAKE256, 32, TPM_RC_SUCCESS);
	ticket(TPM_ST_DIGEST_VERIFIED, TPM_ALG_SHA3_384, 48, TPM_RC_SUCCESS);
	ticket(0x80FF, 0, 32, TPM_RC_SUCCESS); /* a tag of a later revision: same shape */
	ticket(TPM_ST_VERIFIED, 0, 65, PQTPM_TSS_RC_MALFORMED); /* larger than any digest */
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ECC: BN, NIST, SM2 and unassigned curves, every scheme", test_ecc_curves },
		{ "RSA: ciphers and schemes known and unknown", test_rsa },
		{ "keyedHash and symcipher", test_keyedhash_symcipher },
		{ "ML-DSA, HashML-DSA, ML-KEM", test_pq },
		{ "unknown object type refused", test_unknown_type },
		{ "templates walk back", test_templates },
		{ "TPM2B_PUBLIC taken by its size", test_tpm2b_public },
		{ "signatures of every kind", test_signatures },
		{ "tickets", test_tickets },
	};

	return UNIT_RUN("tss_parse", tests, NULL, NULL);
}
