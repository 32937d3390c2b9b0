/* One MSSIM connection on its own thread: receive, decode frames, act on them, send the
 * replies.
 *
 * Blocking socket calls: the thread has nothing else to serve. A reply is sent whole (one
 * send) before the next frame is decoded, so the output buffer never holds more than one
 * reply, and a client that does not read its responses holds up only its own thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "crypto/crypto.h"
#include "protocol.h"

#define SPIN_NS 200000u	/* longest poll before sleeping in recv (receive) */

/* Why a connection ends, for its last log line. */
struct conn_end {
	enum pqtpm_log_level level;
	char why[160];
};

__attribute__((format(printf, 3, 4)))
static int end_with(struct conn_end *end, enum pqtpm_log_level level, const char *fmt, ...)
{
	va_list ap;

	end->level = level;
	va_start(ap, fmt);
	vsnprintf(end->why, sizeof(end->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* A failed recv or send: the server's own shutdown at stop, or the client's doing. */
static int end_io(struct mssim_conn *c, struct conn_end *end, const char *call)
{
	if (atomic_load(&c->srv->stopping))
		return end_with(end, PQTPM_LOG_INFO, "server stopping");
	return end_with(end, PQTPM_LOG_INFO, "%s: %s", call, strerror(errno));
}

static const char *port_name(enum mssim_port port)
{
	return port == MSSIM_PORT_COMMAND ? "command" : "platform";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Receives into the frame buffer, sleeping until something comes. A lone client in a tight
 * loop sends its next command microseconds after its reply went out, and a sleep in recv
 * costs a wake-up on every round trip (server.h). So while this is the only command
 * connection and its recent gaps were short, the thread first polls its socket for up to
 * SPIN_NS, yielding the CPU between polls to anything runnable (the client itself, when it
 * shares this CPU). The average gap (1/8 weight per receive, a sleep counting as SPIN_NS)
 * keeps polling off for clients that think between commands; a thread keeps it from one
 * connection to the next, as the epoll workers did (a server's clients tend to be alike).
 * Linux's own busy-polling (SO_BUSY_POLL) does not cover loopback. Returns 0, or -1 (end
 * says why). */
static int receive(struct mssim_conn *c, struct conn_end *end)
{
	uint64_t start = now_ns(), t = start;
	size_t room, pending;
	uint8_t *space;
	int block = 1;
	ssize_t n;

	space = mssim_frame_space(&c->frame, &room);
	if (c->port == MSSIM_PORT_COMMAND && c->idle_avg_ns < SPIN_NS / 2 &&
	    atomic_load(&c->srv->open[MSSIM_PORT_COMMAND]) <= 1) {
		for (;;) {
			n = recv(c->fd, space, room, MSG_DONTWAIT);
			if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
				block = 0;
				break;
			}
			t = now_ns();
			if (t - start >= SPIN_NS)
				break;
			sched_yield();
		}
	}
	if (block) {
		do
			n = recv(c->fd, space, room, 0);
		while (n < 0 && errno == EINTR);
		t = now_ns();
	}
	c->idle_avg_ns += (t - start < SPIN_NS ? t - start : SPIN_NS) / 8 - c->idle_avg_ns / 8;
	if (n < 0)
		return end_io(c, end, "recv");
	if (n == 0) {
		if (atomic_load(&c->srv->stopping))
			return end_with(end, PQTPM_LOG_INFO, "server stopping");
		pending = mssim_frame_pending(&c->frame);
		if (pending)
			return end_with(end, PQTPM_LOG_INFO,
					"peer closed mid-frame (%zu bytes unused)", pending);
		return end_with(end, PQTPM_LOG_INFO, "peer closed");
	}
	mssim_frame_received(&c->frame, (size_t)n);
	return 0;
}

/* Sends the reply: one send (a blocking socket takes it whole unless the peer goes or the
 * server stops). Returns 0, or -1 (end says why). */
static int send_reply(struct mssim_conn *c, struct conn_end *end)
{
	size_t off = 0;
	ssize_t n;

	while (off < c->out_len) {
		n = send(c->fd, c->out + off, c->out_len - off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return end_io(c, end, "send");
		}
		off += (size_t)n;
	}
	c->out_len = 0;
	return 0;
}

/* A frame is only partly here: ACK what came now. A client that writes header and body
 * separately (tpm2-tss 3.2's TCTI, Nagle on) holds the body back until the header is ACKed,
 * and Linux delays that ACK (up to 40 ms) on a connection it sees as interactive. Setting
 * TCP_QUICKACK sends the pending ACK at once; Linux clears it again after a while, so it is
 * set each time. A whole frame needs nothing: its reply carries the ACK. */
static void ack_partial(struct mssim_conn *c)
{
	int one = 1;

	if (setsockopt(c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one)) < 0)
		mssim_log(PQTPM_LOG_DEBUG, "conn %u: TCP_QUICKACK: %s", c->id, strerror(errno));
}

static void reply_u32(struct mssim_conn *c, uint32_t v)
{
	mssim_put_u32(c->out, v);
	c->out_len = 4;
}

/* ---- debug: recording received commands (PQTPM_RECORD_DIR) ----
 * With PQTPM_RECORD_DIR=DIR in the server's environment, every TPM command received on the
 * command port is written as it arrived to DIR/<pid>-<conn id>-<seq>.cmd (seq counts over
 * the whole process, so sorting the names groups a connection's commands in order). For
 * collecting the fuzzers' seed corpus (tests/fuzz/record.sh). It records auth values and
 * sensitive data in clear: a debug aid, never for a TPM that holds real secrets. */
static const char *record_to;
static pthread_once_t record_once = PTHREAD_ONCE_INIT;

static void record_init(void)
{
	record_to = getenv("PQTPM_RECORD_DIR");
	if (record_to && !record_to[0])
		record_to = NULL;
	if (record_to)
		mssim_log(PQTPM_LOG_WARN, "PQTPM_RECORD_DIR: recording every command "
					  "(secrets included) into %s", record_to);
}

static const char *record_dir(void)
{
	pthread_once(&record_once, record_init);
	return record_to;
}

static void record_command(const struct mssim_conn *c, const uint8_t *cmd, size_t len)
{
	static atomic_ulong seq;	/* over all connections */
	const char *dir = record_dir();
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%ld-%06u-%08lu.cmd", dir, (long)getpid(), c->id,
		 atomic_fetch_add(&seq, 1) + 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		mssim_log(PQTPM_LOG_WARN, "record: %s: %s", path, strerror(errno));
		return;
	}
	n = write(fd, cmd, len);
	if (n < 0 || (size_t)n != len)
		mssim_log(PQTPM_LOG_WARN, "record: %s: short write", path);
	close(fd);
}

/* Executes a TPM command: the engine writes its response straight into the output buffer,
 * between the size and the acknowledgement, so that all three leave in one send. Returns 0,
 * or -1 (end says why). */
static int run_command(struct mssim_conn *c, const struct mssim_event *ev, struct conn_end *end)
{
	size_t rsp_len = 0;
	int rc;

	record_command(c, ev->data, ev->len);
	rc = pqtpm_engine_execute(c->client, ev->locality, ev->data, ev->len, c->out + 4,
				  PQTPM_MAX_RESPONSE_SIZE, &rsp_len);
	if (rc < 0 || rsp_len > PQTPM_MAX_RESPONSE_SIZE)
		return end_with(end, PQTPM_LOG_ERROR, "engine failed to answer a command (%d)", rc);
	mssim_put_u32(c->out, (uint32_t)rsp_len);
	mssim_put_u32(c->out + 4 + rsp_len, MSSIM_ACK_OK);
	c->out_len = 4 + rsp_len + 4;
	return 0;
}

static void signal_done(struct mssim_conn *c, const struct mssim_event *ev, int rc)
{
	if (rc < 0)
		mssim_log(PQTPM_LOG_WARN, "conn %u: %s refused by the engine: %s", c->id,
			  ev->name, strerror(-rc));
	reply_u32(c, rc < 0 ? MSSIM_ACK_FAIL : MSSIM_ACK_OK);
}

/* Acts on one decoded frame, leaving its reply in out. Returns 0, or -1 (end says why): the
 * connection closes after the reply, if any, went out. */
static int act(struct mssim_conn *c, const struct mssim_event *ev, struct conn_end *end)
{
	struct pqtpm_engine *e = c->srv->engine;

	if (ev->problem[0] && ev->type != MSSIM_EV_CLOSE)
		mssim_log(PQTPM_LOG_WARN, "conn %u (%s port, %s): %s", c->id,
			  port_name(c->port), c->peer, ev->problem);
	switch (ev->type) {
	case MSSIM_EV_NONE:
		break;
	case MSSIM_EV_COMMAND:
		return run_command(c, ev, end);
	case MSSIM_EV_SIGNAL:
		signal_done(c, ev, pqtpm_engine_signal(e, ev->signal));
		break;
	case MSSIM_EV_HASH_DATA:
		signal_done(c, ev, pqtpm_engine_hash_data(e, ev->data, ev->len));
		break;
	case MSSIM_EV_REPLY:
		memcpy(c->out, ev->reply, ev->reply_len);
		c->out_len = ev->reply_len;
		break;
	case MSSIM_EV_CLOSE:
		/* A protocol error, or the client's TPM_SESSION_END / TPM_STOP. */
		memcpy(c->out, ev->reply, ev->reply_len);
		c->out_len = ev->reply_len;
		return end_with(end, ev->problem[0] ? PQTPM_LOG_WARN : PQTPM_LOG_INFO, "%s",
				ev->problem[0] ? ev->problem : ev->name);
	}
	return 0;
}

/* Decodes and acts on frames, receiving when none is whole, until the connection ends.
 * Bounded per receive: each frame consumes at least 4 of the at most MSSIM_FRAME_CAP
 * buffered bytes. */
static void serve(struct mssim_conn *c, struct conn_end *end)
{
	struct mssim_event ev;
	int rc;

	for (;;) {
		mssim_frame_next(&c->frame, &ev);
		if (ev.type == MSSIM_EV_NONE) {
			if (mssim_frame_pending(&c->frame))
				ack_partial(c);
			if (receive(c, end) < 0)
				return;
			continue;
		}
		rc = act(c, &ev, end);
		/* A closing frame's reply still goes out. */
		if (c->out_len && send_reply(c, end) < 0)
			return;
		if (rc < 0)
			return;
	}
}

/* TCP_NODELAY and the engine client. Returns 0, or -1 (end says why). */
static int start(struct mssim_conn *c, struct conn_end *end)
{
	int one = 1;

	/* Replies are whole messages sent at once: never wait to coalesce them. */
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		mssim_log(PQTPM_LOG_WARN, "%s: TCP_NODELAY: %s", c->peer, strerror(errno));
	mssim_frame_init(&c->frame, c->port);
	c->out_len = 0;
	if (c->port == MSSIM_PORT_COMMAND) {
		c->client = pqtpm_client_new(c->srv->engine);
		if (!c->client)
			return end_with(end, PQTPM_LOG_ERROR, "the engine refused a new client");
	}
	mssim_log(PQTPM_LOG_INFO, "conn %u (%s port, %s): opened", c->id, port_name(c->port),
		  c->peer);
	return 0;
}

void *mssim_conn_main(void *arg)
{
	struct mssim_conn *c = arg;
	struct conn_end end;

	do {
		end = (struct conn_end){ PQTPM_LOG_INFO, "" };
		if (start(c, &end) == 0)
			serve(c, &end);
		mssim_log(end.level, "conn %u (%s port, %s): closed: %s", c->id,
			  port_name(c->port), c->peer, end.why);
		pqtpm_client_free(c->client);
		c->client = NULL;
		atomic_fetch_sub(&c->srv->open[c->port], 1);
	} while (mssim_server_next(c->srv, c));
	/* wolfSSL's per-thread ECC tables, filled by the commands this thread ran. */
	crypto_thread_cleanup();
	return NULL;
}
