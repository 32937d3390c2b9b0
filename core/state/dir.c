/* The state directory: creating it (0700), naming files in it, and the lock file that
 * serializes the processes sharing it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/store.h"
#include "state_int.h"

int state_path(char *buf, size_t cap, const char *dir, const char *name)
{
	int n = snprintf(buf, cap, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* One level of mkdir -p. */
static int make_dir(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	if (mkdir(path, 0700) == 0) {
		/* mkdir's mode went through the umask; make it exactly 0700 */
		if (chmod(path, 0700) == 0)
			return 0;
		rc = -errno;
		snprintf(err, errlen, "%s: chmod 0700: %s", path, strerror(-rc));
		return rc;
	}
	rc = -errno;
	if (rc != -EEXIST) {
		snprintf(err, errlen, "%s: cannot create directory: %s", path, strerror(-rc));
		return rc;
	}
	if (stat(path, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: exists and is not a directory", path);
		return -ENOTDIR;
	}
	return 0;
}

int state_dir_prepare(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(path)) {
		snprintf(err, errlen, "state directory name '%s' is empty or too long", dir);
		return -ENAMETOOLONG;
	}
	memcpy(path, dir, len + 1);
	/* Each prefix ending before a '/', then the whole path. */
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char saved = path[i];
		int rc;

		path[i] = '\0';
		rc = make_dir(path, err, errlen);
		path[i] = saved;
		if (rc < 0)
			return rc;
	}
	return 0;
}

int state_lock(const char *dir, bool exclusive)
{
	char path[PATH_MAX];
	int fd, rc;

	rc = state_path(path, sizeof(path), dir, STATE_LOCK_FILE);
	if (rc < 0)
		return rc;
	/* flock needs no write access, so a read-only descriptor also serves readers */
	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, exclusive ? LOCK_EX : LOCK_SH) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			state_unlock(fd);
			return rc;
		}
	}
	return fd;
}

void state_unlock(int fd)
{
	/* Closing releases the lock. Nothing was written through fd, so a close error
	 * loses nothing. */
	(void)close(fd);
}
