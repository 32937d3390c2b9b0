/* Bad input against a running pqtpm-server, while a good client keeps being served.
 *
 *   mssim_badinput HOST PORT        (the platform port is PORT + 1)
 *
 * One connection does valid GetRandom round trips between every bad case; another sits on a
 * half-sent frame the whole time and finishes it at the end. The bad cases include more
 * connections than the server's cap. Prints one `ok   ` or `FAIL ` line per check (as
 * tests/integration/lib.sh does), then `N passed, M failed`; exits 0 only if nothing failed
 * (2 for a usage error). Every socket has a 5 s timeout, so a server that hangs fails the run
 * instead of blocking it.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define SEND_COMMAND 8
#define SIGNAL_POWER_ON 1
#define SIGNAL_NV_ON 11
#define SIGNAL_HASH_DATA 6
#define REMOTE_HANDSHAKE 15
#define MAX_COMMAND 8192u	/* PQTPM_MAX_COMMAND_SIZE */
#define MAX_CONNS 256		/* the server's cap over both ports (MSSIM_MAX_CONNS) */
#define TPM_RC_INITIALIZE 0x100u

/* TPM2_GetRandom(8) and TPM2_Startup(CLEAR) */
static const uint8_t get_random[12] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x7b, 0x00, 0x08,
};
static const uint8_t startup_clear[12] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x44, 0x00, 0x00,
};

static const char *host;
static unsigned port;
static int passed, failed;

__attribute__((format(printf, 2, 3)))
static int check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s", ok ? "ok   " : "FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
	return ok;
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* An MSSIM TPM_SEND_COMMAND frame declaring size bytes, carrying len of cmd. */
static size_t command_frame(uint8_t *p, uint32_t size, const uint8_t *cmd, size_t len)
{
	put_u32(p, SEND_COMMAND);
	p[4] = 0;
	put_u32(p + 5, size);
	if (len)
		memcpy(p + 9, cmd, len);
	return 9 + len;
}

static int connect_to(unsigned to_port)
{
	struct timeval tv = { .tv_sec = 5 };
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res;
	char serv[16];
	int fd, one = 1;

	snprintf(serv, sizeof(serv), "%u", to_port);
	if (getaddrinfo(host, serv, &hints, &res) != 0)
		return -1;
	fd = socket(res->ai_family, SOCK_STREAM, 0);
	if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
			connect(fd, res->ai_addr, res->ai_addrlen) < 0)) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static int send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int recv_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Closes fd; with reset, by RST instead of FIN. */
static void hang_up(int fd, int reset)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (reset)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Waits for the server to close fd. Returns the number of bytes it sent first (copied into
 * got, at most cap), or -1 if it did not close within the timeout. */
static int wait_closed(int fd, uint8_t *got, size_t cap)
{
	uint8_t buf[64];
	size_t total = 0;
	ssize_t n;
	int i;

	for (i = 0; i < 16; i++) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return (int)total;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (total + n <= cap)
			memcpy(got + total, buf, n);
		total += n;
	}
	return -1;
}

/* Reads one TPM_SEND_COMMAND reply: u32 size, response, u32 0. Returns the TPM response
 * code, or -1 if the reply is not well formed. */
static int64_t read_reply(int fd, uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	uint8_t word[4];
	uint32_t size;

	if (recv_all(fd, word, 4) < 0)
		return -1;
	size = get_u32(word);
	if (size < 10 || size > cap || recv_all(fd, rsp, size) < 0 || recv_all(fd, word, 4) < 0)
		return -1;
	if (get_u32(word) != 0 || get_u32(rsp + 2) != size)
		return -1;
	*rsp_len = size;
	return get_u32(rsp + 6);
}

static int64_t transact(int fd, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
			size_t *rsp_len)
{
	uint8_t frame[64];

	if (send_all(fd, frame, command_frame(frame, len, cmd, len)) < 0)
		return -1;
	return read_reply(fd, rsp, cap, rsp_len);
}

/* A GetRandom(8) round trip that succeeds with 8 bytes. */
static int get_random_ok(int fd)
{
	uint8_t rsp[MAX_COMMAND];
	size_t len = 0;

	return transact(fd, get_random, sizeof(get_random), rsp, sizeof(rsp), &len) == 0 &&
	       len == 20 && rsp[10] == 0 && rsp[11] == 8;
}

static int good = -1;

static void still_serving(const char *after)
{
	check(get_random_ok(good), "good client served after %s", after);
}

static int signal_reply(int fd, uint32_t code)
{
	uint8_t buf[4];

	put_u32(buf, code);
	if (send_all(fd, buf, 4) < 0 || recv_all(fd, buf, 4) < 0)
		return -1;
	return (int)get_u32(buf);
}

static int setup(void)
{
	uint8_t rsp[MAX_COMMAND];
	size_t len;
	int64_t rc;
	int plat;

	plat = connect_to(port + 1);
	if (!check(plat >= 0, "connect to the platform port %u", port + 1))
		return -1;
	check(signal_reply(plat, SIGNAL_POWER_ON) == 0, "TPM_SIGNAL_POWER_ON answered 0");
	check(signal_reply(plat, SIGNAL_NV_ON) == 0, "TPM_SIGNAL_NV_ON answered 0");
	close(plat);

	good = connect_to(port);
	if (!check(good >= 0, "connect to the command port %u", port))
		return -1;
	rc = transact(good, startup_clear, sizeof(startup_clear), rsp, sizeof(rsp), &len);
	check(rc == 0 || rc == TPM_RC_INITIALIZE, "Startup(CLEAR) (rc 0x%llx)", (long long)rc);
	still_serving("startup");
	return 0;
}

/* A client gone at every byte of a GetRandom frame, by FIN and by RST, and one gone before
 * reading its response. */
static void disconnects(void)
{
	uint8_t frame[64];
	size_t n = command_frame(frame, sizeof(get_random), get_random, sizeof(get_random));
	size_t off;
	int reset, fd, ok = 1;

	for (reset = 0; reset <= 1; reset++) {
		for (off = 0; off <= n; off++) {
			fd = connect_to(port);
			if (fd < 0 || (off && send_all(fd, frame, off) < 0)) {
				ok = 0;
				if (fd >= 0)
					close(fd);
				continue;
			}
			hang_up(fd, reset);
			if (!get_random_ok(good)) {
				check(0, "good client served after a %s at byte %zu",
				      reset ? "reset" : "close", off);
				return;
			}
		}
	}
	check(ok, "clients closing or resetting at every byte of a %zu-byte frame", n);
	still_serving("every disconnect offset");
}

/* Connects, sends len bytes of p and goes away; the good client must not notice. */
static void send_and_leave(unsigned to_port, const uint8_t *p, size_t len, const char *what)
{
	int fd = connect_to(to_port);

	check(fd >= 0 && send_all(fd, p, len) == 0, "send %s, then close", what);
	if (fd >= 0)
		close(fd);
	still_serving(what);
}

static void truncated_frames(void)
{
	uint8_t frame[64];

	put_u32(frame, REMOTE_HANDSHAKE);
	send_and_leave(port, frame, 4, "a handshake without its version");
	command_frame(frame, sizeof(get_random), get_random, sizeof(get_random));
	send_and_leave(port, frame, 5, "a command header cut after the locality");
	send_and_leave(port, frame, 9, "a command header without its command");
	command_frame(frame, 100, get_random, sizeof(get_random));
	send_and_leave(port, frame, 9 + sizeof(get_random),
		       "a frame declaring 100 bytes, carrying 12");
	put_u32(frame, SIGNAL_HASH_DATA);
	put_u32(frame + 4, 100);
	memset(frame + 8, 0, 10);
	send_and_leave(port + 1, frame, 18, "hash data declaring 100 bytes, carrying 10");
}

static void oversize(void)
{
	static const uint32_t sizes[] = { MAX_COMMAND + 1, 0x7fffffffu, 0xffffffffu };
	uint8_t frame[64], got[16];
	size_t i;
	int fd, n;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fd = connect_to(port);
		if (!check(fd >= 0, "connect for size %u", sizes[i]))
			continue;
		command_frame(frame, sizes[i], NULL, 0);
		n = send_all(fd, frame, 9) == 0 ? wait_closed(fd, got, sizeof(got)) : -1;
		check(n == 0, "declared size %u: dropped without a reply (got %d)", sizes[i], n);
		close(fd);
		still_serving("an oversize declared size");
	}

	fd = connect_to(port + 1);
	if (check(fd >= 0, "connect to the platform port")) {
		put_u32(frame, SIGNAL_HASH_DATA);
		put_u32(frame + 4, 0xffffffffu);
		n = send_all(fd, frame, 8) == 0 ? wait_closed(fd, got, sizeof(got)) : -1;
		check(n == 0, "hash data of 0xffffffff bytes: dropped (got %d)", n);
		close(fd);
	}
	still_serving("an oversize hash data");
}

static void zero_length_command(void)
{
	uint8_t frame[16], rsp[MAX_COMMAND];
	size_t len = 0;
	int64_t rc;
	int fd;

	fd = connect_to(port);
	if (!check(fd >= 0, "connect for a zero-length command"))
		return;
	rc = send_all(fd, frame, command_frame(frame, 0, NULL, 0)) == 0 ?
		     read_reply(fd, rsp, sizeof(rsp), &len) : -1;
	check(rc > 0 && len == 10, "zero-length command: a 10-byte TPM error and ack (rc 0x%llx, "
				   "%zu bytes)", (long long)rc, len);
	check(get_random_ok(fd), "the same connection serves GetRandom afterwards");
	close(fd);
	still_serving("a zero-length command");
}

/* Frames that are well formed for MSSIM but carry a bad TPM command: the engine answers. */
static void bad_tpm_commands(void)
{
	uint8_t cmd[32], rsp[MAX_COMMAND];
	size_t len = 0;
	int64_t rc;
	int fd;

	fd = connect_to(port);
	if (!check(fd >= 0, "connect for bad TPM commands"))
		return;
	memset(cmd, 0xff, 12);
	rc = transact(fd, cmd, 12, rsp, sizeof(rsp), &len);
	check(rc > 0, "12 bytes of 0xff: a TPM error (rc 0x%llx)", (long long)rc);
	memcpy(cmd, get_random, sizeof(get_random));
	memset(cmd + 12, 0, 8);
	rc = transact(fd, cmd, 20, rsp, sizeof(rsp), &len);
	check(rc > 0, "GetRandom with 8 bytes beyond its header's size: a TPM error (rc 0x%llx)",
	      (long long)rc);
	rc = transact(fd, get_random, 11, rsp, sizeof(rsp), &len);
	check(rc > 0, "GetRandom cut by one byte: a TPM error (rc 0x%llx)", (long long)rc);
	check(get_random_ok(fd), "the same connection serves GetRandom afterwards");
	close(fd);
	still_serving("bad TPM commands");
}

static void garbage_after_command(void)
{
	static const uint8_t garbage[] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03 };
	uint8_t frame[64], rsp[MAX_COMMAND], got[16];
	size_t n, len = 0;
	int64_t rc;
	int fd, m;

	fd = connect_to(port);
	if (!check(fd >= 0, "connect for garbage after a command"))
		return;
	n = command_frame(frame, sizeof(get_random), get_random, sizeof(get_random));
	memcpy(frame + n, garbage, sizeof(garbage));
	rc = send_all(fd, frame, n + sizeof(garbage)) == 0 ?
		     read_reply(fd, rsp, sizeof(rsp), &len) : -1;
	check(rc == 0 && len == 20, "GetRandom followed by garbage: GetRandom answered");
	m = wait_closed(fd, got, sizeof(got));
	check(m == 0 || (m == 4 && get_u32(got) == 1),
	      "then the connection is closed (after %d bytes)", m);
	close(fd);
	still_serving("garbage after a command");

	fd = connect_to(port + 1);
	if (check(fd >= 0, "connect to the platform port")) {
		put_u32(frame, 99);
		m = send_all(fd, frame, 4) == 0 ? wait_closed(fd, got, sizeof(got)) : -1;
		check(m == 4 && get_u32(got) == 1, "unknown platform code: u32 1, then closed");
		close(fd);
	}
	still_serving("an unknown platform code");
}

/* More connections than the server takes: those beyond its cap (ours already open count) are
 * accepted and closed at once, the good client is served meanwhile, and once the flood has
 * gone new connections are served again (each connection's thread ends as it sees its close:
 * a bounded wait). */
static void connection_flood(void)
{
	static int fd[MAX_CONNS + 16];
	int n = 0, served = 0, refused = 0, again = 0, i, f;

	while (n < MAX_CONNS + 16 && !refused) {
		fd[n] = connect_to(port);
		if (fd[n] < 0)
			break;
		if (get_random_ok(fd[n++]))
			served++;
		else
			refused = 1;
	}
	check(refused && served >= MAX_CONNS / 2 && served <= MAX_CONNS - 2,
	      "connection flood: %d connections served, the next one refused", served);
	still_serving("a connection flood");
	for (i = 0; i < n; i++)
		close(fd[i]);
	for (i = 0; i < 100 && !again; i++) {
		f = connect_to(port);
		again = f >= 0 && get_random_ok(f);
		if (f >= 0)
			close(f);
		if (!again)
			usleep(50000);
	}
	check(again, "after the flood, a new connection is served (%d tries)", i);
}

int main(int argc, char **argv)
{
	uint8_t frame[64], rsp[MAX_COMMAND];
	size_t n, len = 0;
	int stalled;

	if (argc != 3 || atoi(argv[2]) <= 0 || atoi(argv[2]) >= 65535) {
		fprintf(stderr, "usage: %s HOST PORT\n", argv[0]);
		return 2;
	}
	host = argv[1];
	port = (unsigned)atoi(argv[2]);
	if (setup() < 0)
		goto out;

	/* Stalls mid-frame for the whole run; nobody may notice. */
	n = command_frame(frame, sizeof(get_random), get_random, sizeof(get_random));
	stalled = connect_to(port);
	check(stalled >= 0 && send_all(stalled, frame, 7) == 0, "a client stalls mid-frame");

	disconnects();
	truncated_frames();
	oversize();
	zero_length_command();
	bad_tpm_commands();
	garbage_after_command();
	connection_flood();

	check(stalled >= 0 && send_all(stalled, frame + 7, n - 7) == 0 &&
		      read_reply(stalled, rsp, sizeof(rsp), &len) == 0 && len == 20,
	      "the stalled client finishes its frame and is answered");
	if (stalled >= 0)
		close(stalled);
	close(good);
out:
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
