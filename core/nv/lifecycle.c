/* What Startup and Clear do to NV indices (Part 1 §37.3, Part 2 TPMA_NV, Part 3 §24.6). */
#include "nv/nv.h"

/* A write lock outlives TPM Reset and Restart only when NV_WriteLock made it for good:
 * WRITEDEFINE without WRITE_STCLEAR (Part 3 §31.10: a global lock of a GLOBALLOCK index is
 * permanent only for such an index too). */
static bool lock_is_permanent(uint32_t a)
{
	return (a & TPMA_NV_WRITEDEFINE) && !(a & TPMA_NV_WRITE_STCLEAR);
}

void nv_startup(struct pqtpm_engine *e, bool startup_clear, bool was_orderly)
{
	struct nv_store *s = e->ps.nv;

	nv_begin_change(e);
	for (unsigned i = 0; i < NV_MAX_INDICES; i++) {
		struct nv_index *idx = &s->idx[i];
		uint32_t *a = &idx->pub.attributes;
		bool counter = nv_type(*a) == TPM_NT_COUNTER;

		if (!idx->pub.handle)
			continue;
		if (!was_orderly && counter && (*a & TPMA_NV_ORDERLY) && (*a & TPMA_NV_WRITTEN))
			nv_put_u64(s, idx, nv_get_u64(s, idx) | NV_ORDERLY_COUNT);
		if (!startup_clear)
			continue;
		*a &= ~TPMA_NV_READLOCKED;
		if (!lock_is_permanent(*a))
			*a &= ~TPMA_NV_WRITELOCKED;
		if ((*a & TPMA_NV_CLEAR_STCLEAR) || ((*a & TPMA_NV_ORDERLY) && !counter))
			*a &= ~TPMA_NV_WRITTEN;
	}
	/* the store is current now (Shutdown flushed the RAM values, or they are lost) */
	nv_orderly_drop(e);
	engine_dirty(e);
}

void nv_delete(struct pqtpm_engine *e, struct nv_index *idx)
{
	struct nv_store *s = e->ps.nv;

	if (nv_type(idx->pub.attributes) == TPM_NT_COUNTER &&
	    (idx->pub.attributes & TPMA_NV_WRITTEN)) {
		uint64_t v = nv_counter_value(e, idx);

		if (v > s->max_counter)
			s->max_counter = v;
	}
	nv_orderly_forget(e, idx->pub.handle);
	nv_remove(s, idx);
}

void nv_clear_owner(struct pqtpm_engine *e)
{
	struct nv_store *s = e->ps.nv;

	nv_begin_change(e);
	for (unsigned i = 0; i < NV_MAX_INDICES; i++) {
		struct nv_index *idx = &s->idx[i];

		if (idx->pub.handle && !(idx->pub.attributes & TPMA_NV_PLATFORMCREATE))
			nv_delete(e, idx);
	}
	engine_dirty(e);
}
