/* Orderly counters (TPM_NT_COUNTER with TPMA_NV_ORDERLY, Part 1 §37.4.3): the count lives in
 * RAM and reaches the state file when its low bits roll over, at Shutdown, and with any other
 * save. Rollover points are always durable before they are acknowledged, so after a crash the
 * stored value with its low bits set is at least every value that was reported. */
#include <stdlib.h>
#include <string.h>

#include "nv/nv.h"
#include "txn.h"

static bool orderly_counter(const struct nv_index *idx)
{
	return nv_type(idx->pub.attributes) == TPM_NT_COUNTER &&
	       (idx->pub.attributes & TPMA_NV_ORDERLY);
}

static int ram_slot(struct nv_ram *ram, TPM_HANDLE h, bool create)
{
	int free_slot = -1;

	if (!ram)
		return -1;
	for (int i = 0; i < NV_MAX_INDICES; i++) {
		if (ram->handle[i] == h)
			return i;
		if (!ram->handle[i] && free_slot < 0)
			free_slot = i;
	}
	if (create && free_slot >= 0) {
		ram->handle[free_slot] = h;
		ram->value[free_slot] = 0;
	}
	return create ? free_slot : -1;
}

uint64_t nv_counter_value(struct pqtpm_engine *e, const struct nv_index *idx)
{
	uint64_t stored = nv_get_u64(e->ps.nv, idx);
	int i;

	if (!orderly_counter(idx))
		return stored;
	i = ram_slot(e->nv_ram, idx->pub.handle, false);
	/* another process may have stored a larger value meanwhile */
	return i >= 0 && e->nv_ram->value[i] > stored ? e->nv_ram->value[i] : stored;
}

void nv_read_data(struct pqtpm_engine *e, const struct nv_index *idx, uint16_t offset,
		  uint16_t n, uint8_t *out)
{
	const uint8_t *data = nv_data(e->ps.nv, idx);
	uint8_t counter[8];

	if (nv_type(idx->pub.attributes) == TPM_NT_COUNTER) {
		uint64_t v = nv_counter_value(e, idx);

		for (int i = 7; i >= 0; i--, v >>= 8)
			counter[i] = (uint8_t)v;
		data = counter;
	}
	memcpy(out, data + offset, n);
}

void nv_counter_set(struct pqtpm_engine *e, struct nv_index *idx, uint64_t v, bool *durable)
{
	int i = -1;

	*durable = true;
	if (orderly_counter(idx)) {
		if (!e->nv_ram)
			e->nv_ram = calloc(1, sizeof(*e->nv_ram));
		i = ram_slot(e->nv_ram, idx->pub.handle, true);
	}
	if (i >= 0) {
		struct nv_ram *ram = e->nv_ram;

		txn_ram_change(e, i);
		volatile_dirty(e);
		ram->value[i] = v;
		/* the first write (WRITTEN) and every rollover go to the store */
		*durable = (v & NV_ORDERLY_COUNT) == 0 || !(idx->pub.attributes & TPMA_NV_WRITTEN);
		if (!*durable)
			return;
	}
	nv_begin_change(e);
	nv_put_u64(e->ps.nv, idx, v);
	nv_mark_written(idx);
	engine_dirty(e);
}

void nv_orderly_flush(struct pqtpm_engine *e)
{
	for (int i = 0; e->nv_ram && i < NV_MAX_INDICES; i++) {
		struct nv_index *idx = nv_find(e->ps.nv, e->nv_ram->handle[i]);

		if (!idx || !orderly_counter(idx))
			continue;
		if (e->nv_ram->value[i] > nv_get_u64(e->ps.nv, idx)) {
			nv_begin_change(e);
			nv_put_u64(e->ps.nv, idx, e->nv_ram->value[i]);
			engine_dirty(e);
		}
	}
}

void nv_orderly_drop(struct pqtpm_engine *e)
{
	if (e->nv_ram)
		volatile_dirty(e);
	free(e->nv_ram);
	e->nv_ram = NULL;
}

void nv_orderly_forget(struct pqtpm_engine *e, TPM_HANDLE h)
{
	int i = ram_slot(e->nv_ram, h, false);

	if (i >= 0) {
		e->nv_ram->handle[i] = 0;
		volatile_dirty(e);
	}
}
