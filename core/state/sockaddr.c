/* A UNIX socket at any path. sun_path holds 107 bytes, and a state directory may be deeper than
 * that (a CI checkout, a test's temporary tree): a longer path is reached through the directory
 * opened O_PATH, as /proc/self/fd/N/NAME, which Linux resolves to the same file for bind and
 * connect alike. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "state/owner.h"

int socket_at(int fd, const char *path, bool listen_here)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	const char *slash = strrchr(path, '/');
	int dirfd = -1, rc;

	if (strlen(path) < sizeof(a.sun_path)) {
		strcpy(a.sun_path, path);
	} else {
		char dir[PATH_MAX];
		size_t n = slash ? (size_t)(slash - path) : 0;

		if (!slash || n >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, path, n);
		dir[n] = '\0';
		dirfd = open(n ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			return -errno;
		if (snprintf(a.sun_path, sizeof(a.sun_path), "/proc/self/fd/%d/%s", dirfd,
			     slash + 1) >= (int)sizeof(a.sun_path)) {
			(void)close(dirfd);
			return -ENAMETOOLONG;
		}
	}
	if (listen_here)
		rc = bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
	else
		rc = connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
	if (dirfd >= 0)
		(void)close(dirfd); /* a bound or connected socket does not need it */
	return rc;
}

int pqtpm_engine_connect(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc;

	if (fd < 0)
		return -errno;
	rc = socket_at(fd, path, false);
	if (rc < 0) {
		(void)close(fd);
		return rc;
	}
	return fd;
}
