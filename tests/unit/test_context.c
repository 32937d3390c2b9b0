/* Contexts and persistent objects, through the commands a client sends: ContextSave /
 * ContextLoad round trips of keys and of hash, HMAC and event sequences; altered, foreign and
 * stale contexts refused; FlushContext; EvictControl's rules, persistent objects seen by
 * other clients, surviving a restart, and rolled back when the state cannot be saved. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_int.h"
#include "harness.h"
#include "state/store.h"

#define P1(rc) ((rc) | TPM_RC_P | TPM_RC_1)	  /* parameter 1 */
#define H(rc, n) ((rc) | ((n) << 8))		  /* handle n */
#define OWNER_PERSISTENT 0x81000001u
#define PLATFORM_PERSISTENT 0x81800001u

static struct harness h;
static char tmp_root[] = "/tmp/pqtpm-test-context-XXXXXX";

static int setup(void)
{
	harness_open(&h);
	return 0;
}

static int teardown(void)
{
	harness_close(&h);
	return 0;
}

/* ---- templates ---- */

static struct tpmt_public base_template(TPM_ALG_ID type, uint32_t extra_attributes)
{
	struct tpmt_public p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.name_alg = TPM_ALG_SHA256;
	p.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		       TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
		       TPMA_OBJECT_SIGN_ENCRYPT | extra_attributes;
	p.symmetric.alg = TPM_ALG_NULL;
	p.scheme.scheme = p.scheme.hash_alg = p.scheme.kdf = TPM_ALG_NULL;
	p.kdf.scheme = p.kdf.hash_alg = p.kdf.kdf = TPM_ALG_NULL;
	p.pre_hash = TPM_ALG_NULL;
	return p;
}

/* ECDSA P-256 signing key */
static struct tpmt_public ecc_template(uint32_t extra_attributes)
{
	struct tpmt_public p = base_template(TPM_ALG_ECC, extra_attributes);

	p.scheme.scheme = TPM_ALG_ECDSA;
	p.scheme.hash_alg = TPM_ALG_SHA256;
	p.curve_id = TPM_ECC_NIST_P256;
	return p;
}

static struct tpmt_public mldsa87_template(void)
{
	struct tpmt_public p = base_template(TPM_ALG_MLDSA, 0);

	p.parameter_set = TPM_MLDSA_87;
	return p;
}

static struct tpmt_public hmac_template(void)
{
	struct tpmt_public p = base_template(TPM_ALG_KEYEDHASH, 0);

	p.scheme.scheme = TPM_ALG_HMAC;
	p.scheme.hash_alg = TPM_ALG_SHA256;
	return p;
}

/* ---- commands ---- */

static TPM_RC create_primary_rc(struct harness *t, TPM_HANDLE hierarchy,
				const struct tpmt_public *tmpl, TPM_HANDLE *out)
{
	struct cmdbuf b;
	size_t mark;

	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, hierarchy);
	cmd_auth_pw(&b, "");
	wr_size_begin(&b.params, &mark); /* TPM2B_SENSITIVE_CREATE: empty auth and data */
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 0);
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, tmpl);
	wr_u16(&b.params, 0); /* outsideInfo */
	wr_u32(&b.params, 0); /* creationPCR */
	return harness_run(t, &b, NULL, out);
}

static TPM_HANDLE create_primary(struct harness *t, TPM_HANDLE hierarchy,
				 const struct tpmt_public *tmpl)
{
	TPM_HANDLE out = 0;

	CU_ASSERT_EQUAL_FATAL(create_primary_rc(t, hierarchy, tmpl, &out), TPM_RC_SUCCESS);
	return out;
}

struct public_info {
	struct tpmt_public pub;
	uint8_t bytes[4096];
	size_t len;
	struct tpm2b_name name, qn;
};

static TPM_RC read_public(struct harness *t, TPM_HANDLE handle, struct public_info *out)
{
	struct cmdbuf b;
	struct rd rsp, sub;
	const uint8_t *p;
	uint16_t size;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ReadPublic);
	cmd_handle(&b, handle);
	rc = harness_run(t, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	memset(out, 0, sizeof(*out));
	CU_ASSERT_FATAL(rd_sub(&rsp, &sub, &size) == TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(rd_public(&sub, &out->pub) == TPM_RC_SUCCESS);
	rd_init(&sub, sub.buf, sub.len);
	CU_ASSERT_FATAL(rd_view(&sub, size, &p) == TPM_RC_SUCCESS);
	memcpy(out->bytes, p, size);
	out->len = size;
	CU_ASSERT_FATAL(rd_tpm2b_name(&rsp, &out->name) == TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(rd_tpm2b_name(&rsp, &out->qn) == TPM_RC_SUCCESS);
	return TPM_RC_SUCCESS;
}

static void assert_same_public(const struct public_info *a, const struct public_info *b)
{
	CU_ASSERT_EQUAL(a->len, b->len);
	CU_ASSERT_EQUAL(memcmp(a->bytes, b->bytes, a->len), 0);
	CU_ASSERT_EQUAL(a->name.size, b->name.size);
	CU_ASSERT_EQUAL(memcmp(a->name.b, b->name.b, a->name.size), 0);
	CU_ASSERT_EQUAL(a->qn.size, b->qn.size);
	CU_ASSERT_EQUAL(memcmp(a->qn.b, b->qn.b, a->qn.size), 0);
}

static TPM_RC context_save(struct harness *t, TPM_HANDLE handle, struct tpms_context *ctx)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ContextSave);
	cmd_handle(&b, handle);
	rc = harness_run(t, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_FATAL(rd_context(&rsp, ctx) == TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	}
	return rc;
}

static TPM_RC context_load(struct harness *t, const struct tpms_context *ctx, TPM_HANDLE *out)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_ContextLoad);
	wr_context(&b.params, ctx);
	return harness_run(t, &b, NULL, out);
}

static TPM_RC flush(struct harness *t, TPM_HANDLE handle)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_FlushContext);
	wr_u32(&b.params, handle);
	return harness_run(t, &b, NULL, NULL);
}

static TPM_RC evict(struct harness *t, TPM_HANDLE auth, TPM_HANDLE object, TPM_HANDLE persistent)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_EvictControl);
	cmd_handle(&b, auth);
	cmd_handle(&b, object);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, persistent);
	return harness_run(t, &b, NULL, NULL);
}

static TPM_RC run_u16(struct harness *t, TPM_CC cc, uint16_t v)
{
	struct cmdbuf b;

	cmd_begin(&b, cc);
	wr_u16(&b.params, v);
	return harness_run(t, &b, NULL, NULL);
}

/* Sign a digest with the ECDSA key and check the signature against its public key. */
static void assert_signs(struct harness *t, TPM_HANDLE key)
{
	static const uint8_t digest[32] = "a digest of thirty-two bytes...";
	struct public_info pi;
	struct tpmt_signature sig;
	struct cmdbuf b;
	struct rd rsp;

	CU_ASSERT_EQUAL_FATAL(read_public(t, key, &pi), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, digest, sizeof(digest));
	wr_u16(&b.params, TPM_ALG_NULL); /* the key's scheme */
	wr_u16(&b.params, TPM_ST_HASHCHECK);
	wr_u32(&b.params, TPM_RH_NULL);
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL_FATAL(harness_run(t, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(rd_signature(&rsp, &sig) == TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_ECDSA);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(TPM_ECC_NIST_P256, pi.pub.x.b, pi.pub.y.b, digest,
					    sizeof(digest), sig.r.b, sig.r.size, sig.s.b,
					    sig.s.size),
			TPM_RC_SUCCESS);
}

/* ---- key contexts ---- */

static void test_key_round_trip(void)
{
	struct tpmt_public t = ecc_template(0);
	struct public_info before, after;
	struct tpms_context ctx, again;
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t), loaded = 0, loaded2 = 0;

	CU_ASSERT_EQUAL_FATAL(read_public(&h, key, &before), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_save(&h, key, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ctx.saved_handle, 0x80000000u);
	CU_ASSERT_EQUAL(ctx.hierarchy, TPM_RH_OWNER);
	CU_ASSERT(ctx.blob_size > 0 && ctx.blob_size <= MAX_CONTEXT_BLOB);

	CU_ASSERT_EQUAL_FATAL(context_load(&h, &ctx, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(loaded >> 24, TPM_HT_TRANSIENT);
	CU_ASSERT_NOT_EQUAL(loaded, key);
	CU_ASSERT_EQUAL_FATAL(read_public(&h, loaded, &after), TPM_RC_SUCCESS);
	assert_same_public(&before, &after);
	assert_signs(&h, loaded);

	/* an object context stays valid: after a flush of both copies it loads again */
	CU_ASSERT_EQUAL(flush(&h, key), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(flush(&h, loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_load(&h, &ctx, &loaded2), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(read_public(&h, loaded2, &after), TPM_RC_SUCCESS);
	assert_same_public(&before, &after);
	assert_signs(&h, loaded2);

	/* each save gets a new sequence number */
	CU_ASSERT_EQUAL_FATAL(context_save(&h, loaded2, &again), TPM_RC_SUCCESS);
	CU_ASSERT(again.sequence > ctx.sequence);
	CU_ASSERT_EQUAL(flush(&h, loaded2), TPM_RC_SUCCESS);
}

static void test_saved_handle_values(void)
{
	struct tpmt_public st = ecc_template(TPMA_OBJECT_STCLEAR), ek = ecc_template(0);
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &st);
	TPM_HANDLE eh = create_primary(&h, TPM_RH_ENDORSEMENT, &ek), seq = 0;
	struct tpms_context ctx;
	struct cmdbuf b;

	CU_ASSERT_EQUAL_FATAL(context_save(&h, key, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ctx.saved_handle, 0x80000002u);
	CU_ASSERT_EQUAL_FATAL(context_save(&h, eh, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ctx.saved_handle, 0x80000000u);
	CU_ASSERT_EQUAL(ctx.hierarchy, TPM_RH_ENDORSEMENT);

	cmd_begin(&b, TPM_CC_HashSequenceStart);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_save(&h, seq, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ctx.saved_handle, 0x80000001u);
	CU_ASSERT_EQUAL(ctx.hierarchy, TPM_RH_NULL);
	flush(&h, key);
	flush(&h, eh);
	flush(&h, seq);
}

/* The largest public area there is still fits in a context. */
static void test_mldsa87_round_trip(void)
{
	struct tpmt_public t = mldsa87_template();
	struct public_info before, after;
	struct tpms_context ctx;
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t), loaded = 0;

	CU_ASSERT_EQUAL_FATAL(read_public(&h, key, &before), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(before.pub.unique.size, MAX_PQ_PUBLIC);
	CU_ASSERT_EQUAL_FATAL(context_save(&h, key, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT(ctx.blob_size <= MAX_CONTEXT_BLOB);
	CU_ASSERT_EQUAL_FATAL(context_load(&h, &ctx, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(read_public(&h, loaded, &after), TPM_RC_SUCCESS);
	assert_same_public(&before, &after);
	flush(&h, key);
	flush(&h, loaded);
}

/* ---- sequence contexts ---- */

static TPM_HANDLE start_sequence(TPM_CC cc, TPM_HANDLE key, TPM_ALG_ID alg)
{
	TPM_HANDLE seq = 0;
	struct cmdbuf b;

	cmd_begin(&b, cc);
	if (key) {
		cmd_handle(&b, key);
		cmd_auth_pw(&b, "");
	}
	wr_u16(&b.params, 0); /* auth */
	wr_u16(&b.params, alg);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &seq), TPM_RC_SUCCESS);
	return seq;
}

static void update_sequence(TPM_HANDLE seq, const char *data)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_SequenceUpdate);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, data, (uint16_t)strlen(data));
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

static void complete_sequence(TPM_HANDLE seq, const char *data, struct tpm2b_digest *out)
{
	struct cmdbuf b;
	struct rd rsp;

	cmd_begin(&b, TPM_CC_SequenceComplete);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, data, (uint16_t)strlen(data));
	wr_u32(&b.params, TPM_RH_OWNER);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(rd_tpm2b_digest(&rsp, out) == TPM_RC_SUCCESS);
}

/* Save mid-way, flush the original, reload, carry on: a sequence that was saved and
 * reloaded (twice) ends where an uninterrupted one does. */
static TPM_HANDLE save_flush_reload(TPM_HANDLE seq)
{
	struct tpms_context ctx;
	TPM_HANDLE loaded = 0;

	CU_ASSERT_EQUAL_FATAL(context_save(&h, seq, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(flush(&h, seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_load(&h, &ctx, &loaded), TPM_RC_SUCCESS);
	return loaded;
}

static void test_hash_sequence_round_trip(void)
{
	static const char whole[] = "part one, part two, the end";
	static const TPM_ALG_ID algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					   TPM_ALG_SHA512 };
	uint8_t expect[MAX_DIGEST_SIZE];
	struct tpm2b_digest got;

	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		TPM_HANDLE seq = start_sequence(TPM_CC_HashSequenceStart, 0, algs[i]);

		update_sequence(seq, "part one, ");
		seq = save_flush_reload(seq);
		update_sequence(seq, "part two, ");
		seq = save_flush_reload(seq);
		complete_sequence(seq, "the end", &got);
		CU_ASSERT_FATAL(crypto_hash(algs[i], whole, strlen(whole), expect) ==
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(got.size, crypto_hash_size(algs[i]));
		CU_ASSERT_EQUAL(memcmp(got.b, expect, got.size), 0);
	}
}

static void test_hmac_sequence_round_trip(void)
{
	static const char whole[] = "part one, the end";
	struct tpmt_public t = hmac_template();
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t), seq;
	struct tpm2b_digest one_shot, got;
	struct cmdbuf b;
	struct rd rsp;

	cmd_begin(&b, TPM_CC_HMAC);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, whole, (uint16_t)strlen(whole));
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(rd_tpm2b_digest(&rsp, &one_shot) == TPM_RC_SUCCESS);

	seq = start_sequence(TPM_CC_HMAC_Start, key, TPM_ALG_SHA256);
	update_sequence(seq, "part one, ");
	seq = save_flush_reload(seq);
	complete_sequence(seq, "the end", &got);
	CU_ASSERT_EQUAL(got.size, 32);
	CU_ASSERT_EQUAL(memcmp(got.b, one_shot.b, 32), 0);
	flush(&h, key);
}

static void test_event_sequence_round_trip(void)
{
	static const char whole[] = "an event, saved";
	uint8_t expect[MAX_DIGEST_SIZE];
	TPM_HANDLE seq = start_sequence(TPM_CC_HashSequenceStart, 0, TPM_ALG_NULL);
	struct cmdbuf b;
	struct rd rsp;
	uint32_t count;

	update_sequence(seq, "an event, ");
	seq = save_flush_reload(seq);
	cmd_begin(&b, TPM_CC_EventSequenceComplete);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, "");
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "saved", 5);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(rd_u32(&rsp, &count) == TPM_RC_SUCCESS);
	CU_ASSERT(count >= 1);
	for (uint32_t i = 0; i < count; i++) {
		TPM_ALG_ID alg;
		const uint8_t *d;

		CU_ASSERT_FATAL(rd_u16(&rsp, &alg) == TPM_RC_SUCCESS);
		CU_ASSERT_FATAL(rd_view(&rsp, crypto_hash_size(alg), &d) == TPM_RC_SUCCESS);
		CU_ASSERT_FATAL(crypto_hash(alg, whole, strlen(whole), expect) == TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(d, expect, crypto_hash_size(alg)), 0);
	}
}

/* ---- contexts refused ---- */

static void test_altered_context_refused(void)
{
	struct tpmt_public t = ecc_template(0);
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t), loaded;
	struct tpms_context ctx, bad;

	CU_ASSERT_EQUAL_FATAL(context_save(&h, key, &ctx), TPM_RC_SUCCESS);
	/* every byte of the blob after the integrity size */
	for (size_t i = 2; i < ctx.blob_size; i++) {
		bad = ctx;
		bad.blob[i] ^= 0x01;
		CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	}
	/* the integrity size itself */
	bad = ctx;
	bad.blob[1] = 31;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	bad.blob[1] = 65;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_SIZE));
	/* shorter blobs */
	bad = ctx;
	bad.blob_size--;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	bad.blob_size = 40;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	bad.blob_size = 1;
	CU_ASSERT_NOT_EQUAL(context_load(&h, &bad, &loaded), TPM_RC_SUCCESS);
	/* the TPMS_CONTEXT fields the blob is bound to */
	bad = ctx;
	bad.sequence++;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	bad = ctx;
	bad.saved_handle = 0x80000002u;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	bad.saved_handle = 0x80000001u;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	bad = ctx;
	bad.hierarchy = TPM_RH_ENDORSEMENT;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	bad.hierarchy = TPM_RH_NULL;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_INTEGRITY));
	/* values that are no TPMI_DH_SAVED / TPMI_RH_HIERARCHY */
	bad = ctx;
	bad.saved_handle = 0x80000003u;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_VALUE));
	bad = ctx;
	bad.hierarchy = TPM_RH_LOCKOUT;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_VALUE));
	/* a session context, while no session was ever saved */
	bad = ctx;
	bad.saved_handle = 0x02000000u;
	CU_ASSERT_EQUAL(context_load(&h, &bad, &loaded), P1(TPM_RC_HANDLE));
	/* still good */
	CU_ASSERT_EQUAL(context_load(&h, &ctx, &loaded), TPM_RC_SUCCESS);
	flush(&h, loaded);
	flush(&h, key);
}

static void test_disabled_hierarchy_refused(void)
{
	struct tpmt_public t = ecc_template(0);
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t), loaded = 0;
	struct tpms_context ctx;
	struct cmdbuf b;

	CU_ASSERT_EQUAL_FATAL(context_save(&h, key, &ctx), TPM_RC_SUCCESS);
	h.e->sh_enable = false;
	volatile_dirty(h.e); /* as HierarchyControl would */
	CU_ASSERT_EQUAL(context_load(&h, &ctx, &loaded), P1(TPM_RC_HIERARCHY));
	h.e->sh_enable = true;
	volatile_dirty(h.e);
	CU_ASSERT_EQUAL(context_load(&h, &ctx, &loaded), TPM_RC_SUCCESS);

	/* the same through HierarchyControl, which also flushes the owner's objects */
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_OWNER);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(context_load(&h, &ctx, &loaded), P1(TPM_RC_HIERARCHY));
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_OWNER);
	wr_u8(&b.params, 1);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(context_load(&h, &ctx, &loaded), TPM_RC_SUCCESS);
	flush(&h, loaded);
}

/* Power cycle and Startup: TPM Reset (after Shutdown(CLEAR) or none) or TPM Restart
 * (Startup(CLEAR) after Shutdown(STATE)). */
static void power_cycle(struct harness *t, int shutdown_type)
{
	if (shutdown_type >= 0)
		CU_ASSERT_EQUAL_FATAL(run_u16(t, TPM_CC_Shutdown, (uint16_t)shutdown_type),
				      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_engine_signal(t->e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL_FATAL(run_u16(t, TPM_CC_Startup, TPM_SU_CLEAR), TPM_RC_SUCCESS);
}

static void test_contexts_refused_after_reset(void)
{
	struct harness r;
	struct tpmt_public t = ecc_template(0);
	struct tpms_context key_ctx, null_ctx, seq_ctx;
	TPM_HANDLE key, null_key, seq, loaded = 0;
	struct cmdbuf b;

	harness_open(&r);
	key = create_primary(&r, TPM_RH_OWNER, &t);
	null_key = create_primary(&r, TPM_RH_NULL, &t);
	cmd_begin(&b, TPM_CC_HashSequenceStart);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&r, &b, NULL, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_save(&r, key, &key_ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_save(&r, null_key, &null_ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_save(&r, seq, &seq_ctx), TPM_RC_SUCCESS);

	power_cycle(&r, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL(context_load(&r, &key_ctx, &loaded), P1(TPM_RC_INTEGRITY));
	CU_ASSERT_EQUAL(context_load(&r, &null_ctx, &loaded), P1(TPM_RC_INTEGRITY));
	CU_ASSERT_EQUAL(context_load(&r, &seq_ctx, &loaded), P1(TPM_RC_INTEGRITY));
	harness_close(&r);
}

static void test_stclear_refused_after_restart(void)
{
	struct harness r;
	struct tpmt_public plain = ecc_template(0), st = ecc_template(TPMA_OBJECT_STCLEAR);
	struct tpms_context plain_ctx, st_ctx;
	TPM_HANDLE loaded = 0;

	harness_open(&r);
	CU_ASSERT_EQUAL_FATAL(context_save(&r, create_primary(&r, TPM_RH_OWNER, &plain),
					   &plain_ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(context_save(&r, create_primary(&r, TPM_RH_OWNER, &st), &st_ctx),
			      TPM_RC_SUCCESS);
	power_cycle(&r, TPM_SU_STATE);
	CU_ASSERT_EQUAL(context_load(&r, &plain_ctx, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(context_load(&r, &st_ctx, &loaded), P1(TPM_RC_INTEGRITY));
	harness_close(&r);
}

static void test_object_memory(void)
{
	struct tpmt_public t = ecc_template(0);
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t), loaded[MAX_CLIENT_OBJECTS];
	struct tpms_context ctx;
	unsigned n = 0;
	TPM_RC rc;

	CU_ASSERT_EQUAL_FATAL(context_save(&h, key, &ctx), TPM_RC_SUCCESS);
	while ((rc = context_load(&h, &ctx, &loaded[n])) == TPM_RC_SUCCESS &&
	       n < MAX_CLIENT_OBJECTS - 1)
		n++;
	CU_ASSERT_EQUAL(rc, TPM_RC_OBJECT_MEMORY);
	for (unsigned i = 0; i < n; i++)
		CU_ASSERT_EQUAL(flush(&h, loaded[i]), TPM_RC_SUCCESS);
	flush(&h, key);
}

/* ---- FlushContext ---- */

static void test_flush(void)
{
	struct tpmt_public t = ecc_template(0);
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t);
	struct public_info pi;
	struct tpms_context ctx;
	struct harness other = h;

	/* another client does not see this client's objects */
	other.c = pqtpm_client_new(h.e);
	CU_ASSERT_FATAL(other.c != NULL);
	CU_ASSERT_EQUAL(flush(&other, key), P1(TPM_RC_HANDLE));
	pqtpm_client_free(other.c);

	CU_ASSERT_EQUAL(flush(&h, key), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(flush(&h, key), P1(TPM_RC_HANDLE));
	CU_ASSERT_NOT_EQUAL(read_public(&h, key, &pi), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(context_save(&h, key, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(flush(&h, 0x80FFFFFEu), P1(TPM_RC_HANDLE));
	CU_ASSERT_EQUAL(flush(&h, 0x02000000u), P1(TPM_RC_HANDLE)); /* no such session */
	CU_ASSERT_EQUAL(flush(&h, 0x03000000u), P1(TPM_RC_HANDLE));
	CU_ASSERT_EQUAL(flush(&h, OWNER_PERSISTENT), P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(flush(&h, TPM_RH_OWNER), P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(flush(&h, 0x01000000u), P1(TPM_RC_VALUE));
}

static void test_flush_session(void)
{
	static const uint8_t nonce[16] = "nonce of caller";
	TPM_HANDLE session = 0;
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL); /* tpmKey */
	cmd_handle(&b, TPM_RH_NULL); /* bind */
	wr_tpm2b(&b.params, nonce, sizeof(nonce));
	wr_u16(&b.params, 0); /* encryptedSalt */
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL); /* symmetric */
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &session), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(session >> 24, TPM_HT_HMAC_SESSION);
	CU_ASSERT_EQUAL(flush(&h, session), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(flush(&h, session), P1(TPM_RC_HANDLE));
}

/* ---- EvictControl ---- */

static void test_evict_persist_and_use(void)
{
	struct tpmt_public t = ecc_template(0);
	TPM_HANDLE key = create_primary(&h, TPM_RH_OWNER, &t);
	struct public_info transient, persistent;
	struct harness other = h;

	CU_ASSERT_EQUAL_FATAL(read_public(&h, key, &transient), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(evict(&h, TPM_RH_OWNER, key, OWNER_PERSISTENT), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(read_public(&h, OWNER_PERSISTENT, &persistent), TPM_RC_SUCCESS);
	assert_same_public(&transient, &persistent);
	assert_signs(&h, OWNER_PERSISTENT);
	/* the transient original is still there, and independent */
	CU_ASSERT_EQUAL(flush(&h, key), TPM_RC_SUCCESS);

	/* a second client uses it; it cannot flush it */
	other.c = pqtpm_client_new(h.e);
	CU_ASSERT_FATAL(other.c != NULL);
	CU_ASSERT_EQUAL(read_public(&other, OWNER_PERSISTENT, &persistent), TPM_RC_SUCCESS);
	assert_same_public(&transient, &persistent);
	assert_signs(&other, OWNER_PERSISTENT);
	CU_ASSERT_EQUAL(flush(&other, OWNER_PERSISTENT), P1(TPM_RC_VALUE));
	/* a persistent object is not context-saved (ContextSave takes transient handles) */
	CU_ASSERT_NOT_EQUAL(context_save(&other, OWNER_PERSISTENT, &(struct tpms_context){ 0 }),
			    TPM_RC_SUCCESS);

	/* evicted by the other client */
	CU_ASSERT_EQUAL(evict(&other, TPM_RH_OWNER, OWNER_PERSISTENT, OWNER_PERSISTENT),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_public(&h, OWNER_PERSISTENT, &persistent), H(TPM_RC_HANDLE, 1));
	pqtpm_client_free(other.c);
}

static void test_evict_errors(void)
{
	struct tpmt_public t = ecc_template(0), st = ecc_template(TPMA_OBJECT_STCLEAR);
	TPM_HANDLE owner_key = create_primary(&h, TPM_RH_OWNER, &t);
	TPM_HANDLE endorsement_key = create_primary(&h, TPM_RH_ENDORSEMENT, &t);
	TPM_HANDLE platform_key = create_primary(&h, TPM_RH_PLATFORM, &t);
	TPM_HANDLE null_key = create_primary(&h, TPM_RH_NULL, &t);
	TPM_HANDLE stclear_key = create_primary(&h, TPM_RH_OWNER, &st);
	TPM_HANDLE seq = start_sequence(TPM_CC_HashSequenceStart, 0, TPM_ALG_SHA256);
	struct public_info pi;

	/* what cannot be persistent */
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, null_key, OWNER_PERSISTENT),
			H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, stclear_key, OWNER_PERSISTENT),
			H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, seq, OWNER_PERSISTENT), H(TPM_RC_ATTRIBUTES, 2));
	/* not a persistent handle */
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, owner_key, 0x80000001u), P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, owner_key, 0x01000001u), P1(TPM_RC_VALUE));
	/* which authorization may persist what, where */
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, owner_key, PLATFORM_PERSISTENT),
			P1(TPM_RC_RANGE));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_PLATFORM, owner_key, PLATFORM_PERSISTENT),
			H(TPM_RC_HIERARCHY, 2));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, platform_key, OWNER_PERSISTENT),
			H(TPM_RC_HIERARCHY, 2));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_PLATFORM, platform_key, OWNER_PERSISTENT),
			P1(TPM_RC_RANGE));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_ENDORSEMENT, owner_key, OWNER_PERSISTENT),
			H(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_PLATFORM, platform_key, PLATFORM_PERSISTENT),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, endorsement_key, OWNER_PERSISTENT + 1),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, owner_key, OWNER_PERSISTENT), TPM_RC_SUCCESS);
	/* taken */
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, owner_key, OWNER_PERSISTENT), TPM_RC_NV_DEFINED);
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, endorsement_key, OWNER_PERSISTENT + 1),
			TPM_RC_NV_DEFINED);
	/* removal: the handles must match; the owner cannot remove the platform's */
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, OWNER_PERSISTENT, OWNER_PERSISTENT + 1),
			H(TPM_RC_HANDLE, 2));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, PLATFORM_PERSISTENT, PLATFORM_PERSISTENT),
			H(TPM_RC_HIERARCHY, 2));
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_PLATFORM, PLATFORM_PERSISTENT, PLATFORM_PERSISTENT),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_PLATFORM, OWNER_PERSISTENT, OWNER_PERSISTENT),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, OWNER_PERSISTENT + 1, OWNER_PERSISTENT + 1),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, OWNER_PERSISTENT, OWNER_PERSISTENT),
			H(TPM_RC_HANDLE, 2));
	CU_ASSERT_EQUAL(read_public(&h, PLATFORM_PERSISTENT, &pi), H(TPM_RC_HANDLE, 1));

	/* full */
	for (unsigned i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, owner_key, OWNER_PERSISTENT + i),
				TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, owner_key, OWNER_PERSISTENT + 100),
			TPM_RC_NV_SPACE);
	for (unsigned i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		CU_ASSERT_EQUAL(evict(&h, TPM_RH_OWNER, OWNER_PERSISTENT + i,
				      OWNER_PERSISTENT + i),
				TPM_RC_SUCCESS);

	flush(&h, owner_key);
	flush(&h, endorsement_key);
	flush(&h, platform_key);
	flush(&h, null_key);
	flush(&h, stclear_key);
	flush(&h, seq);
}

static void test_persistent_survives_restart(void)
{
	struct tpmt_public t = ecc_template(0);
	struct public_info before, after;
	char dir[256];
	struct harness r;

	snprintf(dir, sizeof(dir), "%s/restart", tmp_root);
	harness_open_dir(&r, dir);
	CU_ASSERT_EQUAL_FATAL(evict(&r, TPM_RH_OWNER, create_primary(&r, TPM_RH_OWNER, &t),
				    OWNER_PERSISTENT + 4),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(read_public(&r, OWNER_PERSISTENT + 4, &before), TPM_RC_SUCCESS);
	harness_close(&r);

	harness_open_dir(&r, dir);
	CU_ASSERT_EQUAL_FATAL(read_public(&r, OWNER_PERSISTENT + 4, &after), TPM_RC_SUCCESS);
	assert_same_public(&before, &after);
	assert_signs(&r, OWNER_PERSISTENT + 4);
	CU_ASSERT_EQUAL(evict(&r, TPM_RH_OWNER, OWNER_PERSISTENT + 4, OWNER_PERSISTENT + 4),
			TPM_RC_SUCCESS);
	harness_close(&r);

	harness_open_dir(&r, dir);
	CU_ASSERT_EQUAL(read_public(&r, OWNER_PERSISTENT + 4, &after), H(TPM_RC_HANDLE, 1));
	harness_close(&r);
}

/* When the state cannot be written (its temp file name taken by a directory), EvictControl
 * fails and memory keeps what the disk has. */
static void test_evict_rolled_back_when_save_fails(void)
{
	struct tpmt_public t = ecc_template(0);
	struct public_info pi;
	char dir[256], blocker[512];
	struct harness r;
	TPM_HANDLE key;

	snprintf(dir, sizeof(dir), "%s/rollback", tmp_root);
	snprintf(blocker, sizeof(blocker), "%s/%s", dir, STATE_TMP_FILE);
	harness_open_dir(&r, dir);
	key = create_primary(&r, TPM_RH_OWNER, &t);

	CU_ASSERT_FATAL(mkdir(blocker, 0700) == 0);
	CU_ASSERT_EQUAL(evict(&r, TPM_RH_OWNER, key, OWNER_PERSISTENT), TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_EQUAL(read_public(&r, OWNER_PERSISTENT, &pi), H(TPM_RC_HANDLE, 1));
	CU_ASSERT_FATAL(rmdir(blocker) == 0);
	CU_ASSERT_EQUAL(evict(&r, TPM_RH_OWNER, key, OWNER_PERSISTENT), TPM_RC_SUCCESS);

	CU_ASSERT_FATAL(mkdir(blocker, 0700) == 0);
	CU_ASSERT_EQUAL(evict(&r, TPM_RH_OWNER, OWNER_PERSISTENT, OWNER_PERSISTENT),
			TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_EQUAL(read_public(&r, OWNER_PERSISTENT, &pi), TPM_RC_SUCCESS);
	assert_signs(&r, OWNER_PERSISTENT);
	CU_ASSERT_FATAL(rmdir(blocker) == 0);
	harness_close(&r);

	/* the disk agreed with memory all along */
	harness_open_dir(&r, dir);
	CU_ASSERT_EQUAL(read_public(&r, OWNER_PERSISTENT, &pi), TPM_RC_SUCCESS);
	harness_close(&r);
}

int main(void)
{
	CU_pSuite s;
	unsigned failed;

	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return 2;
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("context", setup, teardown);
	CU_add_test(s, "key round trip", test_key_round_trip);
	CU_add_test(s, "savedHandle values", test_saved_handle_values);
	CU_add_test(s, "ML-DSA-87 key round trip", test_mldsa87_round_trip);
	CU_add_test(s, "hash sequence round trip", test_hash_sequence_round_trip);
	CU_add_test(s, "HMAC sequence round trip", test_hmac_sequence_round_trip);
	CU_add_test(s, "event sequence round trip", test_event_sequence_round_trip);
	CU_add_test(s, "altered contexts refused", test_altered_context_refused);
	CU_add_test(s, "disabled hierarchy refused", test_disabled_hierarchy_refused);
	CU_add_test(s, "contexts refused after TPM Reset", test_contexts_refused_after_reset);
	CU_add_test(s, "stClear refused after TPM Restart", test_stclear_refused_after_restart);
	CU_add_test(s, "object memory full", test_object_memory);
	CU_add_test(s, "FlushContext", test_flush);
	CU_add_test(s, "FlushContext of a session", test_flush_session);
	s = CU_add_suite("evict", setup, teardown);
	CU_add_test(s, "persist, use from another client, evict", test_evict_persist_and_use);
	CU_add_test(s, "EvictControl errors", test_evict_errors);
	CU_add_test(s, "persistent object survives restart", test_persistent_survives_restart);
	CU_add_test(s, "rolled back when the save fails", test_evict_rolled_back_when_save_fails);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	harness_rm_tree(tmp_root);
	return failed != 0;
}
