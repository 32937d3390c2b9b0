/* One TPM per state directory: the owner lock, the owner's socket (through the client
 * library's unix: transport and raw frames), the volatile state across engines, a damaged
 * volatile file, and the log handler. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <pqtpm/tss.h>

#include "engine_int.h"
#include "harness.h"
#include "unit_main.h"

#define PCR 16
#define SLOT_SIZE 65536 /* state/volatile.c */
#define SLOT_SEQ_AT 12	/* after the magic and the version */

static char root[40];
static char dir[64];
static char sock[160];

static int setup(void)
{
	snprintf(root, sizeof(root), "/tmp/pqtpm-test-owner-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof(dir), "%s/state", root);
	snprintf(sock, sizeof(sock), "unix:%s/%s", dir, PQTPM_SOCKET_NAME);
	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	return 0;
}

static int teardown(void)
{
	return harness_rm_tree(root) != 0;
}

static struct pqtpm_engine *open_dir(char *err, size_t errlen, int *rc)
{
	struct pqtpm_engine_config cfg = { .state_dir = dir, .auto_startup = 1,
					   .log_level = PQTPM_LOG_ERROR };
	struct pqtpm_engine *e = NULL;

	*rc = pqtpm_engine_open(&e, &cfg, err, errlen);
	return *rc == 0 ? e : NULL;
}

static struct pqtpm_engine *must_open(void)
{
	char err[512];
	int rc;
	struct pqtpm_engine *e = open_dir(err, sizeof(err), &rc);

	if (!e)
		fprintf(stderr, "open: %s\n", err);
	CU_ASSERT_FATAL(e != NULL);
	return e;
}

static TPM_RC extend(struct pqtpm_tss *t, const uint8_t d[32])
{
	return pqtpm_tss_pcr_extend(t, PCR, TPM_ALG_SHA256, d, 32);
}

static void read_pcr(struct pqtpm_tss *t, uint8_t out[32])
{
	size_t len = 0;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_pcr_read(t, TPM_ALG_SHA256, 1u << PCR, out, 32, &len),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(len, 32);
}

/* value = SHA-256(value || d) */
static void chain(uint8_t value[32], const uint8_t d[32])
{
	uint8_t both[64];

	memcpy(both, value, 32);
	memcpy(both + 32, d, 32);
	CU_ASSERT_FATAL(crypto_hash(TPM_ALG_SHA256, both, sizeof(both), value) == TPM_RC_SUCCESS);
}

static void test_second_open_busy(void)
{
	struct pqtpm_engine *a = must_open(), *b;
	char err[512], pid[32];
	int rc;

	b = open_dir(err, sizeof(err), &rc);
	CU_ASSERT_PTR_NULL(b);
	CU_ASSERT_EQUAL(rc, -EBUSY);
	snprintf(pid, sizeof(pid), "process %d", (int)getpid());
	CU_ASSERT_PTR_NOT_NULL(strstr(err, pid));
	pqtpm_engine_close(a);
	b = must_open();
	pqtpm_engine_close(b);
}

/* The owner and a client of its socket see one PCR. */
static void test_socket_client_shares_pcrs(void)
{
	struct pqtpm_engine *e = must_open();
	struct pqtpm_tss *owner, *client;
	uint8_t d1[32], d2[32], want[32], got[32];

	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&owner, e) == 0);
	CU_ASSERT_FATAL(pqtpm_tss_open_tcti(&client, sock) == 0);
	CU_ASSERT_EQUAL(pqtpm_tss_power_on(client), 0);
	read_pcr(owner, want);
	memset(d1, 0x11, sizeof(d1));
	memset(d2, 0x22, sizeof(d2));
	CU_ASSERT_EQUAL(extend(client, d1), TPM_RC_SUCCESS);
	chain(want, d1);
	read_pcr(owner, got);
	CU_ASSERT(memcmp(got, want, 32) == 0);
	CU_ASSERT_EQUAL(extend(owner, d2), TPM_RC_SUCCESS);
	chain(want, d2);
	read_pcr(client, got);
	CU_ASSERT(memcmp(got, want, 32) == 0);
	pqtpm_tss_close(client);
	pqtpm_tss_close(owner);
	pqtpm_engine_close(e);
}

/* After close and a new open: PCRs, a saved session context and resetCount as they were. */
static void test_volatile_restored(void)
{
	struct pqtpm_engine *e = must_open();
	struct pqtpm_tss *t;
	struct pqtpm_tss_saved saved;
	struct pqtpm_tss_digest nonce;
	TPM_HANDLE s, loaded;
	uint8_t d[32], before[32], after[32];
	uint32_t resets;

	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&t, e) == 0);
	memset(d, 0x33, sizeof(d));
	CU_ASSERT_EQUAL(extend(t, d), TPM_RC_SUCCESS);
	read_pcr(t, before);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_start_auth_session(t, TPM_SE_HMAC, TPM_ALG_SHA256, &s,
							   &nonce),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_context_save(t, s, &saved), TPM_RC_SUCCESS);
	resets = e->ps.reset_count;
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);

	e = must_open();
	CU_ASSERT(e->started);
	CU_ASSERT_EQUAL(e->ps.reset_count, resets);
	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&t, e) == 0);
	read_pcr(t, after);
	CU_ASSERT(memcmp(before, after, 32) == 0);
	CU_ASSERT_EQUAL(pqtpm_tss_context_load(t, &saved, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, loaded), TPM_RC_SUCCESS);
	pqtpm_tss_close(t);
	/* a power cycle is a TPM Reset: PCRs back to zero, resetCount + 1 */
	CU_ASSERT_EQUAL(pqtpm_engine_signal(e, PQTPM_SIGNAL_RESET), 0);
	pqtpm_engine_close(e);
	e = must_open();
	CU_ASSERT_EQUAL(e->ps.reset_count, resets + 1);
	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&t, e) == 0);
	read_pcr(t, after);
	memset(before, 0, sizeof(before));
	CU_ASSERT(memcmp(before, after, 32) == 0);
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
}

static uint64_t slot_seq(int fd, int slot)
{
	uint8_t b[8];
	uint64_t v = 0;

	CU_ASSERT_FATAL(pread(fd, b, 8, (off_t)slot * SLOT_SIZE + SLOT_SEQ_AT) == 8);
	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static void flip(int fd, int slot)
{
	uint8_t b;
	off_t at = (off_t)slot * SLOT_SIZE + 100; /* inside the body */

	CU_ASSERT_FATAL(pread(fd, &b, 1, at) == 1);
	b ^= 0x5a;
	CU_ASSERT_FATAL(pwrite(fd, &b, 1, at) == 1);
}

/* A torn newest slot: the other one is used (one write older: the same PCRs, written before
 * the extend's answer; the close's own write is lost, so Clock is no longer safe). Both
 * slots damaged: refused, naming the file. */
static void test_damaged_volatile(void)
{
	struct pqtpm_engine *e = must_open();
	struct pqtpm_tss *t;
	char path[256], err[512];
	uint8_t d[32], before[32], after[32];
	int fd, rc, newest;

	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&t, e) == 0);
	memset(d, 0x44, sizeof(d));
	CU_ASSERT_EQUAL(extend(t, d), TPM_RC_SUCCESS);
	read_pcr(t, before);
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);

	snprintf(path, sizeof(path), "%s/pqtpm.volatile", dir);
	fd = open(path, O_RDWR);
	CU_ASSERT_FATAL(fd >= 0);
	newest = slot_seq(fd, 1) > slot_seq(fd, 0);
	flip(fd, newest);
	e = must_open();
	CU_ASSERT(e->started);
	CU_ASSERT(!e->ps.clock_safe);
	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&t, e) == 0);
	read_pcr(t, after);
	CU_ASSERT(memcmp(before, after, 32) == 0);
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);

	flip(fd, 0);
	flip(fd, 1);
	CU_ASSERT_PTR_NULL(open_dir(err, sizeof(err), &rc));
	CU_ASSERT_EQUAL(rc, -EBADMSG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	close(fd);
	/* as the message says: without the file the TPM comes up afresh (powered, started) */
	CU_ASSERT_FATAL(unlink(path) == 0);
	e = must_open();
	CU_ASSERT(e->started);
	pqtpm_engine_close(e);
}

/* A state file moved aside makes a new TPM: the volatile state of the old one is not used. */
static void test_new_state_file(void)
{
	struct pqtpm_engine *e = must_open();
	struct pqtpm_tss *t;
	char path[256];
	uint8_t d[32], zero[32] = { 0 }, got[32];

	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&t, e) == 0);
	memset(d, 0x55, sizeof(d));
	CU_ASSERT_EQUAL(extend(t, d), TPM_RC_SUCCESS);
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
	snprintf(path, sizeof(path), "%s/pqtpm.state", dir);
	CU_ASSERT_FATAL(unlink(path) == 0);
	e = must_open();
	CU_ASSERT_EQUAL(e->ps.reset_count, 1);
	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&t, e) == 0);
	read_pcr(t, got);
	CU_ASSERT(memcmp(got, zero, 32) == 0);
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
}

static int raw_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	CU_ASSERT_FATAL(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, PQTPM_SOCKET_NAME);
	CU_ASSERT_FATAL(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	return fd;
}

/* The server ends this connection: the next read sees end of file. */
static void check_closed(int fd)
{
	uint8_t b[16];

	CU_ASSERT_EQUAL(recv(fd, b, sizeof(b), 0), 0);
	close(fd);
}

static void send_frame(int fd, uint8_t kind, uint8_t arg, uint32_t len, const void *body,
		       size_t body_len)
{
	uint8_t b[64];
	struct wr w;

	wr_init(&w, b, sizeof(b));
	wr_u8(&w, kind);
	wr_u8(&w, arg);
	wr_u32(&w, len);
	wr_bytes(&w, body, body_len);
	CU_ASSERT_FATAL(send(fd, b, w.off, MSG_NOSIGNAL) == (ssize_t)w.off);
}

/* Bad frames end their own connection; a client of the socket meanwhile works throughout. */
static void test_malformed_frames(void)
{
	static const uint8_t get_random[] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7b, 0, 8 };
	struct pqtpm_engine *e = must_open();
	struct pqtpm_tss *good;
	uint8_t d[32] = { 0 }, buf[16];
	int fd;

	CU_ASSERT_FATAL(pqtpm_tss_open_tcti(&good, sock) == 0);
	fd = raw_connect(); /* longer than any command */
	send_frame(fd, PQTPM_FRAME_COMMAND, 0, PQTPM_MAX_COMMAND_SIZE + 1, NULL, 0);
	check_closed(fd);
	CU_ASSERT_EQUAL(extend(good, d), TPM_RC_SUCCESS);
	fd = raw_connect(); /* an unknown kind */
	send_frame(fd, 7, 0, 0, NULL, 0);
	check_closed(fd);
	fd = raw_connect(); /* a signal with bytes */
	send_frame(fd, PQTPM_FRAME_SIGNAL, PQTPM_SIGNAL_POWER_ON, 2, "ab", 2);
	check_closed(fd);
	CU_ASSERT_EQUAL(extend(good, d), TPM_RC_SUCCESS);
	fd = raw_connect(); /* a short frame, then gone */
	send_frame(fd, PQTPM_FRAME_COMMAND, 0, sizeof(get_random), get_random, 4);
	CU_ASSERT_EQUAL(shutdown(fd, SHUT_WR), 0);
	check_closed(fd);
	fd = raw_connect(); /* a whole command, gone before its answer */
	send_frame(fd, PQTPM_FRAME_COMMAND, 0, sizeof(get_random), get_random,
		   sizeof(get_random));
	close(fd);
	fd = raw_connect(); /* an unknown signal: an answer (-EINVAL), the connection stays */
	send_frame(fd, PQTPM_FRAME_SIGNAL, 200, 0, NULL, 0);
	CU_ASSERT_EQUAL(recv(fd, buf, 8, MSG_WAITALL), 8);
	CU_ASSERT(buf[3] == 4 && buf[7] == (uint8_t)-EINVAL);
	send_frame(fd, PQTPM_FRAME_COMMAND, 0, sizeof(get_random), get_random,
		   sizeof(get_random));
	CU_ASSERT_EQUAL(recv(fd, buf, 4, MSG_WAITALL), 4);
	CU_ASSERT_EQUAL(buf[3], 10 + 2 + 8);
	close(fd);
	CU_ASSERT_EQUAL(extend(good, d), TPM_RC_SUCCESS);
	pqtpm_tss_close(good);
	pqtpm_engine_close(e);
}

struct captured {
	enum pqtpm_log_level level;
	char msg[128];
	int n;
};

static void capture(void *arg, enum pqtpm_log_level level, const char *msg)
{
	struct captured *c = arg;

	c->level = level;
	snprintf(c->msg, sizeof(c->msg), "%s", msg);
	c->n++;
}

static void test_log_handler(void)
{
	struct captured c = { .n = 0 };

	pqtpm_log_set_handler(capture, &c);
	pqtpm_log(PQTPM_LOG_ERROR, "one %d", 1);
	pqtpm_log(PQTPM_LOG_DEBUG, "below the level");
	pqtpm_log_set_handler(NULL, NULL);
	pqtpm_log(PQTPM_LOG_ERROR, "to stderr again");
	CU_ASSERT_EQUAL(c.n, 1);
	CU_ASSERT_EQUAL(c.level, PQTPM_LOG_ERROR);
	CU_ASSERT_STRING_EQUAL(c.msg, "one 1");
}

/* A state directory deeper than a socket name may be (sun_path: 107 bytes): the owner still
 * serves it, a second opener still names the owner, and unix: and embedded: clients reach it. */
static void test_deep_directory(void)
{
	struct pqtpm_engine_config cfg = { .auto_startup = 1, .log_level = PQTPM_LOG_ERROR };
	char deep[512], tcti[600], err[512], pid[32];
	struct pqtpm_engine *e = NULL, *b = NULL;
	struct pqtpm_tss *owner, *client, *embedded;
	uint8_t d[32], want[32], got[32];

	snprintf(deep, sizeof(deep), "%s/%0150d/state", root, 0);
	CU_ASSERT_FATAL(strlen(deep) + sizeof(PQTPM_SOCKET_NAME) >
			sizeof(((struct sockaddr_un *)0)->sun_path));
	cfg.state_dir = deep;
	CU_ASSERT_FATAL(pqtpm_engine_open(&e, &cfg, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(pqtpm_engine_open(&b, &cfg, err, sizeof(err)), -EBUSY);
	snprintf(pid, sizeof(pid), "process %d", (int)getpid());
	CU_ASSERT_PTR_NOT_NULL(strstr(err, pid));
	CU_ASSERT_FATAL(pqtpm_tss_open_engine(&owner, e) == 0);
	snprintf(tcti, sizeof(tcti), "unix:%s/%s", deep, PQTPM_SOCKET_NAME);
	CU_ASSERT_FATAL(pqtpm_tss_open_tcti(&client, tcti) == 0);
	snprintf(tcti, sizeof(tcti), "embedded:%s", deep);
	CU_ASSERT_FATAL(pqtpm_tss_open_tcti(&embedded, tcti) == 0);
	read_pcr(owner, want);
	memset(d, 0x33, sizeof(d));
	CU_ASSERT_EQUAL(extend(client, d), TPM_RC_SUCCESS);
	chain(want, d);
	CU_ASSERT_EQUAL(extend(embedded, d), TPM_RC_SUCCESS);
	chain(want, d);
	read_pcr(owner, got);
	CU_ASSERT(memcmp(got, want, 32) == 0);
	pqtpm_tss_close(embedded);
	pqtpm_tss_close(client);
	pqtpm_tss_close(owner);
	pqtpm_engine_close(e);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "a second open is refused, naming the owner", test_second_open_busy },
		{ "a socket client and the owner share PCRs", test_socket_client_shares_pcrs },
		{ "volatile state survives the owner", test_volatile_restored },
		{ "a damaged volatile file", test_damaged_volatile },
		{ "a new state file is a new TPM", test_new_state_file },
		{ "malformed frames end their connection only", test_malformed_frames },
		{ "log handler", test_log_handler },
		{ "a directory deeper than a socket name", test_deep_directory },
	};

	if (setup())
		return 1;
	int rc = UNIT_RUN("owner", tests, NULL, NULL);

	return teardown() || rc;
}
