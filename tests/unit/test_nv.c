/* NV indices (core/nv, core/cmd/nv_*.c) and the lifecycle around them: every NV command, every
 * index type, the attribute rules of NV_DefineSpace with their exact codes, the access rules
 * (OWNER/PP/AUTH/POLICY read and write, PIN counting, locks), Startup and Shutdown effects
 * (STCLEAR flags, orderly counters, saved PCRs, resetCount/restartCount, Clock safe), Clear,
 * GetCapability, durability (rollback when the state cannot be saved, state reloaded in a new
 * engine) and two engines sharing one state directory. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "harness.h"
#include "nv/nv.h"
#include "pcr.h"
#include "state/store.h"

#define RC_P(rc, n) ((rc) | TPM_RC_P | ((n) << 8))
#define RC_H(rc, n) ((rc) | TPM_RC_H | ((n) << 8))
#define RC_S(rc, n) ((rc) | TPM_RC_S | ((n) << 8))
#define NT(t) ((uint32_t)(t) << TPMA_NV_TPM2_NT_SHIFT)
#define OWNER_RW (TPMA_NV_OWNERWRITE | TPMA_NV_OWNERREAD)
#define AUTH_RW (TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD)
#define DSIZE 32
#define IDX 0x01500000u

static struct harness h;
static char tmp_root[] = "/tmp/pqtpm-test-nv-XXXXXX";
static unsigned dir_seq;

/* ---- commands ---- */

static void put_public(struct wr *w, TPM_HANDLE idx, TPM_ALG_ID alg, uint32_t attrs,
		       const uint8_t *policy, uint16_t plen, uint16_t size)
{
	size_t mark;

	wr_size_begin(w, &mark);
	wr_u32(w, idx);
	wr_u16(w, alg);
	wr_u32(w, attrs);
	wr_tpm2b(w, policy, plen);
	wr_u16(w, size);
	wr_size_end(w, mark);
}

static TPM_RC define_full(TPM_HANDLE auth, TPM_HANDLE idx, TPM_ALG_ID alg, uint32_t attrs,
			  uint16_t size, const char *pw, const uint8_t *policy, uint16_t plen)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, auth);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pw, (uint16_t)strlen(pw));
	put_public(&b.params, idx, alg, attrs, policy, plen, size);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC define(TPM_HANDLE idx, uint32_t attrs, uint16_t size)
{
	return define_full(TPM_RH_OWNER, idx, TPM_ALG_SHA256, attrs, size, "pw", NULL, 0);
}

static TPM_RC undefine(TPM_HANDLE auth, TPM_HANDLE idx)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_UndefineSpace);
	cmd_handle(&b, auth);
	cmd_handle(&b, idx);
	cmd_auth_pw(&b, "");
	return harness_run(&h, &b, NULL, NULL);
}

/* A command with handles (auth, idx) and a password for auth. */
static void nv_begin(struct cmdbuf *b, TPM_CC cc, TPM_HANDLE auth, TPM_HANDLE idx,
		     const char *pw)
{
	cmd_begin(b, cc);
	cmd_handle(b, auth);
	cmd_handle(b, idx);
	cmd_auth_pw(b, pw);
}

static TPM_RC nvwrite(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, const void *data,
		      uint16_t len, uint16_t off)
{
	struct cmdbuf b;

	nv_begin(&b, TPM_CC_NV_Write, auth, idx, pw);
	wr_tpm2b(&b.params, data, len);
	wr_u16(&b.params, off);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC nvread(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, uint16_t size,
		     uint16_t off, uint8_t *out)
{
	struct cmdbuf b;
	struct rd r;
	uint16_t got;
	TPM_RC rc;

	nv_begin(&b, TPM_CC_NV_Read, auth, idx, pw);
	wr_u16(&b.params, size);
	wr_u16(&b.params, off);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_tpm2b(&r, out, NV_BUFFER_MAX, &got), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(got, size);
	}
	return rc;
}

static TPM_RC nvsimple(TPM_CC cc, TPM_HANDLE auth, TPM_HANDLE idx, const char *pw)
{
	struct cmdbuf b;

	nv_begin(&b, cc, auth, idx, pw);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC nvextend(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, const void *d,
		       uint16_t len)
{
	struct cmdbuf b;

	nv_begin(&b, TPM_CC_NV_Extend, auth, idx, pw);
	wr_tpm2b(&b.params, d, len);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC nvsetbits(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, uint64_t bits)
{
	struct cmdbuf b;

	nv_begin(&b, TPM_CC_NV_SetBits, auth, idx, pw);
	wr_u64(&b.params, bits);
	return harness_run(&h, &b, NULL, NULL);
}

static uint64_t read_u64(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw)
{
	uint8_t buf[NV_BUFFER_MAX];
	uint64_t v = 0;

	CU_ASSERT_EQUAL_FATAL(nvread(auth, idx, pw, 8, 0, buf), TPM_RC_SUCCESS);
	for (int i = 0; i < 8; i++)
		v = v << 8 | buf[i];
	return v;
}

static TPM_RC readpublic(TPM_HANDLE idx, uint32_t *attrs, struct tpm2b_name *name)
{
	struct cmdbuf b;
	struct rd r, sub;
	struct nv_public pub;
	struct tpm2b_name n;
	uint16_t size;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_NV_ReadPublic);
	cmd_handle(&b, idx);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL_FATAL(rd_sub(&r, &sub, &size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_nv_public(&sub, &pub), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&sub), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(pub.handle, idx);
	if (attrs)
		*attrs = pub.attributes;
	if (name)
		*name = n;
	return rc;
}

static uint32_t attrs_of(TPM_HANDLE idx)
{
	uint32_t a = 0;

	CU_ASSERT_EQUAL(readpublic(idx, &a, NULL), TPM_RC_SUCCESS);
	return a;
}

/* ---- lifecycle ---- */

static TPM_RC su(TPM_CC cc, uint16_t type)
{
	struct cmdbuf b;

	cmd_begin(&b, cc);
	wr_u16(&b.params, type);
	return harness_run(&h, &b, NULL, NULL);
}

#define LOSS 0xFFFF /* no Shutdown: a power loss */

/* Shutdown(down) (or LOSS), power cycle, Startup(up). */
static TPM_RC cycle(uint16_t down, uint16_t up)
{
	if (down != LOSS)
		CU_ASSERT_EQUAL(su(TPM_CC_Shutdown, down), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_POWER_OFF), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_POWER_ON), 0);
	return su(TPM_CC_Startup, up);
}

static void read_clock(uint64_t *clock, uint32_t *resets, uint32_t *restarts, uint8_t *safe)
{
	struct cmdbuf b;
	struct rd r;
	uint64_t t;

	cmd_begin(&b, TPM_CC_ReadClock);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u64(&r, &t);
	rd_u64(&r, clock);
	rd_u32(&r, resets);
	rd_u32(&r, restarts);
	rd_u8(&r, safe);
}

/* ---- state directories ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void new_dir(char *out, size_t cap)
{
	snprintf(out, cap, "%s/d%u", tmp_root, ++dir_seq);
	CU_ASSERT_FATAL(mkdir(out, 0700) == 0);
}

/* An engine on dir, powered on, without Startup (the test sends it). */
static void open_raw(struct harness *x, const char *dir)
{
	struct pqtpm_engine_config cfg = { .state_dir = dir, .log_level = PQTPM_LOG_ERROR };
	char err[512];

	memset(x, 0, sizeof(*x));
	CU_ASSERT_FATAL(pqtpm_engine_open(&x->e, &cfg, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(pqtpm_engine_signal(x->e, PQTPM_SIGNAL_POWER_ON) == 0);
	x->c = pqtpm_client_new(x->e);
	CU_ASSERT_FATAL(x->c != NULL);
}

/* Each test starts with a fresh in-memory TPM. */
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

/* ---- policy sessions (empty session key: the HMAC key is the empty string) ---- */

struct psess {
	TPM_HANDLE handle;
	struct tpm2b_digest nonce_tpm;
};

static void start_policy(struct psess *s)
{
	struct cmdbuf b;
	struct rd rsp;
	uint8_t nonce[DSIZE];

	memset(s, 0, sizeof(*s));
	crypto_random(nonce, sizeof(nonce));
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b(&b.params, nonce, sizeof(nonce));
	wr_u16(&b.params, 0);
	wr_u8(&b.params, TPM_SE_POLICY);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, &s->handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, &s->nonce_tpm), TPM_RC_SUCCESS);
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void policy_cc(struct psess *s, TPM_CC code)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyCommandCode);
	cmd_handle(&b, s->handle);
	wr_u32(&b.params, code);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

/* The digest PolicyCommandCode(code) gives: H(0^32 || TPM_CC_PolicyCommandCode || code). */
static void cc_policy(TPM_CC code, uint8_t out[DSIZE])
{
	uint8_t buf[DSIZE + 8] = { 0 };

	be32(buf + DSIZE, TPM_CC_PolicyCommandCode);
	be32(buf + DSIZE + 4, code);
	crypto_hash(TPM_ALG_SHA256, buf, sizeof(buf), out);
}

static void name_of_handle(TPM_HANDLE hd, struct tpm2b_name *n)
{
	if ((hd >> 24) == TPM_HT_NV_INDEX) {
		CU_ASSERT_EQUAL_FATAL(readpublic(hd, NULL, n), TPM_RC_SUCCESS);
		return;
	}
	n->size = 4;
	be32(n->b, hd);
}

/* Authorize the first handle of b with policy session s (and the second, if pw2, with a
 * password). b has its handles and parameters. */
static void auth_policy(struct cmdbuf *b, const struct psess *s, const char *pw2)
{
	uint8_t cp[DSIZE], mac[DSIZE], nonce[DSIZE], code[4], attrs = 0;
	struct crypto_hash_ctx hc;
	struct crypto_hmac_ctx mc;

	crypto_random(nonce, sizeof(nonce));
	be32(code, b->cc);
	crypto_hash_start(&hc, TPM_ALG_SHA256);
	crypto_hash_update(&hc, code, 4);
	for (unsigned i = 0; i < b->nhandles; i++) {
		struct tpm2b_name n;

		name_of_handle(b->handles[i], &n);
		crypto_hash_update(&hc, n.b, n.size);
	}
	crypto_hash_update(&hc, b->param_buf, b->params.off);
	crypto_hash_finish(&hc, cp);
	crypto_hmac_start(&mc, TPM_ALG_SHA256, (const uint8_t *)"", 0);
	crypto_hmac_update(&mc, cp, DSIZE);
	crypto_hmac_update(&mc, nonce, DSIZE);
	crypto_hmac_update(&mc, s->nonce_tpm.b, s->nonce_tpm.size);
	crypto_hmac_update(&mc, &attrs, 1);
	crypto_hmac_finish(&mc, mac);
	wr_u32(&b->auth, s->handle);
	wr_tpm2b(&b->auth, nonce, DSIZE);
	wr_u8(&b->auth, attrs);
	wr_tpm2b(&b->auth, mac, DSIZE);
	b->nauth = 1;
	if (pw2)
		cmd_auth_pw(b, pw2);
}

/* ================================ tests ================================ */

static void test_define_rules(void)
{
	uint8_t pol[DSIZE] = { 1 };
	char long_pw[34];
	struct cmdbuf b;
	unsigned i;

	CU_ASSERT_EQUAL(define(0x02000000, OWNER_RW, 8), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(define_full(TPM_RH_OWNER, IDX, TPM_ALG_NULL, OWNER_RW, 8, "", NULL, 0),
			RC_P(TPM_RC_HASH, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | 0x100, 8), RC_P(TPM_RC_RESERVED_BITS, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | (1u << 20), 8), RC_P(TPM_RC_RESERVED_BITS, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, NV_INDEX_MAX + 1), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(3), 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_COUNTER), 4), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_BITS), 9), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_EXTEND), 20), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_COUNTER) | TPMA_NV_CLEAR_STCLEAR, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_PIN_FAIL), 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_PIN_FAIL) | TPMA_NV_NO_DA |
					    TPMA_NV_AUTHWRITE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_PIN_PASS) | TPMA_NV_WRITEDEFINE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_PIN_PASS) | TPMA_NV_GLOBALLOCK, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_WRITTEN, 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_WRITELOCKED, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_READLOCKED, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, TPMA_NV_OWNERWRITE, 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, TPMA_NV_OWNERREAD, 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_CLEAR_STCLEAR | TPMA_NV_WRITEDEFINE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_PLATFORMCREATE, 8),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX, TPM_ALG_SHA256, OWNER_RW, 8, "", NULL,
				    0),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_POLICY_DELETE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_WRITEALL, NV_BUFFER_MAX + 1),
			RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA256, OWNER_RW, 8, "", pol, 20),
			RC_P(TPM_RC_SIZE, 2));
	memset(long_pw, 'a', 33);
	long_pw[33] = 0;
	CU_ASSERT_EQUAL(define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA256, OWNER_RW, 8, long_pw,
				    NULL, 0),
			RC_P(TPM_RC_SIZE, 1));
	/* trailing zeros do not count towards the authValue's size */
	CU_ASSERT_EQUAL(define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA1, OWNER_RW, 8,
				    "01234567890123456789", NULL, 0),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(undefine(TPM_RH_OWNER, IDX), TPM_RC_SUCCESS);

	/* TPM2B_NV_PUBLIC: empty, or longer than what it holds */
	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 2));
	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 4 + 2 + 4 + 2 + 2 + 1);
	wr_u32(&b.params, IDX);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, OWNER_RW);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 8);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 2));

	/* every type defined once; twice is NV_DEFINED */
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, 32), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, 32), TPM_RC_NV_DEFINED);
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 2, OWNER_RW | NT(TPM_NT_BITS), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 3, OWNER_RW | NT(TPM_NT_EXTEND), 32), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 4, OWNER_RW | NT(TPM_NT_PIN_PASS), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 5, OWNER_RW | NT(TPM_NT_PIN_FAIL) | TPMA_NV_NO_DA, 8),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX + 6, TPM_ALG_SHA384,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE |
					    TPMA_NV_POLICY_DELETE | NT(TPM_NT_EXTEND),
				    48, "", NULL, 0),
			TPM_RC_SUCCESS);
	for (i = 0; i <= 6; i++)
		CU_ASSERT_EQUAL(readpublic(IDX + i, NULL, NULL), TPM_RC_SUCCESS);
	/* the platform deletes anything but POLICY_DELETE; the owner only its own */
	CU_ASSERT_EQUAL(undefine(TPM_RH_OWNER, IDX + 6), RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(undefine(TPM_RH_PLATFORM, IDX + 5), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(undefine(TPM_RH_OWNER, IDX + 7), RC_H(TPM_RC_HANDLE, 2));
	CU_ASSERT_EQUAL(readpublic(IDX + 5, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
}

static void test_nv_space(void)
{
	unsigned n = 0;
	TPM_RC rc;

	/* the largest indices until the space is gone */
	while ((rc = define(IDX + n, OWNER_RW, NV_INDEX_MAX)) == TPM_RC_SUCCESS)
		n++;
	CU_ASSERT_EQUAL(rc, TPM_RC_NV_SPACE);
	CU_ASSERT_EQUAL(n, NV_SPACE / (NV_INDEX_MAX + NV_INDEX_OVERHEAD));
	while (n > 0)
		CU_ASSERT_EQUAL(undefine(TPM_RH_OWNER, IDX + --n), TPM_RC_SUCCESS);
	/* the table: NV_MAX_INDICES small ones */
	while ((rc = define(IDX + n, OWNER_RW, 1)) == TPM_RC_SUCCESS)
		n++;
	CU_ASSERT_EQUAL(rc, TPM_RC_NV_SPACE);
	CU_ASSERT_EQUAL(n, NV_MAX_INDICES);
}

static void test_ordinary(void)
{
	uint8_t buf[NV_BUFFER_MAX], data[NV_BUFFER_MAX];
	struct tpm2b_name before, after;
	uint32_t a;

	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | AUTH_RW, 2000), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(readpublic(IDX, &a, &before), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(a & TPMA_NV_WRITTEN, 0);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX, "", 4, 0, buf), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX, "", data, 1024, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(IDX, IDX, "pw", data, 976, 1024), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(readpublic(IDX, &a, &after), TPM_RC_SUCCESS);
	CU_ASSERT(a & TPMA_NV_WRITTEN);
	CU_ASSERT(before.size == after.size && memcmp(before.b, after.b, before.size) != 0);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX, "", 1024, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, data, 1024) == 0);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 976, 1024, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, data, 976) == 0);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 0, 2000, buf), TPM_RC_SUCCESS);
	/* ranges */
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 1025, 0, buf), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 1, 2001, buf), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 2, 1999, buf), TPM_RC_NV_RANGE);
	CU_ASSERT_EQUAL(nvwrite(IDX, IDX, "pw", data, 2, 1999), TPM_RC_NV_RANGE);
	CU_ASSERT_EQUAL(nvwrite(IDX, IDX, "pw", data, 0, 2001), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(nvwrite(IDX, IDX, "pw", data, 1, 2000), TPM_RC_NV_RANGE);
	/* a write larger than TPM2B_MAX_NV_BUFFER is refused by its size */
	{
		struct cmdbuf b;

		nv_begin(&b, TPM_CC_NV_Write, IDX, IDX, "pw");
		wr_u16(&b.params, NV_BUFFER_MAX + 1);
		wr_bytes(&b.params, data, NV_BUFFER_MAX);
		wr_u8(&b.params, 0);
		wr_u16(&b.params, 0);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	}
	/* a wrong password, an unknown index, a wrong handle kind */
	CU_ASSERT_NOT_EQUAL(nvwrite(IDX, IDX, "wrong", data, 1, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 9, "", data, 1, 0), RC_H(TPM_RC_HANDLE, 2));
	CU_ASSERT_EQUAL(nvwrite(IDX + 9, IDX, "", data, 1, 0), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_ENDORSEMENT, IDX, "", data, 1, 0), RC_H(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, 0x81000000, "", data, 1, 0),
			RC_H(TPM_RC_VALUE, 2));
	/* the authorization handle must be the index, or a hierarchy the index allows */
	CU_ASSERT_EQUAL(define(IDX + 1, AUTH_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 1, "", data, 8, 0), TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_PLATFORM, IDX + 1, "", data, 8, 0),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvwrite(IDX, IDX + 1, "pw", data, 8, 0), TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvwrite(IDX + 1, IDX + 1, "pw", data, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 1, "", 8, 0, buf), TPM_RC_NV_AUTHORIZATION);
	/* AUTHWRITE/AUTHREAD clear: the index's authValue cannot be used */
	CU_ASSERT_EQUAL(define(IDX + 2, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(IDX + 2, IDX + 2, "pw", data, 8, 0), TPM_RC_AUTH_UNAVAILABLE);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 2, "", data, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(IDX + 2, IDX + 2, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	/* WRITEALL: only the whole index at once */
	CU_ASSERT_EQUAL(define(IDX + 3, OWNER_RW | TPMA_NV_WRITEALL, 16), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 3, "", data, 8, 0), TPM_RC_NV_RANGE);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 3, "", data, 16, 0), TPM_RC_SUCCESS);
	/* platform authorization: PPWRITE/PPREAD */
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_PLATFORM, IDX + 3, "", data, 16, 0),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX + 4, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_PLATFORM, IDX + 4, "", data, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(TPM_RH_PLATFORM, IDX + 4, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 4, "", 8, 0, buf), TPM_RC_NV_AUTHORIZATION);
	/* counters and friends are not written with NV_Write */
	CU_ASSERT_EQUAL(define(IDX + 5, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 5, "", data, 8, 0), TPM_RC_ATTRIBUTES);
}

static void test_counter(void)
{
	uint8_t buf[8];

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""),
			RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW | AUTH_RW | NT(TPM_NT_COUNTER), 8),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 1, "", 8, 0, buf), TPM_RC_NV_UNINITIALIZED);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, IDX + 1, IDX + 1, "pw"),
				TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 1, ""), 5);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 1, "", 4, 4, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(buf[3], 5);
	/* a counter defined after one went starts above its last value */
	CU_ASSERT_EQUAL(undefine(TPM_RH_OWNER, IDX + 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 2, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 2, ""),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 2, ""), 6);
}

/* An orderly counter counts in RAM: exact after an orderly shutdown, ahead to the top of its
 * window after a power loss, and never back. */
static void test_orderly_counter(void)
{
	uint64_t v;

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_COUNTER) | TPMA_NV_ORDERLY, 8),
			TPM_RC_SUCCESS);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""),
				TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), 3);
	CU_ASSERT_EQUAL(cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), 3);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(cycle(LOSS, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	v = read_u64(TPM_RH_OWNER, IDX, "");
	CU_ASSERT_EQUAL(v, NV_ORDERLY_COUNT);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), NV_ORDERLY_COUNT + 1);
	/* the rollover was stored: another power loss keeps it and moves to the next top */
	CU_ASSERT_EQUAL(cycle(LOSS, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), 2 * NV_ORDERLY_COUNT + 1);
}

static void test_bits(void)
{
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_BITS), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsetbits(TPM_RH_OWNER, IDX + 1, "", 1), RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvsetbits(TPM_RH_OWNER, IDX, "", 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), 0);
	CU_ASSERT_EQUAL(nvsetbits(TPM_RH_OWNER, IDX, "", 0x11), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsetbits(TPM_RH_OWNER, IDX, "", 0x8000000000000100ull), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), 0x8000000000000111ull);
}

static void test_extend(void)
{
	uint8_t buf[64], want[64] = { 0 }, in[DSIZE + 5];

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_EXTEND), DSIZE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvextend(TPM_RH_OWNER, IDX + 1, "", "x", 1), RC_H(TPM_RC_ATTRIBUTES, 2));
	for (int round = 0; round < 2; round++) {
		CU_ASSERT_EQUAL(nvextend(TPM_RH_OWNER, IDX, "", "hello", 5), TPM_RC_SUCCESS);
		memcpy(in, want, DSIZE);
		memcpy(in + DSIZE, "hello", 5);
		crypto_hash(TPM_ALG_SHA256, in, sizeof(in), want);
		CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX, "", DSIZE, 0, buf), TPM_RC_SUCCESS);
		CU_ASSERT(memcmp(buf, want, DSIZE) == 0);
	}
}

static void test_locks(void)
{
	uint8_t d[8] = { 1 }, buf[8];

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX, ""),
			RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_ReadLock, TPM_RH_OWNER, IDX, ""),
			RC_H(TPM_RC_ATTRIBUTES, 2));
	/* WRITE_STCLEAR: until the next Startup(CLEAR); WRITEDEFINE: for good */
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW | TPMA_NV_WRITE_STCLEAR, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 2, OWNER_RW | TPMA_NV_WRITEDEFINE, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 3, OWNER_RW | TPMA_NV_READ_STCLEAR, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 4, OWNER_RW | TPMA_NV_GLOBALLOCK, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 3, "", d, 8, 0), TPM_RC_SUCCESS);
	/* the owner may lock only with OWNERWRITE/OWNERREAD */
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_WriteLock, TPM_RH_PLATFORM, IDX + 1, ""),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX + 2, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_ReadLock, TPM_RH_OWNER, IDX + 3, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_ReadLock, TPM_RH_OWNER, IDX + 3, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 1, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 2, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 3, "", 8, 0, buf), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 3, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT(attrs_of(IDX + 1) & TPMA_NV_WRITELOCKED);
	CU_ASSERT(attrs_of(IDX + 3) & TPMA_NV_READLOCKED);
	/* GlobalWriteLock: GLOBALLOCK indices only */
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_NV_GlobalWriteLock);
		cmd_handle(&b, TPM_RH_OWNER);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 4, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX, "", d, 8, 0), TPM_RC_SUCCESS);
	/* TPM Resume keeps every lock */
	CU_ASSERT_EQUAL(cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 1, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 3, "", 8, 0, buf), TPM_RC_NV_LOCKED);
	/* TPM Restart clears the STCLEAR ones and the global lock, not WRITEDEFINE's */
	CU_ASSERT_EQUAL(cycle(TPM_SU_STATE, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 1, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 2, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 3, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 4, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 2, "", d, 8, 0), TPM_RC_NV_LOCKED);
}

/* CLEAR_STCLEAR and orderly non-counter indices lose WRITTEN at TPM Reset and Restart. */
static void test_stclear_written(void)
{
	uint8_t d[8] = { 7 }, buf[8];

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_CLEAR_STCLEAR, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW | TPMA_NV_ORDERLY, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 2, OWNER_RW, 8), TPM_RC_SUCCESS);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + i, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + i, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX, "", 8, 0, buf), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 1, "", 8, 0, buf), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 2, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(buf[0], 7);
}

static void put_pin(TPM_HANDLE idx, uint32_t count, uint32_t limit)
{
	uint8_t p[8];

	be32(p, count);
	be32(p + 4, limit);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, idx, "", p, 8, 0), TPM_RC_SUCCESS);
}

static void test_pin(void)
{
	uint8_t buf[8];

	/* PIN Pass: each use of the authValue counts, up to pinLimit */
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | TPMA_NV_AUTHREAD | NT(TPM_NT_PIN_PASS), 8),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	put_pin(IDX, 0, 2);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), (2ull << 32) | 2);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	/* PIN Fail: failures count, a success starts over, at the limit the value is locked */
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW | TPMA_NV_AUTHREAD | TPMA_NV_NO_DA |
					       NT(TPM_NT_PIN_FAIL),
			       8),
			TPM_RC_SUCCESS);
	put_pin(IDX + 1, 0, 2);
	CU_ASSERT_NOT_EQUAL(nvread(IDX + 1, IDX + 1, "bad", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 1, ""), (1ull << 32) | 2);
	CU_ASSERT_EQUAL(nvread(IDX + 1, IDX + 1, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 1, ""), 2);
	CU_ASSERT_NOT_EQUAL(nvread(IDX + 1, IDX + 1, "bad", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(nvread(IDX + 1, IDX + 1, "bad", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(IDX + 1, IDX + 1, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 1, ""), (2ull << 32) | 2);
}

/* An index of a disabled hierarchy is not there. */
static void test_hierarchy_visibility(void)
{
	struct cmdbuf b;

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX + 1, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_PLATFORM_NV);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(readpublic(IDX + 1, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(readpublic(IDX, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX + 2, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			RC_H(TPM_RC_HIERARCHY, 1));
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_OWNER);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(readpublic(IDX, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
}

/* Policies: POLICYWRITE, NV_ChangeAuth and NV_UndefineSpaceSpecial (ADMIN: policy only). */
static void test_policy_commands(void)
{
	uint8_t pol_write[DSIZE], pol_change[DSIZE], pol_del[DSIZE], d[8] = { 9 }, buf[8];
	struct psess s;
	struct cmdbuf b;

	cc_policy(TPM_CC_NV_Write, pol_write);
	cc_policy(TPM_CC_NV_ChangeAuth, pol_change);
	cc_policy(TPM_CC_NV_UndefineSpaceSpecial, pol_del);

	CU_ASSERT_EQUAL(define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA256,
				    TPMA_NV_POLICYWRITE | TPMA_NV_AUTHREAD, 8, "pw", pol_write,
				    DSIZE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(IDX, IDX, "pw", d, 8, 0), TPM_RC_AUTH_UNAVAILABLE);
	start_policy(&s);
	policy_cc(&s, TPM_CC_NV_Write);
	nv_begin(&b, TPM_CC_NV_Write, IDX, IDX, "");
	b.auth.off = 0;
	b.nauth = 0;
	wr_tpm2b(&b.params, d, 8);
	wr_u16(&b.params, 0);
	auth_policy(&b, &s, NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(buf[0], 9);

	/* NV_ChangeAuth: a password is not enough */
	CU_ASSERT_EQUAL(define_full(TPM_RH_OWNER, IDX + 1, TPM_ALG_SHA256,
				    AUTH_RW, 8, "old", pol_change, DSIZE),
			TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_NV_ChangeAuth);
	cmd_handle(&b, IDX + 1);
	cmd_auth_pw(&b, "old");
	wr_tpm2b(&b.params, "new", 3);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_AUTH_UNAVAILABLE);
	start_policy(&s);
	policy_cc(&s, TPM_CC_NV_ChangeAuth);
	cmd_begin(&b, TPM_CC_NV_ChangeAuth);
	cmd_handle(&b, IDX + 1);
	wr_tpm2b(&b.params, "new", 3);
	auth_policy(&b, &s, NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(IDX + 1, IDX + 1, "new", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(nvwrite(IDX + 1, IDX + 1, "old", d, 8, 0), TPM_RC_SUCCESS);

	/* NV_UndefineSpaceSpecial: only POLICY_DELETE indices, with their policy and platform */
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX + 2, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE |
					    TPMA_NV_POLICY_DELETE,
				    8, "", pol_del, DSIZE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(undefine(TPM_RH_PLATFORM, IDX + 2), RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX + 3, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", pol_del, DSIZE),
			TPM_RC_SUCCESS);
	start_policy(&s);
	policy_cc(&s, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_begin(&b, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_handle(&b, IDX + 3);
	cmd_handle(&b, TPM_RH_PLATFORM);
	auth_policy(&b, &s, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_ATTRIBUTES, 1));
	start_policy(&s);
	policy_cc(&s, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_begin(&b, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_handle(&b, IDX + 2);
	cmd_handle(&b, TPM_RH_PLATFORM);
	auth_policy(&b, &s, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(readpublic(IDX + 2, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
}

/* PolicyNV: the assertion holds or not on the index data; the digest as Part 3 defines it. */
static TPM_RC policy_nv(struct psess *s, TPM_HANDLE auth, TPM_HANDLE idx, const uint8_t *op_b,
			uint16_t len, uint16_t offset, uint16_t op)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyNV);
	cmd_handle(&b, auth);
	cmd_handle(&b, idx);
	cmd_handle(&b, s->handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, op_b, len);
	wr_u16(&b.params, offset);
	wr_u16(&b.params, op);
	return harness_run(&h, &b, NULL, NULL);
}

static void test_policy_nv(void)
{
	uint8_t five[8] = { 0, 0, 0, 0, 0, 0, 0, 5 }, six[8] = { 0, 0, 0, 0, 0, 0, 0, 6 };
	uint8_t args[12], arg_hash[DSIZE], buf[DSIZE + 4 + DSIZE + 2 + DSIZE] = { 0 };
	uint8_t want[DSIZE];
	struct tpm2b_name name;
	struct tpm2b_digest got;
	struct psess s;
	struct cmdbuf b;
	struct rd r;

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 1, AUTH_RW, 8), TPM_RC_SUCCESS);
	start_policy(&s);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 0, 7 /* UNSIGNED_GE */),
			TPM_RC_NV_UNINITIALIZED);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, six, 8, 0, 7), TPM_RC_POLICY);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 1, 7), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 0, 12), RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX + 1, five, 8, 0, 7),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 0, 7), TPM_RC_SUCCESS);
	/* H(0 || PolicyNV || H(operandB || offset || operation) || name) */
	memcpy(args, five, 8);
	args[8] = 0;
	args[9] = 0;
	args[10] = 0;
	args[11] = 7;
	crypto_hash(TPM_ALG_SHA256, args, sizeof(args), arg_hash);
	CU_ASSERT_EQUAL(readpublic(IDX, NULL, &name), TPM_RC_SUCCESS);
	be32(buf + DSIZE, TPM_CC_PolicyNV);
	memcpy(buf + DSIZE + 4, arg_hash, DSIZE);
	memcpy(buf + 2 * DSIZE + 4, name.b, name.size);
	crypto_hash(TPM_ALG_SHA256, buf, 2 * DSIZE + 4 + name.size, want);
	cmd_begin(&b, TPM_CC_PolicyGetDigest);
	cmd_handle(&b, s.handle);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &got), TPM_RC_SUCCESS);
	CU_ASSERT(got.size == DSIZE && memcmp(got.b, want, DSIZE) == 0);
}

static void test_clear(void)
{
	struct cmdbuf b;

	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define_full(TPM_RH_PLATFORM, IDX + 1, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(readpublic(IDX, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(readpublic(IDX + 1, NULL, NULL), TPM_RC_SUCCESS);
}

static void get_property(uint32_t pt, uint32_t *v)
{
	struct cmdbuf b;
	struct rd r;
	uint32_t cap, count, prop;
	uint8_t more;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_TPM_PROPERTIES);
	wr_u32(&b.params, pt);
	wr_u32(&b.params, 1);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u8(&r, &more);
	rd_u32(&r, &cap);
	rd_u32(&r, &count);
	rd_u32(&r, &prop);
	rd_u32(&r, v);
	CU_ASSERT_EQUAL(prop, pt);
}

static void test_capability(void)
{
	struct cmdbuf b;
	struct rd r;
	uint32_t v, cap, count, hd[4];
	uint8_t more;

	CU_ASSERT_EQUAL(define(IDX + 2, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(0x01C00002, OWNER_RW, 8), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_HANDLES);
	wr_u32(&b.params, TPM_HR_NV_INDEX);
	wr_u32(&b.params, 2);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u8(&r, &more);
	rd_u32(&r, &cap);
	rd_u32(&r, &count);
	CU_ASSERT_EQUAL(more, 1);
	CU_ASSERT_EQUAL_FATAL(count, 2);
	rd_u32(&r, &hd[0]);
	rd_u32(&r, &hd[1]);
	CU_ASSERT_EQUAL(hd[0], IDX);
	CU_ASSERT_EQUAL(hd[1], IDX + 2);
	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_HANDLES);
	wr_u32(&b.params, IDX + 3);
	wr_u32(&b.params, 10);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u8(&r, &more);
	rd_u32(&r, &cap);
	rd_u32(&r, &count);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL_FATAL(count, 1);
	rd_u32(&r, &hd[0]);
	CU_ASSERT_EQUAL(hd[0], 0x01C00002);

	get_property(TPM_PT_HR_NV_INDEX, &v);
	CU_ASSERT_EQUAL(v, 3);
	get_property(TPM_PT_NV_COUNTERS, &v);
	CU_ASSERT_EQUAL(v, 1);
	get_property(TPM_PT_NV_COUNTERS_AVAIL, &v);
	CU_ASSERT(v > 0 && v <= NV_MAX_INDICES - 3);
	get_property(TPM_PT_NV_INDEX_MAX, &v);
	CU_ASSERT_EQUAL(v, NV_INDEX_MAX);
	get_property(TPM_PT_NV_BUFFER_MAX, &v);
	CU_ASSERT_EQUAL(v, NV_BUFFER_MAX);
}

/* resetCount, restartCount, Clock safe through the ways a TPM comes up. */
static void test_lifecycle_counts(void)
{
	uint64_t clock, clock2;
	uint32_t resets, restarts, r2, s2;
	uint8_t safe;
	struct cmdbuf b;

	read_clock(&clock, &resets, &restarts, &safe);
	CU_ASSERT_EQUAL(safe, 1);
	CU_ASSERT_EQUAL(cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS); /* Resume */
	read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets);
	CU_ASSERT_EQUAL(s2, restarts + 1);
	CU_ASSERT(clock2 >= clock);
	CU_ASSERT_EQUAL(cycle(TPM_SU_STATE, TPM_SU_CLEAR), TPM_RC_SUCCESS); /* Restart */
	read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets);
	CU_ASSERT_EQUAL(s2, restarts + 2);
	CU_ASSERT_EQUAL(cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS); /* Reset */
	read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets + 1);
	CU_ASSERT_EQUAL(s2, 0);
	CU_ASSERT_EQUAL(safe, 1);
	/* Startup(STATE) needs Shutdown(STATE) */
	CU_ASSERT_EQUAL(cycle(TPM_SU_CLEAR, TPM_SU_STATE), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(su(TPM_CC_Startup, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	/* a power loss: a TPM Reset, and Clock is not safe */
	CU_ASSERT_EQUAL(cycle(LOSS, TPM_SU_STATE), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(su(TPM_CC_Startup, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT_EQUAL(r2, resets + 3);
	CU_ASSERT_EQUAL(safe, 0);
	/* ClockSet moves Clock forward only, and makes it safe */
	cmd_begin(&b, TPM_CC_ClockSet);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u64(&b.params, 0xFFFF000000000001ull);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 1));
	cmd_begin(&b, TPM_CC_ClockSet);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u64(&b.params, 1000000000ull);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT(clock2 >= 1000000000ull && clock2 < 1000000000ull + 60000);
	CU_ASSERT_EQUAL(safe, 1);
	cmd_begin(&b, TPM_CC_ClockSet);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u64(&b.params, 999999999ull);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 1));
	cmd_begin(&b, TPM_CC_ClockRateAdjust);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, 4);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 1));
	cmd_begin(&b, TPM_CC_ClockRateAdjust);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, (uint8_t)-3);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	/* Clear: Clock and the counts start over */
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	read_clock(&clock2, &r2, &s2, &safe);
	CU_ASSERT(clock2 < 60000);
	CU_ASSERT_EQUAL(r2, 0);
	CU_ASSERT_EQUAL(s2, 0);
}

static void test_primary_policy_and_seeds(void)
{
	uint8_t pol[DSIZE] = { 3 };
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_SetPrimaryPolicy);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pol, 20);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	cmd_begin(&b, TPM_CC_SetPrimaryPolicy);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pol, DSIZE);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(h.e->ps.hier[HIER_OWNER].policy_alg, TPM_ALG_SHA256);
	CU_ASSERT(memcmp(h.e->ps.hier[HIER_OWNER].policy.b, pol, DSIZE) == 0);
	cmd_begin(&b, TPM_CC_SetPrimaryPolicy);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pol, 0);
	wr_u16(&b.params, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(h.e->ps.hier[HIER_OWNER].policy.size, 0);

	{
		uint8_t eps[PRIMARY_SEED_SIZE], pps[PRIMARY_SEED_SIZE];

		memcpy(eps, h.e->ps.hier[HIER_ENDORSEMENT].seed, sizeof(eps));
		memcpy(pps, h.e->ps.hier[HIER_PLATFORM].seed, sizeof(pps));
		cmd_begin(&b, TPM_CC_ChangeEPS);
		cmd_handle(&b, TPM_RH_PLATFORM);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
		cmd_begin(&b, TPM_CC_ChangePPS);
		cmd_handle(&b, TPM_RH_PLATFORM);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
		CU_ASSERT(memcmp(eps, h.e->ps.hier[HIER_ENDORSEMENT].seed, sizeof(eps)) != 0);
		CU_ASSERT(memcmp(pps, h.e->ps.hier[HIER_PLATFORM].seed, sizeof(pps)) != 0);
		cmd_begin(&b, TPM_CC_ChangeEPS);
		cmd_handle(&b, TPM_RH_OWNER);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_VALUE, 1));
	}
}

/* ---- on a state directory ---- */

/* Everything survives a new engine; a Resume in a new process finds PCRs 0-15. */
static void test_persistence(void)
{
	char dir[256];
	uint8_t d[16] = "persisted value", buf[16];
	uint8_t pcr_before[DSIZE];
	struct cmdbuf b;

	harness_close(&h);
	new_dir(dir, sizeof(dir));
	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW | AUTH_RW, 16), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(IDX, IDX, "pw", d, 16, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 5);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, d, 16);
	wr_bytes(&b.params, d, 16);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	memcpy(pcr_before, pcr_value(h.e, TPM_ALG_SHA256, 5), DSIZE);
	CU_ASSERT_EQUAL(su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	harness_close(&h);

	open_raw(&h, dir);
	CU_ASSERT_EQUAL(su(TPM_CC_Startup, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(pcr_value(h.e, TPM_ALG_SHA256, 5), pcr_before, DSIZE) == 0);
	CU_ASSERT_EQUAL(nvread(IDX, IDX, "pw", 16, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d, 16) == 0);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 1, ""), 1);
	harness_close(&h);
	harness_open(&h);
}

/* A save that fails (the temp file is /dev/full) fails the command and leaves memory as the
 * disk has it. */
static void test_failed_save_rolls_back(void)
{
	char dir[256], tmp[512];
	uint8_t d1[8] = "first", d2[8] = "second", buf[8];

	harness_close(&h);
	new_dir(dir, sizeof(dir));
	harness_open_dir(&h, dir);
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, STATE_TMP_FILE);
	CU_ASSERT_EQUAL(define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(define(IDX + 1, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX, "", d1, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);

	/* a failed save removes the temp file: the disk is made full again each time */
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX, "", d2, 8, 0), TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 1, ""),
			TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(define(IDX + 2, OWNER_RW, 8), TPM_RC_NV_SPACE);
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(undefine(TPM_RH_OWNER, IDX), TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d1, 8) == 0);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 1, ""), 1);
	CU_ASSERT_EQUAL(readpublic(IDX + 2, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_FATAL(unlink(tmp) != 0); /* gone with the failed save */

	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX, "", d2, 8, 0), TPM_RC_SUCCESS);
	harness_close(&h);
	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d2, 8) == 0);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX + 1, ""), 1);
	harness_close(&h);
	harness_open(&h);
}

/* Two engines on one directory (as two processes: each has its own lock descriptor): each
 * sees what the other did before it acts; indices defined alternately are all there. */
static void test_two_engines_one_dir(void)
{
	char dir[256];
	struct harness a, b2;
	uint8_t buf[8], d[8] = "shared";
	unsigned i;

	new_dir(dir, sizeof(dir));
	harness_close(&h);
	harness_open_dir(&a, dir);
	harness_open_dir(&b2, dir);
	for (i = 0; i < 20; i++) {
		h = i % 2 ? b2 : a;
		CU_ASSERT_EQUAL(define(IDX + i, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(nvsimple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""),
				TPM_RC_SUCCESS);
	}
	h = a;
	CU_ASSERT_EQUAL(define(IDX + 100, OWNER_RW, 8), TPM_RC_SUCCESS);
	h = b2;
	CU_ASSERT_EQUAL(define(IDX + 100, OWNER_RW, 8), TPM_RC_NV_DEFINED);
	CU_ASSERT_EQUAL(nvwrite(TPM_RH_OWNER, IDX + 100, "", d, 8, 0), TPM_RC_SUCCESS);
	h = a;
	CU_ASSERT_EQUAL(nvread(TPM_RH_OWNER, IDX + 100, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, d, 8) == 0);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), 20);
	for (i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(readpublic(IDX + i, NULL, NULL), TPM_RC_SUCCESS);
	harness_close(&b2);
	harness_close(&a);
	/* and a third engine finds all of it on disk */
	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL(read_u64(TPM_RH_OWNER, IDX, ""), 20);
	harness_close(&h);
	harness_open(&h);
}

static int suite_init(void)
{
	return mkdtemp(tmp_root) ? setup() : -1;
}

static int suite_clean(void)
{
	teardown();
	return nftw(tmp_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Each test on a fresh in-memory TPM. */
static void fresh(void)
{
	harness_close(&h);
	harness_open(&h);
}

#define ADD(s, name, fn)                                                                   \
	do {                                                                               \
		CU_add_test(s, name, fn);                                                  \
		CU_add_test(s, "(fresh TPM)", fresh);                                      \
	} while (0)

int main(void)
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("nv", suite_init, suite_clean);
	ADD(s, "NV_DefineSpace rules and codes", test_define_rules);
	ADD(s, "NV space and index table limits", test_nv_space);
	ADD(s, "ordinary index: write, read, ranges, authorization", test_ordinary);
	ADD(s, "counter index", test_counter);
	ADD(s, "orderly counter across shutdowns and power loss", test_orderly_counter);
	ADD(s, "bit field index", test_bits);
	ADD(s, "extend index", test_extend);
	ADD(s, "write, read and global locks through the lifecycle", test_locks);
	ADD(s, "CLEAR_STCLEAR and orderly indices lose WRITTEN", test_stclear_written);
	ADD(s, "PIN Pass and PIN Fail", test_pin);
	ADD(s, "indices of disabled hierarchies", test_hierarchy_visibility);
	ADD(s, "policies: POLICYWRITE, ChangeAuth, UndefineSpaceSpecial", test_policy_commands);
	ADD(s, "PolicyNV", test_policy_nv);
	ADD(s, "Clear deletes owner indices", test_clear);
	ADD(s, "GetCapability: handles and NV properties", test_capability);
	ADD(s, "resetCount, restartCount, Clock, ClockSet, Clear", test_lifecycle_counts);
	ADD(s, "SetPrimaryPolicy, ChangeEPS, ChangePPS", test_primary_policy_and_seeds);
	ADD(s, "state survives a new engine, Resume finds PCRs", test_persistence);
	ADD(s, "a failed save fails the command and rolls back", test_failed_save_rolls_back);
	ADD(s, "two engines on one state directory", test_two_engines_one_dir);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
