/* Helpers of the NV and lifecycle unit tests (nv_util.c): every helper runs its command on
 * the harness nvh, with password sessions (empty for hierarchies, "pw" for indices made by
 * nvt_define) unless it says otherwise. */
#ifndef PQTPM_TEST_NV_UTIL_H
#define PQTPM_TEST_NV_UTIL_H

#include <CUnit/Basic.h>

#include "harness.h"

#define NT(t) ((uint32_t)(t) << TPMA_NV_TPM2_NT_SHIFT)
#define OWNER_RW (TPMA_NV_OWNERWRITE | TPMA_NV_OWNERREAD)
#define AUTH_RW (TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD)
#define DSIZE 32
#define IDX 0x01500000u
#define LOSS 0xFFFF /* nvt_cycle without Shutdown: a power loss */

extern struct harness nvh;

/* a policy session as the client sees it */
struct psess {
	TPM_HANDLE handle;
	struct tpm2b_digest nonce_tpm;
};

TPM_RC nvt_define_full(TPM_HANDLE auth, TPM_HANDLE idx, TPM_ALG_ID alg, uint32_t attrs,
		       uint16_t size, const char *pw, const uint8_t *policy, uint16_t plen);
TPM_RC nvt_define(TPM_HANDLE idx, uint32_t attrs, uint16_t size);
TPM_RC nvt_undefine(TPM_HANDLE auth, TPM_HANDLE idx);
/* A command with handles (auth, idx) and a password for auth. */
void nvt_begin(struct cmdbuf *b, TPM_CC cc, TPM_HANDLE auth, TPM_HANDLE idx,
	       const char *pw);
TPM_RC nvt_write(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, const void *data,
		 uint16_t len, uint16_t off);
TPM_RC nvt_read(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, uint16_t size,
		uint16_t off, uint8_t *out);
TPM_RC nvt_simple(TPM_CC cc, TPM_HANDLE auth, TPM_HANDLE idx, const char *pw);
TPM_RC nvt_extend(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, const void *d,
		  uint16_t len);
TPM_RC nvt_setbits(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw, uint64_t bits);
uint64_t nvt_read_u64(TPM_HANDLE auth, TPM_HANDLE idx, const char *pw);
TPM_RC nvt_readpublic(TPM_HANDLE idx, uint32_t *attrs, struct tpm2b_name *name);
uint32_t nvt_attrs_of(TPM_HANDLE idx);
TPM_RC nvt_su(TPM_CC cc, uint16_t type);
/* Shutdown(down) (or LOSS), power cycle, Startup(up). */
TPM_RC nvt_cycle(uint16_t down, uint16_t up);
void nvt_read_clock(uint64_t *clock, uint32_t *resets, uint32_t *restarts, uint8_t *safe);
void nvt_new_dir(char *out, size_t cap);
/* An engine on dir, powered on, without Startup (the test sends it). */
void nvt_open_raw(struct harness *x, const char *dir);
void nvt_start_policy(struct psess *s);
void nvt_be32(uint8_t *p, uint32_t v);
void nvt_policy_cc(struct psess *s, TPM_CC code);
/* The digest PolicyCommandCode(code) gives: H(0^32 || TPM_CC_PolicyCommandCode || code). */
void nvt_cc_policy(TPM_CC code, uint8_t out[DSIZE]);
/* Authorize the first handle of b with policy session s (and the second, if pw2, with a
 * password). b has its handles and parameters. */
void nvt_auth_policy(struct cmdbuf *b, const struct psess *s, const char *pw2);
int nv_tmp_init(void);
int nv_tmp_clean(void);
/* A test, then a fresh in-memory TPM on nvh for the next one. */
void nvt_add(CU_pSuite s, const char *name, CU_TestFunc fn);
/* The program's one suite (add fills it): nvh open on a temporary root for its duration;
 * returns the exit status. */
int nvt_run_suite(const char *name, void (*add)(CU_pSuite));

#endif
