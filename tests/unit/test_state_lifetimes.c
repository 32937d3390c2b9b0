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
#include "sessions.h"
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

/* ---- the volatile file follows every change (volatile_dirty) ---- */

#define VSLOT 65536u
#define VHEADER (8u + 4u + 8u + 4u)

/* The body of the newest slot of dir's pqtpm.volatile (its frame: state/volatile.c). */
static size_t file_body(uint8_t *out, size_t cap)
{
	static uint8_t slot[2][VHEADER];
	uint64_t seq[2] = { 0, 0 };
	uint32_t len[2] = { 0, 0 }, version;
	char path[128];
	size_t n = 0;
	FILE *f;
	int best;

	snprintf(path, sizeof(path), "%s/pqtpm.volatile", dir);
	f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (int i = 0; i < 2; i++) {
		struct rd r;

		CU_ASSERT_FATAL(fseek(f, (long)(i * VSLOT), SEEK_SET) == 0);
		CU_ASSERT_FATAL(fread(slot[i], 1, VHEADER, f) == VHEADER);
		rd_init(&r, slot[i] + 8, VHEADER - 8);
		if (memcmp(slot[i], "PQTPMVO", 8) == 0 && rd_u32(&r, &version) == 0 &&
		    rd_u64(&r, &seq[i]) == 0)
			(void)rd_u32(&r, &len[i]);
	}
	best = seq[1] > seq[0];
	CU_ASSERT_FATAL(len[best] <= cap);
	if (fseek(f, (long)(best * VSLOT + VHEADER), SEEK_SET) == 0)
		n = fread(out, 1, len[best], f);
	CU_ASSERT_EQUAL(n, len[best]);
	(void)fclose(f);
	return n;
}

/* What the engine holds now is what the file says: nothing changed without being written. */
static void check_file(const char *after)
{
	static uint8_t disk[VOLATILE_MAX_BODY], mem[VOLATILE_MAX_BODY];
	size_t n = file_body(disk, sizeof(disk));
	struct wr w;

	wr_init(&w, mem, sizeof(mem));
	CU_ASSERT_FATAL(n >= VOLATILE_BOOT_ID_SIZE);
	CU_ASSERT_FATAL(volatile_encode(h.e, disk, false, &w) == TPM_RC_SUCCESS);
	if (w.off != n || memcmp(mem, disk, n) != 0) {
		fprintf(stderr, "\n    pqtpm.volatile is stale after %s\n", after);
		CU_FAIL("the volatile file lags behind the engine");
	}
}

static TPM_RC pcr_cmd(TPM_CC cc, TPM_HANDLE pcr)
{
	static const uint8_t digest[32] = { 1 };

	cmd_begin(&b, cc);
	cmd_handle(&b, pcr);
	cmd_auth_pw(&b, "");
	if (cc == TPM_CC_PCR_Extend) {
		wr_u32(&b.params, 1);
		wr_u16(&b.params, TPM_ALG_SHA256);
		wr_bytes(&b.params, digest, sizeof(digest));
	}
	return harness_run(&h, &b, NULL, NULL);
}

/* ReadClock, which changes nothing volatile itself; with session s (if not 0) for audit only
 * (unbound, unsalted, no authValue: an empty HMAC) */
static TPM_RC read_clock(TPM_HANDLE s)
{
	static const uint8_t nonce[16] = { 2 };

	cmd_begin(&b, TPM_CC_ReadClock);
	if (s) {
		wr_u32(&b.auth, s);
		wr_tpm2b(&b.auth, nonce, sizeof(nonce));
		wr_u8(&b.auth, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION);
		wr_u16(&b.auth, 0);
		b.nauth = 1;
	}
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC self_test(void)
{
	cmd_begin(&b, TPM_CC_SelfTest);
	wr_u8(&b.params, 1);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC clock_rate_adjust(int8_t adjust)
{
	cmd_begin(&b, TPM_CC_ClockRateAdjust);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, (uint8_t)adjust);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC hierarchy_control(TPM_HANDLE hier, bool on)
{
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, hier);
	wr_u8(&b.params, on);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC orderly_counter(TPM_CC cc)
{
	size_t mark;

	cmd_begin(&b, cc);
	if (cc == TPM_CC_NV_DefineSpace) {
		cmd_handle(&b, TPM_RH_OWNER);
		cmd_auth_pw(&b, "");
		wr_u16(&b.params, 0);
		wr_size_begin(&b.params, &mark);
		wr_u32(&b.params, IDX);
		wr_u16(&b.params, TPM_ALG_SHA256);
		wr_u32(&b.params, NT(TPM_NT_COUNTER) | TPMA_NV_ORDERLY | AUTH_RW);
		wr_u16(&b.params, 0);
		wr_u16(&b.params, 8);
		wr_size_end(&b.params, mark);
	} else {
		cmd_handle(&b, IDX);
		cmd_handle(&b, IDX);
		cmd_auth_pw(&b, "");
	}
	return harness_run(&h, &b, NULL, NULL);
}

/* Every kind of change of the volatile state reaches pqtpm.volatile before the command that
 * made it answers (the engine writes only when volatile_dirty marked one): PCRs, the PCR
 * group's authValue, the session counter, saved sessions and the context counter, the Clock
 * rate, a hierarchy enabled, the commit state, the command audit digest and the exclusive
 * audit session (also when its client goes between two commands), the self test, an orderly
 * counter in RAM, Shutdown and Startup, the platform's signals. */
static void test_volatile_written(void)
{
	struct tpms_context ctx;
	struct tpm2b_digest nonce;
	struct pqtpm_client *other;
	TPM_HANDLE s, seq, loaded;

	harness_rm_tree(dir);
	harness_open_dir(&h, dir);
	check_file("the open");
	CU_ASSERT_EQUAL(get_random(), TPM_RC_SUCCESS);
	check_file("GetRandom");
	CU_ASSERT_EQUAL(pcr_cmd(TPM_CC_PCR_Extend, 16), TPM_RC_SUCCESS);
	check_file("PCR_Extend");
	CU_ASSERT_EQUAL(pcr_cmd(TPM_CC_PCR_Reset, 16), TPM_RC_SUCCESS);
	check_file("PCR_Reset");
	CU_ASSERT_EQUAL(pcr_auth_value("abc"), TPM_RC_SUCCESS);
	check_file("PCR_SetAuthValue");
	CU_ASSERT_EQUAL_FATAL(sess_start(&h, TPM_SE_HMAC, &s, &nonce), TPM_RC_SUCCESS);
	check_file("StartAuthSession");
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&h, s, &ctx), TPM_RC_SUCCESS);
	check_file("ContextSave of a session");
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&h, &ctx, &loaded), TPM_RC_SUCCESS);
	check_file("ContextLoad of a session");
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&h, s, &ctx), TPM_RC_SUCCESS);
	check_file("ContextSave of a session");
	CU_ASSERT_EQUAL(sess_flush(&h, s), TPM_RC_SUCCESS);
	check_file("FlushContext of a saved session");
	cmd_begin(&b, TPM_CC_HashSequenceStart);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_context_save(&h, seq, &ctx), TPM_RC_SUCCESS);
	check_file("ContextSave of an object");
	CU_ASSERT_EQUAL(sess_flush(&h, seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(clock_rate_adjust(1), TPM_RC_SUCCESS);
	check_file("ClockRateAdjust");
	CU_ASSERT_EQUAL(hierarchy_control(TPM_RH_ENDORSEMENT, false), TPM_RC_SUCCESS);
	check_file("HierarchyControl");
	CU_ASSERT_EQUAL(hierarchy_control(TPM_RH_ENDORSEMENT, true), TPM_RC_SUCCESS);
	check_file("HierarchyControl");
	CU_ASSERT_EQUAL(ephemeral(), TPM_RC_SUCCESS);
	check_file("EC_Ephemeral");
	/* the exclusive audit session: set by its command, ended by another's, and by its
	 * client going away */
	CU_ASSERT_EQUAL_FATAL(sess_start(&h, TPM_SE_HMAC, &s, &nonce), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_clock(s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(h.e->exclusive_audit, s);
	check_file("the first command of an audit session");
	CU_ASSERT_EQUAL(read_clock(0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(h.e->exclusive_audit, 0);
	check_file("a command outside the audit session");
	other = h.c;
	h.c = pqtpm_client_new(h.e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.c);
	CU_ASSERT_EQUAL_FATAL(sess_start(&h, TPM_SE_HMAC, &s, &nonce), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_clock(s), TPM_RC_SUCCESS);
	pqtpm_client_free(h.c);
	h.c = other;
	CU_ASSERT_EQUAL(h.e->exclusive_audit, 0);
	CU_ASSERT_EQUAL(read_clock(0), TPM_RC_SUCCESS);
	check_file("the audit session's client went");

	CU_ASSERT_EQUAL(audit_status(TPM_ALG_SHA256, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(audit_status(TPM_ALG_NULL, TPM_CC_GetRandom), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(get_random(), TPM_RC_SUCCESS);
	check_file("an audited command");
	CU_ASSERT_EQUAL(self_test(), TPM_RC_SUCCESS);
	check_file("SelfTest");
	CU_ASSERT_EQUAL_FATAL(orderly_counter(TPM_CC_NV_DefineSpace), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(orderly_counter(TPM_CC_NV_Increment), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(orderly_counter(TPM_CC_NV_Increment), TPM_RC_SUCCESS);
	check_file("NV_Increment of an orderly counter");

	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_PHYS_PRES_ON), 0);
	check_file("a signal");
	CU_ASSERT_EQUAL(su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	check_file("Shutdown(STATE)");
	power_cycle(TPM_SU_STATE);
	check_file("Startup(STATE)");
	power_cycle(TPM_SU_CLEAR);
	check_file("Startup(CLEAR)");
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
		{ "every change of the volatile state is written before the answer",
		  test_volatile_written },
	};
	int failed;

	if (setup() != 0)
		return 1;
	failed = UNIT_RUN("state_lifetimes", tests, NULL, NULL);
	return teardown() != 0 || failed;
}
