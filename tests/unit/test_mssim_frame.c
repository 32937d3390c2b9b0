/* MSSIM framing state machine: bytes in, events out; no engine, no sockets. */
#include <string.h>

#include <CUnit/Basic.h>

#include "frame.h"
#include "protocol.h"
#include "unit_main.h"

/* TPM2_GetRandom(8) */
static const uint8_t get_random[12] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x7b, 0x00, 0x08,
};

static struct mssim_frame f;
static uint8_t wire[MSSIM_FRAME_CAP + 64];

static void feed(const uint8_t *p, size_t n)
{
	size_t room;
	uint8_t *space = mssim_frame_space(&f, &room);

	CU_ASSERT_FATAL(n <= room);
	memcpy(space, p, n);
	mssim_frame_received(&f, n);
}

static size_t put_code(uint8_t *p, uint32_t code)
{
	mssim_put_u32(p, code);
	return 4;
}

static size_t put_code_u32(uint8_t *p, uint32_t code, uint32_t v)
{
	mssim_put_u32(p, code);
	mssim_put_u32(p + 4, v);
	return 8;
}

static size_t put_command(uint8_t *p, uint8_t locality, const uint8_t *cmd, uint32_t len)
{
	mssim_put_u32(p, TPM_SEND_COMMAND);
	p[4] = locality;
	mssim_put_u32(p + 5, len);
	if (len)
		memcpy(p + 9, cmd, len);
	return 9 + len;
}

static size_t put_hash_data(uint8_t *p, const uint8_t *data, uint32_t len)
{
	mssim_put_u32(p, TPM_SIGNAL_HASH_DATA);
	mssim_put_u32(p + 4, len);
	if (len)
		memcpy(p + 8, data, len);
	return 8 + len;
}

static int reply_is(const struct mssim_event *ev, uint32_t v)
{
	return ev->reply_len == 4 && mssim_get_u32(ev->reply) == v;
}

static void expect_none(void)
{
	struct mssim_event ev;

	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_NONE);
}

static void test_command_byte_by_byte(void)
{
	struct mssim_event ev;
	size_t n, i;

	mssim_frame_init(&f, MSSIM_PORT_COMMAND);
	n = put_command(wire, 3, get_random, sizeof(get_random));
	for (i = 0; i < n - 1; i++) {
		feed(wire + i, 1);
		expect_none();
		CU_ASSERT_EQUAL(mssim_frame_pending(&f), i + 1);
	}
	feed(wire + n - 1, 1);
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL_FATAL(ev.type, MSSIM_EV_COMMAND);
	CU_ASSERT_EQUAL(ev.code, TPM_SEND_COMMAND);
	CU_ASSERT_EQUAL(ev.locality, 3);
	CU_ASSERT_EQUAL_FATAL(ev.len, sizeof(get_random));
	CU_ASSERT_EQUAL(memcmp(ev.data, get_random, sizeof(get_random)), 0);
	CU_ASSERT_EQUAL(ev.problem[0], '\0');
	CU_ASSERT_EQUAL(mssim_frame_pending(&f), 0);
	expect_none();
}

static void test_two_frames_one_buffer(void)
{
	struct mssim_event ev;
	size_t n = 0, room;

	mssim_frame_init(&f, MSSIM_PORT_COMMAND);
	n += put_command(wire + n, 0, get_random, sizeof(get_random));
	n += put_command(wire + n, 1, get_random, 10);
	n += put_command(wire + n, 2, get_random, sizeof(get_random));
	feed(wire, n - 5);	/* the third frame only partly */

	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL_FATAL(ev.type, MSSIM_EV_COMMAND);
	CU_ASSERT_EQUAL(ev.locality, 0);
	CU_ASSERT_EQUAL(ev.len, 12);
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL_FATAL(ev.type, MSSIM_EV_COMMAND);
	CU_ASSERT_EQUAL(ev.locality, 1);
	CU_ASSERT_EQUAL(ev.len, 10);
	CU_ASSERT_EQUAL(memcmp(ev.data, get_random, 10), 0);
	expect_none();
	CU_ASSERT_EQUAL(mssim_frame_pending(&f), 21 - 5);

	/* The partial frame moves to the front: the whole buffer but it is free again. */
	mssim_frame_space(&f, &room);
	CU_ASSERT_EQUAL(room, MSSIM_FRAME_CAP - (21 - 5));
	feed(wire + n - 5, 5);
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL_FATAL(ev.type, MSSIM_EV_COMMAND);
	CU_ASSERT_EQUAL(ev.locality, 2);
	CU_ASSERT_EQUAL(memcmp(ev.data, get_random, sizeof(get_random)), 0);
	expect_none();
}

static void test_oversize_command(void)
{
	static const uint32_t sizes[] = { PQTPM_MAX_COMMAND_SIZE + 1, 0xffffffffu };
	struct mssim_event ev;
	size_t i;

	for (i = 0; i < 2; i++) {
		mssim_frame_init(&f, MSSIM_PORT_COMMAND);
		mssim_put_u32(wire, TPM_SEND_COMMAND);
		wire[4] = 0;
		mssim_put_u32(wire + 5, sizes[i]);
		feed(wire, 9);	/* the header alone decides */
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);
		CU_ASSERT_EQUAL(ev.reply_len, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(ev.problem, "TPM_SEND_COMMAND"));
		/* Closed for good, whatever comes next. */
		feed(wire, put_command(wire, 0, get_random, sizeof(get_random)));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);
		CU_ASSERT_EQUAL(ev.reply_len, 0);
	}
}

static void test_max_and_zero_size_command(void)
{
	static uint8_t big[PQTPM_MAX_COMMAND_SIZE];
	struct mssim_event ev;

	mssim_frame_init(&f, MSSIM_PORT_COMMAND);
	memset(big, 0xa5, sizeof(big));
	feed(wire, put_command(wire, 0, big, sizeof(big)));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL_FATAL(ev.type, MSSIM_EV_COMMAND);
	CU_ASSERT_EQUAL(ev.len, PQTPM_MAX_COMMAND_SIZE);
	CU_ASSERT_EQUAL(memcmp(ev.data, big, sizeof(big)), 0);

	/* Zero bytes is still a command: the engine answers it with an error. */
	feed(wire, put_command(wire, 0, NULL, 0));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_COMMAND);
	CU_ASSERT_EQUAL(ev.len, 0);
	expect_none();
}

static void test_unknown_code(void)
{
	static const uint32_t unknown[] = { 0, 19, 22, 99, 0xdeadbeefu };
	struct mssim_event ev;
	size_t i;
	int port;

	for (port = MSSIM_PORT_COMMAND; port <= MSSIM_PORT_PLATFORM; port++) {
		for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
			mssim_frame_init(&f, port);
			feed(wire, put_code(wire, unknown[i]));
			mssim_frame_next(&f, &ev);
			CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);
			CU_ASSERT(reply_is(&ev, MSSIM_ACK_FAIL));
			CU_ASSERT_PTR_NOT_NULL(strstr(ev.problem, "unknown code"));
		}
	}
}

static void test_handshake(void)
{
	struct mssim_event ev;

	mssim_put_u32(wire, TPM_REMOTE_HANDSHAKE);
	mssim_frame_init(&f, MSSIM_PORT_COMMAND);
	feed(wire, 4);
	expect_none();	/* the client version is still to come */
	mssim_put_u32(wire, 1);
	feed(wire, 4);
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL_FATAL(ev.type, MSSIM_EV_REPLY);
	CU_ASSERT_EQUAL_FATAL(ev.reply_len, 12);
	CU_ASSERT_EQUAL(mssim_get_u32(ev.reply), MSSIM_SERVER_VERSION);
	CU_ASSERT_EQUAL(mssim_get_u32(ev.reply + 4),
			MSSIM_EP_IN_RAW_MODE | MSSIM_EP_PLATFORM_AVAILABLE | MSSIM_EP_SUPPORTS_PP |
				MSSIM_EP_NO_FORCE_FAILURE);
	CU_ASSERT_EQUAL(mssim_get_u32(ev.reply + 8), MSSIM_ACK_OK);
	CU_ASSERT_EQUAL(ev.problem[0], '\0');

	/* The reference hangs up on client version 0. */
	feed(wire, put_code_u32(wire, TPM_REMOTE_HANDSHAKE, 0));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);
	CU_ASSERT_EQUAL(ev.reply_len, 0);

	/* Not on the platform port, but its length is known: refused, stream aligned. */
	mssim_frame_init(&f, MSSIM_PORT_PLATFORM);
	feed(wire, put_code_u32(wire, TPM_REMOTE_HANDSHAKE, 1));
	feed(wire, put_code(wire, TPM_SIGNAL_NV_ON));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_REPLY);
	CU_ASSERT(reply_is(&ev, MSSIM_ACK_FAIL));
	CU_ASSERT_PTR_NOT_NULL(strstr(ev.problem, "platform port"));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_SIGNAL);
	CU_ASSERT_EQUAL(ev.signal, PQTPM_SIGNAL_NV_ON);
}

static void test_session_end_and_stop(void)
{
	struct mssim_event ev;
	int port;

	for (port = MSSIM_PORT_COMMAND; port <= MSSIM_PORT_PLATFORM; port++) {
		mssim_frame_init(&f, port);
		feed(wire, put_code(wire, TPM_SESSION_END));
		feed(wire, put_code(wire, TPM_SIGNAL_POWER_ON));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);
		CU_ASSERT_EQUAL(ev.reply_len, 0);
		CU_ASSERT_EQUAL(ev.problem[0], '\0');
		mssim_frame_next(&f, &ev);	/* nothing after it is decoded */
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);

		mssim_frame_init(&f, port);
		feed(wire, put_code(wire, TPM_STOP));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);
		CU_ASSERT(reply_is(&ev, MSSIM_ACK_OK));
		CU_ASSERT_EQUAL(ev.problem[0], '\0');
	}
}

static void test_hash_data(void)
{
	static const uint8_t data[] = "H-CRTM measurement";
	struct mssim_event ev;
	size_t n, i;
	int port;

	for (port = MSSIM_PORT_COMMAND; port <= MSSIM_PORT_PLATFORM; port++) {
		mssim_frame_init(&f, port);
		n = put_hash_data(wire, data, sizeof(data));
		for (i = 0; i < n - 1; i++) {
			feed(wire + i, 1);
			expect_none();
		}
		feed(wire + n - 1, 1);
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL_FATAL(ev.type, MSSIM_EV_HASH_DATA);
		CU_ASSERT_EQUAL_FATAL(ev.len, sizeof(data));
		CU_ASSERT_EQUAL(memcmp(ev.data, data, sizeof(data)), 0);

		feed(wire, put_hash_data(wire, NULL, 0));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_HASH_DATA);
		CU_ASSERT_EQUAL(ev.len, 0);

		feed(wire, put_code_u32(wire, TPM_SIGNAL_HASH_DATA, PQTPM_MAX_COMMAND_SIZE + 1));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_CLOSE);
		CU_ASSERT_PTR_NOT_NULL(strstr(ev.problem, "TPM_SIGNAL_HASH_DATA"));
	}
}

static void test_platform_signals(void)
{
	static const struct { uint32_t code; enum pqtpm_signal sig; } map[] = {
		{ TPM_SIGNAL_POWER_ON, PQTPM_SIGNAL_POWER_ON },
		{ TPM_SIGNAL_POWER_OFF, PQTPM_SIGNAL_POWER_OFF },
		{ TPM_SIGNAL_PHYS_PRES_ON, PQTPM_SIGNAL_PHYS_PRES_ON },
		{ TPM_SIGNAL_PHYS_PRES_OFF, PQTPM_SIGNAL_PHYS_PRES_OFF },
		{ TPM_SIGNAL_HASH_START, PQTPM_SIGNAL_HASH_START },
		{ TPM_SIGNAL_HASH_END, PQTPM_SIGNAL_HASH_END },
		{ TPM_SIGNAL_CANCEL_ON, PQTPM_SIGNAL_CANCEL_ON },
		{ TPM_SIGNAL_CANCEL_OFF, PQTPM_SIGNAL_CANCEL_OFF },
		{ TPM_SIGNAL_NV_ON, PQTPM_SIGNAL_NV_ON },
		{ TPM_SIGNAL_NV_OFF, PQTPM_SIGNAL_NV_OFF },
		{ TPM_SIGNAL_RESET, PQTPM_SIGNAL_RESET },
	};
	const size_t count = sizeof(map) / sizeof(map[0]);
	struct mssim_event ev;
	size_t i, n = 0;

	mssim_frame_init(&f, MSSIM_PORT_PLATFORM);
	for (i = 0; i < count; i++)
		n += put_code(wire + n, map[i].code);
	feed(wire, n);
	for (i = 0; i < count; i++) {
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_SIGNAL);
		CU_ASSERT_EQUAL(ev.code, map[i].code);
		CU_ASSERT_EQUAL(ev.signal, map[i].sig);
		CU_ASSERT_EQUAL(ev.problem[0], '\0');
	}
	expect_none();
}

/* A known code on the wrong port, or one we do not support: u32 1, and the next frame is
 * still found where it starts. */
static void test_refused_codes_keep_alignment(void)
{
	static const uint32_t on_command[] = {
		TPM_SIGNAL_POWER_ON, TPM_SIGNAL_NV_ON, TPM_SIGNAL_CANCEL_ON, TPM_SIGNAL_RESET,
		TPM_SIGNAL_KEY_CACHE_ON, TPM_TEST_FAILURE_MODE,
	};
	static const uint32_t unsupported[] = {
		TPM_SIGNAL_KEY_CACHE_ON, TPM_SIGNAL_KEY_CACHE_OFF, TPM_SIGNAL_RESTART,
		TPM_GET_COMMAND_RESPONSE_SIZES, TPM_TEST_FAILURE_MODE,
	};
	static const uint32_t unsupported_u32[] = {
		TPM_ACT_GET_SIGNALED, TPM_SET_FW_HASH, TPM_SET_FW_SVN,
	};
	struct mssim_event ev;
	size_t i;

	mssim_frame_init(&f, MSSIM_PORT_COMMAND);
	for (i = 0; i < sizeof(on_command) / sizeof(on_command[0]); i++) {
		feed(wire, put_code(wire, on_command[i]));
		feed(wire, put_command(wire, 0, get_random, sizeof(get_random)));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_REPLY);
		CU_ASSERT(reply_is(&ev, MSSIM_ACK_FAIL));
		CU_ASSERT_PTR_NOT_NULL(strstr(ev.problem, "command port"));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_COMMAND);
	}
	feed(wire, put_code_u32(wire, TPM_SET_FW_SVN, 7));
	feed(wire, put_command(wire, 0, get_random, sizeof(get_random)));
	mssim_frame_next(&f, &ev);
	CU_ASSERT(ev.type == MSSIM_EV_REPLY && reply_is(&ev, MSSIM_ACK_FAIL));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_COMMAND);

	mssim_frame_init(&f, MSSIM_PORT_PLATFORM);
	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		feed(wire, put_code(wire, unsupported[i]));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_REPLY);
		CU_ASSERT(reply_is(&ev, MSSIM_ACK_FAIL));
		CU_ASSERT_PTR_NOT_NULL(strstr(ev.problem, "not supported"));
	}
	for (i = 0; i < sizeof(unsupported_u32) / sizeof(unsupported_u32[0]); i++) {
		feed(wire, put_code(wire, unsupported_u32[i]));
		expect_none();	/* waits for its u32 */
		mssim_put_u32(wire, TPM_SIGNAL_POWER_ON);	/* looks like a code: it is not */
		feed(wire, 4);
		feed(wire, put_code(wire, TPM_SIGNAL_POWER_OFF));
		mssim_frame_next(&f, &ev);
		CU_ASSERT(ev.type == MSSIM_EV_REPLY && reply_is(&ev, MSSIM_ACK_FAIL));
		mssim_frame_next(&f, &ev);
		CU_ASSERT_EQUAL(ev.type, MSSIM_EV_SIGNAL);
		CU_ASSERT_EQUAL(ev.signal, PQTPM_SIGNAL_POWER_OFF);
	}
	/* A whole TPM command sent to the platform port is skipped as one frame. */
	feed(wire, put_command(wire, 0, get_random, sizeof(get_random)));
	feed(wire, put_code(wire, TPM_SIGNAL_NV_OFF));
	mssim_frame_next(&f, &ev);
	CU_ASSERT(ev.type == MSSIM_EV_REPLY && reply_is(&ev, MSSIM_ACK_FAIL));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_SIGNAL);
	CU_ASSERT_EQUAL(ev.signal, PQTPM_SIGNAL_NV_OFF);
	expect_none();
}

static void test_set_alternative_result(void)
{
	struct mssim_event ev;

	mssim_frame_init(&f, MSSIM_PORT_COMMAND);
	feed(wire, put_code_u32(wire, TPM_SET_ALTERNATIVE_RESULT, 5));
	mssim_frame_next(&f, &ev);
	CU_ASSERT_EQUAL(ev.type, MSSIM_EV_REPLY);
	CU_ASSERT(reply_is(&ev, MSSIM_ACK_OK));
	CU_ASSERT_EQUAL(mssim_frame_pending(&f), 0);
	expect_none();
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "command fed byte by byte", test_command_byte_by_byte },
		{ "two frames and a partial one in one buffer", test_two_frames_one_buffer },
		{ "declared size above the maximum closes", test_oversize_command },
		{ "largest and zero-length commands", test_max_and_zero_size_command },
		{ "unknown code: reply 1 and close", test_unknown_code },
		{ "remote handshake", test_handshake },
		{ "session end and stop", test_session_end_and_stop },
		{ "hash data", test_hash_data },
		{ "platform signals map to engine signals", test_platform_signals },
		{ "refused codes keep the stream aligned", test_refused_codes_keep_alignment },
		{ "set alternative result is a no-op", test_set_alternative_result },
	};

	return UNIT_RUN("mssim_frame", tests, NULL, NULL);
}
