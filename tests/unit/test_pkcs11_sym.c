/* The PKCS#11 module's secret keys, whose values live in the TPM, through its function list
 * (dlopen): AES and generic secret keys generated (C_GenerateKey) and made of a known value
 * (C_CreateObject), their attributes and check values; AES ECB, CBC, CBC-PAD and CTR against
 * FIPS-197 and SP 800-38A, one part and many, CTR's counter bits; HMAC-SHA-1/256/384/512 and
 * their _GENERAL forms against RFC 4231 (RFC 2202 for SHA-1); ECDH1 with the X9.63 KDFs
 * against the KDF computed here; token keys that come back in a new session without their
 * value in the store, copies and changes of keys that leave none there either; and the errors
 * the specification names. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-sym-XXXXXX";
static char dir[PATH_MAX];
static CK_FUNCTION_LIST *f;
static void *lib;
static int counter;
static CK_SLOT_ID slot;
static CK_SESSION_HANDLE s;

#define SO_PIN "so-secret"
#define USER_PIN "1234"

static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
static CK_OBJECT_CLASS secret_class = CKO_SECRET_KEY;
static CK_KEY_TYPE aes_type = CKK_AES, generic_type = CKK_GENERIC_SECRET;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	setenv("PQTPM_STATE_DIR", dir, 1);
	p11_token_user_session(f, "sym", SO_PIN, USER_PIN, &slot, &s);
}

static void teardown(void)
{
	f->C_Finalize(NULL);
	harness_rm_tree(dir);
}

/* Hex (spaces allowed) into out: its length. */
static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;
	unsigned v;

	while (*h) {
		if (*h == ' ') {
			h++;
			continue;
		}
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 13 + seed + (i >> 7));
}

/* ---- keys ---- */

/* A session secret key of type made of value, with the uses given (and readable if asked). */
static CK_RV make_key(CK_KEY_TYPE type, const uint8_t *value, size_t len, CK_BBOOL readable,
		      CK_OBJECT_HANDLE *k)
{
	CK_BBOOL sensitive = !readable;
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &type, sizeof(type) },
		{ CKA_VALUE, (void *)value, len },
		{ CKA_SENSITIVE, &sensitive, sizeof(sensitive) },
		{ CKA_EXTRACTABLE, &readable, sizeof(readable) },
	};

	return f->C_CreateObject(s, t, 5, k);
}

static CK_OBJECT_HANDLE aes_key(const uint8_t *value, size_t len)
{
	CK_OBJECT_HANDLE k = 0;

	CU_ASSERT_EQUAL_FATAL(make_key(CKK_AES, value, len, CK_FALSE, &k), CKR_OK);
	return k;
}

static CK_OBJECT_HANDLE hmac_key(const uint8_t *value, size_t len)
{
	CK_OBJECT_HANDLE k = 0;

	CU_ASSERT_EQUAL_FATAL(make_key(CKK_GENERIC_SECRET, value, len, CK_FALSE, &k), CKR_OK);
	return k;
}

/* ---- encryption helpers ---- */

/* One part, with the length query first: out, *len. */
static CK_RV crypt_once(CK_MECHANISM *m, CK_OBJECT_HANDLE k, int dec, const uint8_t *in,
			size_t n, uint8_t *out, CK_ULONG *len)
{
	CK_ULONG want = 0;
	CK_RV rv = dec ? f->C_DecryptInit(s, m, k) : f->C_EncryptInit(s, m, k);

	if (rv != CKR_OK)
		return rv;
	rv = dec ? f->C_Decrypt(s, (CK_BYTE *)in, n, NULL, &want)
		 : f->C_Encrypt(s, (CK_BYTE *)in, n, NULL, &want);
	if (rv != CKR_OK)
		return rv;
	*len = want;
	rv = dec ? f->C_Decrypt(s, (CK_BYTE *)in, n, out, len)
		 : f->C_Encrypt(s, (CK_BYTE *)in, n, out, len);
	CU_ASSERT(rv != CKR_OK || *len <= want);
	return rv;
}

/* In parts of the sizes given (0-terminated, the rest in the last), each with its length
 * query: out, *len. */
static CK_RV crypt_parts(CK_MECHANISM *m, CK_OBJECT_HANDLE k, int dec, const uint8_t *in,
			 size_t n, const size_t *cuts, uint8_t *out, CK_ULONG *len)
{
	CK_ULONG got, total = 0;
	size_t at = 0, part;
	CK_RV rv = dec ? f->C_DecryptInit(s, m, k) : f->C_EncryptInit(s, m, k);

	while (rv == CKR_OK && at < n) {
		part = *cuts ? *cuts++ : n - at;
		if (part > n - at)
			part = n - at;
		rv = dec ? f->C_DecryptUpdate(s, (CK_BYTE *)in + at, part, NULL, &got)
			 : f->C_EncryptUpdate(s, (CK_BYTE *)in + at, part, NULL, &got);
		if (rv == CKR_OK)
			rv = dec ? f->C_DecryptUpdate(s, (CK_BYTE *)in + at, part, out + total, &got)
				 : f->C_EncryptUpdate(s, (CK_BYTE *)in + at, part, out + total, &got);
		total += got;
		at += part;
	}
	if (rv == CKR_OK)
		rv = dec ? f->C_DecryptFinal(s, NULL, &got) : f->C_EncryptFinal(s, NULL, &got);
	if (rv == CKR_OK)
		rv = dec ? f->C_DecryptFinal(s, out + total, &got)
			 : f->C_EncryptFinal(s, out + total, &got);
	*len = total + (rv == CKR_OK ? got : 0);
	return rv;
}

/* Both ways, in one part and in several: cipher from plain, plain from cipher. */
static void known_answer(CK_MECHANISM *m, CK_OBJECT_HANDLE k, const uint8_t *plain, size_t pn,
			 const uint8_t *cipher, size_t cn)
{
	static const size_t cuts[] = { 1, 15, 17, 5, 0 };
	uint8_t out[256];
	CK_ULONG len = 0;

	CU_ASSERT_EQUAL_FATAL(crypt_once(m, k, 0, plain, pn, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(len, cn);
	CU_ASSERT_EQUAL(memcmp(out, cipher, cn), 0);
	CU_ASSERT_EQUAL_FATAL(crypt_once(m, k, 1, cipher, cn, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(len, pn);
	CU_ASSERT_EQUAL(memcmp(out, plain, pn), 0);
	memset(out, 0, sizeof(out));
	CU_ASSERT_EQUAL_FATAL(crypt_parts(m, k, 0, plain, pn, cuts, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(len, cn);
	CU_ASSERT_EQUAL(memcmp(out, cipher, cn), 0);
	CU_ASSERT_EQUAL_FATAL(crypt_parts(m, k, 1, cipher, cn, cuts, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(len, pn);
	CU_ASSERT_EQUAL(memcmp(out, plain, pn), 0);
}

/* ---- AES known answers ---- */

static const char SP_PLAIN[] = "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
			       "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710";

/* FIPS-197 appendix C (AES-128/192/256, one block) and SP 800-38A F.1, F.2, F.5 (ECB, CBC, CTR
 * with AES-128 and AES-256), both ways, in one part and in several. */
static void test_aes_known(void)
{
	static const struct {
		const char *key, *mode_ecb, *cbc, *ctr;
	} sp[] = {
		{ "2b7e151628aed2a6abf7158809cf4f3c",
		  "3ad77bb40d7a3660a89ecaf32466ef97 f5d3d58503b9699de785895a96fdbaaf"
		  "43b1cd7f598ece23881b00e3ed030688 7b0c785e27e8ad3f8223207104725dd4",
		  "7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2"
		  "73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7",
		  "874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff"
		  "5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee" },
		{ "603deb1015ca71be2b73aef0857d7781 1f352c073b6108d72d9810a30914dff4",
		  "f3eed1bdb5d2a03c064b5a7e3db181f8 591ccb10d410ed26dc5ba74a31362870"
		  "b6ed21b99ca6f4f9f153e7b1beafed1d 23304b7a39f9f3ff067d8d8f9e24ecc7",
		  "f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d"
		  "39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b",
		  "601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5"
		  "2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6" },
	};
	static const struct {
		const char *key, *cipher;
	} fips[] = {
		{ "000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a" },
		{ "000102030405060708090a0b0c0d0e0f1011121314151617",
		  "dda97ca4864cdfe06eaf70a0ec0d7191" },
		{ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
		  "8ea2b7ca516745bfeafc49904b496089" },
	};
	uint8_t key[32], plain[64], cipher[64];
	CK_AES_CTR_PARAMS ctr = { 128, { 0 } };
	uint8_t iv[16];
	CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 }, cbc = { CKM_AES_CBC, iv, sizeof(iv) },
		     cm = { CKM_AES_CTR, &ctr, sizeof(ctr) };
	size_t i, kn, pn;

	pn = unhex("00112233445566778899aabbccddeeff", plain);
	for (i = 0; i < 3; i++) {
		kn = unhex(fips[i].key, key);
		unhex(fips[i].cipher, cipher);
		known_answer(&ecb, aes_key(key, kn), plain, pn, cipher, 16);
	}
	pn = unhex(SP_PLAIN, plain);
	unhex("000102030405060708090a0b0c0d0e0f", iv);
	unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", ctr.cb);
	for (i = 0; i < 2; i++) {
		CK_OBJECT_HANDLE k;

		kn = unhex(sp[i].key, key);
		k = aes_key(key, kn);
		unhex(sp[i].mode_ecb, cipher);
		known_answer(&ecb, k, plain, pn, cipher, pn);
		unhex(sp[i].cbc, cipher);
		known_answer(&cbc, k, plain, pn, cipher, pn);
		unhex(sp[i].ctr, cipher);
		known_answer(&cm, k, plain, pn, cipher, pn);
		/* CTR of a part of a block: the keystream's first bytes */
		known_answer(&cm, k, plain, 21, cipher, 21);
	}
}

/* CBC-PAD of every length around the block: PKCS#7 padding over CBC computed here, and the
 * same in several parts; a padding that does not check out. */
static void test_aes_cbc_pad(void)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 31, 32, 100 };
	static const size_t cuts[] = { 3, 16, 1, 0 };
	uint8_t key[16], iv[16], plain[128], padded[144], want[144], out[160], ivw[16];
	CK_MECHANISM m = { CKM_AES_CBC_PAD, iv, sizeof(iv) };
	CK_OBJECT_HANDLE k;
	CK_ULONG len = 0;
	size_t i, n, pad;

	pattern(key, sizeof(key), 1);
	pattern(iv, sizeof(iv), 2);
	pattern(plain, sizeof(plain), 3);
	k = aes_key(key, sizeof(key));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		n = lens[i];
		pad = 16 - n % 16;
		memcpy(padded, plain, n);
		memset(padded + n, (int)pad, pad);
		memcpy(ivw, iv, 16);
		CU_ASSERT_EQUAL_FATAL(crypto_aes(TPM_ALG_CBC, true, key, 16, ivw, padded, want,
						 n + pad),
				      0);
		known_answer(&m, k, plain, n, want, n + pad);
		memset(out, 0, sizeof(out));
		CU_ASSERT_EQUAL(crypt_parts(&m, k, 1, want, n + pad, cuts, out, &len), CKR_OK);
		CU_ASSERT_EQUAL(len, n);
		CU_ASSERT_EQUAL(memcmp(out, plain, n), 0);
	}
	/* the length query of C_Decrypt is the ciphertext's; a buffer the plaintext fits in but
	 * not the ciphertext is enough */
	memcpy(ivw, iv, 16);
	memcpy(padded, plain, 17);
	memset(padded + 17, 15, 15);
	CU_ASSERT_EQUAL_FATAL(crypto_aes(TPM_ALG_CBC, true, key, 16, ivw, padded, want, 32), 0);
	CU_ASSERT_EQUAL_FATAL(f->C_DecryptInit(s, &m, k), CKR_OK);
	len = 0;
	CU_ASSERT_EQUAL(f->C_Decrypt(s, want, 32, NULL, &len), CKR_OK);
	CU_ASSERT_EQUAL(len, 32);
	len = 16;
	CU_ASSERT_EQUAL(f->C_Decrypt(s, want, 32, out, &len), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(len, 17);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, want, 32, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(len, 17);
	CU_ASSERT_EQUAL(memcmp(out, plain, 17), 0);
	/* padding bytes that differ, a padding of zero */
	for (pad = 0; pad < 2; pad++) {
		memcpy(ivw, iv, 16);
		memcpy(padded, plain, 16);
		memset(padded + 16, pad ? 0 : 3, 16);
		padded[31] = pad ? 0 : 4;
		CU_ASSERT_EQUAL_FATAL(crypto_aes(TPM_ALG_CBC, true, key, 16, ivw, padded, want, 32),
				      0);
		len = sizeof(out);
		CU_ASSERT_EQUAL(crypt_once(&m, k, 1, want, 32, out, &len),
				CKR_ENCRYPTED_DATA_INVALID);
		CU_ASSERT_EQUAL(crypt_parts(&m, k, 1, want, 32, cuts, out, &len),
				CKR_ENCRYPTED_DATA_INVALID);
	}
}

/* CTR's keystream block i for a counter block and its counter bits, computed here: the low
 * bits incremented i times, modulo 2^bits, the others kept. */
static void ctr_block(const uint8_t *key, const uint8_t *cb, unsigned bits, unsigned i,
		      uint8_t *ks)
{
	uint8_t c[16], iv[16] = { 0 };
	unsigned carry = i, b;

	memcpy(c, cb, 16);
	for (b = 0; b < bits && carry; b += 8) {
		unsigned width = bits - b < 8 ? bits - b : 8, mask = (1u << width) - 1;
		unsigned v = (c[15 - b / 8] & mask) + (carry & 0xff);

		carry = (carry >> 8) + (v >> width);
		c[15 - b / 8] = (uint8_t)((c[15 - b / 8] & ~mask) | (v & mask));
	}
	crypto_aes(TPM_ALG_ECB, true, key, 16, iv, c, ks, 16);
}

/* The counter bits of CK_AES_CTR_PARAMS: the field wraps within its bits, the bits above it
 * stay; more blocks than the field counts is CKR_DATA_LEN_RANGE. */
static void test_aes_ctr_bits(void)
{
	static const size_t cuts[] = { 20, 7, 0 };
	static const struct {
		unsigned bits;
		const char *cb;
	} cases[] = {
		{ 8, "0102030405060708090a0b0c0d0e0ffd" },
		{ 12, "0102030405060708090a0b0c0d0e0ffe" },
		{ 64, "0102030405060708fffffffffffffffe" },
		{ 65, "0102030405060708fffffffffffffffe" },
		{ 128, "ffffffffffffffffffffffffffffffff" },
	};
	uint8_t key[16], plain[100], want[100], out[100], ks[16];
	CK_AES_CTR_PARAMS p;
	CK_MECHANISM m = { CKM_AES_CTR, &p, sizeof(p) };
	CK_OBJECT_HANDLE k;
	CK_ULONG len;
	size_t i, j;

	pattern(key, sizeof(key), 4);
	pattern(plain, sizeof(plain), 5);
	k = aes_key(key, sizeof(key));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p.ulCounterBits = cases[i].bits;
		unhex(cases[i].cb, p.cb);
		for (j = 0; j < sizeof(plain); j++) {
			if (j % 16 == 0)
				ctr_block(key, p.cb, cases[i].bits, (unsigned)(j / 16), ks);
			want[j] = plain[j] ^ ks[j % 16];
		}
		len = 0;
		CU_ASSERT_EQUAL(crypt_once(&m, k, 0, plain, sizeof(plain), out, &len), CKR_OK);
		CU_ASSERT_EQUAL(len, sizeof(plain));
		CU_ASSERT_EQUAL(memcmp(out, want, sizeof(want)), 0);
		CU_ASSERT_EQUAL(crypt_parts(&m, k, 1, want, sizeof(want), cuts, out, &len), CKR_OK);
		CU_ASSERT_EQUAL(len, sizeof(plain));
		CU_ASSERT_EQUAL(memcmp(out, plain, sizeof(plain)), 0);
	}
	/* two bits count four blocks: four go, five would use one twice */
	p.ulCounterBits = 2;
	unhex("000102030405060708090a0b0c0d0e03", p.cb);
	CU_ASSERT_EQUAL(crypt_once(&m, k, 0, plain, 64, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(crypt_once(&m, k, 0, plain, 65, out, &len), CKR_DATA_LEN_RANGE);
	CU_ASSERT_EQUAL(crypt_parts(&m, k, 0, plain, 65, cuts, out, &len), CKR_DATA_LEN_RANGE);
}

/* Multi-part equals single-part for every mode on data of several TPM buffers, whatever the
 * parts; the IV the TPM gives back carries from part to part. */
static void test_aes_parts(void)
{
	static const size_t cuts_a[] = { 1, 2, 3, 1000, 1500, 16, 0 };
	static const size_t cuts_b[] = { 2047, 1, 0 };
	static uint8_t plain[3000], one[3020], many[3020], back[3020];
	uint8_t key[32], iv[16];
	CK_AES_CTR_PARAMS ctr = { 32, { 0 } };
	CK_MECHANISM ms[] = { { CKM_AES_ECB, NULL, 0 },
			      { CKM_AES_CBC, iv, sizeof(iv) },
			      { CKM_AES_CBC_PAD, iv, sizeof(iv) },
			      { CKM_AES_CTR, &ctr, sizeof(ctr) } };
	CK_OBJECT_HANDLE k;
	CK_ULONG n1 = 0, n2 = 0, nb = 0;
	size_t i, n;

	pattern(key, sizeof(key), 6);
	pattern(iv, sizeof(iv), 7);
	pattern(ctr.cb, sizeof(ctr.cb), 8);
	pattern(plain, sizeof(plain), 9);
	k = aes_key(key, 32);
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		n = ms[i].mechanism == CKM_AES_ECB || ms[i].mechanism == CKM_AES_CBC ? 2992 : 2999;
		CU_ASSERT_EQUAL(crypt_once(&ms[i], k, 0, plain, n, one, &n1), CKR_OK);
		CU_ASSERT_EQUAL(crypt_parts(&ms[i], k, 0, plain, n, cuts_a, many, &n2), CKR_OK);
		CU_ASSERT_EQUAL(n1, n2);
		CU_ASSERT_EQUAL(memcmp(one, many, n1), 0);
		CU_ASSERT_EQUAL(crypt_parts(&ms[i], k, 1, one, n1, cuts_b, back, &nb), CKR_OK);
		CU_ASSERT_EQUAL(nb, n);
		CU_ASSERT_EQUAL(memcmp(back, plain, n), 0);
	}
}

/* What the AES mechanisms refuse, and the two-call pattern's buffer-too-small. */
static void test_aes_errors(void)
{
	uint8_t key[16] = { 1 }, iv[17] = { 0 }, data[64] = { 0 }, out[96];
	CK_AES_CTR_PARAMS ctr = { 0, { 0 } };
	CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 }, cbc = { CKM_AES_CBC, iv, 16 },
		     bad_iv = { CKM_AES_CBC, iv, 17 }, no_iv = { CKM_AES_CBC_PAD, NULL, 0 },
		     ecb_iv = { CKM_AES_ECB, iv, 16 }, cm = { CKM_AES_CTR, &ctr, sizeof(ctr) },
		     rsa = { CKM_RSA_PKCS, NULL, 0 };
	CK_ATTRIBUTE no_encrypt[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &aes_type, sizeof(aes_type) },
		{ CKA_VALUE, key, sizeof(key) },
		{ CKA_ENCRYPT, &no, sizeof(no) },
	};
	CK_OBJECT_HANDLE k = aes_key(key, sizeof(key)), h = hmac_key(key, sizeof(key)), ne;
	CK_ULONG len;

	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, no_encrypt, 4, &ne), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &bad_iv, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &no_iv, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &ecb_iv, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &cm, k), CKR_MECHANISM_PARAM_INVALID);
	ctr.ulCounterBits = 129;
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &cm, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &ecb, h), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &rsa, k), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &ecb, ne), CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &ecb, ne), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DecryptFinal(s, NULL, &len), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DecryptFinal(s, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &ecb, 0x7777), CKR_KEY_HANDLE_INVALID);
	/* not initialized, or already */
	len = sizeof(out);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, data, 16, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_EncryptUpdate(s, data, 16, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_EncryptFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_DecryptUpdate(s, data, 16, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_DecryptFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_EncryptUpdate(0x7777, data, 16, out, &len),
			CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &ecb, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &ecb, k), CKR_OPERATION_ACTIVE);
	/* lengths: not whole blocks */
	CU_ASSERT_EQUAL(f->C_Encrypt(s, data, 15, out, &len), CKR_DATA_LEN_RANGE);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, data, 16, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL_FATAL(f->C_DecryptInit(s, &cbc, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, data, 17, out, &len), CKR_ENCRYPTED_DATA_LEN_RANGE);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &cbc, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptUpdate(s, data, 20, out, &len), CKR_OK);
	CU_ASSERT_EQUAL(len, 16);
	CU_ASSERT_EQUAL(f->C_EncryptFinal(s, out, &len), CKR_DATA_LEN_RANGE);
	CU_ASSERT_EQUAL(f->C_EncryptFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	/* a buffer too small: told the length, the operation goes on */
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &ecb, k), CKR_OK);
	len = 31;
	CU_ASSERT_EQUAL(f->C_Encrypt(s, data, 32, out, &len), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(len, 32);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, data, 32, out, &len), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &ecb, k), CKR_OK);
	len = 15;
	CU_ASSERT_EQUAL(f->C_EncryptUpdate(s, data, 32, out, &len), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(len, 32);
	CU_ASSERT_EQUAL(f->C_EncryptUpdate(s, data, 32, out, &len), CKR_OK);
	/* C_Encrypt cannot end what C_EncryptUpdate began; NULL where a length goes */
	CU_ASSERT_EQUAL(f->C_Encrypt(s, data, 16, out, &len), CKR_OPERATION_ACTIVE);
	CU_ASSERT_EQUAL(f->C_EncryptUpdate(s, data, 16, out, NULL), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_EncryptFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &ecb, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptUpdate(s, NULL, 16, out, &len), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &ecb, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptFinal(s, out, NULL), CKR_ARGUMENTS_BAD);
	/* the key needs the login that gives its authValue */
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, strlen(USER_PIN)), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &ecb, k), CKR_OK);
}

/* ---- HMAC ---- */

/* The MAC of data with mechanism m: one part (with the length query) and several agree. */
static void mac_both(CK_MECHANISM *m, CK_OBJECT_HANDLE k, const uint8_t *data, size_t n,
		     uint8_t *out, CK_ULONG *len)
{
	uint8_t again[64];
	CK_ULONG want = 0, len2 = sizeof(again);
	size_t at;

	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, m, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)data, n, NULL, &want), CKR_OK);
	*len = want;
	CU_ASSERT_EQUAL_FATAL(f->C_Sign(s, (CK_BYTE *)data, n, out, len), CKR_OK);
	CU_ASSERT_EQUAL(*len, want);
	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, m, k), CKR_OK);
	for (at = 0; at < n; at += 700)
		CU_ASSERT_EQUAL(f->C_SignUpdate(s, (CK_BYTE *)data + at, n - at < 700 ? n - at : 700),
				CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignFinal(s, again, &len2), CKR_OK);
	CU_ASSERT_EQUAL(len2, *len);
	CU_ASSERT_EQUAL(memcmp(again, out, *len), 0);
	/* the module verifies what it made, in one part and in several */
	CU_ASSERT_EQUAL_FATAL(f->C_VerifyInit(s, m, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)data, n, out, *len), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_VerifyInit(s, m, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyUpdate(s, (CK_BYTE *)data, n / 2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyUpdate(s, (CK_BYTE *)data + n / 2, n - n / 2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyFinal(s, out, *len), CKR_OK);
}

/* RFC 4231 test cases 1, 2, 3, 4 (SHA-256/384/512) and 5 (the truncated one, through the
 * _GENERAL mechanisms), RFC 2202's case 2 for SHA-1; 3000 bytes (an HMAC sequence) against the
 * HMAC computed here. */
static void test_hmac_known(void)
{
	static const struct {
		const char *key, *data, *mac256, *mac384, *mac512;
	} rfc[] = {
		{ "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
		  "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c"
		  "faea9ea9076ede7f4af152e8b2fa9cb6",
		  "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
		  "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854" },
		{ "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		  "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
		  "8e2240ca5e69e2c78b3239ecfab21649",
		  "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
		  "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
		  "dddddddddddddddddd",
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
		  "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b"
		  "2a5ab39dc13814b94e3ab6e101a34f27",
		  "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39"
		  "bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb" },
		{ "0102030405060708090a0b0c0d0e0f10111213141516171819",
		  "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
		  "cdcdcdcdcdcdcdcdcd",
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
		  "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e"
		  "6801dd23c4a7d679ccf8a386c674cffb",
		  "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db"
		  "a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd" },
	};
	static const CK_MECHANISM_TYPE mechs[] = { CKM_SHA256_HMAC, CKM_SHA384_HMAC,
						   CKM_SHA512_HMAC };
	static const CK_MECHANISM_TYPE general[] = { CKM_SHA256_HMAC_GENERAL,
						     CKM_SHA384_HMAC_GENERAL,
						     CKM_SHA512_HMAC_GENERAL };
	static const char *const truncated[] = { "a3b6167473100ee06e0c796c2955552b",
						 "3abf34c3503b2a23a46efc619baef897",
						 "415fad6271580a531d4179bc891d87a6" };
	static uint8_t big[3000];
	uint8_t key[64], data[64], want[64], out[64];
	CK_ULONG len = 0, general_len = 16;
	CK_MECHANISM m = { 0, NULL, 0 }, g = { 0, &general_len, sizeof(general_len) };
	CK_OBJECT_HANDLE k;
	size_t i, j, kn, dn;

	for (i = 0; i < sizeof(rfc) / sizeof(rfc[0]); i++) {
		kn = unhex(rfc[i].key, key);
		dn = unhex(rfc[i].data, data);
		k = hmac_key(key, kn);
		for (j = 0; j < 3; j++) {
			size_t wn = unhex(j == 0 ? rfc[i].mac256 : j == 1 ? rfc[i].mac384
									  : rfc[i].mac512,
					  want);

			m.mechanism = mechs[j];
			mac_both(&m, k, data, dn, out, &len);
			CU_ASSERT_EQUAL(len, wn);
			CU_ASSERT_EQUAL(memcmp(out, want, wn), 0);
		}
	}
	/* case 5: 0x0c * 20, "Test With Truncation", the first 128 bits */
	memset(key, 0x0c, 20);
	k = hmac_key(key, 20);
	for (j = 0; j < 3; j++) {
		unhex(truncated[j], want);
		g.mechanism = general[j];
		mac_both(&g, k, (const uint8_t *)"Test With Truncation", 20, out, &len);
		CU_ASSERT_EQUAL(len, 16);
		CU_ASSERT_EQUAL(memcmp(out, want, 16), 0);
	}
	/* RFC 2202 case 2, HMAC-SHA-1 */
	k = hmac_key((const uint8_t *)"Jefe", 4);
	m.mechanism = CKM_SHA_1_HMAC;
	mac_both(&m, k, (const uint8_t *)"what do ya want for nothing?", 28, out, &len);
	unhex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79", want);
	CU_ASSERT_EQUAL(len, 20);
	CU_ASSERT_EQUAL(memcmp(out, want, 20), 0);
	/* longer than one TPM buffer, with a key of the most a TPM takes */
	pattern(big, sizeof(big), 11);
	pattern(key, 64, 12);
	k = hmac_key(key, 64);
	m.mechanism = CKM_SHA512_HMAC;
	mac_both(&m, k, big, sizeof(big), out, &len);
	CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA512, key, 64, big, sizeof(big), want), 0);
	CU_ASSERT_EQUAL(len, 64);
	CU_ASSERT_EQUAL(memcmp(out, want, 64), 0);
}

/* What the HMAC mechanisms refuse: wrong MACs and lengths, parameters, keys, the buffer too
 * small. */
static void test_hmac_errors(void)
{
	uint8_t key[32] = { 7 }, mac[64];
	CK_ULONG len, too_long = 33, zero = 0;
	CK_MECHANISM m = { CKM_SHA256_HMAC, NULL, 0 }, param = { CKM_SHA256_HMAC, &len, sizeof(len) },
		     g0 = { CKM_SHA256_HMAC_GENERAL, &zero, sizeof(zero) },
		     g33 = { CKM_SHA256_HMAC_GENERAL, &too_long, sizeof(too_long) },
		     gnone = { CKM_SHA256_HMAC_GENERAL, NULL, 0 };
	CK_ATTRIBUTE no_sign[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &generic_type, sizeof(generic_type) },
		{ CKA_VALUE, key, sizeof(key) },
		{ CKA_SIGN, &no, sizeof(no) },
	};
	CK_OBJECT_HANDLE k = hmac_key(key, sizeof(key)), a = aes_key(key, 16), ns;

	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, no_sign, 4, &ns), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m, ns), CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m, ns), CKR_OK); /* CKA_VERIFY by default */
	CU_ASSERT_EQUAL(f->C_VerifyFinal(s, mac, 1), CKR_SIGNATURE_LEN_RANGE);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m, a), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &param, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &g0, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &g33, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &gnone, k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_SignFinal(s, mac, &len), CKR_OPERATION_NOT_INITIALIZED);
	/* buffer too small: told the length, the operation goes on */
	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, &m, k), CKR_OK);
	len = 31;
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)"x", 1, mac, &len), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(len, 32);
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)"x", 1, mac, &len), CKR_OK);
	/* a MAC one bit off, one byte short */
	CU_ASSERT_EQUAL_FATAL(f->C_VerifyInit(s, &m, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)"x", 1, mac, 32), CKR_OK);
	mac[31] ^= 1;
	CU_ASSERT_EQUAL_FATAL(f->C_VerifyInit(s, &m, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)"x", 1, mac, 32), CKR_SIGNATURE_INVALID);
	mac[31] ^= 1;
	CU_ASSERT_EQUAL_FATAL(f->C_VerifyInit(s, &m, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)"x", 1, mac, 31), CKR_SIGNATURE_LEN_RANGE);
	CU_ASSERT_EQUAL_FATAL(f->C_VerifyInit(s, &m, k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)"y", 1, mac, 32), CKR_SIGNATURE_INVALID);
	/* the key's use needs a login (its authValue): a public key object's would not */
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m, k), CKR_KEY_HANDLE_INVALID);
}

/* ---- keys: generation, creation, attributes ---- */

/* An attribute of k (len bytes at most): its length, or CK_UNAVAILABLE_INFORMATION. */
static CK_ULONG attr(CK_OBJECT_HANDLE k, CK_ATTRIBUTE_TYPE type, void *v, CK_ULONG len)
{
	CK_ATTRIBUTE a = { type, v, len };

	f->C_GetAttributeValue(s, k, &a, 1);
	return a.ulValueLen;
}

static CK_BBOOL attr_bool(CK_OBJECT_HANDLE k, CK_ATTRIBUTE_TYPE type)
{
	CK_BBOOL b = 0xAA;

	CU_ASSERT_EQUAL(attr(k, type, &b, sizeof(b)), sizeof(b));
	return b;
}

static CK_ULONG attr_ulong(CK_OBJECT_HANDLE k, CK_ATTRIBUTE_TYPE type)
{
	CK_ULONG u = 0xAAAA;

	CU_ASSERT_EQUAL(attr(k, type, &u, sizeof(u)), sizeof(u));
	return u;
}

/* C_GenerateKey of AES-128/192/256 and generic secrets: made in the TPM, sensitive and never
 * extractable, local, their check values; one that may be read shows its value, which is the
 * key's (its check value and its ciphertexts agree with it). */
static void test_generate(void)
{
	static const uint8_t zero[16];
	CK_ULONG len, lens[] = { 16, 24, 32 };
	CK_MECHANISM aes_gen = { CKM_AES_KEY_GEN, NULL, 0 },
		     gen_gen = { CKM_GENERIC_SECRET_KEY_GEN, NULL, 0 };
	CK_ATTRIBUTE t[] = {
		{ CKA_VALUE_LEN, &len, sizeof(len) },
		{ CKA_SENSITIVE, &no, sizeof(no) },
		{ CKA_EXTRACTABLE, &yes, sizeof(yes) },
	};
	CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 }, mac = { CKM_SHA256_HMAC, NULL, 0 };
	uint8_t kcv[3], value[128], out[64], want[64], ivw[16] = { 0 };
	CK_OBJECT_HANDLE k, k2;
	CK_ULONG n = 0;
	size_t i;

	for (i = 0; i < 3; i++) {
		len = lens[i];
		CU_ASSERT_EQUAL_FATAL(f->C_GenerateKey(s, &aes_gen, t, 1, &k), CKR_OK);
		CU_ASSERT_EQUAL(attr_ulong(k, CKA_CLASS), CKO_SECRET_KEY);
		CU_ASSERT_EQUAL(attr_ulong(k, CKA_KEY_TYPE), CKK_AES);
		CU_ASSERT_EQUAL(attr_ulong(k, CKA_VALUE_LEN), lens[i]);
		CU_ASSERT_EQUAL(attr_ulong(k, CKA_KEY_GEN_MECHANISM), CKM_AES_KEY_GEN);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_LOCAL), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_SENSITIVE), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_ALWAYS_SENSITIVE), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_EXTRACTABLE), CK_FALSE);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_NEVER_EXTRACTABLE), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_ENCRYPT), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_SIGN), CK_FALSE);
		CU_ASSERT_EQUAL(attr(k, CKA_VALUE, value, sizeof(value)),
				CK_UNAVAILABLE_INFORMATION);
		/* the check value: the key's encryption of a zero block */
		CU_ASSERT_EQUAL(attr(k, CKA_CHECK_VALUE, kcv, sizeof(kcv)), 3);
		CU_ASSERT_EQUAL(crypt_once(&ecb, k, 0, zero, 16, out, &n), CKR_OK);
		CU_ASSERT_EQUAL(memcmp(kcv, out, 3), 0);
	}
	/* readable: the value is the key */
	len = 32;
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKey(s, &aes_gen, t, 3, &k), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(attr(k, CKA_VALUE, value, sizeof(value)), 32);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_ALWAYS_SENSITIVE), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_NEVER_EXTRACTABLE), CK_FALSE);
	CU_ASSERT_EQUAL(crypt_once(&ecb, k, 0, zero, 16, out, &n), CKR_OK);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, true, value, 32, ivw, zero, want, 16), 0);
	CU_ASSERT_EQUAL(memcmp(out, want, 16), 0);
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKey(s, &aes_gen, t, 3, &k2), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(attr(k2, CKA_VALUE, out, sizeof(out)), 32);
	CU_ASSERT_NOT_EQUAL(memcmp(value, out, 32), 0);
	/* generic secrets of any length up to 128 bytes; the check value is SHA-1's */
	for (len = 1; len <= 128; len += 127) {
		CU_ASSERT_EQUAL_FATAL(f->C_GenerateKey(s, &gen_gen, t, 3, &k), CKR_OK);
		CU_ASSERT_EQUAL(attr_ulong(k, CKA_KEY_TYPE), CKK_GENERIC_SECRET);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_SIGN), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(k, CKA_ENCRYPT), CK_FALSE);
		CU_ASSERT_EQUAL_FATAL(attr(k, CKA_VALUE, value, sizeof(value)), len);
		CU_ASSERT_EQUAL(attr(k, CKA_CHECK_VALUE, kcv, sizeof(kcv)), 3);
		CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA1, value, len, want), 0);
		CU_ASSERT_EQUAL(memcmp(kcv, want, 3), 0);
		mac_both(&mac, k, (const uint8_t *)"message", 7, out, &n);
		CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA256, value, len, "message", 7, want), 0);
		CU_ASSERT_EQUAL(memcmp(out, want, 32), 0);
	}
	len = 32;
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKey(s, &gen_gen, t, 1, &k), CKR_OK);
	CU_ASSERT_EQUAL(attr(k, CKA_VALUE, value, sizeof(value)), CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_NEVER_EXTRACTABLE), CK_TRUE);
}

/* What C_GenerateKey refuses. */
static void test_generate_errors(void)
{
	CK_ULONG len = 16, bad_len = 20, big = 129;
	CK_MECHANISM aes_gen = { CKM_AES_KEY_GEN, NULL, 0 },
		     gen_gen = { CKM_GENERIC_SECRET_KEY_GEN, NULL, 0 },
		     with_param = { CKM_AES_KEY_GEN, &len, sizeof(len) },
		     rsa_gen = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE ok[] = { { CKA_VALUE_LEN, &len, sizeof(len) } };
	CK_ATTRIBUTE bad[] = { { CKA_VALUE_LEN, &bad_len, sizeof(bad_len) } };
	CK_ATTRIBUTE too_big[] = { { CKA_VALUE_LEN, &big, sizeof(big) } };
	CK_ATTRIBUTE other_type[] = { { CKA_VALUE_LEN, &len, sizeof(len) },
				      { CKA_KEY_TYPE, &generic_type, sizeof(generic_type) } };
	CK_ATTRIBUTE value[] = { { CKA_VALUE_LEN, &len, sizeof(len) }, { CKA_VALUE, &len, 16 } };
	CK_ATTRIBUTE local[] = { { CKA_VALUE_LEN, &len, sizeof(len) },
				 { CKA_LOCAL, &yes, sizeof(yes) } };
	CK_ATTRIBUTE twice[] = { { CKA_VALUE_LEN, &len, sizeof(len) },
				 { CKA_VALUE_LEN, &len, sizeof(len) } };
	CK_ATTRIBUTE unknown[] = { { CKA_VALUE_LEN, &len, sizeof(len) },
				   { CKA_MODULUS_BITS, &len, sizeof(len) } };
	CK_ATTRIBUTE bad_bool[] = { { CKA_VALUE_LEN, &len, sizeof(len) },
				    { CKA_SENSITIVE, &len, sizeof(len) } };
	CK_ATTRIBUTE readable_token[] = { { CKA_VALUE_LEN, &len, sizeof(len) },
					  { CKA_TOKEN, &yes, sizeof(yes) },
					  { CKA_SENSITIVE, &no, sizeof(no) },
					  { CKA_EXTRACTABLE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE token[] = { { CKA_VALUE_LEN, &len, sizeof(len) },
				 { CKA_TOKEN, &yes, sizeof(yes) } };
	CK_SESSION_HANDLE ro;
	CK_OBJECT_HANDLE k;

	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, NULL, 0, &k), CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, bad, 1, &k), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &gen_gen, too_big, 1, &k),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, other_type, 2, &k),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, value, 2, &k), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, local, 2, &k), CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, twice, 2, &k), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, unknown, 2, &k), CKR_ATTRIBUTE_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, bad_bool, 2, &k),
			CKR_ATTRIBUTE_VALUE_INVALID);
	/* a token key the application may read would keep its value in the store */
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, readable_token, 4, &k),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &with_param, ok, 1, &k), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &rsa_gen, ok, 1, &k), CKR_MECHANISM_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, NULL, ok, 1, &k), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, ok, 1, NULL), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, NULL, 1, &k), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_GenerateKey(0x7777, &aes_gen, ok, 1, &k), CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GenerateKey(ro, &aes_gen, token, 2, &k), CKR_SESSION_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_GenerateKey(ro, &aes_gen, ok, 1, &k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes_gen, ok, 1, &k), CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_CloseSession(ro), CKR_OK);
}

/* C_CreateObject of secret keys: the attributes of a key from outside, the check value a
 * template may give (and must then be right), what is refused. */
static void test_create(void)
{
	uint8_t v16[16], v129[129], kcv[3], want[20];
	CK_ULONG len = 16;
	CK_KEY_TYPE des3 = CKK_DES3;
	CK_ATTRIBUTE base[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &aes_type, sizeof(aes_type) },
		{ CKA_VALUE, v16, sizeof(v16) },
		{ CKA_CHECK_VALUE, kcv, sizeof(kcv) },
	};
	CK_ATTRIBUTE with_len[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &aes_type, sizeof(aes_type) },
		{ CKA_VALUE, v16, sizeof(v16) },
		{ CKA_VALUE_LEN, &len, sizeof(len) },
	};
	CK_ATTRIBUTE other[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &des3, sizeof(des3) },
		{ CKA_VALUE, v16, sizeof(v16) },
	};
	CK_ATTRIBUTE trusted[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &aes_type, sizeof(aes_type) },
		{ CKA_VALUE, v16, sizeof(v16) },
		{ CKA_TRUSTED, &yes, sizeof(yes) },
	};
	static const uint8_t zero[16];
	uint8_t ivw[16] = { 0 }, block[16];
	CK_OBJECT_HANDLE k;

	pattern(v16, sizeof(v16), 21);
	pattern(v129, sizeof(v129), 22);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, true, v16, 16, ivw, zero, block, 16), 0);
	memcpy(kcv, block, 3);
	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, base, 4, &k), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_LOCAL), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_ALWAYS_SENSITIVE), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_NEVER_EXTRACTABLE), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_SENSITIVE), CK_TRUE);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_PRIVATE), CK_TRUE);
	CU_ASSERT_EQUAL(attr_ulong(k, CKA_KEY_GEN_MECHANISM), CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(attr_ulong(k, CKA_VALUE_LEN), 16);
	CU_ASSERT_EQUAL(attr(k, CKA_UNIQUE_ID, block, sizeof(block)), 16);
	kcv[0] ^= 1;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 4, &k), CKR_ATTRIBUTE_VALUE_INVALID);
	/* a generic secret's check value is SHA-1's */
	base[1].pValue = &generic_type;
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA1, v16, 16, want), 0);
	memcpy(kcv, want, 3);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 4, &k), CKR_OK);
	/* 129 bytes: more than a TPM keeps */
	base[2].pValue = v129;
	base[2].ulValueLen = sizeof(v129);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 3, &k), CKR_ATTRIBUTE_VALUE_INVALID);
	base[2].ulValueLen = 0;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 3, &k), CKR_ATTRIBUTE_VALUE_INVALID);
	base[1].pValue = &aes_type;
	base[2].ulValueLen = 20;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 3, &k), CKR_ATTRIBUTE_VALUE_INVALID);
	base[2].pValue = v16;
	base[2].ulValueLen = sizeof(v16);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 2, &k), CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, with_len, 4, &k), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, with_len, 1, &k), CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, other, 3, &k), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, trusted, 4, &k), CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 3, NULL), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, base, 3, &k), CKR_USER_NOT_LOGGED_IN);
}

/* Whether the store's database holds these bytes anywhere. */
static int store_has(const uint8_t *b, size_t n)
{
	char path[PATH_MAX + 16];
	static uint8_t db[1 << 20];
	size_t len = 0, got;
	FILE *fp;
	int found = 0;
	const char *names[] = { "pkcs11.db", "pkcs11.db-wal" };

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fp = fopen(path, "rb");
		if (!fp)
			continue;
		got = fread(db, 1, sizeof(db), fp);
		len = got;
		fclose(fp);
		if (memmem(db, len, b, n))
			found = 1;
	}
	return found;
}

/* Token secret keys: back in a new session of a new C_Initialize, usable, with their
 * attributes; the store holds the TPM's blobs and no key value. */
static void test_token(void)
{
	static const uint8_t zero[16];
	uint8_t key[32], out[64], want[64], ivw[16] = { 0 }, label[] = "token-aes";
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &aes_type, sizeof(aes_type) },
		{ CKA_VALUE, key, sizeof(key) },
		{ CKA_TOKEN, &yes, sizeof(yes) },
		{ CKA_LABEL, label, sizeof(label) - 1 },
		{ CKA_EXTRACTABLE, &yes, sizeof(yes) },
	};
	CK_ATTRIBUTE find[] = { { CKA_LABEL, label, sizeof(label) - 1 } };
	CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 };
	CK_OBJECT_HANDLE k, found[2];
	CK_ULONG n = 0;

	pattern(key, sizeof(key), 31);
	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, t, 6, &k), CKR_OK);
	CU_ASSERT_EQUAL(store_has(key, sizeof(key)), 0);
	CU_ASSERT_EQUAL(store_has(key + 8, 16), 0);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &s),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, strlen(USER_PIN)),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_FindObjectsInit(s, find, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjects(s, found, 2, &n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsFinal(s), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(attr_ulong(found[0], CKA_VALUE_LEN), 32);
	CU_ASSERT_EQUAL(attr(found[0], CKA_VALUE, out, sizeof(out)), CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(crypt_once(&ecb, found[0], 0, zero, 16, out, &n), CKR_OK);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, true, key, 32, ivw, zero, want, 16), 0);
	CU_ASSERT_EQUAL(memcmp(out, want, 16), 0);
	CU_ASSERT_EQUAL(f->C_DestroyObject(s, found[0]), CKR_OK);
}

/* C_CopyObject and C_SetAttributeValue of secret keys. A copy encrypts as its original. A copy
 * of a sensitive token key, a new label of it, and a readable session key copied into the
 * token as a sensitive key leave no byte of either value in the store's files; a token copy
 * that could be read is refused, as a readable token key is at its making. A key made
 * sensitive no longer shows its value; the uses may be taken away, not given; the value, its
 * length, its check value and the key type are read-only, an attribute secret keys lack
 * (CKA_SUBJECT) not there; a key made uncopyable is not copied. */
static void test_copy_set(void)
{
	static const uint8_t zero[16];
	uint8_t key[32], key2[32], out[64], want[16], want2[16], ivw[16] = { 0 }, v[64];
	uint8_t label[] = "relabelled", kcv[3] = { 0 };
	CK_ULONG len = 32, n;
	CK_ATTRIBUTE token_key[] = {
		{ CKA_CLASS, &secret_class, sizeof(secret_class) },
		{ CKA_KEY_TYPE, &aes_type, sizeof(aes_type) },
		{ CKA_VALUE, key, sizeof(key) },
		{ CKA_TOKEN, &yes, sizeof(yes) },
	};
	CK_ATTRIBUTE relabel[] = { { CKA_LABEL, label, sizeof(label) - 1 } };
	CK_ATTRIBUTE to_token[] = { { CKA_TOKEN, &yes, sizeof(yes) },
				    { CKA_SENSITIVE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE sensitive[] = { { CKA_SENSITIVE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE not_sensitive[] = { { CKA_SENSITIVE, &no, sizeof(no) } };
	CK_ATTRIBUTE extractable[] = { { CKA_EXTRACTABLE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE no_encrypt[] = { { CKA_ENCRYPT, &no, sizeof(no) } };
	CK_ATTRIBUTE encrypt[] = { { CKA_ENCRYPT, &yes, sizeof(yes) } };
	CK_ATTRIBUTE not_copyable[] = { { CKA_COPYABLE, &no, sizeof(no) } };
	CK_ATTRIBUTE read_only[] = { { CKA_VALUE, key, sizeof(key) },
				     { CKA_VALUE_LEN, &len, sizeof(len) },
				     { CKA_CHECK_VALUE, kcv, sizeof(kcv) },
				     { CKA_KEY_TYPE, &generic_type, sizeof(generic_type) } };
	CK_ATTRIBUTE subject[] = { { CKA_SUBJECT, label, 3 } };
	CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 };
	CK_OBJECT_HANDLE k, c, r, rc;

	pattern(key, sizeof(key), 41);
	pattern(key2, sizeof(key2), 42);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, true, key, 32, ivw, zero, want, 16), 0);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, true, key2, 32, ivw, zero, want2, 16), 0);
	/* a sensitive token key: a copy (a token object too), a new label */
	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, token_key, 4, &k), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_CopyObject(s, k, relabel, 1, &c), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(c, CKA_TOKEN), CK_TRUE);
	n = sizeof(out);
	CU_ASSERT_EQUAL(crypt_once(&ecb, c, 0, zero, 16, out, &n), CKR_OK);
	CU_ASSERT_EQUAL(memcmp(out, want, 16), 0);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, k, relabel, 1), CKR_OK);
	/* a readable session key: into the token only as a key that cannot be read */
	CU_ASSERT_EQUAL_FATAL(make_key(CKK_AES, key2, sizeof(key2), CK_TRUE, &r), CKR_OK);
	CU_ASSERT_EQUAL(attr(r, CKA_VALUE, v, sizeof(v)), 32);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, r, to_token, 1, &rc), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL_FATAL(f->C_CopyObject(s, r, to_token, 2, &rc), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(rc, CKA_TOKEN), CK_TRUE);
	CU_ASSERT_EQUAL(attr(rc, CKA_VALUE, v, sizeof(v)), CK_UNAVAILABLE_INFORMATION);
	n = sizeof(out);
	CU_ASSERT_EQUAL(crypt_once(&ecb, rc, 0, zero, 16, out, &n), CKR_OK);
	CU_ASSERT_EQUAL(memcmp(out, want2, 16), 0);
	CU_ASSERT_EQUAL(store_has(key, sizeof(key)), 0);
	CU_ASSERT_EQUAL(store_has(key + 8, 16), 0);
	CU_ASSERT_EQUAL(store_has(key2, sizeof(key2)), 0);
	CU_ASSERT_EQUAL(store_has(key2 + 8, 16), 0);
	/* the session key made sensitive: its value gone for good */
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, r, sensitive, 1), CKR_OK);
	CU_ASSERT_EQUAL(attr(r, CKA_VALUE, v, sizeof(v)), CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, r, not_sensitive, 1), CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, k, extractable, 1), CKR_ATTRIBUTE_READ_ONLY);
	/* uses: taken away, not given */
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, c, no_encrypt, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &ecb, c), CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, c, encrypt, 1), CKR_ATTRIBUTE_VALUE_INVALID);
	n = sizeof(out);
	CU_ASSERT_EQUAL(crypt_once(&ecb, k, 0, zero, 16, out, &n), CKR_OK);
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, k, &read_only[i], 1),
				CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, k, subject, 1), CKR_ATTRIBUTE_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, k, not_copyable, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, k, NULL, 0, &c), CKR_ACTION_PROHIBITED);
	CU_ASSERT_EQUAL(store_has(key, sizeof(key)), 0);
}

/* ---- ECDH with the X9.63 KDFs ---- */

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };

static void gen_ec(CK_OBJECT_HANDLE *priv, uint8_t *point, CK_ULONG *len)
{
	CK_MECHANISM m = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)OID_P256, sizeof(OID_P256) } };
	CK_ATTRIBUTE kt[] = { { CKA_DERIVE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE ec_point = { CKA_EC_POINT, point, *len };
	CK_OBJECT_HANDLE pub;

	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &m, pt, 1, kt, 1, &pub, priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_GetAttributeValue(s, pub, &ec_point, 1), CKR_OK);
	*len = ec_point.ulValueLen;
}

/* C_DeriveKey of a key of type and length (0: the default) with kdf over shared, readable. */
static CK_RV derive(CK_OBJECT_HANDLE base, uint8_t *point, CK_ULONG plen, CK_ULONG kdf,
		    const char *shared, CK_KEY_TYPE type, CK_ULONG len, CK_OBJECT_HANDLE *k)
{
	CK_ECDH1_DERIVE_PARAMS p = { kdf, shared ? strlen(shared) : 0, (CK_BYTE *)shared, plen,
				     point };
	CK_MECHANISM m = { CKM_ECDH1_DERIVE, &p, sizeof(p) };
	CK_ATTRIBUTE t[] = {
		{ CKA_SENSITIVE, &no, sizeof(no) },
		{ CKA_EXTRACTABLE, &yes, sizeof(yes) },
		{ CKA_KEY_TYPE, &type, sizeof(type) },
		{ CKA_VALUE_LEN, &len, sizeof(len) },
	};

	return f->C_DeriveKey(s, &m, base, t, len ? 4 : 3, k);
}

/* X9.63: Hash(Z || counter || shared) for counter 1, 2 ..., computed here. */
static void x963(TPM_ALG_ID hash, const uint8_t *z, size_t zlen, const char *shared,
		 uint8_t *out, size_t len)
{
	uint8_t in[256], d[64];
	size_t n = crypto_hash_size(hash), done = 0, sl = strlen(shared);
	uint32_t c;

	memcpy(in, z, zlen);
	memcpy(in + zlen + 4, shared, sl);
	for (c = 1; done < len; c++) {
		in[zlen] = (uint8_t)(c >> 24);
		in[zlen + 1] = (uint8_t)(c >> 16);
		in[zlen + 2] = (uint8_t)(c >> 8);
		in[zlen + 3] = (uint8_t)c;
		crypto_hash(hash, in, zlen + 4 + sl, d);
		memcpy(out + done, d, len - done < n ? len - done : n);
		done += len - done < n ? len - done : n;
	}
}

/* ECDH1 with CKD_SHA1/256/384/512_KDF and shared data: the derived keys are X9.63's KDF of
 * the CKD_NULL secret computed here, both sides agree; an AES key derived so encrypts as its
 * value does; a token key may be derived; CKD_SHA224_KDF and shared data without a KDF are
 * refused. */
static void test_ecdh_kdf(void)
{
	static const struct {
		CK_ULONG kdf;
		TPM_ALG_ID hash;
		CK_ULONG len;
	} cases[] = {
		{ CKD_SHA1_KDF, TPM_ALG_SHA1, 0 },     { CKD_SHA256_KDF, TPM_ALG_SHA256, 0 },
		{ CKD_SHA384_KDF, TPM_ALG_SHA384, 0 }, { CKD_SHA512_KDF, TPM_ALG_SHA512, 0 },
		{ CKD_SHA256_KDF, TPM_ALG_SHA256, 80 }, { CKD_SHA1_KDF, TPM_ALG_SHA1, 7 },
	};
	static const uint8_t zero[16];
	uint8_t pa[80], pb[80], z[32], want[128], got[128], other[128], out[16], ivw[16] = { 0 };
	CK_ULONG la = sizeof(pa), lb = sizeof(pb), n;
	CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 };
	CK_OBJECT_HANDLE a, b, k;
	CK_ULONG len = 16;
	CK_ATTRIBUTE token[] = { { CKA_TOKEN, &yes, sizeof(yes) },
				 { CKA_VALUE_LEN, &len, sizeof(len) } };
	CK_ECDH1_DERIVE_PARAMS p = { CKD_SHA224_KDF, 0, NULL, 0, NULL };
	CK_MECHANISM m = { CKM_ECDH1_DERIVE, &p, sizeof(p) };
	size_t i, want_len;

	gen_ec(&a, pa, &la);
	gen_ec(&b, pb, &lb);
	CU_ASSERT_EQUAL_FATAL(derive(a, pb, lb, CKD_NULL, NULL, CKK_GENERIC_SECRET, 0, &k), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(attr(k, CKA_VALUE, z, sizeof(z)), 32);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		want_len = cases[i].len ? cases[i].len : crypto_hash_size(cases[i].hash);
		x963(cases[i].hash, z, 32, "shared info", want, want_len);
		CU_ASSERT_EQUAL_FATAL(derive(a, pb, lb, cases[i].kdf, "shared info",
					     CKK_GENERIC_SECRET, cases[i].len, &k),
				      CKR_OK);
		CU_ASSERT_EQUAL(attr(k, CKA_VALUE, got, sizeof(got)), want_len);
		CU_ASSERT_EQUAL(memcmp(got, want, want_len), 0);
		CU_ASSERT_EQUAL_FATAL(derive(b, pa + 2, la - 2, cases[i].kdf, "shared info",
					     CKK_GENERIC_SECRET, cases[i].len, &k),
				      CKR_OK);
		CU_ASSERT_EQUAL(attr(k, CKA_VALUE, other, sizeof(other)), want_len);
		CU_ASSERT_EQUAL(memcmp(other, want, want_len), 0);
	}
	/* without shared data */
	x963(TPM_ALG_SHA256, z, 32, "", want, 32);
	CU_ASSERT_EQUAL_FATAL(derive(a, pb, lb, CKD_SHA256_KDF, NULL, CKK_GENERIC_SECRET, 0, &k),
			      CKR_OK);
	CU_ASSERT_EQUAL(attr(k, CKA_VALUE, got, sizeof(got)), 32);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
	/* an AES-128 key of the KDF's first 16 bytes */
	x963(TPM_ALG_SHA384, z, 32, "aes", want, 16);
	CU_ASSERT_EQUAL_FATAL(derive(a, pb, lb, CKD_SHA384_KDF, "aes", CKK_AES, 16, &k), CKR_OK);
	CU_ASSERT_EQUAL(attr_ulong(k, CKA_KEY_TYPE), CKK_AES);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_LOCAL), CK_FALSE);
	CU_ASSERT_EQUAL(crypt_once(&ecb, k, 0, zero, 16, out, &n), CKR_OK);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, true, want, 16, ivw, zero, got, 16), 0);
	CU_ASSERT_EQUAL(memcmp(out, got, 16), 0);
	/* AES of a length the KDF's default is not, or of a P-256 secret cut short */
	CU_ASSERT_EQUAL(derive(a, pb, lb, CKD_SHA1_KDF, NULL, CKK_AES, 0, &k),
			CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(derive(a, pb, lb, CKD_SHA256_KDF, NULL, CKK_AES, 20, &k),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(derive(a, pb, lb, CKD_NULL, NULL, CKK_AES, 16, &k), CKR_OK);
	CU_ASSERT_EQUAL(derive(a, pb, lb, CKD_SHA256_KDF, NULL, CKK_GENERIC_SECRET, 129, &k),
			CKR_ATTRIBUTE_VALUE_INVALID);
	/* a token key (sensitive, unreadable) */
	p.kdf = CKD_SHA256_KDF;
	p.pPublicData = pb;
	p.ulPublicDataLen = lb;
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, token, 2, &k), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_TOKEN), CK_TRUE);
	CU_ASSERT_EQUAL(attr_bool(k, CKA_ALWAYS_SENSITIVE), CK_TRUE);
	CU_ASSERT_EQUAL(attr(k, CKA_VALUE, got, sizeof(got)), CK_UNAVAILABLE_INFORMATION);
	p.kdf = CKD_SHA224_KDF;
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_MECHANISM_PARAM_INVALID);
	p.kdf = CKD_NULL;
	p.pSharedData = (CK_BYTE *)"x";
	p.ulSharedDataLen = 1;
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_MECHANISM_PARAM_INVALID);
	p.kdf = CKD_SHA256_KDF;
	p.pSharedData = NULL;
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_MECHANISM_PARAM_INVALID);
}

/* C_GetMechanismList and C_GetMechanismInfo of the secret-key and post-quantum mechanisms. */
static void test_mechanisms(void)
{
	static const struct {
		CK_MECHANISM_TYPE type;
		CK_ULONG min, max;
		CK_FLAGS flags;
	} want[] = {
		{ CKM_AES_KEY_GEN, 16, 32, CKF_GENERATE },
		{ CKM_GENERIC_SECRET_KEY_GEN, 8, 1024, CKF_GENERATE },
		{ CKM_AES_ECB, 16, 32, CKF_ENCRYPT | CKF_DECRYPT },
		{ CKM_AES_CBC, 16, 32, CKF_ENCRYPT | CKF_DECRYPT },
		{ CKM_AES_CBC_PAD, 16, 32, CKF_ENCRYPT | CKF_DECRYPT },
		{ CKM_AES_CTR, 16, 32, CKF_ENCRYPT | CKF_DECRYPT },
		{ CKM_SHA_1_HMAC, 1, 128, CKF_SIGN | CKF_VERIFY },
		{ CKM_SHA256_HMAC, 1, 128, CKF_SIGN | CKF_VERIFY },
		{ CKM_SHA384_HMAC_GENERAL, 1, 128, CKF_SIGN | CKF_VERIFY },
		{ CKM_SHA512_HMAC, 1, 128, CKF_SIGN | CKF_VERIFY },
		{ CKM_ML_KEM_KEY_PAIR_GEN, 800, 1568, CKF_GENERATE_KEY_PAIR },
		{ CKM_ML_KEM, 800, 1568, CKF_ENCAPSULATE | CKF_DECAPSULATE },
		/* ML-DSA's sizes are its public keys' bytes too (PKCS#11 3.2) */
		{ CKM_ML_DSA_KEY_PAIR_GEN, 1312, 2592, CKF_GENERATE_KEY_PAIR },
		{ CKM_HASH_ML_DSA_SHA256, 1312, 2592, CKF_SIGN | CKF_VERIFY },
	};
	CK_MECHANISM_TYPE list[128];
	CK_MECHANISM_INFO info;
	CK_ULONG n = 128, i, j;

	CU_ASSERT_EQUAL_FATAL(f->C_GetMechanismList(slot, list, &n), CKR_OK);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		for (j = 0; j < n && list[j] != want[i].type; j++)
			;
		CU_ASSERT(j < n);
		CU_ASSERT_EQUAL(f->C_GetMechanismInfo(slot, want[i].type, &info), CKR_OK);
		CU_ASSERT_EQUAL(info.ulMinKeySize, want[i].min);
		CU_ASSERT_EQUAL(info.ulMaxKeySize, want[i].max);
		CU_ASSERT_EQUAL(info.flags, want[i].flags | CKF_HW);
	}
	/* GCM is not a TPM mode, so not offered */
	CU_ASSERT_EQUAL(f->C_GetMechanismInfo(slot, CKM_AES_GCM, &info), CKR_MECHANISM_INVALID);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "AES FIPS-197 and SP 800-38A: ECB, CBC, CTR, one part and several",
		  test_aes_known },
		{ "AES CBC-PAD: every length, padding checked", test_aes_cbc_pad },
		{ "AES CTR: the counter bits, wrap and its limit", test_aes_ctr_bits },
		{ "AES: several parts equal one, over several TPM buffers", test_aes_parts },
		{ "AES: parameters, keys, lengths, the two-call pattern, states", test_aes_errors },
		{ "HMAC RFC 4231 / RFC 2202, _GENERAL, sequences", test_hmac_known },
		{ "HMAC: wrong MACs, parameters, keys, the two-call pattern", test_hmac_errors },
		{ "C_GenerateKey AES-128/192/256 and generic secrets, attributes", test_generate },
		{ "C_GenerateKey: what is refused", test_generate_errors },
		{ "C_CreateObject of secret keys: attributes, check values, refusals",
		  test_create },
		{ "token secret keys: back after C_Initialize, no value in the store",
		  test_token },
		{ "C_CopyObject, C_SetAttributeValue of secret keys; no value in the store",
		  test_copy_set },
		{ "ECDH1 with the X9.63 SHA KDFs: known answers, AES, token keys",
		  test_ecdh_kdf },
		{ "mechanism list and info", test_mechanisms },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, &f) != 0)
		return 1;
	failed = UNIT_RUN("pkcs11 secret keys", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
