/* The engine's public face (include/pqtpm/engine.h): open/close, clients, execute, platform
 * signals. One mutex serializes what touches an instance, but the computations that a
 * command runs without it (compute.h); each client's own mutex keeps its commands in order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endorse/endorse.h"
#include "engine_int.h"
#include "nv/nv.h"
#include "pcr.h"
#include "session.h"
#include "startup.h"
#include "state/owner.h"
#include "state/store.h"
#include "txn.h"

/* _TPM_Init: the TPM needs a Startup before anything else. */
static void power_on(struct pqtpm_engine *e)
{
	if (e->powered)
		return;
	volatile_dirty(e);
	e->powered = true;
	e->started = false;
	e->clock_base_ms = clock_monotonic_ms();
	e->power_on_ms = e->clock_base_ms;
	/* _TPM_Init: nothing of a half-done H-CRTM, the last self test or a rate adjustment
	 * survives */
	e->clock_ppm = 0;
	e->hcrtm_active = false;
	e->hcrtm_pre_startup = false;
	e->self_tested = false;
	e->self_test_failed = false;
}

/* Power loss: loaded objects and sessions are volatile; clients stay connected. */
static void flush_volatile(struct pqtpm_engine *e)
{
	e->power_epoch++;
	for (struct pqtpm_client *cl = e->clients; cl; cl = cl->next) {
		for (int i = 0; i < MAX_CLIENT_OBJECTS; i++) {
			object_wipe_free(cl->objects[i]);
			cl->objects[i] = NULL;
		}
		session_release_all(cl);
	}
}

static void power_off(struct pqtpm_engine *e)
{
	if (!e->powered)
		return;
	volatile_dirty(e);
	flush_volatile(e);
	/* orderly counters not flushed by a Shutdown are lost, as a TPM's RAM is */
	nv_orderly_drop(e);
	engine_clock_sync(e);
	e->powered = false;
	e->started = false;
	if (e->state_dir && state_sync(e) != 0)
		pqtpm_log(PQTPM_LOG_ERROR, "saving state on power off failed");
}

static int fresh_state(struct pqtpm_engine *e, unsigned banks)
{
	if (!e->ps.nv)
		e->ps.nv = nv_store_new();
	if (!e->ps.nv)
		return -ENOMEM;
	e->ps.clock_safe = true;
	e->ps.orderly = true; /* a new TPM comes up as after an orderly shutdown */
	for (int i = 0; i < HIER_COUNT; i++) {
		if (crypto_random(e->ps.hier[i].seed, PRIMARY_SEED_SIZE) ||
		    crypto_random(e->ps.hier[i].proof, PRIMARY_SEED_SIZE))
			return -EIO;
		e->ps.hier[i].policy_alg = TPM_ALG_NULL;
	}
	e->ps.pcr_banks = banks ? banks : (PQTPM_BANK_SHA1 | PQTPM_BANK_SHA256);
	e->ps.pcr_banks_pending = e->ps.pcr_banks;
	e->ps.pcr_group_policy_alg = TPM_ALG_NULL;
	return 0;
}

/* Unlink and free a client and everything it owns; the caller holds the lock. */
static void client_destroy(struct pqtpm_client *c)
{
	struct pqtpm_engine *e = c->e;

	for (int i = 0; i < MAX_CLIENT_OBJECTS; i++)
		object_wipe_free(c->objects[i]);
	session_release_all(c);
	if (c->prev)
		c->prev->next = c->next;
	else
		e->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	e->nclients--;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void free_all(struct pqtpm_engine *e)
{
	while (e->clients)
		client_destroy(e->clients);
	session_drop_saved(e);
	state_free_persist(&e->ps);
	nv_store_free(e->nv_spare);
	nv_orderly_drop(e);
	state_close(e);
	volatile_close(e);
	owner_unlock(e);
	pthread_mutex_destroy(&e->lock);
	free(e->state_dir);
	crypto_wipe(e, sizeof(*e));
	free(e);
}

/* The owner lock, the persistent state (made if new) and the volatile state: 1 if the TPM
 * was restored as its last owner left it, 0 if it comes up as after a power loss. */
static int open_dir(struct pqtpm_engine *e, const struct pqtpm_engine_config *cfg, char *err,
		    size_t errlen)
{
	bool fresh;
	int rc;

	e->state_dir = strdup(cfg->state_dir);
	if (!e->state_dir)
		return -ENOMEM;
	rc = state_dir_prepare(e->state_dir, err, errlen);
	if (rc == 0)
		rc = owner_lock(e, err, errlen);
	if (rc)
		return rc;
	rc = state_begin(e, err, errlen);
	fresh = rc == 0 && !e->state_id.known;
	if (fresh) {
		rc = fresh_state(e, cfg->pcr_banks);
		if (!rc && state_save(e))
			rc = -EIO;
		if (rc && errlen)
			snprintf(err, errlen, "%s: cannot create the state file", e->state_dir);
	}
	/* manufacturing: a new TPM, or one made before it had EK certificates */
	if (rc == 0 && !cfg->no_ek_certificates)
		endorse_ensure(e);
	state_end(e);
	if (rc)
		return rc;
	/* a new TPM was never powered: RAM left by one whose state file was moved aside is not
	 * its own */
	if (fresh)
		volatile_discard(e);
	return volatile_open(e, err, errlen);
}

/* What open changes runs as a command would, in a transaction: _TPM_Init unless the TPM runs
 * on as its last owner left it, Startup(CLEAR) if asked, and all of it on disk before anyone
 * acts. */
static int open_transaction(struct pqtpm_engine *e, const struct pqtpm_engine_config *cfg,
			    bool restored, char *err, size_t errlen)
{
	struct txn t;
	TPM_RC trc;

	power_on(e);
	trc = txn_begin(&t, e, false);
	/* an owner that died may have reported Clock values after its last save (Part 1 §36.4) */
	if (trc == TPM_RC_SUCCESS && restored && volatile_restored_unclean(e) &&
	    e->ps.clock_safe) {
		e->ps.clock_safe = false;
		engine_dirty(e);
	}
	if (trc == TPM_RC_SUCCESS && cfg->auto_startup && !e->started) {
		trc = startup_run(e, TPM_SU_CLEAR, 0);
		if (trc != TPM_RC_SUCCESS && errlen)
			snprintf(err, errlen, "Startup(CLEAR) failed: 0x%03x", trc);
	} else if (trc != TPM_RC_SUCCESS && errlen) {
		snprintf(err, errlen, "%s: cannot lock or read the state", e->state_dir);
	}
	if (txn_commit(&t, trc == TPM_RC_SUCCESS) != 0 && trc == TPM_RC_SUCCESS) {
		if (errlen)
			snprintf(err, errlen, "%s: cannot save the state", e->state_dir);
		trc = TPM_RC_NV_UNAVAILABLE;
	}
	txn_end(&t);
	return trc == TPM_RC_SUCCESS ? 0 : -EIO;
}

int pqtpm_engine_open(struct pqtpm_engine **out, const struct pqtpm_engine_config *cfg,
		      char *err, size_t errlen)
{
	struct pqtpm_engine *e;
	int rc = 0;

	if (errlen)
		err[0] = 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	pthread_mutex_init(&e->lock, NULL);
	e->log_level = cfg->log_level;
	e->capabilities = cfg->capabilities;
	/* the clock counts from here: a state load that syncs it must not add the host's uptime */
	e->clock_base_ms = clock_monotonic_ms();
	e->power_on_ms = e->clock_base_ms;
	rc = cfg->state_dir ? open_dir(e, cfg, err, errlen) : fresh_state(e, cfg->pcr_banks);
	if (rc < 0)
		goto fail;
	if (rc == 1)
		pqtpm_log(PQTPM_LOG_INFO, "%s: the TPM runs on as its last owner left it (%s%s)",
			  e->state_dir, e->powered ? "powered" : "powered off",
			  e->started ? ", started" : "");
	rc = open_transaction(e, cfg, rc == 1, err, errlen);
	if (rc < 0)
		goto fail;
	if (e->state_dir) {
		rc = serve_start(e, err, errlen);
		if (rc < 0)
			goto fail;
	}
	*out = e;
	return 0;
fail:
	free_all(e);
	return rc;
}

/* Not a power loss: the TPM stays powered and started for the next owner of the directory,
 * with its PCRs and saved contexts; only what the clients had loaded goes. */
void pqtpm_engine_close(struct pqtpm_engine *e)
{
	if (!e)
		return;
	serve_stop(e);
	pthread_mutex_lock(&e->lock);
	flush_volatile(e);
	if (e->state_dir) {
		if (e->powered) /* Clock stood still since a power off */
			engine_clock_sync(e);
		if (state_sync(e) != 0)
			pqtpm_log(PQTPM_LOG_ERROR, "saving state at close failed");
	}
	volatile_update(e, true);
	pthread_mutex_unlock(&e->lock);
	free_all(e);
}

int pqtpm_engine_save(struct pqtpm_engine *e)
{
	int rc = 0;

	pthread_mutex_lock(&e->lock);
	if (e->state_dir) {
		engine_clock_sync(e);
		rc = state_sync(e);
	}
	pthread_mutex_unlock(&e->lock);
	return rc;
}

struct pqtpm_client *pqtpm_client_new(struct pqtpm_engine *e)
{
	struct pqtpm_client *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->e = e;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_lock(&e->lock);
	if (e->nclients >= MAX_CLIENTS_TOTAL) {
		pthread_mutex_unlock(&e->lock);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return NULL;
	}
	c->next = e->clients;
	if (e->clients)
		e->clients->prev = c;
	e->clients = c;
	e->nclients++;
	pthread_mutex_unlock(&e->lock);
	return c;
}

void pqtpm_client_free(struct pqtpm_client *c)
{
	struct pqtpm_engine *e;

	if (!c)
		return;
	e = c->e;
	pthread_mutex_lock(&e->lock);
	client_destroy(c);
	pthread_mutex_unlock(&e->lock);
}

/* Smallest response buffer we accept: a full response plus its authorization area. */
#define MIN_RSP_CAP 1024

int pqtpm_engine_execute(struct pqtpm_client *c, uint8_t locality, const uint8_t *cmd,
			 size_t cmd_len, uint8_t *rsp, size_t rsp_cap, size_t *rsp_len)
{
	struct pqtpm_engine *e = c->e;

	if (rsp_cap < MIN_RSP_CAP)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	pthread_mutex_lock(&e->lock);
	if (e->powered) {
		*rsp_len = dispatch(c, locality, cmd, cmd_len, rsp, rsp_cap);
	} else {
		/* A TPM that is off cannot answer; say so with a failure code. */
		struct wr w;

		wr_init(&w, rsp, rsp_cap);
		wr_u16(&w, TPM_ST_NO_SESSIONS);
		wr_u32(&w, 10);
		wr_u32(&w, TPM_RC_FAILURE);
		*rsp_len = w.off;
	}
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* _TPM_Hash_End after Startup (a D-RTM sequence) counts restartCount (pcr.c): saved as a
 * command's changes are, in a transaction of its own, so that another process reading the
 * state sees it. */
static int hash_end(struct pqtpm_engine *e)
{
	bool drtm = e->started;
	struct txn t;
	int rc;

	if (!e->hcrtm_active)
		return -EINVAL;
	if (txn_begin(&t, e, false) != TPM_RC_SUCCESS)
		return -EIO;
	rc = pcr_hcrtm_end(e);
	if (rc == 0 && drtm)
		engine_dirty(e);
	if (txn_commit(&t, rc == 0) != 0 && rc == 0)
		rc = -EIO;
	txn_end(&t);
	return rc;
}

int pqtpm_engine_signal(struct pqtpm_engine *e, enum pqtpm_signal sig)
{
	int rc = 0;

	pthread_mutex_lock(&e->lock);
	switch (sig) {
	case PQTPM_SIGNAL_POWER_ON:
		power_on(e);
		break;
	case PQTPM_SIGNAL_POWER_OFF:
		power_off(e);
		break;
	case PQTPM_SIGNAL_RESET:
		power_off(e);
		power_on(e);
		break;
	case PQTPM_SIGNAL_PHYS_PRES_ON:
		e->phys_presence = true;
		break;
	case PQTPM_SIGNAL_PHYS_PRES_OFF:
		e->phys_presence = false;
		break;
	case PQTPM_SIGNAL_NV_ON:
		e->nv_available = true;
		break;
	case PQTPM_SIGNAL_NV_OFF:
		e->nv_available = false;
		break;
	case PQTPM_SIGNAL_CANCEL_ON:
		e->cancel = true;
		break;
	case PQTPM_SIGNAL_CANCEL_OFF:
		e->cancel = false;
		break;
	case PQTPM_SIGNAL_HASH_START:
		rc = e->powered ? pcr_hcrtm_start(e) : -EINVAL;
		break;
	case PQTPM_SIGNAL_HASH_END:
		rc = hash_end(e);
		break;
	default:
		rc = -EINVAL;
	}
	/* the platform's signals are rare: each one is written, changed or not */
	volatile_dirty(e);
	volatile_update(e, false);
	pthread_mutex_unlock(&e->lock);
	return rc;
}

int pqtpm_engine_hash_data(struct pqtpm_engine *e, const uint8_t *data, size_t len)
{
	int rc;

	pthread_mutex_lock(&e->lock);
	rc = e->hcrtm_active ? pcr_hcrtm_data(e, data, len) : -EINVAL;
	pthread_mutex_unlock(&e->lock);
	return rc;
}
