/* Camellia and TDES in the TPM (issue 15): symCipher objects under EncryptDecrypt and
 * EncryptDecrypt2 in every mode, with the iv and block rules of an 8-byte block; the TDES keys
 * the TPM makes (odd parity) and refuses (weak keys, K1 = K2); storage parents whose children's
 * outPrivate is decrypted here with the parent's seed, cipher and iv (a TPM2B_IV of one block:
 * 8 bytes for TDES); the inner wrapper of
 * Duplicate decrypted here and imported; MakeCredential / ActivateCredential with an ECC key
 * whose symmetric is Camellia or TDES. The ciphers themselves are checked against RFC 3713,
 * SP 800-67 and OpenSSL in test_crypto_sym; here they are what the engine must have used. */
#include <string.h>

#include <CUnit/Basic.h>

#include "dup_util.h"
#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "unit_main.h"
#include "vectors.h"

#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define DECRYPT TPMA_OBJECT_DECRYPT
#define RESTRICTED TPMA_OBJECT_RESTRICTED
#define STORAGE (KEY_BASE | RESTRICTED | DECRYPT)

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

static const struct tpmt_sym_def cam128 = { TPM_ALG_CAMELLIA, 128, TPM_ALG_CFB };
static const struct tpmt_sym_def cam256 = { TPM_ALG_CAMELLIA, 256, TPM_ALG_CFB };
static const struct tpmt_sym_def tdes128 = { TPM_ALG_TDES, 128, TPM_ALG_CFB };
static const struct tpmt_sym_def tdes192 = { TPM_ALG_TDES, 192, TPM_ALG_CFB };

/* The object behind a transient handle of the harness's client */
static const struct object *object_of(TPM_HANDLE handle)
{
	for (int i = 0; i < MAX_CLIENT_OBJECTS; i++)
		if (h.c->objects[i] && h.c->objects[i]->handle == handle)
			return h.c->objects[i];
	CU_FAIL_FATAL("no such object");
	return NULL;
}

/* ---- EncryptDecrypt ---- */

struct buf {
	uint16_t size;
	uint8_t b[MAX_BUFFER];
};

/* EncryptDecrypt2 when two is set, else EncryptDecrypt */
static TPM_RC crypt(bool two, TPM_HANDLE key, bool decrypt, TPM_ALG_ID mode, const uint8_t *iv,
		    uint16_t ivlen, const void *in, uint16_t len, struct buf *out, uint8_t *iv_out)
{
	struct cmdbuf b;
	struct rd rsp;
	uint16_t n;
	TPM_RC rc;

	cmd_begin(&b, two ? TPM_CC_EncryptDecrypt2 : TPM_CC_EncryptDecrypt);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	if (two)
		wr_tpm2b(&b.params, in, len);
	wr_u8(&b.params, decrypt);
	wr_u16(&b.params, mode);
	wr_tpm2b(&b.params, iv, ivlen);
	if (!two)
		wr_tpm2b(&b.params, in, len);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, out->b, sizeof(out->b), &out->size), 0);
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, iv_out, 16, &n), 0);
	CU_ASSERT_EQUAL(n, ivlen);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

/* A symCipher key (mode NULL: the command chooses) with the given key bytes, or the TPM's
 * (key NULL) */
static void cipher_key(const struct tpmt_sym_def *sym, TPM_ALG_ID mode, const uint8_t *key,
		       uint32_t attrs, struct key *k)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_SYMCIPHER, attrs);
	t.symmetric = *sym;
	t.symmetric.mode = mode;
	key_primary(&h, &t, key, key ? sym->key_bits / 8 : 0, k);
}

/* One known answer through the command (Camellia-128-CFB and TDES-CBC of the SP 800-38A
 * plaintext, as OpenSSL computes them), then every mode and both commands against
 * crypto_sym, decryption included, and the ivOut chaining. */
static void test_encrypt_decrypt(void)
{
	static const struct {
		struct tpmt_sym_def sym;
		const char *key, *iv, *cipher;
		TPM_ALG_ID mode;
	} kat[] = {
		{ { TPM_ALG_CAMELLIA, 128, 0 }, "2b7e151628aed2a6abf7158809cf4f3c",
		  "000102030405060708090a0b0c0d0e0f",
		  "14f7646187817eb586599146b82bd719a53d28bb82df741103ea4f921a44880b"
		  "9c2157a664626d1def9ea420fde69b96742a25f0542340c7baef24ca8482bb09",
		  TPM_ALG_CFB },
		{ { TPM_ALG_TDES, 192, 0 }, "0123456789abcdef23456789abcdef01456789abcdef0123",
		  "f69f2445df4f9b17",
		  "2079c3d53aa763e193b79e2569ab5262516570481f25b50f73c0bda85c8e0da7"
		  "9bd86425fae429fdbd65a7a21b6e5d20925d8b0ef919a428154b96ed90f2bc1e",
		  TPM_ALG_CBC },
	};
	static const TPM_ALG_ID modes[] = { TPM_ALG_CFB, TPM_ALG_CBC, TPM_ALG_OFB, TPM_ALG_CTR,
					    TPM_ALG_ECB };
	uint8_t plain[64], key[32], want[64], iv[16], iv_out[16], civ[16], msg[96];
	struct buf out, back;
	struct key k;

	vec_unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
		  "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
		  plain);
	for (size_t i = 0; i < 2; i++) {
		size_t ivlen = vec_unhex(kat[i].iv, iv);

		vec_unhex(kat[i].key, key);
		vec_unhex(kat[i].cipher, want);
		cipher_key(&kat[i].sym, TPM_ALG_NULL, key, SIGN | DECRYPT, &k);
		CU_ASSERT_EQUAL(crypt(true, k.handle, false, kat[i].mode, iv, (uint16_t)ivlen,
				      plain, 64, &out, iv_out),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(out.size, 64);
		CU_ASSERT_EQUAL(memcmp(out.b, want, 64), 0);
		CU_ASSERT_EQUAL(memcmp(iv_out, want + 64 - ivlen, ivlen), 0);
	}

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(7 * i + 1);
	for (size_t a = 0; a < 4; a++) {
		const struct tpmt_sym_def *sym =
			(const struct tpmt_sym_def *[]){ &cam128, &cam256, &tdes128, &tdes192 }[a];
		size_t bs = crypto_sym_block(sym->alg), klen = sym->key_bits / 8;

		for (size_t i = 0; i < klen; i++)
			key[i] = (uint8_t)(0x31 * i + a);
		crypto_tdes_set_parity(key, klen); /* a valid TDES key; Camellia does not care */
		cipher_key(sym, TPM_ALG_NULL, key, SIGN | DECRYPT, &k);
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			memset(iv, 0x5a, bs);
			memcpy(civ, iv, bs);
			CU_ASSERT_EQUAL(crypto_sym(sym->alg, modes[m], true, key, klen, civ, msg,
						   want, 48),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(crypt(m % 2, k.handle, false, modes[m], iv, (uint16_t)bs,
					      msg, 48, &out, iv_out),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(memcmp(out.b, want, 48), 0);
			if (modes[m] != TPM_ALG_ECB)
				CU_ASSERT_EQUAL(memcmp(iv_out, civ, bs), 0);
			/* back, in two calls chained through ivOut (split on a block) */
			CU_ASSERT_EQUAL(crypt(true, k.handle, true, modes[m], iv, (uint16_t)bs,
					      out.b, 16, &back, iv_out),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(memcmp(back.b, msg, 16), 0);
			CU_ASSERT_EQUAL(crypt(false, k.handle, true, modes[m],
					      modes[m] == TPM_ALG_ECB ? iv : iv_out, (uint16_t)bs,
					      out.b + 16, 32, &back, iv_out),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(memcmp(back.b, msg + 16, 32), 0);
		}
	}
}

/* TDES blocks are 8 bytes: the iv must be 8, CBC and ECB data whole blocks of 8; Camellia
 * keeps 16. The key's own mode wins over the command's. */
static void test_block_rules(void)
{
	uint8_t key[24], iv[16] = { 0 }, iv_out[16], data[24] = { 0 };
	struct buf out;
	struct key tdes, cam, cfb_only;

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x13 * i + 5);
	crypto_tdes_set_parity(key, sizeof(key));
	cipher_key(&tdes192, TPM_ALG_NULL, key, SIGN | DECRYPT, &tdes);
	cipher_key(&cam128, TPM_ALG_NULL, key, SIGN | DECRYPT, &cam);
	cipher_key(&tdes192, TPM_ALG_CFB, key, SIGN | DECRYPT, &cfb_only);

	CU_ASSERT_EQUAL(crypt(false, tdes.handle, false, TPM_ALG_CBC, iv, 8, data, 24, &out,
			      iv_out),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypt(false, tdes.handle, false, TPM_ALG_CBC, iv, 16, data, 24, &out,
			      iv_out),
			RC_P(TPM_RC_SIZE, 3));
	CU_ASSERT_EQUAL(crypt(true, tdes.handle, false, TPM_ALG_CBC, iv, 8, data, 12, &out,
			      iv_out),
			RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(crypt(false, tdes.handle, false, TPM_ALG_ECB, iv, 0, data, 20, &out,
			      iv_out),
			RC_P(TPM_RC_SIZE, 4));
	CU_ASSERT_EQUAL(crypt(false, tdes.handle, false, TPM_ALG_CFB, iv, 8, data, 13, &out,
			      iv_out),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypt(false, cam.handle, false, TPM_ALG_CFB, iv, 8, data, 16, &out, iv_out),
			RC_P(TPM_RC_SIZE, 3));
	CU_ASSERT_EQUAL(crypt(false, cam.handle, false, TPM_ALG_CBC, iv, 16, data, 24, &out,
			      iv_out),
			RC_P(TPM_RC_SIZE, 4));
	CU_ASSERT_EQUAL(crypt(false, cfb_only.handle, false, TPM_ALG_CBC, iv, 8, data, 8, &out,
			      iv_out),
			RC_P(TPM_RC_MODE, 2));
	CU_ASSERT_EQUAL(crypt(false, cfb_only.handle, false, TPM_ALG_NULL, iv, 8, data, 8, &out,
			      iv_out),
			TPM_RC_SUCCESS);
}

/* ---- TDES keys ---- */

static TPM_RC tdes_primary(uint16_t bits, const uint8_t *key, struct key *k)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_SYMCIPHER, SIGN | DECRYPT);
	t.symmetric.alg = TPM_ALG_TDES;
	t.symmetric.key_bits = bits;
	t.symmetric.mode = TPM_ALG_CFB;
	if (!key)
		t.attributes |= TPMA_OBJECT_SENSITIVEDATAORIGIN;
	return key_primary_in(&h, TPM_RH_OWNER, &t, "", key, key ? bits / 8 : 0, k);
}

static bool odd_parity(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(__builtin_popcount(b[i]) & 1))
			return false;
	return true;
}

/* The TPM's TDES keys have odd parity in every byte (the reference implementation's
 * CryptGenerateKeyDes); a key given with a weak or semi-weak part, or with K1 = K2, or
 * K2 = K3, is TPM_RC_KEY (parity bits do not matter). */
static void test_tdes_keys(void)
{
	static const char *const refused[] = {
		"0101010101010101456789abcdef0123", /* K1 weak */
		"0123456789abcdef01fe01fe01fe01fe", /* K2 semi-weak */
		"0123456789abcdef0123456789abcdef", /* K1 = K2 */
		"0123456789abcdef0022446688aaccee", /* K2 = K1 but for parity */
		"0123456789abcdef23456789abcdef0123456789abcdef01", /* K2 = K3 */
		"0123456789abcdef23456789abcdef011f1f1f1f0e0e0e0e", /* K3 weak */
	};
	uint8_t key[24];
	struct key k;

	CU_ASSERT_EQUAL_FATAL(tdes_primary(192, NULL, &k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_of(k.handle)->sens.sensitive.size, 24);
	CU_ASSERT(odd_parity(object_of(k.handle)->sens.sensitive.b, 24));
	CU_ASSERT(crypto_tdes_key_ok(object_of(k.handle)->sens.sensitive.b, 24));
	CU_ASSERT_EQUAL_FATAL(tdes_primary(128, NULL, &k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_of(k.handle)->sens.sensitive.size, 16);
	CU_ASSERT(odd_parity(object_of(k.handle)->sens.sensitive.b, 16));

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		size_t n = vec_unhex(refused[i], key);

		CU_ASSERT_EQUAL(tdes_primary((uint16_t)(n * 8), key, &k), TPM_RC_KEY);
	}
	/* the SP 800-67 key, parity bits cleared: accepted, and kept as given */
	vec_unhex("0022446688aacceee22446688aaccee0044668aaccee0022", key);
	CU_ASSERT_EQUAL_FATAL(tdes_primary(192, key, &k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(object_of(k.handle)->sens.sensitive.b, key, 24), 0);
	/* a key of the wrong length */
	CU_ASSERT_EQUAL(tdes_primary(192, NULL, &k), TPM_RC_SUCCESS);
	{
		struct tpmt_public t;

		key_template(&t, TPM_ALG_SYMCIPHER, SIGN | DECRYPT);
		t.symmetric = tdes192;
		CU_ASSERT_EQUAL(key_primary_in(&h, TPM_RH_OWNER, &t, "", key, 16, &k),
				TPM_RC_KEY_SIZE);
	}
}

/* ---- storage parents ---- */

/* An ECC P-256 storage primary (or a symCipher one) protecting its children with sym */
static void parent_with(TPM_ALG_ID type, const struct tpmt_sym_def *sym, struct key *k)
{
	struct tpmt_public t;

	key_template_attrs(&t, type, STORAGE);
	t.symmetric = *sym;
	if (type == TPM_ALG_SYMCIPHER)
		t.symmetric.mode = TPM_ALG_CFB;
	key_primary(&h, &t, NULL, 0, k);
}

/* A sealed data object under parent */
static TPM_RC seal(TPM_HANDLE parent, const char *data, struct tpm2b_private *priv,
		   struct tpmt_public *pub)
{
	struct tpmt_public t;

	key_template_attrs(&t, TPM_ALG_KEYEDHASH, KEY_BASE);
	return key_create(&h, parent, &t, "", data, (uint16_t)strlen(data), priv, pub);
}

static TPM_RC unseal(TPM_HANDLE obj, struct tpm2b_digest *out)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, obj);
	cmd_auth_pw(&b, "");
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, out), 0);
	return rc;
}

/* outPrivate decrypted here: symKey = KDFa(nameAlg, seed, "STORAGE", Name, -, keyBits), the
 * parent's cipher in CFB with the TPM2B_IV after the integrity, one block of that cipher; the
 * plaintext ends with the sealed data. */
static void check_private(const struct object *parent, const struct tpm2b_private *priv,
			  const struct tpm2b_name *name, const char *data)
{
	const struct tpmt_sym_def *sym = &parent->pub.symmetric;
	size_t bs = crypto_sym_block(sym->alg), dlen = strlen(data);
	size_t off = 2 + 32 + 2 + bs, len = priv->size - off;
	uint8_t key[32], iv[16], plain[MAX_PRIVATE_BLOB];

	CU_ASSERT_FATAL(priv->size > off + dlen);
	CU_ASSERT_EQUAL(priv->b[2 + 32] << 8 | priv->b[2 + 32 + 1], bs);
	memcpy(iv, priv->b + 2 + 32 + 2, bs);
	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, parent->sens.seed_value.b,
				    parent->sens.seed_value.size, "STORAGE", name->b, name->size,
				    NULL, 0, sym->key_bits, key),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_sym(sym->alg, TPM_ALG_CFB, false, key, sym->key_bits / 8, iv,
				   priv->b + off, plain, len),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(plain + len - dlen, data, dlen), 0);
}

/* Children of Camellia and TDES parents (ECC and symCipher) load and unseal, and their
 * outPrivate is the parent's cipher's, not AES's. */
static void test_storage_parents(void)
{
	static const char data[] = "sealed under another cipher";
	const struct tpmt_sym_def *syms[] = { &cam128, &cam256, &tdes128, &tdes192 };
	struct tpm2b_private priv;
	struct tpmt_public pub;
	struct tpm2b_digest out;
	struct tpm2b_name name;
	TPM_HANDLE child;
	struct key p;

	for (size_t i = 0; i < 8; i++) {
		parent_with(i < 4 ? TPM_ALG_ECC : TPM_ALG_SYMCIPHER, syms[i % 4], &p);
		CU_ASSERT_EQUAL_FATAL(seal(p.handle, data, &priv, &pub), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(key_load(&h, p.handle, &priv, &pub, &child, &name),
				      TPM_RC_SUCCESS);
		check_private(object_of(p.handle), &priv, &name, data);
		CU_ASSERT_EQUAL(unseal(child, &out), TPM_RC_SUCCESS);
		CU_ASSERT(out.size == sizeof(data) - 1 && memcmp(out.b, data, out.size) == 0);
		/* one bit of the ciphertext: the integrity check stops it */
		priv.b[priv.size - 1] ^= 1;
		CU_ASSERT_EQUAL(key_load(&h, p.handle, &priv, &pub, &child, &name),
				RC_P(TPM_RC_INTEGRITY, 1));
		harness_close(&h); /* the primaries fill the object slots */
		harness_open(&h);
	}
	/* a storage key must wrap in CFB, whatever the cipher */
	{
		struct tpmt_public t;
		struct key k;

		key_template_attrs(&t, TPM_ALG_ECC, STORAGE);
		t.symmetric = cam128;
		t.symmetric.mode = TPM_ALG_CBC;
		CU_ASSERT_EQUAL(key_primary_in(&h, TPM_RH_OWNER, &t, "", NULL, 0, &k),
				RC_P(TPM_RC_MODE, 2));
	}
}

/* ---- duplication: the inner wrapper with Camellia and TDES ---- */

/* Duplicate without an outer wrapper and with an inner one of sym: the blob decrypts here
 * with the cipher of sym and encryptionKey; Import under a parent takes it with the same sym,
 * and refuses it (integrity) when told another cipher. */
static void test_inner_wrapper(void)
{
	const struct tpmt_sym_def *syms[] = { &cam128, &cam256, &tdes192 };
	static const char data[] = "duplicated with Camellia or TDES";

	for (size_t i = 0; i < 3; i++) {
		struct tpm2b_private priv, imported;
		struct tpmt_public t, pub;
		struct tpm2b_digest policy, out;
		struct tpm2b_name name;
		struct tpmt_sym_def aes = { TPM_ALG_AES, syms[i]->key_bits, TPM_ALG_CFB };
		struct dup_blob bl;
		uint8_t plain[MAX_PRIVATE_BLOB], iv[16] = { 0 };
		TPM_HANDLE obj;
		struct key p;

		parent_with(TPM_ALG_ECC, syms[i], &p);
		dup_policy(&policy);
		key_template_attrs(&t, TPM_ALG_KEYEDHASH, TPMA_OBJECT_USERWITHAUTH);
		t.auth_policy = policy;
		CU_ASSERT_EQUAL_FATAL(key_create(&h, p.handle, &t, "", data, sizeof(data) - 1,
						 &priv, &pub),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(key_load(&h, p.handle, &priv, &pub, &obj, &name),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(dup_duplicate(&h, obj, &name, TPM_RH_NULL, NULL,
						    &(struct tpm2b_data){ 0 }, syms[i], true, NULL,
						    &bl),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(bl.key.size, syms[i]->key_bits / 8);
		CU_ASSERT_EQUAL(crypto_sym(syms[i]->alg, TPM_ALG_CFB, false, bl.key.b, bl.key.size,
					   iv, bl.dup.b, plain, bl.dup.size),
				TPM_RC_SUCCESS);
		/* TPM2B(integrity of 32) || TPM2B(TPMT_SENSITIVE), the data at its end */
		CU_ASSERT_EQUAL(plain[0] << 8 | plain[1], 32);
		CU_ASSERT_EQUAL(memcmp(plain + bl.dup.size - (sizeof(data) - 1), data,
				       sizeof(data) - 1),
				0);

		/* AES of the same key size on the same bytes: noise, not the object */
		CU_ASSERT_EQUAL(dup_import(&h, p.handle, &pub, &bl, &aes, &imported),
				RC_P(TPM_RC_INTEGRITY, 3));
		CU_ASSERT_EQUAL_FATAL(dup_import(&h, p.handle, &pub, &bl, syms[i], &imported),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(key_load(&h, p.handle, &imported, &pub, &obj, &name),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(unseal(obj, &out), TPM_RC_SUCCESS);
		CU_ASSERT(out.size == sizeof(data) - 1 && memcmp(out.b, data, out.size) == 0);
		harness_close(&h);
		harness_open(&h);
	}
}

/* ---- credentials ---- */

static TPM_RC make_credential(TPM_HANDLE key, const char *cred, const struct tpm2b_name *name,
			      uint8_t *blob, uint16_t *blen, uint8_t *secret, uint16_t *slen)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_MakeCredential);
	cmd_handle(&b, key);
	wr_tpm2b(&b.params, cred, (uint16_t)strlen(cred));
	wr_tpm2b_name(&b.params, name);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, blob, 256, blen), 0);
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, secret, 512, slen), 0);
	return rc;
}

static TPM_RC activate(TPM_HANDLE obj, TPM_HANDLE key, const uint8_t *blob, uint16_t blen,
		       const uint8_t *secret, uint16_t slen, struct tpm2b_digest *cred)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ActivateCredential);
	cmd_handle(&b, obj);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, blob, blen);
	wr_tpm2b(&b.params, secret, slen);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, cred), 0);
	return rc;
}

/* An EK-style key (ECC P-256, restricted decryption) whose symmetric is Camellia or TDES
 * protects a credential that only it activates, for the object named; the encIdentity the
 * blob carries is that cipher's over the seed the TPM recovers (checked as a round trip and
 * by a second key of the same cipher, which cannot open it). */
static void test_credentials(void)
{
	static const char cred[] = "a credential for Camellia / TDES";
	const struct tpmt_sym_def *syms[] = { &cam128, &cam256, &tdes128, &tdes192 };

	for (size_t i = 0; i < 4; i++) {
		uint8_t blob[256], secret[512];
		uint16_t blen = 0, slen = 0;
		struct tpm2b_digest out;
		struct tpmt_public t;
		struct key ek, other, ak;

		parent_with(TPM_ALG_ECC, syms[i], &ek);
		key_template_attrs(&t, TPM_ALG_ECC, STORAGE);
		t.symmetric = *syms[i];
		t.name_alg = TPM_ALG_SHA384; /* another primary, another key */
		key_primary(&h, &t, NULL, 0, &other);
		key_template(&t, TPM_ALG_ECC, SIGN);
		t.scheme.scheme = TPM_ALG_ECDSA;
		t.scheme.hash_alg = TPM_ALG_SHA256;
		key_primary(&h, &t, NULL, 0, &ak);

		CU_ASSERT_EQUAL_FATAL(make_credential(ek.handle, cred, &ak.name, blob, &blen,
						      secret, &slen),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(activate(ak.handle, ek.handle, blob, blen, secret, slen, &out),
				TPM_RC_SUCCESS);
		CU_ASSERT(out.size == sizeof(cred) - 1 && memcmp(out.b, cred, out.size) == 0);
		/* for another object: the integrity check names the blob */
		CU_ASSERT_EQUAL(activate(other.handle, ek.handle, blob, blen, secret, slen, &out),
				RC_P(TPM_RC_INTEGRITY, 1));
		harness_close(&h);
		harness_open(&h);
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "EncryptDecrypt(2): known answers, every mode, chaining", test_encrypt_decrypt },
		{ "iv and block sizes of TDES and Camellia", test_block_rules },
		{ "TDES keys: parity, weak keys", test_tdes_keys },
		{ "Camellia and TDES storage parents", test_storage_parents },
		{ "Duplicate / Import with a Camellia or TDES inner wrapper", test_inner_wrapper },
		{ "MakeCredential / ActivateCredential", test_credentials },
	};

	return UNIT_RUN("sym_ciphers", tests, setup, teardown);
}
