/* The Names of a command's handles, for cpHash (Part 1 §16): a small cache of transient
 * objects' Names filled from the responses that return them (a sequence object's Name is
 * empty, and ReadPublic refuses it), ReadPublic / NV_ReadPublic for the rest (tss_int.h).
 * The cache is the handle's, under its (recursive) lock like everything else in it. */
#include <string.h>

#include "tss_int.h"

#define NSLOTS (sizeof(((struct pqtpm_tss *)0)->names) / sizeof(((struct pqtpm_tss *)0)->names[0]))

void tss_name_put(struct pqtpm_tss *t, TPM_HANDLE h, const struct pqtpm_tss_name *name)
{
	struct tss_name_slot *slot = NULL;

	if ((h >> 24) != TPM_HT_TRANSIENT || tss_lock(t) != TPM_RC_SUCCESS)
		return;
	for (unsigned i = 0; i < NSLOTS && !slot; i++)
		if (t->names[i].handle == h)
			slot = &t->names[i];
	if (!slot) {
		slot = &t->names[t->names_next];
		t->names_next = (t->names_next + 1) % NSLOTS;
	}
	slot->handle = h;
	slot->name = *name;
	tss_unlock(t);
}

void tss_name_drop(struct pqtpm_tss *t, TPM_HANDLE h)
{
	if (tss_lock(t) != TPM_RC_SUCCESS)
		return;
	for (unsigned i = 0; i < NSLOTS; i++)
		if (t->names[i].handle == h)
			t->names[i].handle = 0;
	tss_unlock(t);
}

void tss_names_clear(struct pqtpm_tss *t)
{
	if (tss_lock(t) != TPM_RC_SUCCESS)
		return;
	for (unsigned i = 0; i < NSLOTS; i++)
		t->names[i].handle = 0;
	tss_unlock(t);
}

/* ReadPublic or NV_ReadPublic: a sized public area, then the Name. */
static TPM_RC fetch(struct pqtpm_tss *t, TPM_CC cc, TPM_HANDLE h, struct pqtpm_tss_name *name)
{
	struct tss_cmd c;
	struct rd r, sub;
	uint16_t size;

	tss_begin(&c, t, cc);
	tss_handle(&c, h);
	TRY(tss_run(&c, &r, NULL));
	if (rd_sub(&r, &sub, &size))
		return PQTPM_TSS_RC_MALFORMED;
	return tss_rd_tpm2b(&r, name->b, sizeof(name->b), &name->size);
}

TPM_RC tss_name_get(struct pqtpm_tss *t, TPM_HANDLE h, struct pqtpm_tss_name *name)
{
	switch (h >> 24) {
	case TPM_HT_TRANSIENT:
		TRY(tss_lock(t));
		for (unsigned i = 0; i < NSLOTS; i++) {
			if (t->names[i].handle == h) {
				*name = t->names[i].name;
				tss_unlock(t);
				return TPM_RC_SUCCESS;
			}
		}
		tss_unlock(t);
		TRY(fetch(t, TPM_CC_ReadPublic, h, name));
		tss_name_put(t, h, name);
		return TPM_RC_SUCCESS;
	case TPM_HT_PERSISTENT: /* EvictControl may put another object there */
		return fetch(t, TPM_CC_ReadPublic, h, name);
	case TPM_HT_NV_INDEX:
		return fetch(t, TPM_CC_NV_ReadPublic, h, name);
	default: {
		struct wr w;

		wr_init(&w, name->b, sizeof(name->b));
		name->size = 4;
		return wr_u32(&w, h);
	}
	}
}
