/* Malformed parameter areas for the v1.85 commands (core/cmd/pq_*.c): every command is sent
 * cut short at every byte of its parameters and must answer TPM_RC_INSUFFICIENT with the number
 * of the parameter the cut fell in, then with one byte too many (TPM_RC_SIZE), and finally
 * whole, which must still succeed: a refused command leaves its sequence and key as they were. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "pq_util.h"
#include "unit_main.h"

static struct harness h;
static struct pq_key dsa, kem;
static const uint8_t ctx[] = "context";
#define CTXLEN ((uint16_t)(sizeof(ctx) - 1))
static const uint8_t msg[] = "a message to cut into pieces";
#define MSGLEN ((uint16_t)(sizeof(msg) - 1))

/* A command: its handles and passwords, and its parameters with where each one ends. */
struct tcase {
	TPM_CC cc;
	TPM_HANDLE handle[2];
	unsigned nhandles;
	const char *auth[2];
	unsigned nauth;
	uint8_t params[8192];
	struct wr w;
	size_t end[4];
	unsigned nparams;
};

static void tc_begin(struct tcase *t, TPM_CC cc)
{
	memset(t, 0, sizeof(*t));
	t->cc = cc;
	wr_init(&t->w, t->params, sizeof(t->params));
}

static void tc_handle(struct tcase *t, TPM_HANDLE handle, const char *auth)
{
	t->handle[t->nhandles++] = handle;
	if (auth)
		t->auth[t->nauth++] = auth;
}

/* Call after writing each parameter into t->w. */
static void tc_param_end(struct tcase *t)
{
	t->end[t->nparams++] = t->w.off;
}

static TPM_RC tc_run(const struct tcase *t, size_t len, const uint8_t *extra, struct rd *rsp,
		     TPM_HANDLE *rh)
{
	struct cmdbuf b;

	cmd_begin(&b, t->cc);
	for (unsigned i = 0; i < t->nhandles; i++)
		cmd_handle(&b, t->handle[i]);
	for (unsigned i = 0; i < t->nauth; i++)
		cmd_auth_pw(&b, t->auth[i]);
	if (len)
		wr_bytes(&b.params, t->params, len);
	if (extra)
		wr_u8(&b.params, *extra);
	return harness_run(&h, &b, rsp, rh);
}

/* Loaded transient objects and sequences of this client (GetCapability(HANDLES)). */
static uint32_t transients(void)
{
	struct cmdbuf b;
	struct rd rsp;
	uint32_t cap = 0, count = 0;
	uint8_t more;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_HANDLES);
	wr_u32(&b.params, (uint32_t)TPM_HT_TRANSIENT << 24);
	wr_u32(&b.params, 64);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT(rd_u8(&rsp, &more) == 0 && rd_u32(&rsp, &cap) == 0 &&
		  rd_u32(&rsp, &count) == 0);
	return count;
}

/* Every cut, one byte too many (which must leave no object behind); the whole command is left
 * to the caller. */
static void cuts(const struct tcase *t)
{
	static const uint8_t extra = 0;
	unsigned p = 0, wrong = 0;
	uint32_t before;

	for (size_t cut = 0; cut < t->w.off; cut++) {
		while (t->end[p] <= cut)
			p++;
		if (tc_run(t, cut, NULL, NULL, NULL) != RC_P(TPM_RC_INSUFFICIENT, p + 1))
			wrong++;
	}
	CU_ASSERT_EQUAL(wrong, 0);
	before = transients();
	CU_ASSERT_EQUAL(tc_run(t, t->w.off, &extra, NULL, NULL), TPM_RC_SIZE);
	CU_ASSERT_EQUAL(transients(), before);
}

static void setup(void)
{
	struct tpmt_public tm;

	harness_open(&h);
	pq_tmpl(&tm, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
	tm.allow_external_mu = 1;
	if (pq_primary(&h, TPM_RH_OWNER, &tm, "k", &dsa) != TPM_RC_SUCCESS)
		CU_FAIL_FATAL("ML-DSA key");
	pq_tmpl(&tm, TPM_ALG_MLKEM, TPM_MLKEM_512, TPMA_OBJECT_DECRYPT);
	if (pq_primary(&h, TPM_RH_OWNER, &tm, "k", &kem) != TPM_RC_SUCCESS)
		CU_FAIL_FATAL("ML-KEM key");
}

static void teardown(void)
{
	harness_close(&h);
}

/* SignSequenceStart, SequenceUpdate, SignSequenceComplete; then VerifySequenceStart and
 * VerifySequenceComplete with that signature. */
static void test_sequences(void)
{
	static struct tcase t;
	struct tpmt_signature sig;
	struct tpmt_ticket tk;
	TPM_HANDLE seq = 0, other = 0;
	struct rd rsp;

	tc_begin(&t, TPM_CC_SignSequenceStart);
	tc_handle(&t, dsa.handle, NULL);
	wr_tpm2b(&t.w, "s", 1);
	tc_param_end(&t);
	wr_tpm2b(&t.w, ctx, CTXLEN);
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL_FATAL(tc_run(&t, t.w.off, NULL, NULL, &seq), TPM_RC_SUCCESS);

	/* SequenceUpdate (cmd/hash.c) is cut on a sequence of its own: its codes are checked
	 * here, what a refused update leaves in the message is not this file's business */
	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, dsa.handle, "u", NULL, 0, &other), 0);
	tc_begin(&t, TPM_CC_SequenceUpdate);
	tc_handle(&t, other, "u");
	wr_tpm2b(&t.w, msg, 10);
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL(pq_flush(&h, other), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_update(&h, seq, "s", msg, 10), TPM_RC_SUCCESS);

	tc_begin(&t, TPM_CC_SignSequenceComplete);
	tc_handle(&t, seq, "s");
	tc_handle(&t, dsa.handle, "k");
	wr_tpm2b(&t.w, msg + 10, MSGLEN - 10);
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL_FATAL(tc_run(&t, t.w.off, NULL, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_signature(&rsp, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sig.size, mldsa_sig_bytes(TPM_MLDSA_44));

	tc_begin(&t, TPM_CC_VerifySequenceStart);
	tc_handle(&t, dsa.handle, NULL);
	wr_tpm2b(&t.w, "v", 1);
	tc_param_end(&t);
	wr_u16(&t.w, 0); /* hint */
	tc_param_end(&t);
	wr_tpm2b(&t.w, ctx, CTXLEN);
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL_FATAL(tc_run(&t, t.w.off, NULL, NULL, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_update(&h, seq, "v", msg, MSGLEN), TPM_RC_SUCCESS);

	tc_begin(&t, TPM_CC_VerifySequenceComplete);
	tc_handle(&t, seq, "v");
	tc_handle(&t, dsa.handle, NULL);
	wr_signature(&t.w, &sig);
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL_FATAL(tc_run(&t, t.w.off, NULL, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_ticket(&rsp, &tk), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(tk.tag, TPM_ST_MESSAGE_VERIFIED);
}

/* SignDigest and VerifyDigestSignature with an external mu. */
static void test_digests(void)
{
	struct tpmt_ticket null = { .tag = TPM_ST_HASHCHECK, .hierarchy = TPM_RH_NULL }, tk;
	static struct tcase t;
	struct tpmt_signature sig;
	uint8_t mu[64];
	struct rd rsp;

	memset(mu, 0x3c, sizeof(mu));
	tc_begin(&t, TPM_CC_SignDigest);
	tc_handle(&t, dsa.handle, "k");
	wr_u16(&t.w, 0); /* context: none with an external mu */
	tc_param_end(&t);
	wr_tpm2b(&t.w, mu, sizeof(mu));
	tc_param_end(&t);
	wr_ticket(&t.w, &null);
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL_FATAL(tc_run(&t, t.w.off, NULL, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_signature(&rsp, &sig), TPM_RC_SUCCESS);

	tc_begin(&t, TPM_CC_VerifyDigestSignature);
	tc_handle(&t, dsa.handle, NULL);
	wr_u16(&t.w, 0);
	tc_param_end(&t);
	wr_tpm2b(&t.w, mu, sizeof(mu));
	tc_param_end(&t);
	wr_signature(&t.w, &sig);
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL_FATAL(tc_run(&t, t.w.off, NULL, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_ticket(&rsp, &tk), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(tk.tag, TPM_ST_DIGEST_VERIFIED);
}

/* Decapsulate of a ciphertext made outside; Encapsulate takes no parameters, so only the byte
 * too many applies to it. */
static void test_kem(void)
{
	static const uint8_t extra = 0;
	uint8_t m[32] = { 7 }, ct[MLKEM_MAX_CT_BYTES], ss[32];
	static struct tcase t;
	struct rd rsp;
	uint16_t n = 0;

	CU_ASSERT_EQUAL_FATAL(mlkem_encaps(TPM_MLKEM_512, kem.pub.unique.b, m, ct, ss), 0);
	tc_begin(&t, TPM_CC_Decapsulate);
	tc_handle(&t, kem.handle, "k");
	wr_tpm2b(&t.w, ct, (uint16_t)mlkem_ct_bytes(TPM_MLKEM_512));
	tc_param_end(&t);
	cuts(&t);
	CU_ASSERT_EQUAL_FATAL(tc_run(&t, t.w.off, NULL, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT(rd_tpm2b(&rsp, m, sizeof(m), &n) == 0 && n == 32 && memcmp(m, ss, 32) == 0);

	tc_begin(&t, TPM_CC_Encapsulate);
	tc_handle(&t, kem.handle, NULL);
	CU_ASSERT_EQUAL(tc_run(&t, 0, &extra, NULL, NULL), TPM_RC_SIZE);
	CU_ASSERT_EQUAL(tc_run(&t, 0, NULL, NULL, NULL), TPM_RC_SUCCESS);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "sequence commands cut short", test_sequences },
		{ "digest commands cut short", test_digests },
		{ "KEM commands cut short", test_kem },
	};

	return UNIT_RUN("pq_malformed", tests, setup, teardown);
}
