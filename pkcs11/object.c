/* The module's objects: token objects (rows of the store, read again at each search so that
 * objects another process made appear) and session objects, by handle; C_DestroyObject. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

struct p11_object *p11_objects[P11_MAX_OBJECTS];
static CK_OBJECT_HANDLE next_handle = 1;

struct p11_object *p11_object_new(CK_SLOT_ID slot)
{
	struct p11_object *o = calloc(1, sizeof(*o));

	if (o)
		o->slot = slot;
	return o;
}

void p11_object_free(struct p11_object *o)
{
	size_t i;

	if (!o)
		return;
	p11_conn_let_go(o);
	for (i = 0; i < o->nattrs; i++) {
		explicit_bzero(o->attrs[i].value, o->attrs[i].len); /* a secret key's value */
		free(o->attrs[i].value);
	}
	free(o->attrs);
	free(o->tpm_pub);
	if (o->tpm_priv)
		explicit_bzero(o->tpm_priv, sizeof(*o->tpm_priv));
	free(o->tpm_priv);
	free(o);
}

CK_RV p11_object_add(struct p11_object *o)
{
	size_t i;

	for (i = 0; i < P11_MAX_OBJECTS; i++)
		if (!p11_objects[i]) {
			o->handle = next_handle++;
			p11_objects[i] = o;
			return CKR_OK;
		}
	return CKR_DEVICE_MEMORY;
}

static struct p11_object **slot_of(CK_OBJECT_HANDLE h)
{
	size_t i;

	if (h == CK_INVALID_HANDLE)
		return NULL;
	for (i = 0; i < P11_MAX_OBJECTS; i++)
		if (p11_objects[i] && p11_objects[i]->handle == h)
			return &p11_objects[i];
	return NULL;
}

bool p11_object_visible(const struct p11_session *s, const struct p11_token *tok,
			const struct p11_object *o)
{
	if (o->slot != s->slot)
		return false;
	if (p11_attr_bool(o, CKA_PRIVATE, true) && tok->user != CKU_USER)
		return false;
	return true;
}

CK_RV p11_object_get(const struct p11_session *s, const struct p11_token *tok,
		     CK_OBJECT_HANDLE h, struct p11_object **o)
{
	struct p11_object **p = slot_of(h);

	if (!p || !p11_object_visible(s, tok, *p))
		return CKR_OBJECT_HANDLE_INVALID;
	*o = *p;
	return CKR_OK;
}

/* Table slot p out: the object freed, or by the last release if a step holds it. */
static void unlink_slot(struct p11_object **p)
{
	struct p11_object *o = *p;

	*p = NULL;
	if (o->refs)
		o->gone = true;
	else
		p11_object_free(o);
}

static void drop_where(bool (*match)(const struct p11_object *, uint64_t), uint64_t v)
{
	size_t i;

	for (i = 0; i < P11_MAX_OBJECTS; i++)
		if (p11_objects[i] && match(p11_objects[i], v))
			unlink_slot(&p11_objects[i]);
}

static bool of_session(const struct p11_object *o, uint64_t h)
{
	return o->row == 0 && o->session == h;
}

static bool of_slot(const struct p11_object *o, uint64_t slot)
{
	return o->slot == slot;
}

void p11_object_drop(struct p11_object *o)
{
	struct p11_object **p = slot_of(o->handle);

	if (p && *p == o)
		unlink_slot(p);
	else
		p11_object_free(o);
}

void p11_object_hold(struct p11_object *o)
{
	o->refs++;
}

void p11_object_release(struct p11_object *o)
{
	if (--o->refs == 0 && o->gone)
		p11_object_free(o);
}

void p11_objects_drop_session(CK_SESSION_HANDLE h)
{
	drop_where(of_session, h);
}

void p11_objects_drop_slot(CK_SLOT_ID slot)
{
	drop_where(of_slot, slot);
}

void p11_objects_forget(void)
{
	size_t i;

	/* (one that a step of a parent thread held out of the table stays: nobody releases it) */
	for (i = 0; i < P11_MAX_OBJECTS; i++)
		if (p11_objects[i]) {
			/* the parent's TPM handles */
			memset(p11_objects[i]->loaded, 0, sizeof(p11_objects[i]->loaded));
			p11_object_free(p11_objects[i]);
			p11_objects[i] = NULL;
		}
}

/* The store's row of that id, or NULL. */
static const struct p11_store_row *find_row(const struct p11_store_row *rows, size_t n,
					    int64_t row)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* rows are ascending */
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].row == row)
			return &rows[mid];
		if (rows[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The object's attributes as the store has them now (another process changed them); its
 * handle, blobs and loaded TPM key stay. */
static CK_RV reload(struct p11_object *o)
{
	struct p11_object *fresh = p11_object_new(o->slot);
	struct p11_attr *attrs;
	size_t nattrs;
	CK_RV rv;

	if (!fresh)
		return CKR_HOST_MEMORY;
	rv = p11_store_object_load(p11.store, o->row, fresh);
	if (rv == CKR_OK) {
		attrs = o->attrs;
		nattrs = o->nattrs;
		o->attrs = fresh->attrs;
		o->nattrs = fresh->nattrs;
		o->gen = fresh->gen;
		fresh->attrs = attrs;
		fresh->nattrs = nattrs;
	}
	p11_object_free(fresh);
	return rv;
}

CK_RV p11_object_fresh(struct p11_object *o)
{
	int64_t gen;
	CK_RV rv;

	if (!o->row)
		return CKR_OK;
	rv = p11_store_object_gen(p11.store, o->row, &gen);
	if (rv == CKR_OBJECT_HANDLE_INVALID) /* destroyed by another process */
		p11_object_drop(o);
	else if (rv == CKR_OK && gen != o->gen)
		rv = reload(o);
	return rv;
}

CK_RV p11_objects_sync(struct p11_token *tok)
{
	struct p11_store_row *rows = NULL;
	size_t n = 0, i, j;
	CK_RV rv = p11_store_object_rows(p11.store, tok->id, &rows, &n);

	if (rv != CKR_OK)
		return rv;
	/* gone from the store: destroyed by another process; changed there: read again */
	for (i = 0; i < P11_MAX_OBJECTS && rv == CKR_OK; i++) {
		struct p11_object *o = p11_objects[i];
		const struct p11_store_row *r;

		if (!o || o->slot != tok->id || !o->row)
			continue;
		r = find_row(rows, n, o->row);
		if (!r)
			unlink_slot(&p11_objects[i]);
		else if (r->gen != o->gen)
			rv = reload(o);
	}
	for (j = 0; j < n && rv == CKR_OK; j++) {
		struct p11_object *o;

		for (i = 0; i < P11_MAX_OBJECTS; i++)
			if (p11_objects[i] && p11_objects[i]->slot == tok->id &&
			    p11_objects[i]->row == rows[j].row)
				break;
		if (i < P11_MAX_OBJECTS)
			continue;
		o = p11_object_new(tok->id);
		if (!o) {
			rv = CKR_HOST_MEMORY;
			break;
		}
		rv = p11_store_object_load(p11.store, rows[j].row, o);
		if (rv == CKR_OK)
			rv = p11_object_add(o);
		if (rv != CKR_OK)
			p11_object_free(o);
	}
	free(rows);
	return rv;
}

CK_RV C_DestroyObject(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject)
{
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *o;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	rv = p11_object_get(s, tok, hObject, &o);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (o->row && !(s->flags & CKF_RW_SESSION))
		return p11_done(CKR_SESSION_READ_ONLY);
	if (!p11_attr_bool(o, CKA_DESTROYABLE, true))
		return p11_done(CKR_ACTION_PROHIBITED);
	/* the store's row goes first: the TPM key is only a blob of that row */
	if (o->row)
		rv = p11_store_object_delete(p11.store, o->row);
	if (rv == CKR_OK)
		p11_object_drop(o);
	return p11_done(rv);
}

struct p11_object *p11_object_copy(const struct p11_object *o)
{
	struct p11_object *c = p11_object_new(o->slot);
	CK_RV rv = c ? CKR_OK : CKR_HOST_MEMORY;
	size_t i;

	for (i = 0; rv == CKR_OK && i < o->nattrs; i++)
		rv = p11_attr_set(c, o->attrs[i].type, o->attrs[i].value, o->attrs[i].len);
	if (rv == CKR_OK && o->tpm_pub) {
		c->tpm_pub = malloc(sizeof(*c->tpm_pub));
		if (c->tpm_pub)
			*c->tpm_pub = *o->tpm_pub;
		else
			rv = CKR_HOST_MEMORY;
	}
	if (rv == CKR_OK && o->tpm_priv) {
		c->tpm_priv = malloc(sizeof(*c->tpm_priv));
		if (c->tpm_priv)
			*c->tpm_priv = *o->tpm_priv;
		else
			rv = CKR_HOST_MEMORY;
	}
	if (rv == CKR_OK)
		return c;
	p11_object_free(c);
	return NULL;
}

CK_RV p11_object_keep(struct p11_session *s, struct p11_object *o)
{
	CK_RV rv = CKR_OK;

	if (p11_attr_bool(o, CKA_TOKEN, false))
		rv = p11_store_object_add(p11.store, o);
	else
		o->session = s->handle;
	if (rv == CKR_OK)
		rv = p11_object_add(o);
	if (rv != CKR_OK && o->row) {
		p11_store_object_delete(p11.store, o->row);
		o->row = 0;
	}
	return rv;
}
