/* Hash, the hash/HMAC/event sequences and their tickets (core/cmd/hash.c, core/ticket.c):
 * known answers, sequences against one-shot hashes, the ticket HMAC recomputed from the
 * hierarchy proof, the NULL Ticket cases, PCR extension, and the exact error codes. */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "pcr.h"
#include "unit_main.h"

#define SIGN TPMA_OBJECT_SIGN_ENCRYPT

static struct harness h;

/* FIPS 180-2 "abc" */
static const uint8_t abc_sha256[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};
static const uint8_t abc_sha1[20] = {
	0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
	0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d,
};

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

/* ---- helpers ---- */

static TPM_RC run_hash(const void *data, uint16_t len, TPM_ALG_ID alg, TPM_HANDLE hier,
		       struct tpm2b_digest *out, struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Hash);
	wr_tpm2b(&b.params, data, len);
	wr_u16(&b.params, alg);
	wr_u32(&b.params, hier);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, out), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_ticket(&rsp, t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static TPM_RC seq_start(const char *auth, TPM_ALG_ID alg, TPM_HANDLE *seq)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_HashSequenceStart);
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	wr_u16(&b.params, alg);
	return harness_run(&h, &b, NULL, seq);
}

static TPM_RC seq_update(TPM_HANDLE seq, const char *auth, const void *data, uint16_t len)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_SequenceUpdate);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, auth);
	wr_tpm2b(&b.params, data, len);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC seq_complete(TPM_HANDLE seq, const char *auth, const void *data, uint16_t len,
			   TPM_HANDLE hier, struct tpm2b_digest *out, struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_SequenceComplete);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, auth);
	wr_tpm2b(&b.params, data, len);
	wr_u32(&b.params, hier);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, out), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_ticket(&rsp, t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

/* The ticket the TPM should have made: HMAC(proof, TPM_ST_HASHCHECK || digest). */
static void expect_ticket(const struct tpmt_ticket *t, TPM_HANDLE hier,
			  const struct tpm2b_digest *digest)
{
	uint8_t msg[2 + MAX_DIGEST_SIZE], mac[32];

	msg[0] = TPM_ST_HASHCHECK >> 8;
	msg[1] = TPM_ST_HASHCHECK & 0xFF;
	memcpy(msg + 2, digest->b, digest->size);
	CU_ASSERT_EQUAL_FATAL(crypto_hmac(TPM_ALG_SHA256, hier_proof(h.e, hier), PRIMARY_SEED_SIZE,
					  msg, 2u + digest->size, mac),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(t->tag, TPM_ST_HASHCHECK);
	CU_ASSERT_EQUAL(t->hierarchy, hier);
	CU_ASSERT_EQUAL_FATAL(t->digest.size, 32);
	CU_ASSERT_EQUAL(memcmp(t->digest.b, mac, 32), 0);
}

static void expect_null_ticket(const struct tpmt_ticket *t)
{
	CU_ASSERT_EQUAL(t->tag, TPM_ST_HASHCHECK);
	CU_ASSERT_EQUAL(t->hierarchy, TPM_RH_NULL);
	CU_ASSERT_EQUAL(t->digest.size, 0);
}

/* ---- Hash ---- */

static void test_hash_known_answers(void)
{
	struct tpm2b_digest d;
	struct tpmt_ticket t;

	CU_ASSERT_EQUAL_FATAL(run_hash("abc", 3, TPM_ALG_SHA256, TPM_RH_OWNER, &d, &t), 0);
	CU_ASSERT_EQUAL_FATAL(d.size, 32);
	CU_ASSERT_EQUAL(memcmp(d.b, abc_sha256, 32), 0);
	expect_ticket(&t, TPM_RH_OWNER, &d);

	CU_ASSERT_EQUAL_FATAL(run_hash("abc", 3, TPM_ALG_SHA1, TPM_RH_ENDORSEMENT, &d, &t), 0);
	CU_ASSERT_EQUAL_FATAL(d.size, 20);
	CU_ASSERT_EQUAL(memcmp(d.b, abc_sha1, 20), 0);
	expect_ticket(&t, TPM_RH_ENDORSEMENT, &d);

	/* empty data is fine and ticketed */
	CU_ASSERT_EQUAL_FATAL(run_hash("", 0, TPM_ALG_SHA384, TPM_RH_PLATFORM, &d, &t), 0);
	CU_ASSERT_EQUAL(d.size, 48);
	expect_ticket(&t, TPM_RH_PLATFORM, &d);
}

static void test_hash_null_tickets(void)
{
	static const uint8_t gen[] = { 0xFF, 0x54, 0x43, 0x47, 0x80, 0x18 };
	struct tpm2b_digest d;
	struct tpmt_ticket t;

	CU_ASSERT_EQUAL_FATAL(run_hash("abc", 3, TPM_ALG_SHA256, TPM_RH_NULL, &d, &t), 0);
	CU_ASSERT_EQUAL(memcmp(d.b, abc_sha256, 32), 0);
	expect_null_ticket(&t);

	/* attestation-looking data gets no ticket, whatever the hierarchy */
	CU_ASSERT_EQUAL_FATAL(run_hash(gen, sizeof(gen), TPM_ALG_SHA256, TPM_RH_OWNER, &d, &t), 0);
	expect_null_ticket(&t);
	/* three of its four bytes are harmless */
	CU_ASSERT_EQUAL_FATAL(run_hash(gen, 3, TPM_ALG_SHA256, TPM_RH_OWNER, &d, &t), 0);
	expect_ticket(&t, TPM_RH_OWNER, &d);
}

static void test_hash_errors(void)
{
	static uint8_t big[MAX_BUFFER + 1];
	struct tpm2b_digest d;
	struct tpmt_ticket t;

	CU_ASSERT_EQUAL(run_hash("abc", 3, TPM_ALG_NULL, TPM_RH_OWNER, &d, &t),
			RC_P(TPM_RC_HASH, 2));
	CU_ASSERT_EQUAL(run_hash("abc", 3, TPM_ALG_AES, TPM_RH_OWNER, &d, &t),
			RC_P(TPM_RC_HASH, 2));
	CU_ASSERT_EQUAL(run_hash("abc", 3, TPM_ALG_SHA256, TPM_RH_LOCKOUT, &d, &t),
			RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(run_hash(big, sizeof(big), TPM_ALG_SHA256, TPM_RH_OWNER, &d, &t),
			RC_P(TPM_RC_SIZE, 1));
}

static void set_size(uint8_t *cmd, size_t len)
{
	struct wr w;

	wr_init(&w, cmd, len);
	wr_patch_u32(&w, 2, (uint32_t)len);
}

static void test_hash_truncated(void)
{
	struct cmdbuf b;
	uint8_t cmd[64], out[PQTPM_MAX_RESPONSE_SIZE];
	size_t len, outlen;

	cmd_begin(&b, TPM_CC_Hash);
	wr_tpm2b(&b.params, "abc", 3);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, TPM_RH_NULL);
	len = cmd_bytes(&b, cmd, sizeof(cmd));
	/* cut anywhere in the parameters: the number says which parameter ran out */
	for (size_t cut = 1; cut <= 9; cut++) {
		unsigned param = cut <= 4 ? 3 : cut <= 6 ? 2 : 1;

		set_size(cmd, len - cut);
		CU_ASSERT_EQUAL(harness_raw(&h, cmd, len - cut, out, &outlen),
				RC_P(TPM_RC_INSUFFICIENT, param));
	}
	/* a byte too many */
	cmd[len] = 0;
	set_size(cmd, len + 1);
	CU_ASSERT_EQUAL(harness_raw(&h, cmd, len + 1, out, &outlen), TPM_RC_SIZE);
}

/* ---- hash sequences ---- */

static void test_sequence_equals_one_shot(void)
{
	static const char msg[] = "The quick brown fox jumps over the lazy dog";
	struct tpm2b_digest d1, d2;
	struct tpmt_ticket t1, t2;
	TPM_HANDLE seq = 0;

	CU_ASSERT_EQUAL_FATAL(seq_start("seqpw", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(seq >> 24, TPM_HT_TRANSIENT);
	CU_ASSERT_EQUAL(seq_update(seq, "seqpw", msg, 10), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "seqpw", msg + 10, 0), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "seqpw", msg + 10, 20), 0);
	CU_ASSERT_EQUAL_FATAL(seq_complete(seq, "seqpw", msg + 30, sizeof(msg) - 31, TPM_RH_OWNER,
					   &d1, &t1),
			      0);
	CU_ASSERT_EQUAL_FATAL(run_hash(msg, sizeof(msg) - 1, TPM_ALG_SHA256, TPM_RH_OWNER, &d2, &t2),
			      0);
	CU_ASSERT_EQUAL_FATAL(d1.size, 32);
	CU_ASSERT_EQUAL(memcmp(d1.b, d2.b, 32), 0);
	expect_ticket(&t1, TPM_RH_OWNER, &d1);
	CU_ASSERT_EQUAL(memcmp(t1.digest.b, t2.digest.b, 32), 0);

	/* the sequence is gone */
	CU_ASSERT_EQUAL(seq_update(seq, "seqpw", "x", 1), TPM_RC_REFERENCE_H0);
}

static void test_sequence_abc_in_complete(void)
{
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	TPM_HANDLE seq = 0;

	CU_ASSERT_EQUAL_FATAL(seq_start("", TPM_ALG_SHA1, &seq), 0);
	CU_ASSERT_EQUAL_FATAL(seq_complete(seq, "", "abc", 3, TPM_RH_NULL, &d, &t), 0);
	CU_ASSERT_EQUAL_FATAL(d.size, 20);
	CU_ASSERT_EQUAL(memcmp(d.b, abc_sha1, 20), 0);
	expect_null_ticket(&t);
}

/* TPM_GENERATED_VALUE split over updates still denies the ticket. */
static void test_sequence_generated_value(void)
{
	static const uint8_t gen[] = { 0xFF, 0x54, 0x43, 0x47, 0x80, 0x17 };
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	TPM_HANDLE seq = 0;

	CU_ASSERT_EQUAL_FATAL(seq_start("", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "", gen, 1), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "", gen + 1, 2), 0);
	CU_ASSERT_EQUAL_FATAL(seq_complete(seq, "", gen + 3, 3, TPM_RH_OWNER, &d, &t), 0);
	expect_null_ticket(&t);

	/* the value later in the data is harmless */
	CU_ASSERT_EQUAL_FATAL(seq_start("", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "", "x", 1), 0);
	CU_ASSERT_EQUAL_FATAL(seq_complete(seq, "", gen, sizeof(gen), TPM_RH_OWNER, &d, &t), 0);
	expect_ticket(&t, TPM_RH_OWNER, &d);

	/* fewer than four bytes in all: ticketed, as Hash does */
	CU_ASSERT_EQUAL_FATAL(seq_start("", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "", gen, 2), 0);
	CU_ASSERT_EQUAL_FATAL(seq_complete(seq, "", "", 0, TPM_RH_OWNER, &d, &t), 0);
	expect_ticket(&t, TPM_RH_OWNER, &d);
}

static void test_sequence_auth(void)
{
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	TPM_HANDLE seq = 0;

	CU_ASSERT_EQUAL_FATAL(seq_start("right", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "wrong", "x", 1), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(seq_complete(seq, "", "x", 1, TPM_RH_NULL, &d, &t),
			RC_S(TPM_RC_BAD_AUTH, 1));
	/* a failed command leaves the sequence alive */
	CU_ASSERT_EQUAL(seq_complete(seq, "right", "abc", 3, TPM_RH_NULL, &d, &t), 0);
	CU_ASSERT_EQUAL(memcmp(d.b, abc_sha256, 32), 0);
}

static void test_sequence_errors(void)
{
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct cmdbuf b;
	TPM_HANDLE seq = 0;

	CU_ASSERT_EQUAL(seq_start("", TPM_ALG_AES, &seq), RC_P(TPM_RC_HASH, 2));
	{
		static const uint8_t long_auth[MAX_DIGEST_SIZE + 1];

		cmd_begin(&b, TPM_CC_HashSequenceStart);
		wr_tpm2b(&b.params, long_auth, sizeof(long_auth));
		wr_u16(&b.params, TPM_ALG_SHA256);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	}
	CU_ASSERT_EQUAL_FATAL(seq_start("", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(seq_complete(seq, "", "", 0, TPM_RH_LOCKOUT, &d, &t),
			RC_P(TPM_RC_VALUE, 2));
	/* SequenceComplete does not finish an event sequence, nor EventSequenceComplete a
	 * hash sequence */
	CU_ASSERT_EQUAL_FATAL(seq_start("", TPM_ALG_NULL, &seq), 0);
	CU_ASSERT_EQUAL(seq_complete(seq, "", "", 0, TPM_RH_NULL, &d, &t), RC_H(TPM_RC_MODE, 1));
	CU_ASSERT_EQUAL_FATAL(seq_start("", TPM_ALG_SHA256, &seq), 0);
	cmd_begin(&b, TPM_CC_EventSequenceComplete);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, "");
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "", 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_MODE, 2));
	/* a handle nobody loaded */
	CU_ASSERT_EQUAL(seq_update(0x80FFFFFF, "", "x", 1), TPM_RC_REFERENCE_H0);
}

static void test_sequence_slots_run_out(void)
{
	TPM_HANDLE seq = 0;
	TPM_RC rc = TPM_RC_SUCCESS;
	int n = 0;

	while (n < 100 && (rc = seq_start("", TPM_ALG_SHA256, &seq)) == TPM_RC_SUCCESS)
		n++;
	CU_ASSERT_EQUAL(rc, TPM_RC_OBJECT_MEMORY);
	CU_ASSERT(n > 0 && n < 100);
}

/* ---- HMAC sequences ---- */

/* RFC 4231 test case 2 */
static const char jefe[] = "Jefe";
static const char jefe_data[] = "what do ya want for nothing?";
static const uint8_t jefe_sha256[32] = {
	0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
	0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
};

static TPM_RC hmac_start(const struct key *k, const char *key_auth, const char *auth,
			 TPM_ALG_ID alg, TPM_HANDLE *seq)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_HMAC_Start);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, key_auth);
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	wr_u16(&b.params, alg);
	return harness_run(&h, &b, NULL, seq);
}

static void hmac_key(struct key *k, TPM_ALG_ID scheme_hash, uint32_t attrs)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_KEYEDHASH, attrs);
	t.scheme.scheme = scheme_hash == TPM_ALG_NULL ? TPM_ALG_NULL : TPM_ALG_HMAC;
	t.scheme.hash_alg = scheme_hash;
	key_primary(&h, &t, jefe, sizeof(jefe) - 1, k);
}

static void test_hmac_sequence(void)
{
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	TPM_HANDLE seq = 0;
	struct key k, open;

	hmac_key(&k, TPM_ALG_SHA256, SIGN);
	CU_ASSERT_EQUAL_FATAL(hmac_start(&k, "", "seq", TPM_ALG_NULL, &seq), 0);
	CU_ASSERT_EQUAL(seq >> 24, TPM_HT_TRANSIENT);
	CU_ASSERT_EQUAL(seq_update(seq, "seq", jefe_data, 11), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "", jefe_data, 11), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL_FATAL(seq_complete(seq, "seq", jefe_data + 11, sizeof(jefe_data) - 12,
					   TPM_RH_OWNER, &d, &t),
			      0);
	CU_ASSERT_EQUAL_FATAL(d.size, 32);
	CU_ASSERT_EQUAL(memcmp(d.b, jefe_sha256, 32), 0);
	/* an HMAC is never ticketed */
	expect_null_ticket(&t);
	CU_ASSERT_EQUAL(seq_update(seq, "seq", "x", 1), TPM_RC_REFERENCE_H0);

	/* a key without a scheme takes the command's hash */
	hmac_key(&open, TPM_ALG_NULL, SIGN);
	CU_ASSERT_EQUAL_FATAL(hmac_start(&open, "", "", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL_FATAL(seq_complete(seq, "", jefe_data, sizeof(jefe_data) - 1, TPM_RH_NULL,
					   &d, &t),
			      0);
	CU_ASSERT_EQUAL(memcmp(d.b, jefe_sha256, 32), 0);
}

static void test_hmac_start_errors(void)
{
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct tpmt_public tp;
	TPM_HANDLE seq = 0;
	struct key k, open, sealed, ecc;

	hmac_key(&k, TPM_ALG_SHA256, SIGN);
	hmac_key(&open, TPM_ALG_NULL, SIGN);
	hmac_key(&sealed, TPM_ALG_NULL, 0);
	key_template(&tp, TPM_ALG_ECC, SIGN);
	key_primary(&h, &tp, NULL, 0, &ecc);

	CU_ASSERT_EQUAL(hmac_start(&k, "", "", TPM_ALG_SHA1, &seq), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(hmac_start(&open, "", "", TPM_ALG_NULL, &seq), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(hmac_start(&k, "", "", TPM_ALG_ECC, &seq), RC_P(TPM_RC_HASH, 2));
	CU_ASSERT_EQUAL(hmac_start(&sealed, "", "", TPM_ALG_SHA256, &seq), RC_H(TPM_RC_KEY, 1));
	CU_ASSERT_EQUAL(hmac_start(&ecc, "", "", TPM_ALG_SHA256, &seq), RC_H(TPM_RC_TYPE, 1));
	CU_ASSERT_EQUAL(hmac_start(&k, "x", "", TPM_ALG_NULL, &seq), RC_S(TPM_RC_AUTH_FAIL, 1));

	/* a key is no sequence */
	CU_ASSERT_EQUAL(seq_update(k.handle, "", "x", 1), RC_H(TPM_RC_MODE, 1));
	CU_ASSERT_EQUAL(seq_complete(k.handle, "", "x", 1, TPM_RH_NULL, &d, &t),
			RC_H(TPM_RC_MODE, 1));
}

/* ---- event sequences ---- */

static TPM_RC event_complete(TPM_HANDLE pcr, TPM_HANDLE seq, const void *data, uint16_t len,
			     struct rd *rsp)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_EventSequenceComplete);
	cmd_handle(&b, pcr);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, "");
	cmd_auth_pw(&b, "ev");
	wr_tpm2b(&b.params, data, len);
	return harness_run(&h, &b, rsp, NULL);
}

/* A digest for every bank algorithm; the allocated banks of PCR 16 extended with theirs. */
static void test_event_sequence_extends(void)
{
	static const char ev[] = "an event in two parts";
	uint8_t before[MAX_PCR_BANKS][MAX_DIGEST_SIZE] = { { 0 } };
	size_t nalg = pcr_bank_alg_count();
	unsigned allocated = 0;
	TPM_HANDLE seq = 0;
	struct rd rsp;
	uint32_t count;

	CU_ASSERT_FATAL(nalg > 0 && nalg <= MAX_PCR_BANKS);
	for (size_t i = 0; i < nalg; i++) {
		const uint8_t *v = pcr_value(h.e, pcr_bank_alg(i), 16);

		if (v)
			memcpy(before[i], v, crypto_hash_size(pcr_bank_alg(i)));
	}
	CU_ASSERT_EQUAL_FATAL(seq_start("ev", TPM_ALG_NULL, &seq), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "ev", ev, 9), 0);
	CU_ASSERT_EQUAL_FATAL(event_complete(16, seq, ev + 9, sizeof(ev) - 10, &rsp), 0);
	CU_ASSERT_EQUAL_FATAL(rd_u32(&rsp, &count), 0);
	CU_ASSERT_EQUAL_FATAL(count, nalg);
	for (unsigned i = 0; i < count; i++) {
		TPM_ALG_ID alg = 0;
		const uint8_t *now;
		size_t n;
		uint8_t got[MAX_DIGEST_SIZE], want[MAX_DIGEST_SIZE], cat[2 * MAX_DIGEST_SIZE];

		CU_ASSERT_EQUAL(rd_u16(&rsp, &alg), 0);
		CU_ASSERT_EQUAL(alg, pcr_bank_alg(i));
		n = crypto_hash_size(alg);
		CU_ASSERT_EQUAL_FATAL(rd_bytes(&rsp, got, n), 0);
		CU_ASSERT_EQUAL(crypto_hash(alg, ev, sizeof(ev) - 1, want), 0);
		CU_ASSERT_EQUAL(memcmp(got, want, n), 0);
		now = pcr_value(h.e, alg, 16);
		if (!now)
			continue;
		/* PCR 16 = H(old || digest) */
		allocated++;
		memcpy(cat, before[i], n);
		memcpy(cat + n, want, n);
		CU_ASSERT_EQUAL(crypto_hash(alg, cat, 2 * n, want), 0);
		CU_ASSERT_EQUAL(memcmp(now, want, n), 0);
	}
	CU_ASSERT_EQUAL(allocated, h.e->nbanks);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	CU_ASSERT_EQUAL(seq_update(seq, "ev", "x", 1), TPM_RC_REFERENCE_H0);
}

static void test_event_sequence_null_pcr(void)
{
	uint8_t before[MAX_DIGEST_SIZE];
	TPM_ALG_ID alg = h.e->banks[0].alg;
	TPM_HANDLE seq = 0;
	struct rd rsp;
	uint32_t count = 0;

	memcpy(before, pcr_value(h.e, alg, 16), MAX_DIGEST_SIZE);
	CU_ASSERT_EQUAL_FATAL(seq_start("ev", TPM_ALG_NULL, &seq), 0);
	CU_ASSERT_EQUAL_FATAL(event_complete(TPM_RH_NULL, seq, "abc", 3, &rsp), 0);
	CU_ASSERT_EQUAL(rd_u32(&rsp, &count), 0);
	CU_ASSERT_EQUAL(count, pcr_bank_alg_count());
	CU_ASSERT_EQUAL(memcmp(pcr_value(h.e, alg, 16), before, MAX_DIGEST_SIZE), 0);
}

static void test_event_sequence_locality(void)
{
	TPM_HANDLE seq = 0;

	/* PCR 17 is D-RTM: locality 0 may not extend it */
	CU_ASSERT_EQUAL_FATAL(seq_start("ev", TPM_ALG_NULL, &seq), 0);
	CU_ASSERT_EQUAL(event_complete(17, seq, "abc", 3, NULL), TPM_RC_LOCALITY);
	/* PCR handles past 23 are not PCRs */
	CU_ASSERT_EQUAL(event_complete(24, seq, "abc", 3, NULL), RC_H(TPM_RC_VALUE, 1));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "Hash known answers and tickets", test_hash_known_answers },
		{ "Hash NULL tickets", test_hash_null_tickets },
		{ "Hash errors", test_hash_errors },
		{ "Hash truncated input", test_hash_truncated },
		{ "sequence equals one-shot", test_sequence_equals_one_shot },
		{ "sequence data in SequenceComplete", test_sequence_abc_in_complete },
		{ "sequence TPM_GENERATED_VALUE", test_sequence_generated_value },
		{ "sequence authorization", test_sequence_auth },
		{ "sequence errors", test_sequence_errors },
		{ "sequence slots run out", test_sequence_slots_run_out },
		{ "HMAC sequence", test_hmac_sequence },
		{ "HMAC_Start errors", test_hmac_start_errors },
		{ "event sequence extends", test_event_sequence_extends },
		{ "event sequence NULL PCR", test_event_sequence_null_pcr },
		{ "event sequence locality", test_event_sequence_locality },
	};

	return UNIT_RUN("hash", tests, setup, teardown);
}
