/* The object layer (core/object/): Names and Qualified Names against digests computed here over
 * bytes laid out by hand; TPM2B_PRIVATE protection against the same recipe computed here with
 * crypto.h, its round trip and every way of tampering with it; public-area checks; key
 * generation and the public/private binding check. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "object/object.h"
#include "unit_main.h"

#define STORAGE (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | \
		 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
#define SIGNING (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | \
		 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT)
#define SEALED (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH)

static void tmpl(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs)
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

static void aes128cfb(struct tpmt_public *p)
{
	p->symmetric.alg = TPM_ALG_AES;
	p->symmetric.key_bits = 128;
	p->symmetric.mode = TPM_ALG_CFB;
}

/* ---- names ---- */

/* ECC P-256 ECDSA-SHA256 signing key with a one-byte point, as Part 2 lays it out. */
static const uint8_t ecc_bytes[] = {
	0x00, 0x23, 0x00, 0x0B, 0x00, 0x04, 0x00, 0x72, 0x00, 0x00, 0x00, 0x10, 0x00, 0x18,
	0x00, 0x0B, 0x00, 0x03, 0x00, 0x10, 0x00, 0x01, 0xAA, 0x00, 0x01, 0xBB,
};

static void ecc_public(struct tpmt_public *p)
{
	tmpl(p, TPM_ALG_ECC, SIGNING);
	p->scheme.scheme = TPM_ALG_ECDSA;
	p->scheme.hash_alg = TPM_ALG_SHA256;
	p->curve_id = TPM_ECC_NIST_P256;
	p->x.size = p->y.size = 1;
	p->x.b[0] = 0xAA;
	p->y.b[0] = 0xBB;
}

static void test_name(void)
{
	struct tpmt_public p;
	struct tpm2b_name name;
	uint8_t d[32];

	ecc_public(&p);
	CU_ASSERT_EQUAL_FATAL(crypto_hash(TPM_ALG_SHA256, ecc_bytes, sizeof(ecc_bytes), d),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_name(&p, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(name.size, 34);
	CU_ASSERT_EQUAL(name.b[0], 0x00);
	CU_ASSERT_EQUAL(name.b[1], 0x0B);
	CU_ASSERT(memcmp(name.b + 2, d, 32) == 0);

	/* SHA-384 names are 50 bytes; NULL names are empty */
	p.name_alg = TPM_ALG_SHA384;
	CU_ASSERT_EQUAL(object_name(&p, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(name.size, 50);
	CU_ASSERT_EQUAL(name.b[1], 0x0C);
	p.name_alg = TPM_ALG_NULL;
	CU_ASSERT_EQUAL(object_name(&p, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(name.size, 0);
}

static void test_qualified_name(void)
{
	static const uint8_t owner[4] = { 0x40, 0x00, 0x00, 0x01 };
	static struct object o, child;
	struct tpm2b_name hq;
	uint8_t buf[4 + 34], d[32], buf2[34 + 34];

	ecc_public(&o.pub);
	o.hierarchy = TPM_RH_OWNER;
	CU_ASSERT_EQUAL_FATAL(object_set_names(&o, NULL), TPM_RC_SUCCESS);
	object_hierarchy_qn(TPM_RH_OWNER, &hq);
	CU_ASSERT_EQUAL(hq.size, 4);
	CU_ASSERT(memcmp(hq.b, owner, 4) == 0);
	/* QN = nameAlg || H(hierarchy handle || Name) */
	memcpy(buf, owner, 4);
	memcpy(buf + 4, o.name.b, 34);
	CU_ASSERT_EQUAL_FATAL(crypto_hash(TPM_ALG_SHA256, buf, sizeof(buf), d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(o.qualified_name.size, 34);
	CU_ASSERT(memcmp(o.qualified_name.b + 2, d, 32) == 0);

	/* a child: H(parent QN || Name) */
	child.pub = o.pub;
	child.pub.x.b[0] = 0x11;
	CU_ASSERT_EQUAL_FATAL(object_set_names(&child, &o), TPM_RC_SUCCESS);
	memcpy(buf2, o.qualified_name.b, 34);
	memcpy(buf2 + 34, child.name.b, 34);
	CU_ASSERT_EQUAL_FATAL(crypto_hash(TPM_ALG_SHA256, buf2, sizeof(buf2), d), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(child.qualified_name.b + 2, d, 32) == 0);
	CU_ASSERT(memcmp(child.qualified_name.b, o.qualified_name.b, 34) != 0);
}

/* ---- protection ---- */

static struct object parent, other;

static void make_parent(struct object *o, uint8_t seed_byte)
{
	memset(o, 0, sizeof(*o));
	o->kind = OBJ_KEY;
	o->has_sensitive = true;
	tmpl(&o->pub, TPM_ALG_ECC, STORAGE);
	aes128cfb(&o->pub);
	o->pub.curve_id = TPM_ECC_NIST_P256;
	o->sens.type = TPM_ALG_ECC;
	o->sens.seed_value.size = 32;
	memset(o->sens.seed_value.b, seed_byte, 32);
}

static void sealed(struct tpmt_public *p, struct tpmt_sensitive *s)
{
	tmpl(p, TPM_ALG_KEYEDHASH, SEALED);
	p->unique.size = 32;
	memset(p->unique.b, 0x33, 32);
	memset(s, 0, sizeof(*s));
	s->type = TPM_ALG_KEYEDHASH;
	s->auth_value.size = 2;
	memcpy(s->auth_value.b, "pw", 2);
	s->seed_value.size = 32;
	memset(s->seed_value.b, 0x44, 32);
	s->sensitive.size = 6;
	memcpy(s->sensitive.b, "secret", 6);
}

/* The Part 1 recipe, computed here from the primitives: with iv, the reference
 * implementation's layout (integrity, TPM2B_IV, encSensitive); without, the layout of blobs
 * made before the IV field (integrity, encSensitive under a zero IV). */
static void expected_blob(const struct tpmt_public *p, const uint8_t *iv, uint8_t *out,
			  size_t *outlen)
{
	uint8_t plain[2 + 2 + 4 + 34 + 8], enc[sizeof(plain)], key[16], hkey[32];
	uint8_t mac_in[18 + sizeof(plain) + 34], v[16] = { 0 };
	struct tpm2b_name name;
	size_t n = 0, ivf = iv ? 18 : 0;

	/* TPM2B_SENSITIVE: size, type, authValue "pw", seedValue 32 x 0x44, "secret" */
	plain[n++] = 0;
	plain[n++] = sizeof(plain) - 2;
	plain[n++] = 0x00;
	plain[n++] = 0x08;
	plain[n++] = 0;
	plain[n++] = 2;
	plain[n++] = 'p';
	plain[n++] = 'w';
	plain[n++] = 0;
	plain[n++] = 32;
	memset(plain + n, 0x44, 32);
	n += 32;
	plain[n++] = 0;
	plain[n++] = 6;
	memcpy(plain + n, "secret", 6);
	n += 6;
	CU_ASSERT_EQUAL_FATAL(n, sizeof(plain));

	CU_ASSERT_EQUAL_FATAL(object_name(p, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(crypto_kdfa(TPM_ALG_SHA256, parent.sens.seed_value.b, 32, "STORAGE",
					  name.b, name.size, NULL, 0, 128, key),
			      TPM_RC_SUCCESS);
	if (iv)
		memcpy(v, iv, sizeof(v));
	CU_ASSERT_EQUAL_FATAL(crypto_aes(TPM_ALG_CFB, true, key, 16, v, plain, enc, n),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(crypto_kdfa(TPM_ALG_SHA256, parent.sens.seed_value.b, 32,
					  "INTEGRITY", NULL, 0, NULL, 0, 256, hkey),
			      TPM_RC_SUCCESS);
	if (iv) {
		mac_in[0] = 0;
		mac_in[1] = 16;
		memcpy(mac_in + 2, iv, 16);
	}
	memcpy(mac_in + ivf, enc, n);
	memcpy(mac_in + ivf + n, name.b, name.size);
	out[0] = 0;
	out[1] = 32;
	CU_ASSERT_EQUAL_FATAL(crypto_hmac(TPM_ALG_SHA256, hkey, 32, mac_in, ivf + n + name.size,
					  out + 2),
			      TPM_RC_SUCCESS);
	memcpy(out + 34, mac_in, ivf + n);
	*outlen = 34 + ivf + n;
}

/* The blob is the reference implementation's layout with a fresh IV: 18 bytes longer than
 * integrity || encSensitive (tpm2-pytss's FAPI test compares a P-256 key's TPM2B_PRIVATE
 * size, 0x7e, with what the reference gives). */
static void test_wrap_known(void)
{
	struct tpmt_public p;
	struct tpmt_sensitive s;
	struct tpm2b_private blob, again;
	uint8_t want[256];
	size_t wlen;

	make_parent(&parent, 0x55);
	sealed(&p, &s);
	CU_ASSERT_EQUAL_FATAL(object_wrap(&parent, &p, &s, &blob), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(blob.size, 34 + 18 + 50);
	CU_ASSERT_EQUAL(blob.b[34], 0);
	CU_ASSERT_EQUAL(blob.b[35], 16);
	expected_blob(&p, blob.b + 36, want, &wlen);
	CU_ASSERT_EQUAL(blob.size, wlen);
	CU_ASSERT(memcmp(blob.b, want, wlen) == 0);
	/* a new IV for every wrap */
	CU_ASSERT_EQUAL_FATAL(object_wrap(&parent, &p, &s, &again), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(again.b + 36, blob.b + 36, 16) != 0);
}

/* A blob made before the IV field (zero IV) loads as it did. */
static void test_unwrap_without_iv(void)
{
	struct tpmt_public p;
	struct tpmt_sensitive s, back;
	struct tpm2b_private blob;
	size_t len;

	make_parent(&parent, 0x55);
	sealed(&p, &s);
	expected_blob(&p, NULL, blob.b, &len);
	blob.size = (uint16_t)len;
	CU_ASSERT_EQUAL_FATAL(blob.size, 34 + 50);
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &blob, &back), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(&back, &s, sizeof(s)) == 0);
	blob.b[40] ^= 1;
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &blob, &back), TPM_RC_INTEGRITY);
}

static void test_wrap_round_trip(void)
{
	struct tpmt_public p;
	struct tpmt_sensitive s, back;
	struct tpm2b_private blob, bad;

	make_parent(&parent, 0x55);
	make_parent(&other, 0x56);
	sealed(&p, &s);
	CU_ASSERT_EQUAL_FATAL(object_wrap(&parent, &p, &s, &blob), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &blob, &back), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(&back, &s, sizeof(s)) == 0);

	/* every byte of integrity and of encSensitive is covered */
	for (size_t i = 2; i < blob.size; i++) {
		bad = blob;
		bad.b[i] ^= 0x01;
		CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &bad, &back), TPM_RC_INTEGRITY);
	}
	bad = blob;
	bad.b[1] = 31; /* integrity size */
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &bad, &back), TPM_RC_INTEGRITY);
	bad = blob;
	bad.size = 20;
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &bad, &back), TPM_RC_INTEGRITY);
	bad.size = 1;
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &bad, &back), TPM_RC_INTEGRITY);
	bad.size = 0;
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &bad, &back), TPM_RC_SIZE);
	/* another parent, another public area (another Name) */
	CU_ASSERT_EQUAL(object_unwrap(&other, &p, &blob, &back), TPM_RC_INTEGRITY);
	p.attributes |= TPMA_OBJECT_NODA;
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &blob, &back), TPM_RC_INTEGRITY);
	CU_ASSERT_EQUAL(back.sensitive.size, 0);
}

/* A blob whose HMAC is right but whose plaintext is not one TPM2B_SENSITIVE of the type. */
static void test_wrap_type_mismatch(void)
{
	struct tpmt_public p, q;
	struct tpmt_sensitive s, back;
	struct tpm2b_private blob;

	make_parent(&parent, 0x55);
	sealed(&p, &s);
	q = p;
	s.type = TPM_ALG_SYMCIPHER;
	s.sensitive.size = 16;
	CU_ASSERT_EQUAL_FATAL(object_wrap(&parent, &q, &s, &blob), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_unwrap(&parent, &p, &blob, &back), TPM_RC_SENSITIVE);
}

/* ---- public-area checks ---- */

/* A symmetric storage key: CFB or no mode (tpm2_createprimary -G aes); children are wrapped
 * in CFB either way. Unrestricted keys take any cipher mode or none. */
static void test_check_symcipher_mode(void)
{
	static const struct {
		uint32_t attrs;
		TPM_ALG_ID mode;
		TPM_RC rc;
	} cases[] = {
		{ STORAGE, TPM_ALG_NULL, TPM_RC_SUCCESS },
		{ STORAGE, TPM_ALG_CFB, TPM_RC_SUCCESS },
		{ STORAGE, TPM_ALG_CBC, TPM_RC_MODE },
		{ STORAGE, TPM_ALG_ECB, TPM_RC_MODE },
		{ SIGNING | TPMA_OBJECT_DECRYPT, TPM_ALG_NULL, TPM_RC_SUCCESS },
		{ SIGNING | TPMA_OBJECT_DECRYPT, TPM_ALG_CBC, TPM_RC_SUCCESS },
		{ TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
			  TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_DECRYPT,
		  TPM_ALG_NULL, TPM_RC_SUCCESS },
	};
	struct tpmt_public p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tmpl(&p, TPM_ALG_SYMCIPHER, cases[i].attrs);
		aes128cfb(&p);
		p.symmetric.mode = cases[i].mode;
		CU_ASSERT_EQUAL(object_check_public(&p, true), cases[i].rc);
	}
}

static void test_check_public(void)
{
	struct tpmt_public p;

	tmpl(&p, TPM_ALG_ECC, STORAGE);
	p.curve_id = TPM_ECC_NIST_P256;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SYMMETRIC);
	aes128cfb(&p);
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.symmetric.mode = TPM_ALG_CBC;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_MODE);
	aes128cfb(&p);
	p.scheme.scheme = TPM_ALG_ECDH;
	p.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SCHEME);
	p.scheme.scheme = TPM_ALG_NULL;
	p.attributes |= TPMA_OBJECT_SIGN_ENCRYPT;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_ATTRIBUTES);
	p.attributes &= ~(uint32_t)TPMA_OBJECT_SIGN_ENCRYPT;
	p.auth_policy.size = 20;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SIZE);
	p.auth_policy.size = 32;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.name_alg = TPM_ALG_NULL;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_HASH);

	/* restricted signing needs a scheme; a non-storage key has no symmetric */
	tmpl(&p, TPM_ALG_RSA, SIGNING | TPMA_OBJECT_RESTRICTED);
	p.key_bits = 2048;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SCHEME);
	p.scheme.scheme = TPM_ALG_RSAPSS;
	p.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.scheme.scheme = TPM_ALG_OAEP;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SCHEME);
	p.scheme.scheme = TPM_ALG_RSASSA;
	aes128cfb(&p);
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SYMMETRIC);
	p.symmetric.alg = TPM_ALG_NULL;
	p.key_bits = 1024; /* loadable, not creatable */
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_KEY_SIZE);
	p.unique.size = 128;
	CU_ASSERT_EQUAL(object_check_public(&p, false), TPM_RC_SUCCESS);
	p.unique.size = 127;
	CU_ASSERT_EQUAL(object_check_public(&p, false), TPM_RC_KEY);
	p.key_bits = 2048;
	p.exponent = 3;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_RANGE);
	/* an unrestricted key may sign and decrypt, without a scheme */
	tmpl(&p, TPM_ALG_RSA, SIGNING | TPMA_OBJECT_DECRYPT);
	p.key_bits = 2048;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.scheme.scheme = TPM_ALG_RSASSA;
	p.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SCHEME);

	/* keyedHash: sign wants HMAC, decrypt XOR, neither (sealed data) nothing */
	tmpl(&p, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.scheme.scheme = TPM_ALG_HMAC;
	p.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SCHEME);
	p.attributes |= TPMA_OBJECT_SIGN_ENCRYPT;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.attributes |= TPMA_OBJECT_RESTRICTED;
	p.scheme.scheme = TPM_ALG_NULL;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SCHEME);
	tmpl(&p, TPM_ALG_RSA, SEALED);
	p.key_bits = 2048;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_ATTRIBUTES);

	/* fixedTPM with encryptedDuplication; reserved bits */
	tmpl(&p, TPM_ALG_KEYEDHASH, SEALED | TPMA_OBJECT_ENCRYPTEDDUPLICATION);
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_ATTRIBUTES);
	tmpl(&p, TPM_ALG_KEYEDHASH, SEALED | 0x100);
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_RESERVED_BITS);

	/* PQ: ML-DSA signs only, ML-KEM decrypts only; loaded keys have the set's size */
	tmpl(&p, TPM_ALG_MLDSA, SIGNING);
	p.parameter_set = TPM_MLDSA_44;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.unique.size = 1312;
	CU_ASSERT_EQUAL(object_check_public(&p, false), TPM_RC_SUCCESS);
	p.unique.size = 1952;
	CU_ASSERT_EQUAL(object_check_public(&p, false), TPM_RC_KEY);
	p.attributes |= TPMA_OBJECT_DECRYPT;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_ATTRIBUTES);
	tmpl(&p, TPM_ALG_MLKEM, STORAGE);
	p.parameter_set = TPM_MLKEM_768;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SYMMETRIC);
	aes128cfb(&p);
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_SUCCESS);
	p.attributes |= TPMA_OBJECT_SIGN_ENCRYPT;
	CU_ASSERT_EQUAL(object_check_public(&p, true), TPM_RC_ATTRIBUTES);
}

static void test_check_create(void)
{
	struct tpms_sensitive_create sc = { 0 };
	struct tpmt_public p;

	make_parent(&parent, 0x55);
	tmpl(&p, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL(object_check_create(&parent, &p, &sc), TPM_RC_ATTRIBUTES); /* no data */
	sc.data.size = 3;
	CU_ASSERT_EQUAL(object_check_create(&parent, &p, &sc), TPM_RC_SUCCESS);
	p.attributes |= TPMA_OBJECT_SENSITIVEDATAORIGIN;
	CU_ASSERT_EQUAL(object_check_create(&parent, &p, &sc), TPM_RC_ATTRIBUTES);
	p.attributes &= ~(uint32_t)TPMA_OBJECT_SENSITIVEDATAORIGIN;
	/* fixedTPM and fixedParent must agree under a fixedTPM parent */
	p.attributes &= ~(uint32_t)TPMA_OBJECT_FIXEDPARENT;
	CU_ASSERT_EQUAL(object_check_create(&parent, &p, &sc), TPM_RC_ATTRIBUTES);
	CU_ASSERT_EQUAL(object_check_create(NULL, &p, &sc), TPM_RC_ATTRIBUTES);
	p.attributes &= ~(uint32_t)TPMA_OBJECT_FIXEDTPM;
	CU_ASSERT_EQUAL(object_check_create(&parent, &p, &sc), TPM_RC_SUCCESS);
	/* under a parent that can move, a child cannot be fixedTPM */
	parent.pub.attributes &= ~(uint32_t)(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT);
	p.attributes |= TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT;
	CU_ASSERT_EQUAL(object_check_create(&parent, &p, &sc), TPM_RC_ATTRIBUTES);

	/* asymmetric keys never take the caller's key material */
	tmpl(&p, TPM_ALG_ECC, SIGNING & ~(uint32_t)TPMA_OBJECT_SENSITIVEDATAORIGIN);
	p.curve_id = TPM_ECC_NIST_P256;
	CU_ASSERT_EQUAL(object_check_create(NULL, &p, &sc), TPM_RC_ATTRIBUTES);
}

/* ---- generation and binding ---- */

static void test_generate_and_pair(void)
{
	struct tpms_sensitive_create sc = { 0 };
	struct tpmt_public p;
	struct tpmt_sensitive s;
	struct crypto_rng *rng = crypto_system_rng();

	sc.user_auth.size = 3;
	memcpy(sc.user_auth.b, "abc", 3);

	tmpl(&p, TPM_ALG_ECC, SIGNING);
	p.curve_id = TPM_ECC_NIST_P384;
	CU_ASSERT_EQUAL_FATAL(object_generate(rng, &p, &sc, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.x.size, 48);
	CU_ASSERT_EQUAL(s.sensitive.size, 48);
	CU_ASSERT_EQUAL(s.seed_value.size, 32);
	CU_ASSERT_EQUAL(s.auth_value.size, 3);
	CU_ASSERT_EQUAL(object_check_public(&p, false), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_SUCCESS);
	s.sensitive.b[47] ^= 1;
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_BINDING);
	s.sensitive.size = 32;
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_KEY_SIZE);

	/* symCipher: unique = H(seedValue || key) */
	tmpl(&p, TPM_ALG_SYMCIPHER, SIGNING | TPMA_OBJECT_DECRYPT);
	aes128cfb(&p);
	p.symmetric.key_bits = 256;
	CU_ASSERT_EQUAL_FATAL(object_generate(rng, &p, &sc, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.sensitive.size, 32);
	{
		uint8_t in[64], d[32];

		memcpy(in, s.seed_value.b, 32);
		memcpy(in + 32, s.sensitive.b, 32);
		CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, in, 64, d), TPM_RC_SUCCESS);
		CU_ASSERT(memcmp(d, p.unique.b, 32) == 0);
	}
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_SUCCESS);
	s.seed_value.b[0] ^= 1;
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_BINDING);

	/* sealed data keeps the caller's data; a symCipher key of the caller's must fit */
	tmpl(&p, TPM_ALG_KEYEDHASH, SEALED);
	sc.data.size = 5;
	memcpy(sc.data.b, "hello", 5);
	CU_ASSERT_EQUAL_FATAL(object_generate(rng, &p, &sc, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(s.sensitive.size, 5);
	CU_ASSERT(memcmp(s.sensitive.b, "hello", 5) == 0);
	tmpl(&p, TPM_ALG_SYMCIPHER, TPMA_OBJECT_DECRYPT);
	aes128cfb(&p);
	CU_ASSERT_EQUAL(object_generate(rng, &p, &sc, &s), TPM_RC_KEY_SIZE);

	/* ML-DSA and ML-KEM: the seed is kept, the public key is the unique field */
	tmpl(&p, TPM_ALG_MLDSA, SIGNING);
	p.parameter_set = TPM_MLDSA_65;
	CU_ASSERT_EQUAL_FATAL(object_generate(rng, &p, &sc, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.unique.size, 1952);
	CU_ASSERT_EQUAL(s.sensitive.size, 32);
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_SUCCESS);
	s.sensitive.b[0] ^= 1;
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_BINDING);
	tmpl(&p, TPM_ALG_MLKEM, TPMA_OBJECT_DECRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	p.parameter_set = TPM_MLKEM_512;
	CU_ASSERT_EQUAL_FATAL(object_generate(rng, &p, &sc, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.unique.size, 800);
	CU_ASSERT_EQUAL(s.sensitive.size, 64);
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_SUCCESS);
	s.sensitive.b[5] ^= 1; /* d; z (the implicit-rejection secret) does not enter ek */
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_BINDING);
}

/* RSA: the binding check finds a prime that does not divide n. */
static void test_rsa_pair(void)
{
	struct tpms_sensitive_create sc = { 0 };
	struct tpmt_public p, q;
	struct tpmt_sensitive s, t;
	struct crypto_rng *rng = crypto_system_rng();

	tmpl(&p, TPM_ALG_RSA, SIGNING);
	p.key_bits = 2048;
	q = p;
	CU_ASSERT_EQUAL_FATAL(object_generate(rng, &p, &sc, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.unique.size, 256);
	CU_ASSERT_EQUAL(s.sensitive.size, 128);
	CU_ASSERT_EQUAL(object_check_pair(&p, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(object_generate(rng, &q, &sc, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_check_pair(&p, &t), TPM_RC_BINDING);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "name known answer", test_name },
		{ "qualified name", test_qualified_name },
		{ "wrap known answer", test_wrap_known },
		{ "unwrap a blob without the IV field", test_unwrap_without_iv },
		{ "wrap round trip and tampering", test_wrap_round_trip },
		{ "wrap type mismatch", test_wrap_type_mismatch },
		{ "check public", test_check_public },
		{ "symcipher mode, storage and not", test_check_symcipher_mode },
		{ "check create", test_check_create },
		{ "generate and pair", test_generate_and_pair },
		{ "rsa pair", test_rsa_pair },
	};

	return UNIT_RUN("object", tests, NULL, NULL);
}
