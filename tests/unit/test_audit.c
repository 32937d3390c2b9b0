/* Session audit (core/auth.c, core/cmd/audit.c; Part 1 "Session Audit", Part 3 §18.5): the
 * audit digest H(old || cpHash || rpHash) recomputed here from the command and response bytes
 * over GetRandom and PCR_Extend, an audit-only session next to a password, auditReset,
 * auditExclusive (TPM_RC_EXCLUSIVE after another client's command or an unaudited one, the
 * response attribute), ContextSave/ContextLoad, Shutdown(STATE) and a new engine,
 * GetSessionAuditDigest signed by an ECDSA key and parsed, and the refusals. */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "attest.h"
#include "crypto/crypto.h"
#include "engine_int.h"
#include "keys.h"
#include "nv_util.h"
#include "session.h"
#include "sessions.h"
#include "state/state_int.h"
#include "state/store.h"
#include "unit_main.h"

#define PCR_TEST 16
#define ATTEST_MAGIC 0xFF544347u

/* ---- the client's view of an HMAC session ---- */

struct sess {
	TPM_HANDLE handle;
	uint8_t key[DSIZE]; /* sessionKey: bound to bind_key below */
	struct tpm2b_digest nonce_tpm, nonce_caller;
	bool auditing;	    /* audited a command since it started */
	uint8_t digest[DSIZE]; /* the audit digest the TPM should have */
};

/* one entry of a command's authorization area */
struct use {
	struct sess *s;	  /* NULL: a password session */
	uint8_t attrs;
	const char *auth; /* the password, or the authValue in the HMAC key (NULL: none) */
};

/* a command and what came back */
struct xchg {
	TPM_CC cc;
	TPM_HANDLE handles[3];
	struct tpm2b_name names[3];
	unsigned nhandles;
	uint8_t params[512];
	size_t plen;
	uint8_t rparams[2048];
	size_t rplen;
	uint8_t rattrs[3];
};

static TPM_HANDLE bind_key;
static struct tpm2b_name bind_name;
static struct key signer; /* ECDSA P-256 / SHA-256 in the owner hierarchy */

static void x_begin(struct xchg *x, TPM_CC cc)
{
	memset(x, 0, sizeof(*x));
	x->cc = cc;
}

/* a handle whose Name is the handle (PCR, hierarchy, session) or the given one (object) */
static void x_handle(struct xchg *x, TPM_HANDLE h, const struct tpm2b_name *name)
{
	struct tpm2b_name *n = &x->names[x->nhandles];

	x->handles[x->nhandles++] = h;
	if (name) {
		*n = *name;
		return;
	}
	sess_handle_name(h, n);
}

static void x_params(struct xchg *x, const struct wr *w)
{
	memcpy(x->params, w->buf, w->off);
	x->plen = w->off;
}

/* Run x on client hh with the sessions u; check every response HMAC and roll the nonces; for
 * the audit session, the digest the TPM should now have. */
static TPM_RC run(struct harness *hh, struct xchg *x, struct use *u, unsigned n)
{
	static uint8_t cmd[4096], rsp[PQTPM_MAX_RESPONSE_SIZE];
	const struct cmd_def *def = cmd_lookup(x->cc);
	uint8_t cp[DSIZE], rp[DSIZE], head[8] = { 0 }, mac[DSIZE];
	size_t rlen, mark;
	struct wr w;
	struct rd r;
	uint16_t tag;
	uint32_t size, rc, psize;
	const uint8_t *p;

	sess_cp_hash(x->cc, x->names, x->nhandles, x->params, x->plen, cp);

	wr_init(&w, cmd, sizeof(cmd));
	wr_u16(&w, TPM_ST_SESSIONS);
	wr_u32(&w, 0);
	wr_u32(&w, x->cc);
	for (unsigned i = 0; i < x->nhandles; i++)
		wr_u32(&w, x->handles[i]);
	mark = w.off;
	wr_u32(&w, 0); /* authorizationSize */
	for (unsigned i = 0; i < n; i++) {
		struct sess *s = u[i].s;

		if (!s) {
			wr_u32(&w, TPM_RS_PW);
			wr_u16(&w, 0);
			wr_u8(&w, u[i].attrs);
			wr_tpm2b(&w, u[i].auth, (uint16_t)strlen(u[i].auth));
			continue;
		}
		s->nonce_caller.size = DSIZE;
		CU_ASSERT_EQUAL(crypto_random(s->nonce_caller.b, DSIZE), TPM_RC_SUCCESS);
		sess_hmac(s->key, DSIZE, u[i].auth, cp, &s->nonce_caller, &s->nonce_tpm, u[i].attrs,
			  mac);
		wr_u32(&w, s->handle);
		wr_tpm2b_digest(&w, &s->nonce_caller);
		wr_u8(&w, u[i].attrs);
		wr_tpm2b(&w, mac, DSIZE);
	}
	wr_patch_u32(&w, mark, (uint32_t)(w.off - mark - 4));
	wr_bytes(&w, x->params, x->plen);
	wr_patch_u32(&w, 2, (uint32_t)w.off);
	rc = harness_raw(hh, cmd, w.off, rsp, &rlen);
	if (rc != TPM_RC_SUCCESS)
		return rc;

	rd_init(&r, rsp, rlen);
	rd_u16(&r, &tag);
	rd_u32(&r, &size);
	rd_u32(&r, &rc);
	CU_ASSERT_EQUAL(tag, TPM_ST_SESSIONS);
	if (def->flags & CMD_RHANDLE)
		CU_ASSERT_EQUAL(rd_view(&r, 4, &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &psize), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(psize <= sizeof(x->rparams));
	CU_ASSERT_EQUAL_FATAL(rd_bytes(&r, x->rparams, psize), TPM_RC_SUCCESS);
	x->rplen = psize;
	sess_be32(head + 4, x->cc);
	sess_sha256(head, 8, x->rparams, x->rplen, "", 0, rp);

	for (unsigned i = 0; i < n; i++) {
		struct sess *s = u[i].s;
		struct tpm2b_digest nonce, got;

		CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &nonce), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_u8(&r, &x->rattrs[i]), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &got), TPM_RC_SUCCESS);
		if (!s) {
			CU_ASSERT(nonce.size == 0 && got.size == 0);
			continue;
		}
		/* the response echoes the attributes, auditExclusive as the TPM sees it */
		CU_ASSERT_EQUAL(x->rattrs[i] & (uint8_t)~TPMA_SESSION_AUDITEXCLUSIVE,
				u[i].attrs & (uint8_t)~TPMA_SESSION_AUDITEXCLUSIVE);
		s->nonce_tpm = nonce;
		sess_hmac(s->key, DSIZE, u[i].auth, rp, &s->nonce_tpm, &s->nonce_caller,
			  x->rattrs[i], mac);
		CU_ASSERT(got.size == DSIZE && memcmp(got.b, mac, DSIZE) == 0);
		if (u[i].attrs & TPMA_SESSION_AUDIT) {
			if (!s->auditing || (u[i].attrs & TPMA_SESSION_AUDITRESET))
				memset(s->digest, 0, DSIZE);
			s->auditing = true;
			sess_sha256(s->digest, DSIZE, cp, DSIZE, rp, DSIZE, s->digest);
		}
	}
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return TPM_RC_SUCCESS;
}

/* ---- sessions and commands ---- */

/* An HMAC session bound to bind_key (authValue "bindpw"): its session key is not empty. */
static void start(struct sess *s)
{
	struct cmdbuf b;
	struct rd rsp;

	memset(s, 0, sizeof(*s));
	s->nonce_caller.size = DSIZE;
	CU_ASSERT_EQUAL(crypto_random(s->nonce_caller.b, DSIZE), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, bind_key);
	wr_tpm2b_digest(&b.params, &s->nonce_caller);
	wr_u16(&b.params, 0);
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &rsp, &s->handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, &s->nonce_tpm), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, (const uint8_t *)"bindpw", 6, "ATH",
				    s->nonce_tpm.b, s->nonce_tpm.size, s->nonce_caller.b,
				    s->nonce_caller.size, 8 * DSIZE, s->key),
			TPM_RC_SUCCESS);
}

static TPM_RC get_random(struct harness *hh, struct use *u, unsigned n, struct xchg *x)
{
	uint8_t buf[2];
	struct wr w;

	x_begin(x, TPM_CC_GetRandom);
	wr_init(&w, buf, sizeof(buf));
	wr_u16(&w, 16);
	x_params(x, &w);
	return run(hh, x, u, n);
}

static TPM_RC pcr_extend(struct use *u, unsigned n, struct xchg *x)
{
	uint8_t buf[64], d[DSIZE];
	struct wr w;

	memset(d, 0x5a, sizeof(d));
	x_begin(x, TPM_CC_PCR_Extend);
	x_handle(x, PCR_TEST, NULL);
	wr_init(&w, buf, sizeof(buf));
	wr_u32(&w, 1);
	wr_u16(&w, TPM_ALG_SHA256);
	wr_bytes(&w, d, DSIZE);
	x_params(x, &w);
	return run(&nvh, x, u, n);
}

/* what GetSessionAuditDigest answered */
struct audit_info {
	TPM_ALG_ID sig_alg;
	bool exclusive;
	struct tpm2b_digest digest;
	struct attest_data extra;
};

/* GetSessionAuditDigest(endorsement with password pw, signHandle with "", session); the
 * attestation parsed and, if signed, its ECDSA signature checked over it. */
static TPM_RC audit_digest(const char *pw, TPM_HANDLE sign, TPM_HANDLE session,
			   struct audit_info *out)
{
	static const char qualifying[] = "audit nonce";
	struct cmdbuf b;
	struct rd r, a;
	uint8_t raw[1024], d[DSIZE];
	uint16_t raw_len, type, hash;
	uint32_t magic;
	struct tpm2b_name signer_name;
	uint8_t clock_info[17], fw[8], excl;
	struct tpm2b_ecc_parameter sr, ss;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_GetSessionAuditDigest);
	cmd_handle(&b, TPM_RH_ENDORSEMENT);
	cmd_handle(&b, sign);
	cmd_handle(&b, session);
	cmd_auth_pw(&b, pw);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, qualifying, sizeof(qualifying) - 1);
	wr_u16(&b.params, TPM_ALG_NULL);
	rc = harness_run(&nvh, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	memset(out, 0, sizeof(*out));
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&r, raw, sizeof(raw), &raw_len), TPM_RC_SUCCESS);
	rd_init(&a, raw, raw_len);
	CU_ASSERT_EQUAL(rd_u32(&a, &magic), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(magic, ATTEST_MAGIC);
	CU_ASSERT_EQUAL(rd_u16(&a, &type), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(type, TPM_ST_ATTEST_SESSION_AUDIT);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&a, &signer_name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&a, out->extra.b, sizeof(out->extra.b), &out->extra.size),
			TPM_RC_SUCCESS);
	CU_ASSERT(out->extra.size == sizeof(qualifying) - 1 &&
		  memcmp(out->extra.b, qualifying, out->extra.size) == 0);
	CU_ASSERT_EQUAL(rd_bytes(&a, clock_info, sizeof(clock_info)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_bytes(&a, fw, sizeof(fw)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u8(&a, &excl), TPM_RC_SUCCESS);
	CU_ASSERT(excl <= 1);
	out->exclusive = excl;
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&a, &out->digest), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&a), 0);

	CU_ASSERT_EQUAL(rd_u16(&r, &out->sig_alg), TPM_RC_SUCCESS);
	if (out->sig_alg == TPM_ALG_NULL) {
		CU_ASSERT_EQUAL(sign, TPM_RH_NULL);
		CU_ASSERT_EQUAL(rd_left(&r), 0);
		return rc;
	}
	CU_ASSERT_EQUAL(sign, signer.handle);
	CU_ASSERT(signer_name.size > 4); /* the key's qualified name, not a handle */
	CU_ASSERT_EQUAL(out->sig_alg, TPM_ALG_ECDSA);
	CU_ASSERT_EQUAL(rd_u16(&r, &hash), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(hash, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, sr.b, sizeof(sr.b), &sr.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, ss.b, sizeof(ss.b), &ss.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	sess_sha256(raw, raw_len, "", 0, "", 0, d);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(TPM_ECC_NIST_P256, signer.pub.x.b, signer.pub.y.b, d,
					    DSIZE, sr.b, sr.size, ss.b, ss.size),
			TPM_RC_SUCCESS);
	raw[raw_len - 1] ^= 1; /* the signature covers the structure */
	sess_sha256(raw, raw_len, "", 0, "", 0, d);
	CU_ASSERT_NOT_EQUAL(crypto_ecdsa_verify(TPM_ECC_NIST_P256, signer.pub.x.b, signer.pub.y.b,
						d, DSIZE, sr.b, sr.size, ss.b, ss.size),
			    TPM_RC_SUCCESS);
	return rc;
}

static void check_digest(const struct sess *s, bool exclusive)
{
	struct audit_info ai;

	CU_ASSERT_EQUAL_FATAL(audit_digest("", signer.handle, s->handle, &ai), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ai.exclusive, exclusive);
	CU_ASSERT(ai.digest.size == DSIZE && memcmp(ai.digest.b, s->digest, DSIZE) == 0);
}

/* ---- tests ---- */

static void setup_keys(void)
{
	struct tpmt_public t;
	struct key k;

	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT);
	t.scheme.scheme = TPM_ALG_ECDSA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	key_primary(&nvh, &t, NULL, 0, &signer);
	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_NODA);
	t.scheme.scheme = TPM_ALG_ECDSA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	t.unique.size = 0;
	t.x.size = 1; /* another key than the signer */
	t.x.b[0] = 1;
	CU_ASSERT_EQUAL_FATAL(key_primary_in(&nvh, TPM_RH_OWNER, &t, "bindpw", NULL, 0, &k),
			      TPM_RC_SUCCESS);
	bind_key = k.handle;
	bind_name = k.name;
}

#define AUD (TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION)

static void test_chain(void)
{
	struct sess s;
	struct xchg x;
	struct use only[1] = { { &s, AUD, NULL } };
	struct use with_pw[2] = { { NULL, TPMA_SESSION_CONTINUESESSION, "" }, { &s, AUD, NULL } };
	struct use authorizes[1] = { { &s, AUD, "" } };

	start(&s);
	/* the first audit makes the session an audit session, and the exclusive one */
	CU_ASSERT_EQUAL(get_random(&nvh, only, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT(x.rattrs[0] & TPMA_SESSION_AUDITEXCLUSIVE);
	CU_ASSERT_EQUAL(x.rplen, 2 + 16);
	/* an audit-only session after a password authorization */
	CU_ASSERT_EQUAL(pcr_extend(with_pw, 2, &x), TPM_RC_SUCCESS);
	CU_ASSERT(x.rattrs[1] & TPMA_SESSION_AUDITEXCLUSIVE);
	/* the audit session authorizes the PCR too */
	CU_ASSERT_EQUAL(pcr_extend(authorizes, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_random(&nvh, only, 1, &x), TPM_RC_SUCCESS);
	/* GetSessionAuditDigest runs without the audit session: it reports the session as it
	 * was (exclusive), then ends the exclusivity */
	check_digest(&s, true);
	check_digest(&s, false);
	CU_ASSERT_EQUAL(sess_flush(&nvh, s.handle), TPM_RC_SUCCESS);
}

static void test_exclusive(void)
{
	struct sess s;
	struct xchg x;
	struct harness other = { .e = nvh.e };
	struct use aud[1] = { { &s, AUD, NULL } };
	struct use excl[1] = { { &s, AUD | TPMA_SESSION_AUDITEXCLUSIVE, NULL } };
	struct use reset[1] = { { &s, AUD | TPMA_SESSION_AUDITRESET | TPMA_SESSION_AUDITEXCLUSIVE,
				  NULL } };
	struct tpms_context ctx;
	struct cmdbuf b;

	other.c = pqtpm_client_new(nvh.e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other.c);
	start(&s);
	/* the first use may ask for exclusivity: it makes the session exclusive */
	CU_ASSERT_EQUAL(get_random(&nvh, excl, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT(x.rattrs[0] & TPMA_SESSION_AUDITEXCLUSIVE);
	CU_ASSERT_EQUAL(get_random(&nvh, excl, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT(x.rattrs[0] & TPMA_SESSION_AUDITEXCLUSIVE);
	/* another client's command, not audited by it, ends the exclusivity */
	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 8);
	CU_ASSERT_EQUAL(harness_run(&other, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_random(&nvh, excl, 1, &x), TPM_RC_EXCLUSIVE);
	/* without auditExclusive the command runs and is audited; the response says the session
	 * is not exclusive */
	CU_ASSERT_EQUAL(get_random(&nvh, aud, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT_FALSE(x.rattrs[0] & TPMA_SESSION_AUDITEXCLUSIVE);
	CU_ASSERT_EQUAL(get_random(&nvh, excl, 1, &x), TPM_RC_EXCLUSIVE);
	/* auditReset starts the digest over (from zeros) and makes it exclusive again */
	CU_ASSERT_EQUAL(get_random(&nvh, reset, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT(x.rattrs[0] & TPMA_SESSION_AUDITEXCLUSIVE);
	/* a failed command executes nothing: exclusivity stays */
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, PCR_TEST);
	cmd_auth_pw(&b, "wrong");
	wr_u32(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&other, &b, NULL, NULL), RC_S(TPM_RC_BAD_AUTH, 1));
	/* ContextSave and ContextLoad (no sessions) keep the digest and the exclusivity */
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, s.handle, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&nvh, &ctx, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_random(&nvh, excl, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT(x.rattrs[0] & TPMA_SESSION_AUDITEXCLUSIVE);
	check_digest(&s, true);
	/* a command of this client without sessions ends it too */
	CU_ASSERT_EQUAL(get_random(&nvh, reset, 1, &x), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 8);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_random(&nvh, excl, 1, &x), TPM_RC_EXCLUSIVE);
	/* flushed: the session is gone, so is its exclusivity */
	CU_ASSERT_EQUAL(get_random(&nvh, reset, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvh.e->exclusive_audit, s.handle);
	CU_ASSERT_EQUAL(sess_flush(&nvh, s.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvh.e->exclusive_audit, 0);
	pqtpm_client_free(other.c);
}

static void test_refusals(void)
{
	struct sess s, t;
	struct psess p;
	struct xchg x;
	struct audit_info ai;
	struct use pw_audit[1] = { { NULL, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_AUDIT, "" } };
	struct use two[2] = { { &s, AUD, "" }, { &t, AUD, NULL } };
	struct use reset_only[1] = { { &s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_AUDITRESET,
				       NULL } };
	struct use excl_only[1] = { { &s, TPMA_SESSION_CONTINUESESSION |
						  TPMA_SESSION_AUDITEXCLUSIVE,
				      NULL } };
	struct use idle[1] = { { &s, TPMA_SESSION_CONTINUESESSION, NULL } };
	struct use aud[1] = { { &s, AUD, NULL } };

	start(&s);
	start(&t);
	/* a password session cannot audit */
	CU_ASSERT_EQUAL(pcr_extend(pw_audit, 1, &x), RC_S(TPM_RC_ATTRIBUTES, 1));
	/* one audit session per command */
	CU_ASSERT_EQUAL(pcr_extend(two, 2, &x), RC_S(TPM_RC_ATTRIBUTES, 2));
	/* auditReset and auditExclusive only with audit; a session that authorizes nothing must
	 * audit or encrypt */
	CU_ASSERT_EQUAL(get_random(&nvh, reset_only, 1, &x), RC_S(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(get_random(&nvh, excl_only, 1, &x), RC_S(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(get_random(&nvh, idle, 1, &x), RC_S(TPM_RC_ATTRIBUTES, 1));
	/* GetSessionAuditDigest of a session that never audited */
	CU_ASSERT_EQUAL(audit_digest("", signer.handle, s.handle, &ai), RC_H(TPM_RC_TYPE, 3));
	CU_ASSERT_EQUAL(get_random(&nvh, aud, 1, &x), TPM_RC_SUCCESS);
	/* the privacy administrator's authorization is checked */
	CU_ASSERT_EQUAL(audit_digest("wrong", signer.handle, s.handle, &ai),
			RC_S(TPM_RC_BAD_AUTH, 1));
	/* TPM_RH_NULL signs nothing */
	CU_ASSERT_EQUAL(audit_digest("", TPM_RH_NULL, s.handle, &ai), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ai.sig_alg, TPM_ALG_NULL);
	CU_ASSERT(ai.digest.size == DSIZE && memcmp(ai.digest.b, s.digest, DSIZE) == 0);
	/* a policy session is no audit session */
	nvt_start_policy(&p);
	CU_ASSERT_EQUAL(audit_digest("", TPM_RH_NULL, p.handle, &ai), RC_H(TPM_RC_VALUE, 3));
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_GetRandom);
		wr_u32(&b.auth, p.handle);
		wr_tpm2b_digest(&b.auth, &p.nonce_tpm);
		wr_u8(&b.auth, AUD);
		wr_u16(&b.auth, 0);
		b.nauth = 1;
		wr_u16(&b.params, 8);
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_S(TPM_RC_ATTRIBUTES, 1));
	}
	CU_ASSERT_EQUAL(sess_flush(&nvh, p.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_flush(&nvh, t.handle), TPM_RC_SUCCESS);
	/* a flushed session */
	CU_ASSERT_EQUAL(sess_flush(&nvh, s.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(audit_digest("", TPM_RH_NULL, s.handle, &ai), TPM_RC_REFERENCE_H0 + 2);
}

/* Sign(bind_key) of a digest with the session s (authValue auth in the HMAC key) */
static TPM_RC sign_bound(struct sess *s, const char *auth)
{
	uint8_t buf[64], d[DSIZE] = { 7 };
	struct use u[1] = { { s, TPMA_SESSION_CONTINUESESSION, auth } };
	struct xchg x;
	struct wr w;

	x_begin(&x, TPM_CC_Sign);
	x_handle(&x, bind_key, &bind_name);
	wr_init(&w, buf, sizeof(buf));
	wr_tpm2b(&w, d, DSIZE);
	wr_u16(&w, TPM_ALG_NULL);
	wr_u16(&w, TPM_ST_HASHCHECK);
	wr_u32(&w, TPM_RH_NULL);
	wr_u16(&w, 0);
	x_params(&x, &w);
	return run(&nvh, &x, u, 1);
}

/* An audit session is not bound (Part 1; the reference's InitAuditSession): once it audited,
 * the entity it was bound to puts its authValue into the HMAC key like any other. */
static void test_unbound_by_audit(void)
{
	struct sess s;
	struct xchg x;
	struct use aud[1] = { { &s, AUD, NULL } };

	start(&s);
	CU_ASSERT_EQUAL(sign_bound(&s, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_random(&nvh, aud, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sign_bound(&s, NULL), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(sign_bound(&s, "bindpw"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_flush(&nvh, s.handle), TPM_RC_SUCCESS);
}

/* A saved audit session survives Shutdown(STATE) and a new engine on the state directory:
 * the digest goes on from where it was; the Shutdown ended the exclusivity. */
static void test_across_restart(void)
{
	char dir[256];
	struct sess s;
	struct xchg x;
	struct tpms_context ctx;
	struct use aud[1] = { { &s, AUD, NULL } };
	struct use excl[1] = { { &s, AUD | TPMA_SESSION_AUDITEXCLUSIVE, NULL } };

	harness_close(&nvh);
	nvt_new_dir(dir, sizeof(dir));
	harness_open_dir(&nvh, dir);
	setup_keys();
	start(&s);
	CU_ASSERT_EQUAL(get_random(&nvh, aud, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pcr_extend(aud, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, s.handle, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(nvt_su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	harness_close(&nvh);
	nvt_open_raw(&nvh, dir);
	CU_ASSERT_EQUAL_FATAL(nvt_su(TPM_CC_Startup, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&nvh, &ctx, NULL), TPM_RC_SUCCESS);
	setup_keys();
	check_digest(&s, false);
	CU_ASSERT_EQUAL(get_random(&nvh, excl, 1, &x), TPM_RC_EXCLUSIVE);
	CU_ASSERT_EQUAL(get_random(&nvh, aud, 1, &x), TPM_RC_SUCCESS);
	CU_ASSERT_FALSE(x.rattrs[0] & TPMA_SESSION_AUDITEXCLUSIVE);
	check_digest(&s, false);
	CU_ASSERT_EQUAL(sess_flush(&nvh, s.handle), TPM_RC_SUCCESS);
	harness_close(&nvh);
	harness_open(&nvh);
	setup_keys();
}

/* The saved-sessions section keeps the audit state; a section written before session audit
 * ("SESS", without it) still loads; an inconsistent audit state is refused. */
static void test_codec(void)
{
	size_t cap = 64 * 1024, len;
	uint8_t *buf = malloc(cap);
	struct persist ps, out;
	struct session_resume *r = calloc(1, sizeof(*r));
	struct session *s;
	const char *what = NULL;
	struct wr w;
	struct rd rd;
	uint8_t *tag;

	CU_ASSERT_FATAL(buf && r);
	memset(&ps, 0, sizeof(ps));
	ps.saved_state_valid = true;
	ps.resume = r;
	memset(r->null_proof, 2, sizeof(r->null_proof));
	r->count = 1;
	s = &r->sessions[0];
	s->handle = TPM_HR_HMAC_SESSION | 7;
	s->type = TPM_SE_HMAC;
	s->auth_hash = TPM_ALG_SHA256;
	s->sym.alg = TPM_ALG_NULL;
	s->is_audit = true;
	s->audit_digest.size = DSIZE;
	memset(s->audit_digest.b, 0xa5, DSIZE);
	wr_init(&w, buf, cap);
	CU_ASSERT_FATAL(state_encode(&ps, 1, &w) == TPM_RC_SUCCESS);
	len = w.off;
	rd_init(&rd, buf, len);
	CU_ASSERT_EQUAL_FATAL(state_decode(&rd, &out, STATE_VERSION, &what), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(out.resume && out.resume->count == 1);
	CU_ASSERT(out.resume->sessions[0].is_audit);
	CU_ASSERT(out.resume->sessions[0].audit_digest.size == DSIZE &&
		  memcmp(out.resume->sessions[0].audit_digest.b, s->audit_digest.b, DSIZE) == 0);
	state_free_persist(&out);

	/* audit without a digest of the session's hash */
	buf[len - DSIZE - 1] = 31;
	rd_init(&rd, buf, len - 1);
	CU_ASSERT_NOT_EQUAL(state_decode(&rd, &out, STATE_VERSION, &what), TPM_RC_SUCCESS);
	CU_ASSERT(what && strstr(what, "bad saved session") != NULL);

	/* as written before session audit: tag "SESS", no audit fields */
	s->is_audit = false;
	s->audit_digest.size = 0;
	wr_init(&w, buf, cap);
	CU_ASSERT_FATAL(state_encode(&ps, 1, &w) == TPM_RC_SUCCESS);
	len = w.off - 3; /* isAudit 0, empty auditDigest */
	tag = memmem(buf, len, "SESA", 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tag);
	tag[3] = 'S';
	rd_init(&rd, buf, len);
	CU_ASSERT_EQUAL_FATAL(state_decode(&rd, &out, STATE_VERSION, &what), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(out.resume && out.resume->count == 1);
	CU_ASSERT_FALSE(out.resume->sessions[0].is_audit);
	CU_ASSERT_EQUAL(out.resume->sessions[0].audit_digest.size, 0);
	CU_ASSERT_EQUAL(out.resume->sessions[0].handle, s->handle);
	state_free_persist(&out);
	/* the old tag with the new fields: bytes left over */
	rd_init(&rd, buf, len + 3);
	CU_ASSERT_NOT_EQUAL(state_decode(&rd, &out, STATE_VERSION, &what), TPM_RC_SUCCESS);
	state_free_persist(&ps);
	free(buf);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "keys", setup_keys },
		{ "audit digest over GetRandom and PCR_Extend", test_chain },
		{ "auditExclusive and auditReset", test_exclusive },
		{ "refusals", test_refusals },
		{ "an audit session is no longer bound", test_unbound_by_audit },
		{ "across Shutdown(STATE) and a new engine", test_across_restart },
		{ "the saved-sessions section with the audit state", test_codec },
	};
	int failed;

	if (nv_tmp_init() != 0)
		return 1;
	harness_open(&nvh);
	failed = UNIT_RUN("audit", tests, NULL, NULL);
	harness_close(&nvh);
	nv_tmp_clean();
	return failed;
}
