/* Helpers of the NV and lifecycle tests (test_nv.c, test_lifecycle.c): NV commands, Startup
 * and Shutdown, power cycles, ReadClock, policy sessions with an empty session key, state
 * directories. Every helper runs its command on nvh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "nv/nv.h"
#include "nv_util.h"
#include "sessions.h"

struct harness nvh;
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

TPM_RC nvt_define_full(TPM_HANDLE auth, TPM_HANDLE idx, TPM_ALG_ID alg, uint32_t attrs,
		       uint16_t size, const char *pw, const uint8_t *policy, uint16_t plen)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, auth);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pw, (uint16_t)strlen(pw));
	put_public(&b.params, idx, alg, attrs, policy, plen, size);
	return harness_run(&nvh, &b, NULL, NULL);
}

TPM_RC nvt_define(TPM_HANDLE idx, uint32_t attrs, uint16_t size)
{
	return nvt_define_full(TPM_RH_OWNER, idx, TPM_ALG_SHA256, attrs, size, "pw", NULL, 0);
}

TPM_RC nvt_undefine(TPM_HANDLE auth, TPM_HANDLE idx)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_UndefineSpace);
	cmd_handle(&b, auth);
	cmd_handle(&b, idx);
	cmd_auth_pw(&b, "");
	return harness_run(&nvh, &b, NULL, NULL);
}

/* A command with handles (auth, idx) and a password for auth. */
void nvt_begin(struct cmdbuf *b, TPM_CC cc, TPM_HANDLE auth, TPM_HANDLE idx,
	       const char *pw)
{
	cmd_begin(b, cc);
	cmd_handle(b, auth);
	cmd_handle(b, idx);
	cmd_auth_pw(b, pw);
}

TPM_RC nvt_write(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, const void *data,
		 uint16_t len, uint16_t off)
{
	struct cmdbuf b;

	nvt_begin(&b, TPM_CC_NV_Write, auth, idx, pw);
	wr_tpm2b(&b.params, data, len);
	wr_u16(&b.params, off);
	return harness_run(&nvh, &b, NULL, NULL);
}

TPM_RC nvt_read(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, uint16_t size,
		uint16_t off, uint8_t *out)
{
	struct cmdbuf b;
	struct rd r;
	uint16_t got;
	TPM_RC rc;

	nvt_begin(&b, TPM_CC_NV_Read, auth, idx, pw);
	wr_u16(&b.params, size);
	wr_u16(&b.params, off);
	rc = harness_run(&nvh, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_tpm2b(&r, out, NV_BUFFER_MAX, &got), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(got, size);
	}
	return rc;
}

TPM_RC nvt_simple(TPM_CC cc, TPM_HANDLE auth, TPM_HANDLE idx, const char *pw)
{
	struct cmdbuf b;

	nvt_begin(&b, cc, auth, idx, pw);
	return harness_run(&nvh, &b, NULL, NULL);
}

TPM_RC nvt_extend(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, const void *d,
		  uint16_t len)
{
	struct cmdbuf b;

	nvt_begin(&b, TPM_CC_NV_Extend, auth, idx, pw);
	wr_tpm2b(&b.params, d, len);
	return harness_run(&nvh, &b, NULL, NULL);
}

TPM_RC nvt_setbits(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, uint64_t bits)
{
	struct cmdbuf b;

	nvt_begin(&b, TPM_CC_NV_SetBits, auth, idx, pw);
	wr_u64(&b.params, bits);
	return harness_run(&nvh, &b, NULL, NULL);
}

uint64_t nvt_read_u64(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw)
{
	uint8_t buf[NV_BUFFER_MAX];
	uint64_t v = 0;

	CU_ASSERT_EQUAL_FATAL(nvt_read(auth, idx, pw, 8, 0, buf), TPM_RC_SUCCESS);
	for (int i = 0; i < 8; i++)
		v = v << 8 | buf[i];
	return v;
}

TPM_RC nvt_readpublic(TPM_HANDLE idx, uint32_t *attrs, struct tpm2b_name *name)
{
	struct cmdbuf b;
	struct rd r, sub;
	struct nv_public pub;
	struct tpm2b_name n;
	uint16_t size;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_NV_ReadPublic);
	cmd_handle(&b, idx);
	rc = harness_run(&nvh, &b, &r, NULL);
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

uint32_t nvt_attrs_of(TPM_HANDLE idx)
{
	uint32_t a = 0;

	CU_ASSERT_EQUAL(nvt_readpublic(idx, &a, NULL), TPM_RC_SUCCESS);
	return a;
}

/* ---- lifecycle ---- */

TPM_RC nvt_su(TPM_CC cc, uint16_t type)
{
	struct cmdbuf b;

	cmd_begin(&b, cc);
	wr_u16(&b.params, type);
	return harness_run(&nvh, &b, NULL, NULL);
}

/* Shutdown(down) (or LOSS), power cycle, Startup(up). */
TPM_RC nvt_cycle(uint16_t down, uint16_t up)
{
	if (down != LOSS)
		CU_ASSERT_EQUAL(nvt_su(TPM_CC_Shutdown, down), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(nvh.e, PQTPM_SIGNAL_POWER_OFF), 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(nvh.e, PQTPM_SIGNAL_POWER_ON), 0);
	return nvt_su(TPM_CC_Startup, up);
}

void nvt_read_clock(uint64_t *clock, uint32_t *resets, uint32_t *restarts, uint8_t *safe)
{
	struct cmdbuf b;
	struct rd r;
	uint64_t t;

	cmd_begin(&b, TPM_CC_ReadClock);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u64(&r, &t);
	rd_u64(&r, clock);
	rd_u32(&r, resets);
	rd_u32(&r, restarts);
	rd_u8(&r, safe);
}

/* ---- state directories ---- */

void nvt_new_dir(char *out, size_t cap)
{
	snprintf(out, cap, "%s/d%u", tmp_root, ++dir_seq);
	CU_ASSERT_FATAL(mkdir(out, 0700) == 0);
}

/* An engine on dir as after a reboot of the host: power cycled, without Startup (the test
 * sends it). Opening alone is no reboot: the TPM would be as the last engine left it. */
void nvt_open_raw(struct harness *x, const char *dir)
{
	struct pqtpm_engine_config cfg = { .state_dir = dir, .log_level = PQTPM_LOG_ERROR };
	char err[512];

	memset(x, 0, sizeof(*x));
	CU_ASSERT_FATAL(pqtpm_engine_open(&x->e, &cfg, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(pqtpm_engine_signal(x->e, PQTPM_SIGNAL_RESET) == 0);
	x->c = pqtpm_client_new(x->e);
	CU_ASSERT_FATAL(x->c != NULL);
}

/* Each test starts with a fresh in-memory TPM. */
/* ---- policy sessions (empty session key: the HMAC key is the empty string) ---- */

void nvt_start_policy(struct psess *s)
{
	memset(s, 0, sizeof(*s));
	CU_ASSERT_EQUAL_FATAL(sess_start(&nvh, TPM_SE_POLICY, &s->handle, &s->nonce_tpm),
			      TPM_RC_SUCCESS);
}

void nvt_be32(uint8_t *p, uint32_t v)
{
	sess_be32(p, v);
}

void nvt_policy_cc(struct psess *s, TPM_CC code)
{
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s->handle, code), TPM_RC_SUCCESS);
}

void nvt_cc_policy(TPM_CC code, uint8_t out[DSIZE])
{
	sess_cc_policy(code, out);
}

void nvt_auth_policy(struct cmdbuf *b, const struct psess *s, const char *pw2)
{
	struct tpm2b_name names[3];

	for (unsigned i = 0; i < b->nhandles; i++) {
		if ((b->handles[i] >> 24) != TPM_HT_NV_INDEX) {
			sess_handle_name(b->handles[i], &names[i]);
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(nvt_readpublic(b->handles[i], NULL, &names[i]),
				      TPM_RC_SUCCESS);
	}
	sess_auth_policy(b, s->handle, &s->nonce_tpm, names);
	if (pw2)
		cmd_auth_pw(b, pw2);
}

int nv_tmp_init(void)
{
	return mkdtemp(tmp_root) ? 0 : -1;
}

int nv_tmp_clean(void)
{
	return harness_rm_tree(tmp_root);
}

/* Each test on a fresh in-memory TPM. */
static void fresh(void)
{
	harness_close(&nvh);
	harness_open(&nvh);
}

static int suite_init(void)
{
	if (nv_tmp_init() != 0)
		return -1;
	harness_open(&nvh);
	return 0;
}

static int suite_clean(void)
{
	harness_close(&nvh);
	return nv_tmp_clean();
}

void nvt_add(CU_pSuite s, const char *name, CU_TestFunc fn)
{
	CU_add_test(s, name, fn);
	CU_add_test(s, "(fresh TPM)", fresh);
}

int nvt_run_suite(const char *name, void (*add)(CU_pSuite))
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(name, suite_init, suite_clean);
	add(s);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
