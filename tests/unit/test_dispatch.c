/* Dispatch (core/dispatch.c, core/auth.c): header checks, handle checks, password
 * authorization, response codes with their parameter/handle/session numbers. */
#include <string.h>

#include <CUnit/Basic.h>

#include "harness.h"
#include "unit_main.h"

static struct harness h;

static TPM_RC raw(const uint8_t *cmd, size_t len)
{
	uint8_t out[PQTPM_MAX_RESPONSE_SIZE];
	size_t outlen;

	return harness_raw(&h, cmd, len, out, &outlen);
}

static void test_header(void)
{
	/* GetRandom(8) */
	uint8_t ok[] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7b, 0, 8 };
	uint8_t cmd[sizeof(ok) + 4];

	CU_ASSERT_EQUAL(raw(ok, sizeof(ok)), TPM_RC_SUCCESS);

	memcpy(cmd, ok, sizeof(ok));
	cmd[1] = 0x03; /* TPM_ST_RSP_COMMAND / nonsense tag */
	CU_ASSERT_EQUAL(raw(cmd, sizeof(ok)), TPM_RC_BAD_TAG);

	memcpy(cmd, ok, sizeof(ok));
	cmd[5] = 13; /* declared size larger than received */
	CU_ASSERT_EQUAL(raw(cmd, sizeof(ok)), TPM_RC_COMMAND_SIZE);
	cmd[5] = 11; /* smaller */
	CU_ASSERT_EQUAL(raw(cmd, sizeof(ok)), TPM_RC_COMMAND_SIZE);

	CU_ASSERT_EQUAL(raw(cmd, 0), TPM_RC_BAD_TAG);
	CU_ASSERT_EQUAL(raw(ok, 6), TPM_RC_COMMAND_SIZE);

	memcpy(cmd, ok, sizeof(ok));
	cmd[8] = 0x7f; /* command code 0x7f7b does not exist */
	CU_ASSERT_EQUAL(raw(cmd, sizeof(ok)), TPM_RC_COMMAND_CODE);

	/* garbage after the parameters */
	memcpy(cmd, ok, sizeof(ok));
	cmd[5] = 14;
	cmd[12] = cmd[13] = 0xAA;
	CU_ASSERT_EQUAL(raw(cmd, 14), TPM_RC_SIZE);

	/* a parameter cut short */
	memcpy(cmd, ok, sizeof(ok));
	cmd[5] = 11;
	CU_ASSERT_EQUAL(raw(cmd, 11), TPM_RC_INSUFFICIENT | TPM_RC_P | TPM_RC_1);
}

static void test_startup_twice(void)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_INITIALIZE);
}

static void test_handles(void)
{
	struct cmdbuf b;

	/* ReadPublic of a transient handle that is not loaded: a warning with the handle */
	cmd_begin(&b, TPM_CC_ReadPublic);
	cmd_handle(&b, 0x80FFFFF0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_REFERENCE_H0);

	/* a hierarchy where an object must be */
	cmd_begin(&b, TPM_CC_ReadPublic);
	cmd_handle(&b, TPM_RH_OWNER);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_VALUE | TPM_RC_1);

	/* a persistent handle that does not exist */
	cmd_begin(&b, TPM_CC_ReadPublic);
	cmd_handle(&b, 0x81000123);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_HANDLE | TPM_RC_1);

	/* PCR 24 does not exist */
	cmd_begin(&b, TPM_CC_PCR_Reset);
	cmd_handle(&b, 24);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_VALUE | TPM_RC_1);
}

static TPM_RC change_owner_auth(const char *old, const char *new)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, old);
	wr_tpm2b(&b.params, new, (uint16_t)strlen(new));
	return harness_run(&h, &b, NULL, NULL);
}

static void test_password(void)
{
	struct cmdbuf b;

	CU_ASSERT_EQUAL(change_owner_auth("", "owner"), TPM_RC_SUCCESS);
	/* wrong password: TPM_RC_AUTH_FAIL for session 1 */
	CU_ASSERT_EQUAL(change_owner_auth("nope", "x"), TPM_RC_BAD_AUTH | TPM_RC_S | TPM_RC_1);
	/* trailing zeros do not count (Part 1 §19.6.4) */
	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw_bytes(&b, (const uint8_t *)"owner\0\0", 7);
	wr_tpm2b(&b.params, "", 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);

	/* no authorization area on a command that needs one */
	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_tpm2b(&b.params, "", 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_AUTH_MISSING);

	/* a password session with a nonce */
	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_u32(&b.auth, TPM_RS_PW);
	wr_tpm2b(&b.auth, "n", 1);
	wr_u8(&b.auth, 0);
	wr_u16(&b.auth, 0);
	b.nauth = 1;
	wr_tpm2b(&b.params, "", 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_NONCE | TPM_RC_S | TPM_RC_1);

	/* a session handle that is not loaded */
	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_u32(&b.auth, 0x02000077);
	wr_tpm2b(&b.auth, "0123456789abcdef", 16);
	wr_u8(&b.auth, 1);
	wr_u16(&b.auth, 0);
	b.nauth = 1;
	wr_tpm2b(&b.params, "", 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_REFERENCE_S0);

	/* authSize larger than what follows */
	{
		uint8_t cmd[64];
		size_t n;

		cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
		cmd_handle(&b, TPM_RH_OWNER);
		cmd_auth_pw(&b, "");
		wr_tpm2b(&b.params, "", 0);
		n = cmd_bytes(&b, cmd, sizeof(cmd));
		cmd[17] = 0x40; /* authorizationSize low byte */
		CU_ASSERT_EQUAL(raw(cmd, n), TPM_RC_AUTHSIZE);
	}
}

static void test_hierarchy_control(void)
{
	struct cmdbuf b;

	/* the owner may disable its own hierarchy but not enable it */
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_ENDORSEMENT);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_AUTH_TYPE);

	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_OWNER);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	/* now the owner hierarchy is disabled */
	CU_ASSERT_EQUAL(change_owner_auth("", "x"), TPM_RC_HIERARCHY | TPM_RC_1);

	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_OWNER);
	wr_u8(&b.params, 2);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_VALUE | TPM_RC_P | TPM_RC_2);
	b.param_buf[4] = 1;
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(change_owner_auth("", ""), TPM_RC_SUCCESS);
}

static void test_clear(void)
{
	struct cmdbuf b;

	CU_ASSERT_EQUAL(change_owner_auth("", "secret"), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_ClearControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, 1);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);

	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_DISABLED);

	cmd_begin(&b, TPM_CC_ClearControl);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, 0); /* lockout may not enable Clear again */
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_AUTH_FAIL);

	cmd_begin(&b, TPM_CC_ClearControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);

	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	/* owner auth is empty again */
	CU_ASSERT_EQUAL(change_owner_auth("", ""), TPM_RC_SUCCESS);
}

static void test_shutdown(void)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Shutdown);
	wr_u16(&b.params, 7);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_VALUE | TPM_RC_P | TPM_RC_1);
	cmd_begin(&b, TPM_CC_Shutdown);
	wr_u16(&b.params, TPM_SU_STATE);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	/* power cycle; Startup(STATE) is now a TPM Resume */
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 8);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_INITIALIZE);
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_STATE);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	/* no orderly shutdown this time: Startup(STATE) is refused */
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_VALUE | TPM_RC_P | TPM_RC_1);
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "header checks", test_header },
		{ "repeated Startup", test_startup_twice },
		{ "handle checks", test_handles },
		{ "password authorization", test_password },
		{ "HierarchyControl", test_hierarchy_control },
		{ "Clear and ClearControl", test_clear },
		{ "Shutdown and Startup", test_shutdown },
	};
	int failed;

	harness_open(&h);
	failed = UNIT_RUN("dispatch", tests, NULL, NULL);
	harness_close(&h);
	return failed;
}
