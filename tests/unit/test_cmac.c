/* CMAC (TPM_ALG_CMAC): AES-CMAC against RFC 4493's examples, whole and in uneven pieces;
 * TPM2_MAC (HMAC's command code) with an AES signing key gives the same MAC, with inScheme
 * CMAC or NULL; a MAC sequence (MAC_Start, SequenceUpdate, a ContextSave and ContextLoad
 * between two updates, SequenceComplete) too; a hash is no scheme for an AES key, nor CMAC
 * for an HMAC key. */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "sessions.h"
#include "unit_main.h"

static const uint8_t key[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
				 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
static const uint8_t msg[64] = {
	0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73,
	0x93, 0x17, 0x2a, 0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c, 0x9e, 0xb7,
	0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51, 0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4,
	0x11, 0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef, 0xf6, 0x9f, 0x24, 0x45,
	0xdf, 0x4f, 0x9b, 0x17, 0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10,
};
/* RFC 4493 §4: the MACs of the first 0, 16, 40 and 64 bytes of msg */
static const struct {
	size_t len;
	uint8_t mac[16];
} examples[] = {
	{ 0, { 0xbb, 0x1d, 0x69, 0x29, 0xe9, 0x59, 0x37, 0x28, 0x7f, 0xa3, 0x7d, 0x12, 0x9b, 0x75,
	       0x67, 0x46 } },
	{ 16, { 0x07, 0x0a, 0x16, 0xb4, 0x6b, 0x4d, 0x41, 0x44, 0xf7, 0x9b, 0xdd, 0x9d, 0xd0, 0x4a,
		0x28, 0x7c } },
	{ 40, { 0xdf, 0xa6, 0x67, 0x47, 0xde, 0x9a, 0xe6, 0x30, 0x30, 0xca, 0x32, 0x61, 0x14, 0x97,
		0xc8, 0x27 } },
	{ 64, { 0x51, 0xf0, 0xbe, 0xbf, 0x7e, 0x3b, 0x9d, 0x92, 0xfc, 0x49, 0x74, 0x17, 0x79, 0x36,
		0x3c, 0xfe } },
};
#define N_EXAMPLES (sizeof(examples) / sizeof(examples[0]))

static struct harness h;
static struct cmdbuf b;

static void test_rfc4493(void)
{
	uint8_t out[16];

	for (size_t i = 0; i < N_EXAMPLES; i++) {
		struct crypto_cmac_ctx ctx;
		size_t off = 0, step = 1;

		CU_ASSERT_EQUAL(crypto_cmac(key, 16, msg, examples[i].len, out), 0);
		CU_ASSERT(memcmp(out, examples[i].mac, 16) == 0);
		/* pieces of 1, 2, 3 ... bytes */
		CU_ASSERT_EQUAL(crypto_cmac_start(&ctx, key, 16), 0);
		while (off < examples[i].len) {
			size_t n = examples[i].len - off < step ? examples[i].len - off : step;

			CU_ASSERT_EQUAL(crypto_cmac_update(&ctx, msg + off, n), 0);
			off += n;
			step++;
		}
		CU_ASSERT_EQUAL(crypto_cmac_finish(&ctx, out), 0);
		CU_ASSERT(memcmp(out, examples[i].mac, 16) == 0);
	}
	CU_ASSERT_EQUAL(crypto_cmac(key, 15, msg, 16, out), TPM_RC_KEY_SIZE);
}

static void aes_mac_key(struct key *k)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_SYMCIPHER, TPMA_OBJECT_SIGN_ENCRYPT);
	t.symmetric.alg = TPM_ALG_AES;
	t.symmetric.key_bits = 128;
	t.symmetric.mode = TPM_ALG_NULL;
	key_primary(&h, &t, key, sizeof(key), k);
}

static TPM_RC mac(TPM_HANDLE k, TPM_ALG_ID scheme, const uint8_t *data, size_t len,
		  struct tpm2b_digest *out)
{
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_HMAC);
	cmd_handle(&b, k);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, data, (uint16_t)len);
	wr_u16(&b.params, scheme);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, out), 0);
	return rc;
}

static void test_mac_command(void)
{
	struct tpm2b_digest out;
	struct tpmt_public t;
	struct key k, hk;

	harness_open(&h);
	aes_mac_key(&k);
	CU_ASSERT_EQUAL_FATAL(mac(k.handle, TPM_ALG_CMAC, msg, 40, &out), 0);
	CU_ASSERT(out.size == 16 && memcmp(out.b, examples[2].mac, 16) == 0);
	CU_ASSERT_EQUAL_FATAL(mac(k.handle, TPM_ALG_NULL, msg, 64, &out), 0);
	CU_ASSERT(out.size == 16 && memcmp(out.b, examples[3].mac, 16) == 0);
	CU_ASSERT_EQUAL(mac(k.handle, TPM_ALG_SHA256, msg, 16, &out), RC_P(TPM_RC_VALUE, 2));
	/* an HMAC key does not CMAC */
	key_template(&t, TPM_ALG_KEYEDHASH, TPMA_OBJECT_SIGN_ENCRYPT);
	t.scheme.scheme = TPM_ALG_HMAC;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	key_primary(&h, &t, "hmac key", 8, &hk);
	CU_ASSERT_EQUAL(mac(hk.handle, TPM_ALG_CMAC, msg, 16, &out), RC_P(TPM_RC_VALUE, 2));
	harness_close(&h);
}

static TPM_RC seq_update(TPM_HANDLE s, const uint8_t *data, size_t len)
{
	cmd_begin(&b, TPM_CC_SequenceUpdate);
	cmd_handle(&b, s);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, data, (uint16_t)len);
	return harness_run(&h, &b, NULL, NULL);
}

static void test_mac_sequence(void)
{
	struct tpm2b_digest out;
	struct tpms_context ctx;
	struct tpmt_ticket t;
	TPM_HANDLE s;
	struct rd r;
	struct key k;

	harness_open(&h);
	aes_mac_key(&k);
	cmd_begin(&b, TPM_CC_HMAC_Start);
	cmd_handle(&b, k.handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "", 0);
	wr_u16(&b.params, TPM_ALG_CMAC);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(seq_update(s, msg, 16), 0);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&h, s, &ctx), 0);
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&h, &ctx, &s), 0);
	CU_ASSERT_EQUAL(seq_update(s, msg + 16, 7), 0);
	cmd_begin(&b, TPM_CC_SequenceComplete);
	cmd_handle(&b, s);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, msg + 23, 17);
	wr_u32(&b.params, TPM_RH_NULL);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &out), 0);
	CU_ASSERT_EQUAL(rd_ticket(&r, &t), 0);
	CU_ASSERT(out.size == 16 && memcmp(out.b, examples[2].mac, 16) == 0);
	/* the sequence is gone */
	CU_ASSERT_NOT_EQUAL(seq_update(s, msg, 1), TPM_RC_SUCCESS);
	harness_close(&h);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "AES-CMAC: RFC 4493", test_rfc4493 },
		{ "TPM2_MAC with an AES key", test_mac_command },
		{ "a CMAC sequence, saved and loaded on the way", test_mac_sequence },
	};

	return UNIT_RUN("cmac", tests, NULL, NULL);
}
