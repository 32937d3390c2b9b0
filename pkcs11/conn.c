/* The TPM connections: a pool, so that TPM steps of several threads run at once (docs/pkcs11.md,
 * "Concurrency"). Each connection is a client of the TPM of its own (an engine client for
 * embedded:, a socket for mssim: and unix:) with its own storage key (a primary ECC P-256 key
 * of the owner hierarchy: the same key on each, derived from the owner's seed, so nothing
 * about it is stored) and its own loaded keys, since a TPM's transient handle belongs to the
 * client that loaded it. Connections are opened at first use, never in C_Initialize, so that
 * an unreachable TPM costs nothing until a token is used.
 *
 * A thread takes a connection with the module lock held (take: one nobody uses, preferably
 * the one its key was last used on, else another open one, else a new one; when all are in
 * use, the one fewest threads want), then waits for the connection's lock; the module lock is
 * released in between for a step outside it (p11_unlocked), or kept for the whole call by the
 * locked path (p11_tpm: the connection is given back by p11_leave). */
#include <string.h>

#include "p11.h"

static struct p11_conn pool[P11_MAX_CONNS];
static struct p11_conn *held; /* the connection of the module lock's holder (p11_tpm) */

static unsigned idx(const struct p11_conn *c)
{
	return (unsigned)(c - pool);
}

/* ---- opening and letting go (the connection's lock held) ---- */

static TPM_RC storage_primary(struct p11_conn *c)
{
	struct pqtpm_tss_template tmpl = {
		.type = TPM_ALG_ECC,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
			      TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
		.curve = TPM_ECC_NIST_P256,
		.sym_bits = 128,
	};
	struct pqtpm_tss_public pub;
	struct pqtpm_tss_key key;
	TPM_RC rc;

	rc = pqtpm_tss_template_public(&tmpl, &pub);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_create_primary(c->t, TPM_RH_OWNER, p11.conf.owner_auth, &pub, "",
					      &key);
	if (rc == TPM_RC_SUCCESS)
		c->storage = key.handle;
	return rc;
}

/* Every handle on c is gone (c->gen tells the objects' loaded handles so). */
static void forget_handles(struct p11_conn *c)
{
	c->nkeys = 0;
	c->gen++;
}

/* Let go of every key loaded on c (the TPM's object memory is full, or freed keys were not
 * all recorded). */
static void unload_all(struct p11_conn *c)
{
	size_t i;

	for (i = 0; i < c->nkeys; i++)
		pqtpm_tss_flush(c->t, c->keys[i]);
	forget_handles(c);
}

/* The transport failed: the connection and its handles are dropped (nothing to flush). */
static void drop(struct p11_conn *c)
{
	pqtpm_tss_close(c->t);
	c->t = NULL;
	c->storage = 0;
	c->lost = false;
	forget_handles(c);
}

static CK_RV conn_open(struct p11_conn *c)
{
	TPM_RC rc;
	CK_RV rv;
	int err = pqtpm_tss_open_tcti(&c->t, p11.conf.tpm);

	if (err != 0) {
		p11_log(P11_LOG_ERROR, "%s: cannot reach the TPM (%s)", p11.conf.tpm,
			strerror(-err));
		c->t = NULL;
		return CKR_DEVICE_ERROR;
	}
	rc = pqtpm_tss_power_on(c->t) == 0 ? pqtpm_tss_startup(c->t, TPM_SU_CLEAR)
					   : PQTPM_TSS_RC_IO;
	if (rc != TPM_RC_SUCCESS) {
		rv = p11_conn_rv(c, rc, "Startup");
	} else {
		rc = storage_primary(c);
		rv = CKR_OK;
		if (rc != TPM_RC_SUCCESS) {
			p11_conn_rv(c, rc, "the storage key (CreatePrimary)");
			rv = CKR_DEVICE_ERROR;
		}
	}
	if (rv != CKR_OK) {
		bool lost = c->lost;

		drop(c);
		c->lost = lost; /* the caller tries once more */
	}
	return rv;
}

/* Open (again, if the transport failed) before a step. */
static CK_RV ready(struct p11_conn *c)
{
	if (c->lost) {
		p11_log(P11_LOG_INFO, "%s: the connection was lost, opening it again",
			p11.conf.tpm);
		drop(c);
	}
	return c->t ? CKR_OK : conn_open(c);
}

/* What a taker brings from the pool's bookkeeping to the connection: keys of freed objects. */
struct dead {
	struct p11_loaded h[P11_CONN_KEYS];
	size_t n;
	bool stale;
};

static void settle(struct p11_conn *c, const struct dead *d)
{
	size_t i, j;

	if (!c->t)
		return;
	if (d->stale) {
		unload_all(c);
		return;
	}
	for (i = 0; i < d->n; i++) {
		if (d->h[i].gen != c->gen)
			continue; /* went with all the others already */
		pqtpm_tss_flush(c->t, d->h[i].h);
		for (j = 0; j < c->nkeys && c->keys[j] != d->h[i].h; j++)
			;
		if (j < c->nkeys)
			c->keys[j] = c->keys[--c->nkeys];
	}
}

/* ---- the pool's bookkeeping (the module lock held) ---- */

static struct p11_conn *take(const struct p11_object *key, struct dead *d)
{
	unsigned i, n = p11.conf.connections; /* 1 to P11_MAX_CONNS (conf.c) */
	struct p11_conn *c = NULL;

	if (key && key->conn < n && !pool[key->conn].users && pool[key->conn].opened)
		c = &pool[key->conn];
	for (i = 0; !c && i < n; i++)
		if (!pool[i].users && pool[i].opened)
			c = &pool[i];
	for (i = 0; !c && i < n; i++)
		if (!pool[i].users)
			c = &pool[i];
	if (!c) { /* every one in use: wait for the least wanted */
		c = &pool[0];
		for (i = 1; i < n; i++)
			if (pool[i].users < c->users)
				c = &pool[i];
	}
	c->users++;
	memcpy(d->h, c->dead, c->ndead * sizeof(c->dead[0]));
	d->n = c->ndead;
	d->stale = c->stale;
	c->ndead = 0;
	c->stale = false;
	return c;
}

static void give(struct p11_conn *c, struct p11_object *key, bool open)
{
	c->users--;
	c->opened = open;
	if (key)
		key->conn = idx(c);
}

void p11_conn_let_go(const struct p11_object *o)
{
	unsigned i;

	for (i = 0; i < P11_MAX_CONNS; i++) {
		struct p11_conn *c = &pool[i];

		if (!o->loaded[i].h)
			continue;
		if (c->ndead < P11_CONN_KEYS)
			c->dead[c->ndead++] = o->loaded[i];
		else
			c->stale = true;
	}
}

bool p11_conns_busy(void)
{
	unsigned i;

	for (i = 0; i < P11_MAX_CONNS; i++)
		if (pool[i].users)
			return true;
	return false;
}

void p11_conns_close(void)
{
	unsigned i;

	p11_conn_give_held();
	for (i = 0; i < P11_MAX_CONNS; i++) {
		struct p11_conn *c = &pool[i];

		if (c->t) {
			unload_all(c);
			if (c->storage)
				pqtpm_tss_flush(c->t, c->storage);
			pqtpm_tss_close(c->t);
		}
		memset(c, 0, sizeof(*c));
	}
}

void p11_conns_forget(void)
{
	unsigned i;

	/* the library lets a child close its copies without touching the parent's connections */
	for (i = 0; i < P11_MAX_CONNS; i++) {
		pqtpm_tss_close(pool[i].t);
		memset(&pool[i], 0, sizeof(pool[i]));
	}
	held = NULL;
}

/* ---- outside the module lock ---- */

static CK_RV run(struct p11_conn *c, p11_step_fn step, void *arg)
{
	CK_RV rv = ready(c);

	if (rv == CKR_OK)
		rv = step(c, arg);
	if (!c->lost)
		return rv;
	rv = ready(c);
	return rv == CKR_OK ? step(c, arg) : rv;
}

CK_RV p11_unlocked(struct p11_object *key, p11_step_fn step, void *arg)
{
	struct p11_conn *c;
	struct dead d;
	bool open;
	CK_RV rv;

	p11_conn_give_held();
	if (key)
		p11_object_hold(key);
	c = take(key, &d);
	p11_mutex_unlock(0);
	p11_mutex_lock(1 + idx(c));
	settle(c, &d);
	rv = run(c, step, arg);
	open = c->t != NULL;
	p11_mutex_unlock(1 + idx(c));
	p11_mutex_lock(0);
	give(c, key, open);
	if (key)
		p11_object_release(key);
	return rv;
}

/* ---- the locked path ---- */

struct p11_conn *p11_conn_held(void)
{
	struct dead d;

	if (!held) {
		held = take(NULL, &d);
		p11_mutex_lock(1 + idx(held)); /* the module lock, then a connection's */
		settle(held, &d);
	}
	return held;
}

void p11_conn_give_held(void)
{
	struct p11_conn *c = held;
	bool open;

	if (!c)
		return;
	held = NULL;
	open = c->t != NULL;
	p11_mutex_unlock(1 + idx(c));
	give(c, NULL, open);
}

CK_RV p11_tpm(struct pqtpm_tss **t, TPM_HANDLE *storage)
{
	struct p11_conn *c = p11_conn_held();
	CK_RV rv = ready(c);

	if (rv != CKR_OK)
		return rv;
	*t = c->t;
	if (storage)
		*storage = c->storage;
	return CKR_OK;
}

bool p11_tpm_recover(void)
{
	if (!held || !held->lost)
		return false;
	p11_log(P11_LOG_INFO, "%s: the connection was lost, opening it again", p11.conf.tpm);
	drop(held);
	return true;
}

CK_RV p11_tpm_rv(TPM_RC rc, const char *what)
{
	return held ? p11_conn_rv(held, rc, what) : p11_rc(rc, what);
}

/* ---- TPM steps on a connection ---- */

CK_RV p11_conn_rv(struct p11_conn *c, TPM_RC rc, const char *what)
{
	if (rc == PQTPM_TSS_RC_IO)
		c->lost = true;
	return p11_rc(rc, what);
}

CK_RV p11_conn_load(struct p11_conn *c, struct p11_object *o, TPM_HANDLE *h)
{
	struct p11_loaded *l = &o->loaded[idx(c)];
	struct pqtpm_tss_key key;
	TPM_RC rc;

	if (l->h && l->gen == c->gen) {
		*h = l->h;
		return CKR_OK;
	}
	if (!o->tpm_pub || !o->tpm_priv || o->tpm_pub->len > sizeof(key.pub.b) ||
	    o->tpm_priv->len > sizeof(key.priv.b))
		return CKR_KEY_TYPE_INCONSISTENT;
	if (c->nkeys == P11_CONN_KEYS)
		unload_all(c);
	memcpy(key.pub.b, o->tpm_pub->b, o->tpm_pub->len);
	key.pub.size = (uint16_t)o->tpm_pub->len;
	memcpy(key.priv.b, o->tpm_priv->b, o->tpm_priv->len);
	key.priv.size = (uint16_t)o->tpm_priv->len;
	rc = pqtpm_tss_load(c->t, c->storage, "", &key);
	if (rc == TPM_RC_OBJECT_MEMORY) {
		unload_all(c);
		rc = pqtpm_tss_load(c->t, c->storage, "", &key);
	}
	explicit_bzero(&key.priv, sizeof(key.priv));
	if (rc != TPM_RC_SUCCESS)
		return p11_conn_rv(c, rc, "Load");
	c->keys[c->nkeys++] = key.handle;
	l->h = key.handle;
	l->gen = c->gen;
	*h = key.handle;
	return CKR_OK;
}

CK_RV p11_conn_load_public(struct p11_conn *c, const struct p11_blob *pub, TPM_HANDLE *h)
{
	struct pqtpm_tss_public p;
	struct pqtpm_tss_key key;
	TPM_RC rc;

	if (pub->len > sizeof(p.b))
		return CKR_KEY_TYPE_INCONSISTENT;
	memcpy(p.b, pub->b, pub->len);
	p.size = (uint16_t)pub->len;
	rc = pqtpm_tss_load_public(c->t, TPM_RH_NULL, &p, &key);
	if (rc == TPM_RC_OBJECT_MEMORY) {
		unload_all(c);
		rc = pqtpm_tss_load_public(c->t, TPM_RH_NULL, &p, &key);
	}
	if (rc != TPM_RC_SUCCESS)
		return p11_conn_rv(c, rc, "LoadExternal");
	*h = key.handle;
	return CKR_OK;
}
