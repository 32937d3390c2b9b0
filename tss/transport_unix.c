/* "unix:PATH": a client of a state directory's owner over its socket (framing in
 * include/pqtpm/engine.h). Integers big-endian, through the bounded writer and reader. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport_unix.h"

int tss_unix_connect(const char *path)
{
	return path ? pqtpm_engine_connect(path) : -EINVAL;
}

/* A failure of the peer: it went away (the request may have run). */
static int peer_error(int err)
{
	return err == EPIPE || err == ECONNRESET ? -EPIPE : -err;
}

static int send_all(int fd, struct iovec *iov, int n)
{
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };

	while (m.msg_iovlen) {
		ssize_t k = sendmsg(fd, &m, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return peer_error(errno);
		while (m.msg_iovlen && (size_t)k >= m.msg_iov->iov_len) {
			k -= (ssize_t)m.msg_iov->iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		if (m.msg_iovlen) {
			m.msg_iov->iov_base = (uint8_t *)m.msg_iov->iov_base + k;
			m.msg_iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

static int recv_all(int fd, uint8_t *b, size_t n)
{
	while (n) {
		ssize_t k = recv(fd, b, n, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return peer_error(errno);
		if (k == 0)
			return -EPIPE;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

int tss_unix_exchange(int fd, uint8_t kind, uint8_t arg, const uint8_t *in, size_t len,
		      uint8_t *out, size_t cap, size_t *out_len)
{
	uint8_t head[PQTPM_FRAME_HEADER], size[4];
	struct iovec iov[2] = { { head, sizeof(head) }, { (void *)in, len } };
	uint32_t n;
	struct wr w;
	struct rd r;
	int rc;

	if (len > PQTPM_MAX_COMMAND_SIZE)
		return -EMSGSIZE;
	wr_init(&w, head, sizeof(head));
	wr_u8(&w, kind);
	wr_u8(&w, arg);
	wr_u32(&w, (uint32_t)len);
	rc = send_all(fd, iov, len ? 2 : 1);
	if (rc == 0)
		rc = recv_all(fd, size, sizeof(size));
	if (rc < 0)
		return rc;
	rd_init(&r, size, sizeof(size));
	if (rd_u32(&r, &n) || n > cap)
		return -EPROTO;
	rc = recv_all(fd, out, n);
	if (rc == 0)
		*out_len = n;
	return rc;
}

static int signal_one(int fd, enum pqtpm_signal sig)
{
	uint8_t b[4];
	uint32_t result;
	size_t n = 0;
	struct rd r;
	int rc = tss_unix_exchange(fd, PQTPM_FRAME_SIGNAL, (uint8_t)sig, NULL, 0, b, sizeof(b), &n);

	if (rc < 0)
		return rc;
	rd_init(&r, b, n);
	if (rd_u32(&r, &result) || rd_left(&r))
		return -EPROTO;
	return (int32_t)result;
}

int tss_unix_power_on(int fd)
{
	int rc = signal_one(fd, PQTPM_SIGNAL_POWER_ON);

	return rc < 0 ? rc : signal_one(fd, PQTPM_SIGNAL_NV_ON);
}

struct unix_tp {
	int fd;
};

static int transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rsp_len)
{
	struct unix_tp *u = ctx;

	return tss_unix_exchange(u->fd, PQTPM_FRAME_COMMAND, 0, cmd, len, rsp, cap, rsp_len);
}

static int power_on(void *ctx)
{
	struct unix_tp *u = ctx;

	return tss_unix_power_on(u->fd);
}

static void close_unix(void *ctx)
{
	struct unix_tp *u = ctx;

	close(u->fd);
	free(u);
}

static const struct tss_transport unix_ops = {
	.transmit = transmit,
	.power_on = power_on,
	.close = close_unix,
	.forget = close_unix, /* closing sends nothing */
};

int tss_unix_transport(const char *path, const struct tss_transport **ops, void **ctx)
{
	struct unix_tp *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->fd = tss_unix_connect(path);
	if (u->fd < 0) {
		int rc = u->fd;

		free(u);
		return rc;
	}
	*ops = &unix_ops;
	*ctx = u;
	return 0;
}
