/* The MSSIM transport (the Microsoft simulator's TCP protocol, as pqtpm-server, the IBM and
 * Microsoft simulators speak it): on the command port each command is TPM_SEND_COMMAND,
 * locality, size, bytes, sent with one write on a TCP_NODELAY socket; the answer is size,
 * bytes, then a u32 acknowledgement. Platform signals go to port + 1. Integers big-endian. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "tss_int.h"

#define MSSIM_SIGNAL_POWER_ON 1
#define MSSIM_SEND_COMMAND 8
#define MSSIM_SIGNAL_NV_ON 11
#define MSSIM_SESSION_END 20

struct mssim {
	int fd;
	char host[256];
	unsigned port;
	uint8_t frame[TSS_BUF + 9];
};

static int read_u32(int fd, uint32_t *v)
{
	uint8_t b[4];
	struct rd r;

	if (tss_net_read_all(fd, b, 4))
		return -EIO;
	rd_init(&r, b, 4);
	return rd_u32(&r, v) ? -EIO : 0;
}

static int transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rsp_len)
{
	struct mssim *m = ctx;
	uint32_t n, ack;
	struct wr w;

	wr_init(&w, m->frame, sizeof(m->frame));
	if (wr_u32(&w, MSSIM_SEND_COMMAND) || wr_u8(&w, 0) || wr_u32(&w, (uint32_t)len) ||
	    wr_bytes(&w, cmd, len))
		return -EMSGSIZE;
	if (tss_net_write_all(m->fd, m->frame, w.off) || read_u32(m->fd, &n))
		return -EIO;
	if (n > cap || tss_net_read_all(m->fd, rsp, n) || read_u32(m->fd, &ack) || ack != 0)
		return -EIO;
	*rsp_len = n;
	return 0;
}

/* One platform signal on its own connection: u32 signal -> u32 acknowledgement. */
static int platform_signal(struct mssim *m, uint32_t sig)
{
	uint8_t b[4];
	uint32_t ack = 1;
	struct wr w;
	int fd = tss_net_connect(m->host, m->port + 1), rc;

	if (fd < 0)
		return fd;
	wr_init(&w, b, sizeof(b));
	wr_u32(&w, sig);
	rc = tss_net_write_all(fd, b, 4);
	if (rc == 0)
		rc = read_u32(fd, &ack);
	close(fd);
	return rc < 0 ? rc : ack == 0 ? 0 : -EPROTO;
}

static int power_on(void *ctx)
{
	int rc = platform_signal(ctx, MSSIM_SIGNAL_POWER_ON);

	return rc < 0 ? rc : platform_signal(ctx, MSSIM_SIGNAL_NV_ON);
}

static void close_mssim(void *ctx)
{
	struct mssim *m = ctx;
	uint8_t b[4] = { 0, 0, 0, MSSIM_SESSION_END };

	tss_net_write_all(m->fd, b, sizeof(b));
	close(m->fd);
	free(m);
}

/* A forked child's copy: its descriptor closed, no SESSION_END on the parent's connection. */
static void forget_mssim(void *ctx)
{
	struct mssim *m = ctx;

	close(m->fd);
	free(m);
}

static const struct tss_transport mssim_ops = {
	.transmit = transmit,
	.power_on = power_on,
	.close = close_mssim,
	.forget = forget_mssim,
};

int tss_mssim_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx)
{
	struct mssim *m;

	if (!host || strlen(host) >= sizeof(m->host) || port == 0 || port > 65534)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	strcpy(m->host, host);
	m->port = port;
	m->fd = tss_net_connect(host, port);
	if (m->fd < 0) {
		int rc = m->fd;

		free(m);
		return rc;
	}
	*ops = &mssim_ops;
	*ctx = m;
	return 0;
}
