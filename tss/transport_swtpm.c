/* The swtpm transport (what tpm2-tss's "swtpm" TCTI speaks to `swtpm socket --tpm2 --server
 * type=tcp,port=P --ctrl type=tcp,port=P+1`): TPM commands as they are on the server port, one
 * write each on a TCP_NODELAY socket, the response read by the size in its header; power-on
 * (CMD_INIT) on the control port, a big-endian u32 command code and its arguments in, a u32
 * result out, one connection per control command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "tss_int.h"

#define SWTPM_CMD_INIT 2	 /* swtpm's control commands (swtpm_ioctls(3)) */
#define SWTPM_HEADER 10	 /* tag, size, code */

struct swtpm {
	int fd;
	char host[256];
	unsigned port;
};

/* The response: its header first, then exactly as many bytes as it says, within cap. */
static int transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rsp_len)
{
	struct swtpm *s = ctx;
	uint16_t tag;
	uint32_t size;
	struct rd r;

	if (cap < SWTPM_HEADER)
		return -EMSGSIZE;
	if (tss_net_write_all(s->fd, cmd, len) || tss_net_read_all(s->fd, rsp, SWTPM_HEADER))
		return -EIO;
	rd_init(&r, rsp, SWTPM_HEADER);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || size < SWTPM_HEADER || size > cap)
		return -EPROTO;
	if (tss_net_read_all(s->fd, rsp + SWTPM_HEADER, size - SWTPM_HEADER))
		return -EIO;
	*rsp_len = size;
	return 0;
}

/* CMD_INIT with no flags (keep the volatile state file): the TPM is then ready for Startup. */
static int power_on(void *ctx)
{
	struct swtpm *s = ctx;
	uint8_t b[8];
	uint32_t result = 1;
	struct wr w;
	struct rd r;
	int fd = tss_net_connect(s->host, s->port + 1), rc;

	if (fd < 0)
		return fd;
	wr_init(&w, b, sizeof(b));
	wr_u32(&w, SWTPM_CMD_INIT);
	wr_u32(&w, 0);
	rc = tss_net_write_all(fd, b, w.off);
	if (rc == 0)
		rc = tss_net_read_all(fd, b, 4);
	close(fd);
	if (rc < 0)
		return rc;
	rd_init(&r, b, 4);
	rd_u32(&r, &result);
	return result == 0 ? 0 : -EPROTO;
}

static void close_swtpm(void *ctx)
{
	struct swtpm *s = ctx;

	close(s->fd);
	free(s);
}

static const struct tss_transport swtpm_ops = {
	.transmit = transmit,
	.power_on = power_on,
	.close = close_swtpm,
	.forget = close_swtpm, /* closing sends nothing */
};

int tss_swtpm_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx)
{
	struct swtpm *s;

	if (!host || strlen(host) >= sizeof(s->host) || port == 0 || port > 65534)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	strcpy(s->host, host);
	s->port = port;
	s->fd = tss_net_connect(host, port);
	if (s->fd < 0) {
		int rc = s->fd;

		free(s);
		return rc;
	}
	*ops = &swtpm_ops;
	*ctx = s;
	return 0;
}
