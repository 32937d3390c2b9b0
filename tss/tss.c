/* Connections: open, close, power on, raw transmit; one command at a time per handle, and no
 * use of a handle in a process it was not opened in (see tss_int.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tss_int.h"

/* Counts forks (in the child): a handle remembers the count it was opened under. Cheaper than
 * getpid() per command, and not fooled by a recycled process ID. */
static atomic_uint fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void in_child(void)
{
	atomic_fetch_add(&fork_gen, 1);
	tss_embedded_forked();
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, in_child);
}

void tss_fork_watch(void)
{
	pthread_once(&fork_once, watch_forks);
}

static int wrap(struct pqtpm_tss **out, const struct tss_transport *ops, void *ctx)
{
	struct pqtpm_tss *t = calloc(1, sizeof(*t));

	pthread_mutexattr_t attr;
	int bad;

	tss_fork_watch(); /* before the first handle exists */
	/* recursive: a command that needs a Name sends ReadPublic from inside its own tss_run */
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	bad = !t || pthread_mutex_init(&t->lock, &attr) != 0;
	pthread_mutexattr_destroy(&attr);
	if (bad) {
		free(t);
		ops->close(ctx);
		return -ENOMEM;
	}
	t->ops = ops;
	t->ctx = ctx;
	t->fork_gen = atomic_load(&fork_gen);
	*out = t;
	return 0;
}

int pqtpm_tss_open_engine(struct pqtpm_tss **out, struct pqtpm_engine *e)
{
	const struct tss_transport *ops;
	void *ctx;
	int rc = tss_engine_transport(e, &ops, &ctx);

	return rc < 0 ? rc : wrap(out, ops, ctx);
}

int pqtpm_tss_open_mssim(struct pqtpm_tss **out, const char *host, unsigned port)
{
	const struct tss_transport *ops;
	void *ctx;
	int rc = tss_mssim_transport(host, port, &ops, &ctx);

	return rc < 0 ? rc : wrap(out, ops, ctx);
}

/* "mssim:host=H,port=P", "device:/dev/tpmrm0" ... (tcti.c) */
int pqtpm_tss_open_tcti(struct pqtpm_tss **out, const char *conf)
{
	const struct tss_transport *ops;
	void *ctx;
	int rc = tss_tcti_open(conf, &ops, &ctx);

	return rc < 0 ? rc : wrap(out, ops, ctx);
}

static int forked(const struct pqtpm_tss *t)
{
	return t->fork_gen != atomic_load(&fork_gen);
}

/* In a forked child the transport only lets go of the child's copies, and the mutex (which a
 * parent thread may have held at the fork) is left alone. */
void pqtpm_tss_close(struct pqtpm_tss *t)
{
	if (!t)
		return;
	if (forked(t)) {
		if (t->ops->forget)
			t->ops->forget(t->ctx);
	} else {
		t->ops->close(t->ctx);
		pthread_mutex_destroy(&t->lock);
	}
	free(t);
}

TPM_RC tss_lock(struct pqtpm_tss *t)
{
	if (forked(t))
		return PQTPM_TSS_RC_FORKED;
	pthread_mutex_lock(&t->lock);
	return TPM_RC_SUCCESS;
}

void tss_unlock(struct pqtpm_tss *t)
{
	pthread_mutex_unlock(&t->lock);
}

int pqtpm_tss_power_on(struct pqtpm_tss *t)
{
	int rc;

	if (tss_lock(t) != TPM_RC_SUCCESS)
		return -EPERM;
	rc = t->ops->power_on ? t->ops->power_on(t->ctx) : 0;
	tss_unlock(t);
	return rc;
}

static TPM_RC header_rc(const uint8_t *rsp, size_t len)
{
	struct rd r;
	uint16_t tag;
	uint32_t size, rc;

	rd_init(&r, rsp, len);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &rc) || size != len)
		return PQTPM_TSS_RC_MALFORMED;
	return rc;
}

/* The command code of a command, for messages (0 if it has no header). */
static TPM_CC command_code(const uint8_t *cmd, size_t len)
{
	struct rd r;
	uint16_t tag;
	uint32_t size, cc;

	rd_init(&r, cmd, len);
	return rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &cc) ? 0 : cc;
}

/* TPM_RC_RETRY, _YIELDED and _TESTING say the TPM did not run the command (swtpm answers the
 * first NV write after a power-on with TPM_RC_RETRY): it is sent again as it was, a bounded
 * number of times, as tpm2-tss does. */
#define MAX_SUBMISSIONS 5

TPM_RC tss_transmit_locked(struct pqtpm_tss *t, const uint8_t *cmd, size_t len, uint8_t *rsp,
			   size_t cap, size_t *rsp_len)
{
	TPM_RC rc = PQTPM_TSS_RC_IO;

	for (int i = 0; i < MAX_SUBMISSIONS; i++) {
		int err = t->ops->transmit(t->ctx, cmd, len, rsp, cap, rsp_len);

		if (err < 0) {
			tss_log(PQTPM_LOG_ERROR, "transport: command 0x%x not answered: %s",
				command_code(cmd, len), strerror(-err));
			return PQTPM_TSS_RC_IO;
		}
		rc = header_rc(rsp, *rsp_len);
		if (rc != TPM_RC_RETRY && rc != TPM_RC_YIELDED && rc != TPM_RC_TESTING)
			break;
	}
	return rc;
}

TPM_RC pqtpm_tss_transmit(struct pqtpm_tss *t, const uint8_t *cmd, size_t len, uint8_t *rsp,
			  size_t cap, size_t *rsp_len)
{
	TPM_RC rc = tss_lock(t);

	if (rc != TPM_RC_SUCCESS)
		return rc;
	rc = tss_transmit_locked(t, cmd, len, rsp, cap, rsp_len);
	tss_unlock(t);
	return rc;
}
