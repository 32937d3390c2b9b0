/* The owner's socket, <state_dir>/pqtpm.sock: the other users of the directory's TPM connect
 * here (framing in include/pqtpm/engine.h). One thread polls the listener and every
 * connection; commands are serialized by the engine anyway. Each connection is an engine client
 * of its own, freed (with its transient objects and sessions) when it goes. Sockets are
 * non-blocking both ways, so a client that stops reading or vanishes mid-frame stalls no one;
 * a malformed frame ends that connection only. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/owner.h"
#include "state_int.h"

#define SERVE_MAX_CONNS 64
#define SERVE_BACKLOG 16

struct conn {
	int fd;
	struct pqtpm_client *cl;
	size_t in_len;
	size_t out_len, out_off; /* a response being sent: no new request is read meanwhile */
	uint8_t in[PQTPM_FRAME_HEADER + PQTPM_MAX_COMMAND_SIZE];
	uint8_t out[4 + PQTPM_MAX_RESPONSE_SIZE];
};

struct serve {
	struct pqtpm_engine *e;
	int listen_fd;
	int wake[2];		/* serve_stop writes to wake[1] */
	pthread_t thread;
	char path[PATH_MAX];	/* <dir>/pqtpm.sock */
	struct conn *conns[SERVE_MAX_CONNS];
};

static void conn_drop(struct serve *s, unsigned i)
{
	struct conn *c = s->conns[i];

	pqtpm_client_free(c->cl);
	(void)close(c->fd); /* a socket: nothing buffered is lost that matters */
	crypto_wipe(c, sizeof(*c));
	free(c);
	s->conns[i] = NULL;
}

static void accept_one(struct serve *s)
{
	struct conn *c;
	unsigned i;
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return; /* gone before we took it, or out of descriptors: the next poll tries again */
	for (i = 0; i < SERVE_MAX_CONNS && s->conns[i]; i++)
		;
	c = i < SERVE_MAX_CONNS ? calloc(1, sizeof(*c)) : NULL;
	if (c)
		c->cl = pqtpm_client_new(s->e);
	if (!c || !c->cl) {
		free(c);
		(void)close(fd);
		pqtpm_log(PQTPM_LOG_WARN, "%s: a connection refused (out of memory or of clients)",
			  s->path);
		return;
	}
	c->fd = fd;
	s->conns[i] = c;
}

/* The response of one complete request at the head of c->in; false if the frame is bad. */
static bool handle_frame(struct serve *s, struct conn *c, uint8_t kind, uint8_t arg,
			 uint32_t len)
{
	const uint8_t *body = &c->in[PQTPM_FRAME_HEADER];
	size_t rsp_len = 0;
	struct wr w;

	if (kind == PQTPM_FRAME_COMMAND) {
		if (pqtpm_engine_execute(c->cl, arg, body, len, &c->out[4], PQTPM_MAX_RESPONSE_SIZE,
					 &rsp_len) < 0)
			return false;
	} else {
		int rc = arg <= PQTPM_SIGNAL_HASH_END ? pqtpm_engine_signal(s->e, arg) : -EINVAL;

		wr_init(&w, &c->out[4], 4);
		wr_u32(&w, (uint32_t)rc);
		rsp_len = 4;
	}
	wr_init(&w, c->out, 4);
	wr_u32(&w, (uint32_t)rsp_len);
	c->out_len = 4 + rsp_len;
	c->out_off = 0;
	c->in_len -= PQTPM_FRAME_HEADER + len;
	memmove(c->in, &c->in[PQTPM_FRAME_HEADER + len], c->in_len);
	return true;
}

/* Answer the first request in c->in if it is complete; false if the connection must end. */
static bool process(struct serve *s, struct conn *c)
{
	uint8_t kind, arg;
	uint32_t len;
	struct rd r;

	if (c->out_len || c->in_len < PQTPM_FRAME_HEADER)
		return true;
	rd_init(&r, c->in, c->in_len);
	if (rd_u8(&r, &kind) || rd_u8(&r, &arg) || rd_u32(&r, &len))
		return false;
	if ((kind != PQTPM_FRAME_COMMAND && kind != PQTPM_FRAME_SIGNAL) ||
	    len > PQTPM_MAX_COMMAND_SIZE || (kind == PQTPM_FRAME_SIGNAL && len != 0))
		return false;
	if (rd_left(&r) < len)
		return true; /* the rest is on its way */
	return handle_frame(s, c, kind, arg, len);
}

static bool flush_out(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, &c->out[c->out_off], c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		c->out_off += (size_t)n;
	}
	c->out_len = c->out_off = 0;
	return true;
}

static bool read_in(struct conn *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, &c->in[c->in_len], sizeof(c->in) - c->in_len, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		if (n == 0)
			return false; /* gone; a request it did not finish is dropped with it */
		c->in_len += (size_t)n;
		return true;
	}
}

/* One connection's turn: send what is pending, else read; then answer a complete request
 * (and send that answer at once if the socket takes it). */
static bool conn_turn(struct serve *s, struct conn *c, short revents)
{
	if (c->out_len) {
		if (!flush_out(c))
			return false;
	} else if (revents & (POLLIN | POLLHUP | POLLERR)) {
		if (!read_in(c))
			return false;
	}
	while (!c->out_len && c->in_len >= PQTPM_FRAME_HEADER) {
		size_t before = c->in_len;

		if (!process(s, c))
			return false;
		if (c->in_len == before)
			break; /* incomplete */
		if (!flush_out(c))
			return false;
	}
	return true;
}

static void *serve_loop(void *arg)
{
	struct serve *s = arg;
	struct pollfd p[2 + SERVE_MAX_CONNS];
	unsigned at[SERVE_MAX_CONNS];

	for (;;) {
		nfds_t n = 2;
		unsigned nconns = 0;

		p[0] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		for (unsigned i = 0; i < SERVE_MAX_CONNS; i++) {
			struct conn *c = s->conns[i];

			if (!c)
				continue;
			p[n] = (struct pollfd){ .fd = c->fd, .events = c->out_len ? POLLOUT : POLLIN };
			at[n - 2] = i;
			n++;
			nconns++;
		}
		/* full: new connections wait in the backlog */
		p[1] = (struct pollfd){ .fd = nconns < SERVE_MAX_CONNS ? s->listen_fd : -1,
					.events = POLLIN };
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			pqtpm_log(PQTPM_LOG_ERROR, "%s: poll: %s", s->path, strerror(errno));
			break;
		}
		if (p[0].revents)
			break;
		for (nfds_t k = 2; k < n; k++)
			if (p[k].revents && !conn_turn(s, s->conns[at[k - 2]], p[k].revents))
				conn_drop(s, at[k - 2]);
		if (p[1].revents & POLLIN)
			accept_one(s);
	}
	return NULL;
}

static int fail_errno(char *err, size_t errlen, const char *path, const char *what)
{
	int rc = -errno;

	snprintf(err, errlen, "%s: %s: %s", path, what, strerror(-rc));
	return rc;
}

static int serve_listen(struct serve *s, char *err, size_t errlen)
{
	const char *path = s->path;
	int rc;

	/* a socket left by an owner that died: the lock we hold says nobody serves it */
	if (unlink(path) < 0 && errno != ENOENT)
		return fail_errno(err, errlen, path, "cannot remove the old socket");
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0)
		return fail_errno(err, errlen, path, "socket");
	/* the directory is 0700, so nobody connects before the chmod */
	rc = socket_at(s->listen_fd, path, true);
	if (rc < 0) {
		errno = -rc;
		return fail_errno(err, errlen, path, "bind");
	}
	if (chmod(path, 0600) < 0)
		return fail_errno(err, errlen, path, "chmod 0600");
	if (listen(s->listen_fd, SERVE_BACKLOG) < 0)
		return fail_errno(err, errlen, path, "listen");
	if (pipe2(s->wake, O_CLOEXEC) < 0)
		return fail_errno(err, errlen, path, "pipe");
	return 0;
}

static void serve_free(struct serve *s)
{
	for (unsigned i = 0; i < SERVE_MAX_CONNS; i++)
		if (s->conns[i])
			conn_drop(s, i);
	if (s->listen_fd >= 0) {
		(void)close(s->listen_fd);
		(void)unlink(s->path); /* best effort: the next owner removes it anyway */
	}
	if (s->wake[0] >= 0)
		(void)close(s->wake[0]);
	if (s->wake[1] >= 0)
		(void)close(s->wake[1]);
	free(s);
}

int serve_start(struct pqtpm_engine *e, char *err, size_t errlen)
{
	struct serve *s = calloc(1, sizeof(*s));
	sigset_t all, old;
	int rc;

	if (!s)
		return -ENOMEM;
	s->e = e;
	s->listen_fd = s->wake[0] = s->wake[1] = -1;
	if (state_path(s->path, sizeof(s->path), e->state_dir, PQTPM_SOCKET_NAME) < 0) {
		snprintf(err, errlen, "%s/%s: path too long", e->state_dir, PQTPM_SOCKET_NAME);
		free(s);
		return -ENAMETOOLONG;
	}
	rc = serve_listen(s, err, errlen);
	if (rc == 0) {
		/* the thread takes none of the application's signals */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = -pthread_create(&s->thread, NULL, serve_loop, s);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc < 0)
			snprintf(err, errlen, "%s: cannot start its thread: %s", s->path,
				 strerror(-rc));
	}
	if (rc < 0) {
		serve_free(s);
		return rc;
	}
	e->serve = s;
	return 0;
}

void serve_stop(struct pqtpm_engine *e)
{
	struct serve *s = e->serve;
	const uint8_t one = 1;

	if (!s)
		return;
	while (write(s->wake[1], &one, 1) < 0 && errno == EINTR)
		;
	pthread_join(s->thread, NULL);
	serve_free(s);
	e->serve = NULL;
}
