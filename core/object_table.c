/* Where loaded objects live: transient objects in their client's slots (handles are per
 * client, so one client never sees another's), persistent objects in the engine's state. */
#include <stdlib.h>

#include "engine_int.h"

TPM_RC object_alloc(struct pqtpm_client *cl, enum object_kind kind, struct object **out)
{
	int slot = -1;
	struct object *o;
	TPM_HANDLE h;

	for (int i = 0; i < MAX_CLIENT_OBJECTS; i++) {
		if (!cl->objects[i]) {
			slot = i;
			break;
		}
	}
	if (slot < 0)
		return TPM_RC_OBJECT_MEMORY;
	/* Pick the next handle not in use, so a flushed handle is not handed out again at once. */
	for (;;) {
		h = TPM_HR_TRANSIENT | (cl->next_handle++ & 0xFFFFFFu);
		if (!object_find(cl, h))
			break;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return TPM_RC_MEMORY;
	o->kind = kind;
	o->handle = h;
	cl->objects[slot] = o;
	*out = o;
	return TPM_RC_SUCCESS;
}

void object_wipe_free(struct object *o)
{
	if (!o)
		return;
	object_free_caches(o);
	crypto_wipe(o, sizeof(*o));
	free(o);
}

void object_release(struct pqtpm_client *cl, struct object *o)
{
	for (int i = 0; i < MAX_CLIENT_OBJECTS; i++) {
		if (cl->objects[i] == o) {
			cl->objects[i] = NULL;
			break;
		}
	}
	object_wipe_free(o);
}

struct object *object_find(struct pqtpm_client *cl, TPM_HANDLE h)
{
	if ((h >> 24) == TPM_HT_TRANSIENT) {
		for (int i = 0; i < MAX_CLIENT_OBJECTS; i++)
			if (cl->objects[i] && cl->objects[i]->handle == h)
				return cl->objects[i];
	} else if ((h >> 24) == TPM_HT_PERSISTENT) {
		for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
			if (cl->e->ps.persistent[i] && cl->e->ps.persistent[i]->handle == h)
				return cl->e->ps.persistent[i];
	}
	return NULL;
}

unsigned object_count_loaded(struct pqtpm_engine *e)
{
	unsigned n = 0;

	for (struct pqtpm_client *cl = e->clients; cl; cl = cl->next)
		for (int i = 0; i < MAX_CLIENT_OBJECTS; i++)
			n += cl->objects[i] != NULL;
	return n;
}
