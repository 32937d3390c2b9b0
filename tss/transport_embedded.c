/* "embedded:DIR": the TPM of a state directory, whoever owns it. If nobody does, this process
 * becomes the owner (pqtpm_engine_open runs the engine here and serves DIR/pqtpm.sock to the
 * others); otherwise it is a client of the owner's socket. When the owner goes, the command
 * in flight fails with the transport error (it may have run, so it is never sent again) and
 * the transport elects at once: it becomes the owner or connects to the new one, so the next
 * command works; transient objects and sessions loaded before are gone, as after a restart of
 * a resource manager.
 *
 * Several embedded connections of one process to one directory share the engine the process
 * owns, each an engine client of its own: their commands run side by side as far as the engine
 * allows (as socket clients of the process's own serving thread they would take turns). The
 * engine closes with the last of them. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport_unix.h"

/* An election: tries for a second, in 10 ms steps (an open that finds the directory owned
 * may itself wait a quarter of a second for the owner's socket to answer). */
#define ELECT_MS 1000
#define ELECT_PAUSE_NS 10000000L

/* An engine this process owns, and how many embedded connections use it. */
struct owned {
	char dir[PATH_MAX];
	struct pqtpm_engine *e;
	unsigned refs;
	struct owned *next;
};

/* The engines this process owns; elections run one at a time, so that two connections opened
 * at once do not both try to open the engine (the second would be refused and become a socket
 * client of the first). */
static pthread_mutex_t owned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct owned *owned;

struct embedded {
	char dir[PATH_MAX];
	char sock[PATH_MAX];
	struct owned *own;	 /* this process owns the directory ... */
	struct pqtpm_client *cl;
	int fd;			 /* ... or is a client of its owner (-1: neither, elect) */
};

/* An owner killed a moment ago may still take connections into its backlog that it will
 * never serve: an empty command (answered with an error, no effect) tells a live owner. */
static bool owner_answers(int fd)
{
	uint8_t rsp[64];
	size_t n;

	return tss_unix_exchange(fd, PQTPM_FRAME_COMMAND, 0, NULL, 0, rsp, sizeof(rsp), &n) == 0;
}

/* A new engine client of o for m (owned_lock held). */
static int join(struct embedded *m, struct owned *o)
{
	m->cl = pqtpm_client_new(o->e);
	if (!m->cl)
		return -ENOMEM;
	o->refs++;
	m->own = o;
	return 0;
}

/* m's engine client goes; the engine with the last one (owned_lock held). */
static void leave(struct embedded *m)
{
	struct owned **p;

	pqtpm_client_free(m->cl);
	m->cl = NULL;
	if (--m->own->refs == 0) {
		for (p = &owned; *p != m->own; p = &(*p)->next)
			;
		*p = m->own->next;
		pqtpm_engine_close(m->own->e);
		free(m->own);
	}
	m->own = NULL;
}

/* Open the directory's engine here and join it: 0, -EBUSY (owned by another process), or
 * another negative errno (owned_lock held). */
static int own(struct embedded *m, char *err, size_t errlen)
{
	struct pqtpm_engine_config cfg = { .state_dir = m->dir, .auto_startup = 1,
					   .log_level = PQTPM_LOG_WARN };
	struct owned *o = calloc(1, sizeof(*o));
	int rc;

	if (!o)
		return -ENOMEM;
	rc = pqtpm_engine_open(&o->e, &cfg, err, errlen);
	if (rc == 0) {
		strcpy(o->dir, m->dir);
		o->next = owned;
		owned = o;
		rc = join(m, o);
		if (rc < 0) {
			owned = o->next;
			pqtpm_engine_close(o->e);
		}
	}
	if (rc < 0)
		free(o);
	return rc;
}

/* Join the engine this process owns, connect to the owner, or become it (owned_lock held). */
static int elect_locked(struct embedded *m)
{
	const struct timespec pause = { 0, ELECT_PAUSE_NS };
	struct timespec t0, t;
	struct owned *o;
	char err[512];
	int rc = -EBUSY;

	for (o = owned; o; o = o->next)
		if (strcmp(o->dir, m->dir) == 0)
			return join(m, o);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (t = t0; (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ELECT_MS;
	     clock_gettime(CLOCK_MONOTONIC, &t)) {
		m->fd = tss_unix_connect(m->sock);
		if (m->fd >= 0 && owner_answers(m->fd))
			return 0;
		if (m->fd >= 0)
			close(m->fd);
		m->fd = -1;
		rc = own(m, err, sizeof(err));
		if (rc == 0)
			return 0;
		if (rc != -EBUSY) {
			tss_log(PQTPM_LOG_ERROR, "%s", rc == -ENOMEM ? strerror(ENOMEM) : err);
			return rc;
		}
		nanosleep(&pause, NULL);
	}
	tss_log(PQTPM_LOG_ERROR, "%s: neither its owner's socket answers nor is it free", m->dir);
	return rc;
}

static int elect(struct embedded *m)
{
	int rc;

	pthread_mutex_lock(&owned_lock);
	rc = elect_locked(m);
	pthread_mutex_unlock(&owned_lock);
	return rc;
}

void tss_embedded_forked(void)
{
	struct owned *o, *next;

	/* the child's copies of the parent's engines: their memory goes, nothing of theirs is
	 * closed (the parent still runs them); a parent thread may have held the lock */
	for (o = owned; o; o = next) {
		next = o->next;
		free(o);
	}
	owned = NULL;
	pthread_mutex_init(&owned_lock, NULL);
}

static int transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rsp_len)
{
	struct embedded *m = ctx;
	int rc;

	if (m->own)
		return pqtpm_engine_execute(m->cl, 0, cmd, len, rsp, cap, rsp_len);
	if (m->fd < 0) /* the last election failed: try again */
		return elect(m) < 0 ? -EIO : transmit(ctx, cmd, len, rsp, cap, rsp_len);
	rc = tss_unix_exchange(m->fd, PQTPM_FRAME_COMMAND, 0, cmd, len, rsp, cap, rsp_len);
	if (rc == -EPIPE) {
		close(m->fd);
		m->fd = -1;
		(void)elect(m); /* for the next command; this one may have run */
	}
	return rc;
}

static int power_on(void *ctx)
{
	struct embedded *m = ctx;
	int rc;

	if (m->own) {
		rc = pqtpm_engine_signal(m->own->e, PQTPM_SIGNAL_POWER_ON);
		return rc < 0 ? rc : pqtpm_engine_signal(m->own->e, PQTPM_SIGNAL_NV_ON);
	}
	return m->fd < 0 ? -EIO : tss_unix_power_on(m->fd);
}

static void close_embedded(void *ctx)
{
	struct embedded *m = ctx;

	if (m->own) {
		pthread_mutex_lock(&owned_lock);
		leave(m);
		pthread_mutex_unlock(&owned_lock);
	} else if (m->fd >= 0) {
		close(m->fd);
	}
	free(m);
}

/* In a forked child: the engine and its serving thread are the parent's (the child has only
 * a copy of their memory), so the child lets go of its copies and closes nothing of theirs. */
static void forget_embedded(void *ctx)
{
	struct embedded *m = ctx;

	if (!m->own && m->fd >= 0)
		close(m->fd);
	free(m);
}

static const struct tss_transport embedded_ops = {
	.transmit = transmit,
	.power_on = power_on,
	.close = close_embedded,
	.forget = forget_embedded,
};

int tss_embedded_transport(const char *dir, const struct tss_transport **ops, void **ctx)
{
	struct embedded *m;
	int rc;

	if (!dir || !*dir || strlen(dir) >= sizeof(m->dir))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	strcpy(m->dir, dir);
	m->fd = -1;
	tss_fork_watch(); /* before this process owns an engine: a child must forget it */
	if (snprintf(m->sock, sizeof(m->sock), "%s/%s", dir, PQTPM_SOCKET_NAME) >=
	    (int)sizeof(m->sock)) {
		free(m);
		return -ENAMETOOLONG;
	}
	rc = elect(m);
	if (rc < 0) {
		free(m);
		return rc;
	}
	*ops = &embedded_ops;
	*ctx = m;
	return 0;
}
