/* Duplication (core/cmd/duplicate.c, core/object/duplicate.c): Import of keys built here,
 * with blobs wrapped by this file's own code (Part 1 §23.3) under RSA and ECC parents, with
 * and without the inner wrapper, then used (HMAC, AES-CFB) against known answers; the refusals
 * of Import (integrity, wrong parent, attributes, sizes, binding); Duplicate authorized by a
 * PolicyCommandCode(Duplicate) session and refused with a password, and the round trips
 * Duplicate -> Import and Duplicate -> Rewrap -> Import. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "dup_util.h"
#include "harness.h"
#include "keys.h"
#include "object/object.h"
#include "sessions.h"
#include "unit_main.h"

#define DSIZE 32 /* SHA-256 everywhere here */
#define FIXED (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT)
#define USER TPMA_OBJECT_USERWITHAUTH
#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define DECRYPT TPMA_OBJECT_DECRYPT
#define ENCDUP TPMA_OBJECT_ENCRYPTEDDUPLICATION
#define STORAGE (FIXED | TPMA_OBJECT_SENSITIVEDATAORIGIN | USER | TPMA_OBJECT_RESTRICTED | DECRYPT)

static struct harness h;

struct parent {
	TPM_HANDLE handle;
	struct tpmt_public pub;
	struct tpm2b_name name;
};
static struct parent rsa_parent, ecc_parent, ecc_other, signer;

static const uint8_t hmac_key[32] = "an hmac key of thirty-two bytes!";
static const uint8_t aes_key[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
				     0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
static const uint8_t msg[] = "the quick brown fox jumps over the lazy dog";

/* ---- small helpers ---- */

static void flush(TPM_HANDLE handle)
{
	CU_ASSERT_EQUAL(sess_flush(&h, handle), TPM_RC_SUCCESS);
}

static void put_outside_and_pcrs(struct cmdbuf *b)
{
	static const struct tpml_pcr_selection none = { 0 };

	wr_tpm2b(&b->params, "", 0);
	wr_pcr_selection(&b->params, &none);
}

static void create_primary(const struct tpmt_public *t, struct parent *p)
{
	uint8_t skip[1024];
	struct tpmt_ticket tk;
	struct tpm2b_digest d;
	struct cmdbuf b;
	struct rd r;
	uint16_t n;

	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, "", NULL, 0);
	wr_tpm2b_public(&b.params, t);
	put_outside_and_pcrs(&b);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, &p->handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &p->pub), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, skip, sizeof(skip), &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_ticket(&r, &tk), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &p->name), TPM_RC_SUCCESS);
}

/* Create (under a parent) an object whose sensitive data we give: a known key. */
static TPM_RC create_known(const struct parent *p, const struct tpmt_public *t, const uint8_t *key,
			   size_t len, struct tpm2b_private *priv, struct tpmt_public *pub)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Create);
	cmd_handle(&b, p->handle);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, "", key, (uint16_t)len);
	wr_tpm2b_public(&b.params, t);
	put_outside_and_pcrs(&b);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_tpm2b(&r, priv->b, sizeof(priv->b), &priv->size),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_tpm2b_public(&r, pub), TPM_RC_SUCCESS);
	}
	return rc;
}

static TPM_RC load(TPM_HANDLE parent, const struct tpm2b_private *priv,
		   const struct tpmt_public *pub, TPM_HANDLE *out)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Load);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, priv->b, priv->size);
	wr_tpm2b_public(&b.params, pub);
	return harness_run(&h, &b, NULL, out);
}

/* ---- using the imported keys ---- */

static void check_hmac(TPM_HANDLE key, const uint8_t *known, size_t len)
{
	uint8_t want[DSIZE];
	struct tpm2b_digest got;
	struct cmdbuf b;
	struct rd r;

	cmd_begin(&b, TPM_CC_HMAC);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, msg, sizeof(msg) - 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &got), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA256, known, len, msg, sizeof(msg) - 1, want),
			TPM_RC_SUCCESS);
	CU_ASSERT(got.size == DSIZE && memcmp(got.b, want, DSIZE) == 0);
}

static void check_aes(TPM_HANDLE key)
{
	uint8_t iv[16] = { 0 }, want[sizeof(msg)], got[sizeof(msg)];
	uint16_t n = 0;
	struct cmdbuf b;
	struct rd r;

	cmd_begin(&b, TPM_CC_EncryptDecrypt2);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, msg, sizeof(msg));
	wr_u8(&b.params, 0); /* encrypt */
	wr_u16(&b.params, TPM_ALG_CFB);
	wr_tpm2b(&b.params, iv, sizeof(iv));
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, got, sizeof(got), &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CFB, true, aes_key, sizeof(aes_key), iv, msg, want,
				   sizeof(msg)),
			TPM_RC_SUCCESS);
	CU_ASSERT(n == sizeof(msg) && memcmp(got, want, sizeof(msg)) == 0);
}

/* ---- a key from outside: public and sensitive areas built here ---- */

struct outside {
	struct tpmt_public pub;
	struct tpmt_sensitive sens;
	struct tpm2b_name name;
};

static void outside_key(struct outside *o, TPM_ALG_ID type, uint32_t attrs)
{
	struct crypto_hash_ctx ctx;
	const uint8_t *key = type == TPM_ALG_KEYEDHASH ? hmac_key : aes_key;
	size_t len = type == TPM_ALG_KEYEDHASH ? sizeof(hmac_key) : sizeof(aes_key);

	memset(o, 0, sizeof(*o));
	key_template_attrs(&o->pub, type, attrs);
	if (type == TPM_ALG_KEYEDHASH) {
		o->pub.scheme.scheme = TPM_ALG_HMAC;
		o->pub.scheme.hash_alg = TPM_ALG_SHA256;
	} else {
		o->pub.symmetric.alg = TPM_ALG_AES;
		o->pub.symmetric.key_bits = 128;
		o->pub.symmetric.mode = TPM_ALG_CFB;
	}
	o->sens.type = type;
	o->sens.seed_value.size = DSIZE;
	memset(o->sens.seed_value.b, 0x5a, DSIZE);
	o->sens.sensitive.size = (uint16_t)len;
	memcpy(o->sens.sensitive.b, key, len);
	crypto_hash_start(&ctx, TPM_ALG_SHA256);
	crypto_hash_update(&ctx, o->sens.seed_value.b, DSIZE);
	crypto_hash_update(&ctx, key, len);
	crypto_hash_finish(&ctx, o->pub.unique.b);
	o->pub.unique.size = DSIZE;
	CU_ASSERT_EQUAL(object_name(&o->pub, &o->name), TPM_RC_SUCCESS);
}

/* ---- this file's own duplication wrapping (the sender's side, Part 1 §23.3) ---- */

static void cfb(const uint8_t *key, size_t keylen, const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t iv[16] = { 0 };

	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CFB, true, key, keylen, iv, in, out, len),
			TPM_RC_SUCCESS);
}

/* A seed for parent p: RSA-OAEP(SHA-256, "DUPLICATE") or ECDH + KDFe("DUPLICATE"). */
static void seed_to(const struct parent *p, uint8_t seed[DSIZE], struct dup_blob *bl)
{
	if (p->pub.type == TPM_ALG_RSA) {
		struct crypto_rsa k = { .n = p->pub.unique.b, .nlen = p->pub.unique.size };
		size_t n = 0;

		CU_ASSERT_EQUAL(crypto_random(seed, DSIZE), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_encrypt(&k, TPM_ALG_OAEP, TPM_ALG_SHA256,
						   (const uint8_t *)"DUPLICATE", 10, seed, DSIZE,
						   bl->secret, &n),
				TPM_RC_SUCCESS);
		bl->secret_len = (uint16_t)n;
	} else {
		uint8_t d[32], ex[32], ey[32], zx[32], zy[32];
		struct wr w;

		CU_ASSERT_EQUAL(crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, d, ex,
						    ey),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_ecdh(TPM_ECC_NIST_P256, d, p->pub.x.b, p->pub.x.size,
					    p->pub.y.b, p->pub.y.size, zx, zy),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_kdfe(TPM_ALG_SHA256, zx, 32, "DUPLICATE", ex, 32,
					    p->pub.x.b, p->pub.x.size, DSIZE * 8, seed),
				TPM_RC_SUCCESS);
		wr_init(&w, bl->secret, sizeof(bl->secret));
		wr_tpm2b(&w, ex, 32);
		wr_tpm2b(&w, ey, 32);
		bl->secret_len = (uint16_t)w.off;
	}
}

/* parent NULL: no outer wrapper; inner: an inner wrapper with a random AES-128 key. */
static void wrap(const struct outside *o, const struct parent *p, bool inner, struct dup_blob *bl)
{
	uint8_t plain[1024], inner_buf[1024], seed[DSIZE], sym[16], hkey[DSIZE];
	struct crypto_hmac_ctx mac;
	struct crypto_hash_ctx hc;
	size_t len, off = inner ? 2 + DSIZE : 0;
	struct wr w;
	size_t mark;

	memset(bl, 0, sizeof(*bl));
	wr_init(&w, plain + off, sizeof(plain) - off);
	wr_size_begin(&w, &mark);
	CU_ASSERT_EQUAL(wr_sensitive(&w, &o->sens), TPM_RC_SUCCESS);
	wr_size_end(&w, mark);
	len = w.off;
	if (inner) {
		crypto_hash_start(&hc, TPM_ALG_SHA256);
		crypto_hash_update(&hc, plain + off, len);
		crypto_hash_update(&hc, o->name.b, o->name.size);
		crypto_hash_finish(&hc, plain + 2);
		plain[0] = 0;
		plain[1] = DSIZE;
		len += off;
		bl->key.size = 16;
		crypto_random(bl->key.b, 16);
		cfb(bl->key.b, 16, plain, inner_buf, len);
	} else {
		memcpy(inner_buf, plain, len);
	}
	if (!p) {
		memcpy(bl->dup.b, inner_buf, len);
		bl->dup.size = (uint16_t)len;
		return;
	}
	seed_to(p, seed, bl);
	crypto_kdfa(TPM_ALG_SHA256, seed, DSIZE, "STORAGE", o->name.b, o->name.size, NULL, 0, 128,
		    sym);
	crypto_kdfa(TPM_ALG_SHA256, seed, DSIZE, "INTEGRITY", NULL, 0, NULL, 0, DSIZE * 8, hkey);
	cfb(sym, 16, inner_buf, bl->dup.b + 2 + DSIZE, len);
	crypto_hmac_start(&mac, TPM_ALG_SHA256, hkey, DSIZE);
	crypto_hmac_update(&mac, bl->dup.b + 2 + DSIZE, len);
	crypto_hmac_update(&mac, o->name.b, o->name.size);
	crypto_hmac_finish(&mac, bl->dup.b + 2);
	bl->dup.b[0] = 0;
	bl->dup.b[1] = DSIZE;
	bl->dup.size = (uint16_t)(2 + DSIZE + len);
}

static TPM_RC import(const struct parent *p, const struct outside *o, const struct dup_blob *bl,
		     struct tpm2b_private *out)
{
	return dup_import(&h, p->handle, &o->pub, bl, NULL, out);
}

/* Import, Load, use: the key must give the known answers. */
static void import_and_use(const struct parent *p, TPM_ALG_ID type, bool outer, bool inner)
{
	struct tpm2b_private priv;
	struct outside o;
	struct dup_blob bl;
	TPM_HANDLE k;

	outside_key(&o, type, USER | SIGN | (type == TPM_ALG_SYMCIPHER ? DECRYPT : 0));
	wrap(&o, outer ? p : NULL, inner, &bl);
	CU_ASSERT_EQUAL_FATAL(import(p, &o, &bl, &priv), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(p->handle, &priv, &o.pub, &k), TPM_RC_SUCCESS);
	if (type == TPM_ALG_KEYEDHASH)
		check_hmac(k, hmac_key, sizeof(hmac_key));
	else
		check_aes(k);
	flush(k);
}

static void setup_parents(void)
{
	struct tpmt_public t;

	key_storage_template(&t, TPM_ALG_RSA, STORAGE);
	create_primary(&t, &rsa_parent);
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	create_primary(&t, &ecc_parent);
	t.x.size = 5; /* another template: another key */
	memcpy(t.x.b, "other", 5);
	create_primary(&t, &ecc_other);
	key_template_attrs(&t, TPM_ALG_ECC, FIXED | TPMA_OBJECT_SENSITIVEDATAORIGIN | USER | SIGN);
	t.scheme.scheme = TPM_ALG_ECDSA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	create_primary(&t, &signer);
}

static void test_import_known_keys(void)
{
	const struct parent *parents[] = { &rsa_parent, &ecc_parent };

	for (unsigned i = 0; i < 2; i++) {
		import_and_use(parents[i], TPM_ALG_KEYEDHASH, true, false);
		import_and_use(parents[i], TPM_ALG_KEYEDHASH, true, true);
		import_and_use(parents[i], TPM_ALG_SYMCIPHER, true, false);
		import_and_use(parents[i], TPM_ALG_SYMCIPHER, true, true);
	}
	/* no outer wrapper: inner only, or the plain TPM2B_SENSITIVE */
	import_and_use(&rsa_parent, TPM_ALG_KEYEDHASH, false, true);
	import_and_use(&ecc_parent, TPM_ALG_SYMCIPHER, false, false);
}

static void test_import_integrity(void)
{
	struct tpm2b_private priv;
	struct outside o;
	struct dup_blob bl, bad;

	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN);
	wrap(&o, &ecc_parent, true, &bl);
	/* any bit of the outer integrity or the encrypted part */
	bad = bl;
	bad.dup.b[5] ^= 1;
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bad, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	bad = bl;
	bad.dup.b[bad.dup.size - 1] ^= 0x80;
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bad, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	/* the integrity field cut short or absent */
	bad = bl;
	bad.dup.size = 1;
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bad, &priv), RC_P(TPM_RC_INSUFFICIENT, 3));
	bad.dup.size = 0;
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bad, &priv), RC_P(TPM_RC_INSUFFICIENT, 3));
	/* another inner key: the inner integrity fails */
	bad = bl;
	bad.key.b[0] ^= 1;
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bad, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	/* the blob of another public area (its Name is in both integrity values) */
	o.pub.attributes |= TPMA_OBJECT_NODA;
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bl, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	/* inner wrapper only, tampered */
	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN);
	wrap(&o, NULL, true, &bl);
	bl.dup.b[3] ^= 4;
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bl, &priv), RC_P(TPM_RC_INTEGRITY, 3));
}

static void test_import_wrong_parent(void)
{
	struct tpm2b_private priv;
	struct outside o;
	struct dup_blob bl;

	outside_key(&o, TPM_ALG_SYMCIPHER, USER | SIGN | DECRYPT);
	/* an ECC seed for another ECC key: another seed, so the integrity fails */
	wrap(&o, &ecc_parent, false, &bl);
	CU_ASSERT_EQUAL(import(&ecc_other, &o, &bl, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	/* an ECC point given to an RSA key: not a ciphertext of its size */
	CU_ASSERT_EQUAL(import(&rsa_parent, &o, &bl, &priv), RC_P(TPM_RC_VALUE, 4));
	/* an RSA ciphertext given to an ECC key: not a point */
	wrap(&o, &rsa_parent, false, &bl);
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bl, &priv), RC_P(TPM_RC_SIZE, 4));
	/* a signing key is no parent */
	CU_ASSERT_EQUAL(import(&signer, &o, &bl, &priv), RC_H(TPM_RC_TYPE, 1));
	/* a blob imported under one parent loads only under it */
	CU_ASSERT_EQUAL_FATAL(import(&rsa_parent, &o, &bl, &priv), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(load(ecc_parent.handle, &priv, &o.pub, NULL), RC_P(TPM_RC_INTEGRITY, 1));
}

static void test_import_checks(void)
{
	static const struct tpmt_sym_def aes256 = { TPM_ALG_AES, 256, TPM_ALG_CFB };
	static const struct tpmt_sym_def none = { TPM_ALG_NULL, 0, 0 };
	struct tpm2b_private priv;
	struct outside o;
	struct dup_blob bl;

	/* fixedTPM or fixedParent: not an object that can have been duplicated */
	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN | TPMA_OBJECT_FIXEDTPM);
	wrap(&o, &rsa_parent, false, &bl);
	CU_ASSERT_EQUAL(import(&rsa_parent, &o, &bl, &priv), RC_P(TPM_RC_ATTRIBUTES, 2));
	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN | TPMA_OBJECT_FIXEDPARENT);
	wrap(&o, &rsa_parent, false, &bl);
	CU_ASSERT_EQUAL(import(&rsa_parent, &o, &bl, &priv), RC_P(TPM_RC_ATTRIBUTES, 2));
	/* encryptedDuplication needs both wrappers */
	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN | ENCDUP);
	wrap(&o, &rsa_parent, false, &bl);
	CU_ASSERT_EQUAL(import(&rsa_parent, &o, &bl, &priv), RC_P(TPM_RC_ATTRIBUTES, 1));
	wrap(&o, NULL, true, &bl);
	CU_ASSERT_EQUAL(import(&rsa_parent, &o, &bl, &priv), RC_P(TPM_RC_ATTRIBUTES, 4));
	wrap(&o, &rsa_parent, true, &bl);
	CU_ASSERT_EQUAL(import(&rsa_parent, &o, &bl, &priv), TPM_RC_SUCCESS);
	/* encryptionKey must fit symmetricAlg */
	CU_ASSERT_EQUAL(dup_import(&h, rsa_parent.handle, &o.pub, &bl, &aes256, &priv),
			RC_P(TPM_RC_SIZE, 1));
	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN);
	wrap(&o, &rsa_parent, true, &bl);
	CU_ASSERT_EQUAL(dup_import(&h, rsa_parent.handle, &o.pub, &bl, &none, &priv),
			RC_P(TPM_RC_SIZE, 1));
	/* a sensitive area that does not belong to the public area */
	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN);
	o.sens.sensitive.b[0] ^= 1;
	wrap(&o, &ecc_parent, false, &bl);
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bl, &priv), RC_P(TPM_RC_BINDING, 3));
	/* a public area Load would refuse */
	outside_key(&o, TPM_ALG_KEYEDHASH, USER | SIGN);
	o.pub.scheme.scheme = TPM_ALG_XOR; /* a signing key with a decryption scheme */
	o.pub.scheme.kdf = TPM_ALG_KDF1_SP800_108;
	object_name(&o.pub, &o.name);
	wrap(&o, &ecc_parent, false, &bl);
	CU_ASSERT_EQUAL(import(&ecc_parent, &o, &bl, &priv), RC_P(TPM_RC_SCHEME, 2));
}

/* ---- Duplicate and Rewrap: the DUP role takes a policy session ---- */

struct dup_out {
	struct tpm2b_data key;
	struct dup_blob bl; /* key, dup, secret: ready for import() */
};

/* Duplicate obj (loaded, with Name name) to new parent np (NULL: TPM_RH_NULL). session:
 * authorize with a PolicyCommandCode(Duplicate) session, else with a password. */
static TPM_RC duplicate(TPM_HANDLE obj, const struct tpm2b_name *name, const struct parent *np,
			const struct tpm2b_data *key_in, const struct tpmt_sym_def *sym,
			bool session, struct dup_out *out)
{
	return dup_duplicate(&h, obj, name, np ? np->handle : TPM_RH_NULL, np ? &np->name : NULL,
			     key_in, sym, session, &out->key, &out->bl);
}

/* An HMAC key with a known value, duplicable under a PolicyCommandCode(Duplicate) policy. */
static void dup_key(uint32_t extra, struct outside *o, TPM_HANDLE *handle)
{
	struct tpm2b_private priv;
	struct tpmt_public t;

	key_template_attrs(&t, TPM_ALG_KEYEDHASH, USER | SIGN | extra);
	t.scheme.scheme = TPM_ALG_HMAC;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	dup_policy(&t.auth_policy);
	memset(o, 0, sizeof(*o));
	CU_ASSERT_EQUAL_FATAL(create_known(&rsa_parent, &t, hmac_key, sizeof(hmac_key), &priv,
					   &o->pub),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_name(&o->pub, &o->name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(rsa_parent.handle, &priv, &o->pub, handle), TPM_RC_SUCCESS);
}

static void import_use(const struct parent *p, const struct outside *o, const struct dup_blob *bl)
{
	struct tpm2b_private priv;
	TPM_HANDLE k;

	CU_ASSERT_EQUAL_FATAL(import(p, o, bl, &priv), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(p->handle, &priv, &o->pub, &k), TPM_RC_SUCCESS);
	check_hmac(k, hmac_key, sizeof(hmac_key));
	flush(k);
}

/* Another TPM's parent as a duplicator sees it: its public part only. */
static void load_public(const struct parent *p, struct parent *ext)
{
	struct cmdbuf b;

	*ext = *p;
	cmd_begin(&b, TPM_CC_LoadExternal);
	wr_u16(&b.params, 0);
	wr_tpm2b_public(&b.params, &p->pub);
	wr_u32(&b.params, TPM_RH_OWNER);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &ext->handle), TPM_RC_SUCCESS);
}

static void test_duplicate_round_trip(void)
{
	static const struct tpmt_sym_def aes128 = { TPM_ALG_AES, 128, TPM_ALG_CFB };
	static const struct tpmt_sym_def none = { TPM_ALG_NULL, 0, 0 };
	struct tpm2b_data empty = { 0 }, given = { 16, "sixteen byte key" };
	struct tpm2b_private priv;
	struct parent ext;
	struct dup_out d;
	struct outside o;
	TPM_HANDLE k;

	dup_key(0, &o, &k);
	/* the DUP role is policy-only */
	CU_ASSERT_EQUAL(duplicate(k, &o.name, &ecc_parent, &empty, &none, false, &d),
			TPM_RC_AUTH_UNAVAILABLE);
	/* outer wrapper only, to an ECC parent and to an RSA parent */
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, &ecc_parent, &empty, &none, true, &d),
			      TPM_RC_SUCCESS);
	CU_ASSERT(d.key.size == 0 && d.bl.secret_len == 4 + 2 * 32);
	import_use(&ecc_parent, &o, &d.bl);
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, &rsa_parent, &empty, &none, true, &d),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(d.bl.secret_len, 256);
	import_use(&rsa_parent, &o, &d.bl);
	/* both wrappers, the inner key made by the TPM and returned */
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, &ecc_parent, &empty, &aes128, true, &d),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(d.key.size, 16);
	import_use(&ecc_parent, &o, &d.bl);
	/* the caller's inner key: encryptionKeyOut is empty */
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, &ecc_parent, &given, &aes128, true, &d),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(d.key.size, 0);
	import_use(&ecc_parent, &o, &d.bl);
	/* no wrapper at all: the plain TPM2B_SENSITIVE */
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, NULL, &empty, &none, true, &d),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(d.bl.secret_len, 0);
	import_use(&rsa_parent, &o, &d.bl);
	/* to the public part of a parent (on "another TPM"), imported under the parent itself */
	load_public(&ecc_parent, &ext);
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, &ext, &empty, &aes128, true, &d),
			      TPM_RC_SUCCESS);
	import_use(&ecc_parent, &o, &d.bl);
	/* which cannot unwrap anything itself (no authValue to prove) */
	CU_ASSERT_EQUAL(import(&ext, &o, &d.bl, &priv), TPM_RC_AUTH_UNAVAILABLE);
	flush(ext.handle);
	/* encryptionKeyIn that does not fit symmetricAlg */
	CU_ASSERT_EQUAL(duplicate(k, &o.name, &ecc_parent, &given, &none, true, &d),
			RC_P(TPM_RC_SIZE, 1));
	/* a new parent that is no storage key */
	CU_ASSERT_EQUAL(duplicate(k, &o.name, &signer, &empty, &none, true, &d),
			RC_H(TPM_RC_TYPE, 2));
	flush(k);
}

static void test_duplicate_refusals(void)
{
	static const struct tpmt_sym_def aes128 = { TPM_ALG_AES, 128, TPM_ALG_CFB };
	static const struct tpmt_sym_def none = { TPM_ALG_NULL, 0, 0 };
	struct tpm2b_data empty = { 0 };
	struct dup_out d;
	struct outside o;
	TPM_HANDLE k;

	/* fixedParent: not duplicable, whatever the policy says */
	dup_key(FIXED, &o, &k);
	CU_ASSERT_EQUAL(duplicate(k, &o.name, &ecc_parent, &empty, &none, true, &d),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	flush(k);
	/* encryptedDuplication: an inner wrapper and a new parent are required */
	dup_key(ENCDUP, &o, &k);
	CU_ASSERT_EQUAL(duplicate(k, &o.name, &ecc_parent, &empty, &none, true, &d),
			RC_P(TPM_RC_SYMMETRIC, 2));
	CU_ASSERT_EQUAL(duplicate(k, &o.name, NULL, &empty, &aes128, true, &d),
			RC_H(TPM_RC_HIERARCHY, 2));
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, &ecc_parent, &empty, &aes128, true, &d),
			      TPM_RC_SUCCESS);
	import_use(&ecc_parent, &o, &d.bl);
	flush(k);
}

static TPM_RC rewrap(TPM_HANDLE oldp, const struct parent *np, const struct tpm2b_name *name,
		     const struct dup_blob *in, struct dup_blob *out)
{
	return dup_rewrap(&h, oldp, np ? np->handle : TPM_RH_NULL, name, in, out);
}

static void test_rewrap(void)
{
	static const struct tpmt_sym_def aes128 = { TPM_ALG_AES, 128, TPM_ALG_CFB };
	struct tpm2b_data empty = { 0 };
	struct dup_blob ecc_bl, plain_bl, rsa_bl, bad;
	struct dup_out d;
	struct outside o;
	TPM_HANDLE k;

	dup_key(0, &o, &k);
	CU_ASSERT_EQUAL_FATAL(duplicate(k, &o.name, &rsa_parent, &empty, &aes128, true, &d),
			      TPM_RC_SUCCESS);
	flush(k);
	/* RSA parent -> ECC parent */
	CU_ASSERT_EQUAL_FATAL(rewrap(rsa_parent.handle, &ecc_parent, &o.name, &d.bl, &ecc_bl),
			      TPM_RC_SUCCESS);
	import_use(&ecc_parent, &o, &ecc_bl);
	/* ECC parent -> no outer wrapper -> RSA parent */
	CU_ASSERT_EQUAL_FATAL(rewrap(ecc_parent.handle, NULL, &o.name, &ecc_bl, &plain_bl),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(plain_bl.secret_len, 0);
	CU_ASSERT_EQUAL_FATAL(rewrap(TPM_RH_NULL, &rsa_parent, &o.name, &plain_bl, &rsa_bl),
			      TPM_RC_SUCCESS);
	import_use(&rsa_parent, &o, &rsa_bl);
	/* a seed without an old parent, an old parent without a seed */
	CU_ASSERT_EQUAL(rewrap(TPM_RH_NULL, &rsa_parent, &o.name, &ecc_bl, &bad),
			RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(rewrap(ecc_parent.handle, &rsa_parent, &o.name, &plain_bl, &bad),
			RC_H(TPM_RC_HANDLE, 1));
	/* another Name, a tampered blob, a seed that is not the old parent's */
	bad = ecc_bl;
	bad.dup.b[40] ^= 1;
	CU_ASSERT_EQUAL(rewrap(ecc_parent.handle, &rsa_parent, &o.name, &bad, &bad),
			RC_P(TPM_RC_INTEGRITY, 1));
	CU_ASSERT_EQUAL(rewrap(ecc_parent.handle, &rsa_parent, &rsa_parent.name, &ecc_bl, &bad),
			RC_P(TPM_RC_INTEGRITY, 1));
	CU_ASSERT_EQUAL(rewrap(rsa_parent.handle, &ecc_parent, &o.name, &ecc_bl, &bad),
			RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(rewrap(signer.handle, &ecc_parent, &o.name, &ecc_bl, &bad),
			RC_H(TPM_RC_TYPE, 1));
	CU_ASSERT_EQUAL(rewrap(ecc_parent.handle, &signer, &o.name, &ecc_bl, &bad),
			RC_H(TPM_RC_TYPE, 2));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "RSA and ECC storage parents", setup_parents },
		{ "Import of known HMAC and AES keys", test_import_known_keys },
		{ "Import: tampered blobs", test_import_integrity },
		{ "Import: wrong parent", test_import_wrong_parent },
		{ "Import: attributes, sizes, binding", test_import_checks },
		{ "Duplicate -> Import round trips", test_duplicate_round_trip },
		{ "Duplicate refusals", test_duplicate_refusals },
		{ "Rewrap", test_rewrap },
	};
	int failed;

	harness_open(&h);
	failed = UNIT_RUN("duplicate", tests, NULL, NULL);
	harness_close(&h);
	return failed;
}
