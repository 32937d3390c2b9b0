/* The owner lock of a state directory: at most one engine runs on a directory at a time, in
 * any process. An OFD lock (F_OFD_SETLK) on byte 0 of pqtpm.lock: independent of the flock
 * that serializes the state file's writers, owned by the open file description, so that two
 * opens in one process conflict as two processes do, and released by the kernel when the
 * process dies, however it dies. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "state/owner.h"
#include "state/store.h"
#include "state_int.h"

/* How long an opener that finds the lock taken waits for the owner's socket to answer (an
 * owner that is still starting up binds it after taking the lock): 25 x 10 ms. */
#define PID_TRIES 25
#define PID_PAUSE_NS 10000000L

int owner_pid(const char *dir)
{
	char path[PATH_MAX];
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, rc;

	if (state_path(path, sizeof(path), dir, PQTPM_SOCKET_NAME) < 0)
		return -ENAMETOOLONG;
	fd = pqtpm_engine_connect(path);
	if (fd < 0)
		return fd;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		rc = -errno;
	else
		rc = cred.pid > 0 ? (int)cred.pid : -ESRCH;
	(void)close(fd); /* nothing was sent */
	return rc;
}

static int busy(const char *dir, char *err, size_t errlen)
{
	const struct timespec pause = { 0, PID_PAUSE_NS };
	int pid = -1;

	for (int i = 0; i < PID_TRIES && pid < 0; i++) {
		pid = owner_pid(dir);
		if (pid < 0)
			nanosleep(&pause, NULL);
	}
	if (pid > 0)
		snprintf(err, errlen, "%s: in use by process %d, which runs this TPM (its other users "
				      "connect to %s/%s)",
			 dir, pid, dir, PQTPM_SOCKET_NAME);
	else
		snprintf(err, errlen, "%s: in use by another process, which runs this TPM (its "
				      "socket %s/%s does not answer)",
			 dir, dir, PQTPM_SOCKET_NAME);
	return -EBUSY;
}

int owner_lock(struct pqtpm_engine *e, char *err, size_t errlen)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	char path[PATH_MAX];
	int fd, rc;

	if (state_path(path, sizeof(path), e->state_dir, STATE_LOCK_FILE) < 0) {
		snprintf(err, errlen, "%s: name too long", e->state_dir);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
		e->owner_fd = fd;
		e->owner_locked = true;
		return 0;
	}
	rc = -errno;
	(void)close(fd); /* nothing written through it */
	if (rc == -EAGAIN || rc == -EACCES)
		return busy(e->state_dir, err, errlen);
	snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(-rc));
	return rc;
}

void owner_unlock(struct pqtpm_engine *e)
{
	if (!e->owner_locked)
		return;
	(void)close(e->owner_fd); /* closing releases the lock; nothing was written */
	e->owner_locked = false;
}
