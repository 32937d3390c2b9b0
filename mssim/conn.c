/* One MSSIM connection: receive, decode frames, act on them, send the replies.
 *
 * Level-triggered epoll, one recv per readiness so that no client starves the others. While a
 * reply is not fully sent the connection waits for EPOLLOUT only and decodes nothing more, so
 * the output buffer never holds more than one reply and a client that does not read its
 * responses only holds up itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "protocol.h"

static const char *port_name(enum mssim_port port)
{
	return port == MSSIM_PORT_COMMAND ? "command" : "platform";
}

static void conn_free(struct mssim_conn *c, enum pqtpm_log_level level, const char *why)
{
	struct mssim_worker *wk = c->wk;

	mssim_log(level, "conn %u (%s port, %s): closed: %s", c->id, port_name(c->w.port),
		  c->peer, why);
	/* close() also takes the socket out of the epoll set. */
	if (close(c->w.fd) < 0)
		mssim_log(PQTPM_LOG_DEBUG, "conn %u: close: %s", c->id, strerror(errno));
	pqtpm_client_free(c->client);
	if (c->prev)
		c->prev->next = c->next;
	else
		wk->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	mssim_worker_count(wk, c->w.port, -1);
	free(c);
}

void mssim_conn_close(struct mssim_conn *c, const char *why)
{
	conn_free(c, PQTPM_LOG_INFO, why);
}

__attribute__((format(printf, 3, 4)))
static void conn_closef(struct mssim_conn *c, enum pqtpm_log_level level, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	conn_free(c, level, why);
}

int mssim_conn_open(struct mssim_worker *wk, const struct mssim_handoff *h)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct mssim_conn *c;
	int one = 1;

	/* Replies are whole messages sent at once: never wait to coalesce them. */
	if (setsockopt(h->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		mssim_log(PQTPM_LOG_WARN, "%s: TCP_NODELAY: %s", h->peer, strerror(errno));
	c = calloc(1, sizeof(*c));
	if (!c) {
		mssim_log(PQTPM_LOG_ERROR, "%s: out of memory for a connection", h->peer);
		goto fail;
	}
	c->w.kind = MSSIM_WATCH_CONN;
	c->w.fd = h->fd;
	c->w.port = h->port;
	c->wk = wk;
	c->id = h->id;
	snprintf(c->peer, sizeof(c->peer), "%s", h->peer);
	mssim_frame_init(&c->frame, h->port);
	if (h->port == MSSIM_PORT_COMMAND) {
		c->client = pqtpm_client_new(wk->srv->engine);
		if (!c->client) {
			mssim_log(PQTPM_LOG_ERROR, "%s: the engine refused a new client", h->peer);
			goto fail;
		}
	}
	ev.data.ptr = &c->w;
	if (epoll_ctl(wk->epfd, EPOLL_CTL_ADD, h->fd, &ev) < 0) {
		mssim_log(PQTPM_LOG_ERROR, "%s: epoll_ctl: %s", h->peer, strerror(errno));
		goto fail;
	}
	c->events = EPOLLIN;
	c->next = wk->conns;
	if (wk->conns)
		wk->conns->prev = c;
	wk->conns = c;
	mssim_log(PQTPM_LOG_INFO, "conn %u (%s port, %s): opened", c->id, port_name(h->port),
		  h->peer);
	return 0;
fail:
	if (c)
		pqtpm_client_free(c->client);
	free(c);
	close(h->fd);
	mssim_worker_count(wk, h->port, -1);
	return -1;
}

static int out_pending(const struct mssim_conn *c)
{
	return c->out_off < c->out_len;
}

/* Sends what is left of the reply in one call. Returns 0 (all sent, or the rest waits for
 * EPOLLOUT) or -1 (c closed). */
static int flush(struct mssim_conn *c)
{
	ssize_t n;

	n = send(c->w.fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		conn_closef(c, PQTPM_LOG_INFO, "send: %s", strerror(errno));
		return -1;
	}
	c->out_off += n;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	return 0;
}

/* One recv into the frame buffer. Returns 0 or -1 (c closed). */
static int receive(struct mssim_conn *c)
{
	size_t room, pending;
	uint8_t *space;
	ssize_t n;

	space = mssim_frame_space(&c->frame, &room);
	n = recv(c->w.fd, space, room, 0);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		conn_closef(c, PQTPM_LOG_INFO, "recv: %s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		pending = mssim_frame_pending(&c->frame);
		if (pending)
			conn_closef(c, PQTPM_LOG_INFO, "peer closed mid-frame (%zu bytes unused)",
				    pending);
		else
			conn_closef(c, PQTPM_LOG_INFO, "peer closed");
		return -1;
	}
	mssim_frame_received(&c->frame, n);
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

	if (setsockopt(c->w.fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one)) < 0)
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
	static atomic_ulong seq;	/* over all workers */
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
 * between the size and the acknowledgement, so that all three leave in one send. */
static int run_command(struct mssim_conn *c, const struct mssim_event *ev)
{
	size_t rsp_len = 0;
	int rc;

	record_command(c, ev->data, ev->len);
	rc = pqtpm_engine_execute(c->client, ev->locality, ev->data, ev->len, c->out + 4,
				  PQTPM_MAX_RESPONSE_SIZE, &rsp_len);
	if (rc < 0 || rsp_len > PQTPM_MAX_RESPONSE_SIZE) {
		conn_closef(c, PQTPM_LOG_ERROR, "engine failed to answer a command (%d)", rc);
		return -1;
	}
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

/* Acts on one decoded frame, leaving its reply in out. Returns 0 or -1 (c closed). */
static int act(struct mssim_conn *c, const struct mssim_event *ev)
{
	struct pqtpm_engine *e = c->wk->srv->engine;

	if (ev->problem[0] && ev->type != MSSIM_EV_CLOSE)
		mssim_log(PQTPM_LOG_WARN, "conn %u (%s port, %s): %s", c->id,
			  port_name(c->w.port), c->peer, ev->problem);
	switch (ev->type) {
	case MSSIM_EV_NONE:
		break;
	case MSSIM_EV_COMMAND:
		return run_command(c, ev);
	case MSSIM_EV_SIGNAL:
		signal_done(c, ev, pqtpm_engine_signal(e, ev->signal));
		break;
	case MSSIM_EV_HASH_DATA:
		signal_done(c, ev, pqtpm_engine_hash_data(e, ev->data, ev->len));
		break;
	case MSSIM_EV_CLOSE:
		/* A protocol error, or the client's TPM_SESSION_END / TPM_STOP. */
		c->closing = 1;
		c->close_level = ev->problem[0] ? PQTPM_LOG_WARN : PQTPM_LOG_INFO;
		snprintf(c->close_why, sizeof(c->close_why), "%s",
			 ev->problem[0] ? ev->problem : ev->name);
		/* The reply, if any, goes out before the close. */
		/* fall through */
	case MSSIM_EV_REPLY:
		memcpy(c->out, ev->reply, ev->reply_len);
		c->out_len = ev->reply_len;
		break;
	}
	return 0;
}

/* Acts on the complete frames received so far while nothing waits to be sent, and closes
 * the connection once a closing reply is out. Bounded: each frame consumes at least 4 of the
 * at most MSSIM_FRAME_CAP buffered bytes. Returns 0 or -1 (c closed). */
static int process(struct mssim_conn *c)
{
	struct mssim_event ev;

	while (!out_pending(c) && !c->closing) {
		mssim_frame_next(&c->frame, &ev);
		if (ev.type == MSSIM_EV_NONE)
			break;
		if (act(c, &ev) < 0 || (out_pending(c) && flush(c) < 0))
			return -1;
	}
	if (c->closing && !out_pending(c)) {
		conn_free(c, c->close_level, c->close_why);
		return -1;
	}
	if (!out_pending(c) && mssim_frame_pending(&c->frame))
		ack_partial(c);
	return 0;
}

/* Waits for room to send while a reply is pending, else for input. May close c. */
static void want_events(struct mssim_conn *c)
{
	struct epoll_event ev;
	uint32_t want = out_pending(c) ? EPOLLOUT : EPOLLIN;

	if (want == c->events)
		return;
	ev.events = want;
	ev.data.ptr = &c->w;
	if (epoll_ctl(c->wk->epfd, EPOLL_CTL_MOD, c->w.fd, &ev) < 0) {
		conn_closef(c, PQTPM_LOG_ERROR, "epoll_ctl: %s", strerror(errno));
		return;
	}
	c->events = want;
}

void mssim_conn_ready(struct mssim_conn *c)
{
	if (out_pending(c)) {
		if (flush(c) < 0)
			return;
	} else if (receive(c) < 0) {
		return;
	}
	if (process(c) < 0)
		return;
	want_events(c);
}
