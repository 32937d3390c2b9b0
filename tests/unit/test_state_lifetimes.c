/* Where the platform's settings and the state-reset data live (docs/state-directory.md): the
 * command audit hash, list and counter, the PP_Commands list, the algorithm set and the PCR
 * group's policy are persistent; the audit digest and the commit state survive a new engine on
 * the directory (not a reset) and go at a TPM Reset only; the PCR group's authValue survives a
 * new engine and a Resume, and goes at every Startup(CLEAR). Shutdown(STATE) saves the last
 * three in the state file for a host reboot before the Startup (no pqtpm.volatile then). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_int.h"
#include "harness.h"
#include "state/state_int.h"
#include "nv_util.h"
#include "unit_main.h"

static char root[] = "/tmp/pqtpm-test-lifetimes-XXXXXX";
static char dir[64];
static struct harness h;
static struct cmdbuf b;

static const uint8_t policy[32] = "a policy digest of 32 bytes ...";

static int setup(void)
{
	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof(dir), "%s/state", root);
	return 0;
}

static int teardown(void)
{
	return harness_rm_tree(root) != 0;
}

static TPM_RC audit_status(TPM_ALG_ID alg, TPM_CC set)
{
	cmd_begin(&b, TPM_CC_SetCommandCodeAuditStatus);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, alg);
	wr_u32(&b.params, set ? 1 : 0);
	if (set)
		wr_u32(&b.params, set);
	wr_u32(&b.params, 0);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC get_random(void)
{
	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 8);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC pp_commands(TPM_CC set)
{
	cmd_begin(&b, TPM_CC_PP_Commands);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u32(&b.params, set);
	wr_u32(&b.params, 0);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC algorithm_set(uint32_t set)
{
	cmd_begin(&b, TPM_CC_SetAlgorithmSet);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, set);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC pcr_policy(void)
{
	cmd_begin(&b, TPM_CC_PCR_SetAuthPolicy);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, policy, sizeof(policy));
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, 20);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC pcr_auth_value(const char *auth)
{
	cmd_begin(&b, TPM_CC_PCR_SetAuthValue);
	cmd_handle(&b, 21);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	return harness_run(&h, &b, NULL, NULL);
}

/* EC_Ephemeral on P-256: a commit whose count is outstanding */
static TPM_RC ephemeral(void)
{
	cmd_begin(&b, TPM_CC_EC_Ephemeral);
	wr_u16(&b.params, TPM_ECC_NIST_P256);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC su(TPM_CC cc, uint16_t type)
{
	cmd_begin(&b, cc);
	wr_u16(&b.params, type);
	return harness_run(&h, &b, NULL, NULL);
}

/* A power cycle on the platform port, then Startup(type) */
static void power_cycle(uint16_t type)
{
	CU_ASSERT_EQUAL_FATAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL_FATAL(su(TPM_CC_Startup, type), TPM_RC_SUCCESS);
}

/* A new engine on the directory: a restart of the server, not of the TPM */
static void reopen(void)
{
	harness_close(&h);
	harness_open_dir(&h, dir);
}

/* The settings made by test_lifetimes, as the engine has them */
static void check_persistent(void)
{
	const struct persist *ps = &h.e->ps;

	CU_ASSERT_EQUAL(ps->audit.alg, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(ps->audit.counter, 1);
	CU_ASSERT_EQUAL(ps->audit.n, 1);
	CU_ASSERT_EQUAL(ps->audit.list[0], TPM_CC_GetRandom);
	CU_ASSERT_EQUAL(ps->pp.n, 1);
	CU_ASSERT_EQUAL(ps->pp.list[0], TPM_CC_Clear);
	CU_ASSERT_EQUAL(ps->algorithm_set, 7);
	CU_ASSERT_EQUAL(ps->pcr_group_policy_alg, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(ps->pcr_group_policy.size, sizeof(policy));
	CU_ASSERT(memcmp(ps->pcr_group_policy.b, policy, sizeof(policy)) == 0);
}

static void test_lifetimes(void)
{
	struct tpm2b_digest digest, auth;
	struct commit_state commit;

	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL_FATAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_ON), 0);
	/* a new hash (not audited), then GetRandom on the list: a sequence, counted */
	CU_ASSERT_EQUAL(audit_status(TPM_ALG_SHA256, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(audit_status(TPM_ALG_NULL, TPM_CC_GetRandom), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_random(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pp_commands(TPM_CC_Clear), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(algorithm_set(7), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pcr_policy(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pcr_auth_value("group"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	check_persistent();
	digest = h.e->cmd_audit_digest;
	auth = h.e->pcr_group_auth;
	commit = h.e->commit;
	CU_ASSERT_EQUAL(digest.size, 32);
	CU_ASSERT_EQUAL(commit.counter, 2);

	/* not a reset: everything as it was */
	reopen();
	check_persistent();
	CU_ASSERT(memcmp(&h.e->cmd_audit_digest, &digest, 2 + digest.size) == 0);
	CU_ASSERT(memcmp(&h.e->pcr_group_auth, &auth, 2 + auth.size) == 0);
	CU_ASSERT(memcmp(&h.e->commit, &commit, sizeof(commit)) == 0);
	/* the audit goes on in the same sequence */
	CU_ASSERT_EQUAL(get_random(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(h.e->ps.audit.counter, 1);
	digest = h.e->cmd_audit_digest;

	/* TPM Resume: all kept */
	CU_ASSERT_EQUAL(su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	power_cycle(TPM_SU_STATE);
	check_persistent();
	CU_ASSERT(memcmp(&h.e->cmd_audit_digest, &digest, 2 + digest.size) == 0);
	CU_ASSERT(memcmp(&h.e->pcr_group_auth, &auth, 2 + auth.size) == 0);
	CU_ASSERT(memcmp(&h.e->commit, &commit, sizeof(commit)) == 0);

	/* TPM Restart: the authValue goes, the state-reset data stays */
	CU_ASSERT_EQUAL(su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	power_cycle(TPM_SU_CLEAR);
	check_persistent();
	CU_ASSERT_EQUAL(h.e->pcr_group_auth.size, 0);
	CU_ASSERT(memcmp(&h.e->cmd_audit_digest, &digest, 2 + digest.size) == 0);
	CU_ASSERT(memcmp(&h.e->commit, &commit, sizeof(commit)) == 0);

	/* TPM Reset: the digest clear, the commits gone (a new nonce when next used) */
	CU_ASSERT_EQUAL(pcr_auth_value("again"), TPM_RC_SUCCESS);
	power_cycle(TPM_SU_CLEAR);
	check_persistent();
	CU_ASSERT_EQUAL(h.e->pcr_group_auth.size, 0);
	CU_ASSERT_EQUAL(h.e->cmd_audit_digest.size, 0);
	CU_ASSERT_EQUAL(h.e->commit.counter, 0);
	CU_ASSERT(!h.e->commit.nonce_set);
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(h.e->commit.nonce, commit.nonce, sizeof(commit.nonce)) != 0);
	/* the next audited command starts a new sequence, counted on disk */
	CU_ASSERT_EQUAL(get_random(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(h.e->ps.audit.counter, 2);
	reopen();
	CU_ASSERT_EQUAL(h.e->ps.audit.counter, 2);
	CU_ASSERT_EQUAL(h.e->cmd_audit_digest.size, 32);
	harness_close(&h);
}

/* A host reboot: a new engine on the directory without its volatile file (as one from an
 * earlier boot), the TPM powered on, no Startup yet */
static void reboot(void)
{
	char path[128];

	harness_close(&h);
	snprintf(path, sizeof(path), "%s/pqtpm.volatile", dir);
	CU_ASSERT_FATAL(unlink(path) == 0);
	nvt_open_raw(&h, dir);
}

static void test_across_reboot(void)
{
	struct tpm2b_digest digest, auth;
	struct commit_state commit;

	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL(get_random(), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pcr_auth_value("reboot"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	digest = h.e->cmd_audit_digest;
	auth = h.e->pcr_group_auth;
	commit = h.e->commit;
	CU_ASSERT_EQUAL_FATAL(digest.size, 32);
	CU_ASSERT(commit.nonce_set);

	/* TPM Resume after a reboot: as Shutdown(STATE) left them */
	CU_ASSERT_EQUAL(su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	reboot();
	CU_ASSERT_EQUAL_FATAL(su(TPM_CC_Startup, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(&h.e->cmd_audit_digest, &digest, 2 + digest.size) == 0);
	CU_ASSERT(memcmp(&h.e->pcr_group_auth, &auth, 2 + auth.size) == 0);
	CU_ASSERT(memcmp(&h.e->commit, &commit, sizeof(commit)) == 0);
	CU_ASSERT(!h.e->ps.ram_saved.valid);

	/* TPM Restart after a reboot: the authValue goes; a commit made after the Shutdown
	 * leaves no saved commit state to come back (a count would give its r twice) */
	CU_ASSERT_EQUAL(su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	reboot();
	CU_ASSERT_EQUAL_FATAL(su(TPM_CC_Startup, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(&h.e->cmd_audit_digest, &digest, 2 + digest.size) == 0);
	CU_ASSERT_EQUAL(h.e->pcr_group_auth.size, 0);
	CU_ASSERT(!h.e->commit.nonce_set);
	CU_ASSERT_EQUAL(h.e->commit.counter, 0);
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(h.e->commit.nonce, commit.nonce, sizeof(commit.nonce)) != 0);
	harness_close(&h);
}

/* A volatile body written before the reset data lived there loads with it cleared; an audit
 * digest of no hash's size is refused. */
static void test_volatile_body(void)
{
	static uint8_t buf[VOLATILE_MAX_BODY];
	static struct vstate v;
	const uint8_t boot[VOLATILE_BOOT_ID_SIZE] = { 1 };
	const char *what = NULL;
	size_t len, tail;
	struct wr w;
	struct rd r;

	harness_open(&h);
	CU_ASSERT_EQUAL(pcr_auth_value("abc"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	h.e->cmd_audit_digest.size = 20;
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_FATAL(volatile_encode(h.e, boot, false, &w) == TPM_RC_SUCCESS);
	len = w.off;
	rd_init(&r, buf, len);
	CU_ASSERT_EQUAL_FATAL(volatile_decode(&r, &v, &what), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(v.cmd_audit_digest.size, 20);
	CU_ASSERT_EQUAL(v.pcr_group_auth.size, 3);
	CU_ASSERT(memcmp(&v.commit, &h.e->commit, sizeof(v.commit)) == 0);

	/* digest (2 + 20), commit (1 + 32 + 8 + 16), authValue (2 + 3) */
	tail = 2 + 20 + 1 + 32 + 8 + COMMIT_SLOTS / 8 + 2 + 3;
	rd_init(&r, buf, len - tail);
	CU_ASSERT_EQUAL_FATAL(volatile_decode(&r, &v, &what), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(v.cmd_audit_digest.size, 0);
	CU_ASSERT_EQUAL(v.pcr_group_auth.size, 0);
	CU_ASSERT(!v.commit.nonce_set);

	buf[len - tail + 1] = 21;
	rd_init(&r, buf, len + 1);
	CU_ASSERT_NOT_EQUAL(volatile_decode(&r, &v, &what), TPM_RC_SUCCESS);
	CU_ASSERT(what && strstr(what, "bad command audit digest") != NULL);
	harness_close(&h);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "the settings persist, the reset data goes at a TPM Reset", test_lifetimes },
		{ "Shutdown(STATE) keeps the reset data across a host reboot", test_across_reboot },
		{ "the volatile body with and without the reset data", test_volatile_body },
	};
	int failed;

	if (setup() != 0)
		return 1;
	failed = UNIT_RUN("state_lifetimes", tests, NULL, NULL);
	return teardown() != 0 || failed;
}
