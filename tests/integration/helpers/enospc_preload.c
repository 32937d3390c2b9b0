/* LD_PRELOAD shim for nv_enospc.sh: while the file named by $PQTPM_ENOSPC_FLAG exists, write()
 * (and pwrite, writev) to a file whose name ends in "pqtpm.state.tmp" fails with ENOSPC, as on
 * a full disk. Everything else goes to libc. Built by the test with cc -shared -fPIC. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static const char suffix[] = "pqtpm.state.tmp";

static int disk_full(int fd)
{
	const char *flag = getenv("PQTPM_ENOSPC_FLAG");
	char link[64], path[4096];
	ssize_t n;
	size_t s = sizeof(suffix) - 1;

	if (!flag || access(flag, F_OK) != 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < (ssize_t)s)
		return 0;
	path[n] = 0;
	return strcmp(path + n - s, suffix) == 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (disk_full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	if (disk_full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	static ssize_t (*real)(int, const struct iovec *, int);

	if (!real)
		real = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	if (disk_full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, iov, cnt);
}
