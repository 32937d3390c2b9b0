/* Dictionary-attack protection (core/da.c, core/cmd/da.c, the hooks in core/auth.c): lockout
 * after maxTries wrong authValues of a DA-protected object, what stays usable in lockout
 * (noDA objects, hierarchies, policies without an authValue), NV indices with and without
 * TPMA_NV_NO_DA, DictionaryAttackLockReset, DictionaryAttackParameters, recovery in time,
 * lockoutAuth's own lockout, the GetCapability view, and the counters surviving a restart
 * (saved before the failure's response). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "sessions.h"
#include "unit_main.h"

#define DSIZE 32
#define FIXED (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT)
#define SEALED (FIXED | TPMA_OBJECT_USERWITHAUTH)

#define LONG_S 100000000u /* s: more than any Clock a test can reach */

static struct harness h;
static char tmp_root[] = "/tmp/pqtpm-test-da-XXXXXX";

/* ---- commands ---- */

static uint32_t prop(uint32_t pt)
{
	struct cmdbuf b;
	struct rd r;
	uint32_t cap, count, tag, v = 0xFFFFFFFFu;
	uint8_t more;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_TPM_PROPERTIES);
	wr_u32(&b.params, pt);
	wr_u32(&b.params, 1);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT(rd_u8(&r, &more) == TPM_RC_SUCCESS && rd_u32(&r, &cap) == TPM_RC_SUCCESS &&
		  rd_u32(&r, &count) == TPM_RC_SUCCESS && count == 1 &&
		  rd_u32(&r, &tag) == TPM_RC_SUCCESS && tag == pt &&
		  rd_u32(&r, &v) == TPM_RC_SUCCESS);
	return v;
}

static bool in_lockout(void)
{
	return prop(TPM_PT_PERMANENT) & TPMA_PERMANENT_INLOCKOUT;
}

static TPM_RC lock_reset(const char *lockout_pw)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_DictionaryAttackLockReset);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, lockout_pw);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC parameters(const char *lockout_pw, uint32_t max, uint32_t recovery,
			 uint32_t lockout_recovery)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_DictionaryAttackParameters);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, lockout_pw);
	wr_u32(&b.params, max);
	wr_u32(&b.params, recovery);
	wr_u32(&b.params, lockout_recovery);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC change_auth(TPM_HANDLE hier, const char *old, const char *new)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, hier);
	cmd_auth_pw(&b, old);
	wr_tpm2b(&b.params, new, (uint16_t)strlen(new));
	return harness_run(&h, &b, NULL, NULL);
}

/* A sealed object as a primary of the owner hierarchy (no parent needed) */
static TPM_HANDLE sealed(uint32_t attrs, const char *auth, const uint8_t *policy)
{
	struct tpmt_public t;
	struct cmdbuf b;
	TPM_HANDLE handle = 0;

	key_template_attrs(&t, TPM_ALG_KEYEDHASH, attrs);
	if (policy) {
		t.auth_policy.size = DSIZE;
		memcpy(t.auth_policy.b, policy, DSIZE);
	}
	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, auth, "data", 4);
	wr_tpm2b_public(&b.params, &t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &handle), TPM_RC_SUCCESS);
	return handle;
}

static TPM_RC unseal(TPM_HANDLE item, const char *pw)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, item);
	cmd_auth_pw(&b, pw);
	return harness_run(&h, &b, NULL, NULL);
}

static void flush(TPM_HANDLE handle)
{
	CU_ASSERT_EQUAL(sess_flush(&h, handle), TPM_RC_SUCCESS);
}

/* An ordinary NV index of 8 bytes with this authValue, read and written with it */
static void nv_define(TPM_HANDLE index, const char *auth, uint32_t extra_attrs)
{
	struct cmdbuf b;
	size_t mark;

	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	wr_size_begin(&b.params, &mark);
	wr_u32(&b.params, index);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, TPMA_NV_AUTHREAD | TPMA_NV_AUTHWRITE | extra_attrs);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 8);
	wr_size_end(&b.params, mark);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

static TPM_RC nv_read(TPM_HANDLE index, const char *auth)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_Read);
	cmd_handle(&b, index);
	cmd_handle(&b, index);
	cmd_auth_pw(&b, auth);
	wr_u16(&b.params, 8);
	wr_u16(&b.params, 0);
	return harness_run(&h, &b, NULL, NULL);
}

/* Unseal with a policy session that asserted PolicyCommandCode(Unseal), or PolicyPassword
 * too when pw is given (the object's policy must be the matching one). */
static TPM_RC unseal_policy(TPM_HANDLE item, const char *pw)
{
	uint8_t nonce[DSIZE] = { 1 }, cp[DSIZE], mac[DSIZE], code[4], attrs = 0;
	struct tpm2b_digest nonce_tpm;
	struct tpm2b_name name;
	struct crypto_hash_ctx hc;
	struct crypto_hmac_ctx mc;
	struct cmdbuf b;
	struct rd r;
	TPM_HANDLE s;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b(&b.params, nonce, DSIZE);
	wr_u16(&b.params, 0);
	wr_u8(&b.params, TPM_SE_POLICY);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &nonce_tpm), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_PolicyCommandCode);
	cmd_handle(&b, s);
	wr_u32(&b.params, TPM_CC_Unseal);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	if (pw) {
		cmd_begin(&b, TPM_CC_PolicyPassword);
		cmd_handle(&b, s);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	}
	cmd_begin(&b, TPM_CC_ReadPublic);
	cmd_handle(&b, item);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	{
		struct tpmt_public pub;

		CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &pub), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &name), TPM_RC_SUCCESS);
	}
	code[0] = 0;
	code[1] = 0;
	code[2] = (uint8_t)(TPM_CC_Unseal >> 8);
	code[3] = (uint8_t)TPM_CC_Unseal;
	crypto_hash_start(&hc, TPM_ALG_SHA256);
	crypto_hash_update(&hc, code, 4);
	crypto_hash_update(&hc, name.b, name.size);
	crypto_hash_finish(&hc, cp);
	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, item);
	wr_u32(&b.auth, s);
	wr_tpm2b(&b.auth, nonce, DSIZE);
	wr_u8(&b.auth, attrs);
	if (pw) {
		wr_tpm2b(&b.auth, pw, (uint16_t)strlen(pw));
	} else {
		crypto_hmac_start(&mc, TPM_ALG_SHA256, (const uint8_t *)"", 0);
		crypto_hmac_update(&mc, cp, DSIZE);
		crypto_hmac_update(&mc, nonce, DSIZE);
		crypto_hmac_update(&mc, nonce_tpm.b, nonce_tpm.size);
		crypto_hmac_update(&mc, &attrs, 1);
		crypto_hmac_finish(&mc, mac);
		wr_tpm2b(&b.auth, mac, DSIZE);
	}
	b.nauth = 1;
	rc = harness_run(&h, &b, NULL, NULL);
	if (rc != TPM_RC_SUCCESS)
		flush(s);
	return rc;
}

/* policyDigest of PolicyCommandCode(Unseal) [then PolicyPassword] */
static void unseal_policy_digest(bool password, uint8_t out[DSIZE])
{
	uint8_t buf[DSIZE + 8];

	memset(buf, 0, DSIZE);
	buf[DSIZE] = buf[DSIZE + 1] = 0;
	buf[DSIZE + 2] = (uint8_t)(TPM_CC_PolicyCommandCode >> 8);
	buf[DSIZE + 3] = (uint8_t)TPM_CC_PolicyCommandCode;
	buf[DSIZE + 4] = buf[DSIZE + 5] = 0;
	buf[DSIZE + 6] = (uint8_t)(TPM_CC_Unseal >> 8);
	buf[DSIZE + 7] = (uint8_t)TPM_CC_Unseal;
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, buf, sizeof(buf), out), TPM_RC_SUCCESS);
	if (!password)
		return;
	memcpy(buf, out, DSIZE);
	buf[DSIZE + 2] = (uint8_t)(TPM_CC_PolicyAuthValue >> 8);
	buf[DSIZE + 3] = (uint8_t)TPM_CC_PolicyAuthValue;
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, buf, DSIZE + 4, out), TPM_RC_SUCCESS);
}

/* Time passes for the DA logic: the Clock runs on */
static void advance_s(uint32_t seconds)
{
	h.e->ps.clock += (uint64_t)seconds * 1000u;
}

/* ---- tests ---- */

static void test_defaults(void)
{
	harness_open(&h);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_AUTH_FAIL), 3);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_INTERVAL), 1000);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_RECOVERY), 1000);
	CU_ASSERT(!in_lockout());
	harness_close(&h);
}

static void test_lockout(void)
{
	uint8_t cc_only[DSIZE], cc_password[DSIZE];
	TPM_HANDLE da, noda, by_policy, by_password;

	harness_open(&h);
	unseal_policy_digest(false, cc_only);
	unseal_policy_digest(true, cc_password);
	da = sealed(SEALED, "pw", NULL);
	noda = sealed(SEALED | TPMA_OBJECT_NODA, "pw", NULL);
	by_policy = sealed(FIXED, "pw", cc_only);
	by_password = sealed(FIXED, "pw", cc_password);

	/* exempt: noDA objects and the hierarchies fail without counting */
	CU_ASSERT_EQUAL(unseal(noda, "wrong"), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(change_auth(TPM_RH_OWNER, "wrong", ""), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(change_auth(TPM_RH_ENDORSEMENT, "wrong", ""), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);

	/* maxTries (3) failures; PolicyPassword's password counts like any other */
	CU_ASSERT_EQUAL(unseal(da, "wrong"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 1);
	CU_ASSERT_EQUAL(unseal_policy(by_password, "wrong"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 2);
	CU_ASSERT(!in_lockout());
	CU_ASSERT_EQUAL(unseal(da, ""), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 3);
	CU_ASSERT(in_lockout());

	/* in lockout: a DA-protected authValue is refused even when right */
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(unseal_policy(by_password, "pw"), TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 3);
	/* ... but what does not use one still works */
	CU_ASSERT_EQUAL(unseal(noda, "pw"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal_policy(by_policy, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_auth(TPM_RH_OWNER, "", ""), TPM_RC_SUCCESS);

	/* lockoutAuth clears it */
	CU_ASSERT_EQUAL(lock_reset(""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);
	CU_ASSERT(!in_lockout());
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal_policy(by_password, "pw"), TPM_RC_SUCCESS);
	flush(da);
	flush(noda);
	flush(by_policy);
	flush(by_password);
	harness_close(&h);
}

/* NV indices are DA-protected unless TPMA_NV_NO_DA */
static void test_nv(void)
{
	harness_open(&h);
	nv_define(0x01500001, "nvpw", 0);
	nv_define(0x01500002, "nvpw", TPMA_NV_NO_DA);
	CU_ASSERT_EQUAL(nv_read(0x01500002, "wrong"), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);
	CU_ASSERT_EQUAL(nv_read(0x01500001, "wrong"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 1);
	/* the index is not written yet: the authorization passed, the read did not */
	CU_ASSERT_EQUAL(nv_read(0x01500001, "nvpw"), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL(parameters("", 1, 10, 10), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nv_read(0x01500001, "nvpw"), TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(nv_read(0x01500002, "nvpw"), TPM_RC_NV_UNINITIALIZED);
	harness_close(&h);
}

static void test_recovery(void)
{
	struct cmdbuf b;
	TPM_HANDLE da;

	harness_open(&h);
	da = sealed(SEALED, "pw", NULL);
	CU_ASSERT_EQUAL(parameters("", 5, 10, 20), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_AUTH_FAIL), 5);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_INTERVAL), 10);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_RECOVERY), 20);

	/* one less per recoveryTime without a failure */
	CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 2);
	advance_s(9);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 2);
	advance_s(2);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 1);
	advance_s(10);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);

	/* a lower maxTries takes effect at once */
	CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(parameters("", 2, 10, 20), TPM_RC_SUCCESS);
	CU_ASSERT(in_lockout());
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_LOCKOUT);
	/* out of lockout after recoveryTime */
	advance_s(10);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 1);
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_SUCCESS);

	/* Clear sets the Clock back to zero: the wait starts again instead of stalling */
	CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 2);
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT(h.e->ps.clock < 1000);
	da = sealed(SEALED, "pw", NULL);
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_LOCKOUT);
	advance_s(10);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 1);
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_SUCCESS);

	/* recoveryTime 0: no DA protection, failures are not counted */
	CU_ASSERT_EQUAL(parameters("", 2, 0, 20), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_SUCCESS);
	/* maxTries 0: always in lockout */
	CU_ASSERT_EQUAL(parameters("", 0, 10, 20), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(da, "pw"), TPM_RC_LOCKOUT);
	flush(da);
	harness_close(&h);
}

static void test_lockout_auth(void)
{
	struct cmdbuf b;

	harness_open(&h);
	CU_ASSERT_EQUAL(parameters("", 3, 10, 20), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_auth(TPM_RH_LOCKOUT, "", "lpw"), TPM_RC_SUCCESS);
	/* one failure locks lockoutAuth out for lockoutRecovery; other entities are unaffected */
	CU_ASSERT_EQUAL(lock_reset("wrong"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(lock_reset("lpw"), TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(parameters("lpw", 3, 10, 20), TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);
	CU_ASSERT(!in_lockout());
	CU_ASSERT_EQUAL(change_auth(TPM_RH_OWNER, "", ""), TPM_RC_SUCCESS);
	advance_s(19);
	CU_ASSERT_EQUAL(lock_reset("lpw"), TPM_RC_LOCKOUT);
	advance_s(1);
	CU_ASSERT_EQUAL(lock_reset("lpw"), TPM_RC_SUCCESS);

	/* lockoutRecovery 0: until the next Startup */
	CU_ASSERT_EQUAL(parameters("lpw", 3, 10, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(lock_reset("wrong"), RC_S(TPM_RC_AUTH_FAIL, 1));
	advance_s(100000);
	CU_ASSERT_EQUAL(lock_reset("lpw"), TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(lock_reset("lpw"), TPM_RC_SUCCESS);
	harness_close(&h);
}

static TPM_RC sign(TPM_HANDLE key, const char *pw)
{
	struct tpmt_ticket none = { .tag = TPM_ST_HASHCHECK, .hierarchy = TPM_RH_NULL };
	struct tpm2b_digest d = { .size = DSIZE };
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, pw);
	wr_tpm2b_digest(&b.params, &d);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_ticket(&b.params, &none);
	return harness_run(&h, &b, NULL, NULL);
}

static uint32_t failed_tries_on_disk(const char *dir)
{
	struct pqtpm_engine *disk = harness_disk_open(dir);
	uint32_t n = disk->ps.da.failed_tries;

	harness_disk_close(disk);
	return n;
}

/* Sign begins without the state directory's lock and without a snapshot (CMD_READS_STATE,
 * dispatch.c): what its authorization counts (a failure, the counter healing, the lockout)
 * starts it over on the locked path, and is on disk before the answer. In check builds
 * (SAN=1) txn.c stops the program if any of it changed the state without the lock. */
static void test_signing_reads(void)
{
	struct tpm2b_digest nonce_tpm;
	struct tpmt_public t;
	struct key k;
	char dir[64];
	TPM_HANDLE s;

	snprintf(dir, sizeof(dir), "%s/sign", tmp_root);
	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL(parameters("", 2, 10, 2 * LONG_S), TPM_RC_SUCCESS);
	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	t.scheme.scheme = TPM_ALG_ECDSA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL_FATAL(key_primary_in(&h, TPM_RH_OWNER, &t, "pw", NULL, 0, &k),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sign(k.handle, "pw"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(failed_tries_on_disk(dir), 0);
	CU_ASSERT_EQUAL(sign(k.handle, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(failed_tries_on_disk(dir), 1);
	CU_ASSERT_EQUAL(sign(k.handle, "pw"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 1);
	/* a recoveryTime later the next authorization heals the counter, and saves it */
	advance_s(11);
	CU_ASSERT_EQUAL(sign(k.handle, "pw"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(failed_tries_on_disk(dir), 0);
	/* a failure through an HMAC session counts as well; maxTries of them lock the key out */
	CU_ASSERT_EQUAL_FATAL(sess_start(&h, TPM_SE_HMAC, &s, &nonce_tpm), TPM_RC_SUCCESS);
	{
		struct cmdbuf b;
		uint8_t nonce[DSIZE] = { 7 }, mac[DSIZE] = { 0 };
		struct tpmt_ticket none = { .tag = TPM_ST_HASHCHECK, .hierarchy = TPM_RH_NULL };
		struct tpm2b_digest d = { .size = DSIZE };

		cmd_begin(&b, TPM_CC_Sign);
		cmd_handle(&b, k.handle);
		wr_u32(&b.auth, s);
		wr_tpm2b(&b.auth, nonce, DSIZE);
		wr_u8(&b.auth, TPMA_SESSION_CONTINUESESSION);
		wr_tpm2b(&b.auth, mac, DSIZE);
		b.nauth = 1;
		wr_tpm2b_digest(&b.params, &d);
		wr_u16(&b.params, TPM_ALG_NULL);
		wr_ticket(&b.params, &none);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_S(TPM_RC_AUTH_FAIL, 1));
	}
	CU_ASSERT_EQUAL(failed_tries_on_disk(dir), 1);
	CU_ASSERT_EQUAL(sign(k.handle, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(failed_tries_on_disk(dir), 2);
	CU_ASSERT_EQUAL(sign(k.handle, "pw"), TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(failed_tries_on_disk(dir), 2);
	flush(s);
	flush(k.handle);
	harness_close(&h);
	harness_rm_tree(dir);
}

/* The counters survive a restart, and a failure is on disk before its response. */
static void test_persistence(void)
{
	struct harness other;
	struct pqtpm_engine *disk;
	char dir[64];
	TPM_HANDLE da;

	snprintf(dir, sizeof(dir), "%s/state", tmp_root);
	harness_open_dir(&h, dir);
	/* long recovery times: nothing may heal while the engines open and close */
	CU_ASSERT_EQUAL(parameters("", 4, LONG_S, 2 * LONG_S), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_auth(TPM_RH_LOCKOUT, "", "lpw"), TPM_RC_SUCCESS);
	da = sealed(SEALED, "pw", NULL);
	CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(unseal(da, "x"), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(lock_reset("wrong"), RC_S(TPM_RC_AUTH_FAIL, 1));

	/* the failures are on disk already, and a client of the owner's socket sees them */
	disk = harness_disk_open(dir);
	CU_ASSERT_EQUAL(disk->ps.da.failed_tries, 2);
	CU_ASSERT_TRUE(disk->ps.da.lockout_locked);
	harness_disk_close(disk);
	other = h;
	harness_open_socket(&h, dir);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 2);
	harness_close(&h);
	h = other;
	harness_close(&h);

	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 2);
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_AUTH_FAIL), 4);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_INTERVAL), LONG_S);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_RECOVERY), 2 * LONG_S);
	CU_ASSERT_EQUAL(lock_reset("lpw"), TPM_RC_LOCKOUT);
	advance_s(2 * LONG_S);
	CU_ASSERT_EQUAL(lock_reset("lpw"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOCKOUT_COUNTER), 0);
	harness_close(&h);
	harness_rm_tree(dir);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "defaults", test_defaults },
		{ "lockout after maxTries, what still works, LockReset", test_lockout },
		{ "NV indices with and without TPMA_NV_NO_DA", test_nv },
		{ "recovery in time, DictionaryAttackParameters", test_recovery },
		{ "lockoutAuth locked out and recovering", test_lockout_auth },
		{ "counters survive a restart", test_persistence },
		{ "Sign counts failures, healing and lockout on disk", test_signing_reads },
	};
	int failed;

	if (!mkdtemp(tmp_root))
		return 1;
	failed = UNIT_RUN("dictionary attack", tests, NULL, NULL);
	rmdir(tmp_root);
	return failed;
}
