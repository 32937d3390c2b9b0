/* A TPM character device (/dev/tpmrm0 through the kernel's resource manager, or /dev/tpm0):
 * one write(2) carries the whole command, one read(2) returns the whole response (the
 * kernel's protocol), at most the caller's buffer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "tss_int.h"

struct device {
	int fd;
};

static int transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rsp_len)
{
	struct device *d = ctx;
	ssize_t n;

	do
		n = write(d->fd, cmd, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	do
		n = read(d->fd, rsp, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EIO;
	*rsp_len = (size_t)n;
	return 0;
}

/* The device's own descriptor only: nothing is said to the TPM either way. */
static void close_device(void *ctx)
{
	struct device *d = ctx;

	close(d->fd);
	free(d);
}

static const struct tss_transport device_ops = {
	.transmit = transmit,
	.power_on = NULL,
	.close = close_device,
	.forget = close_device,
};

int tss_device_transport(const char *path, const struct tss_transport **ops, void **ctx)
{
	struct device *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return -ENOMEM;
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		err = errno;
		free(d);
		return -err;
	}
	*ops = &device_ops;
	*ctx = d;
	return 0;
}
