/* The NV index table: slots and the data arena (a command's copy for a rollback: txn.c). */
#include <stdlib.h>
#include <string.h>

#include "nv/nv.h"

struct nv_store *nv_store_new(void)
{
	return calloc(1, sizeof(struct nv_store));
}

void nv_store_free(struct nv_store *s)
{
	if (!s)
		return;
	crypto_wipe(s, sizeof(*s));
	free(s);
}

struct nv_index *nv_find(struct nv_store *s, TPM_HANDLE h)
{
	if (!s || h == 0)
		return NULL;
	for (unsigned i = 0; i < NV_MAX_INDICES; i++)
		if (s->idx[i].pub.handle == h)
			return &s->idx[i];
	return NULL;
}

unsigned nv_count(const struct nv_store *s, int type)
{
	unsigned n = 0;

	for (unsigned i = 0; s && i < NV_MAX_INDICES; i++)
		if (s->idx[i].pub.handle &&
		    (type < 0 || nv_type(s->idx[i].pub.attributes) == (unsigned)type))
			n++;
	return n;
}

/* Every index costs its data plus NV_INDEX_OVERHEAD of the NV_SPACE budget. */
static uint32_t cost(const struct nv_store *s)
{
	return s->used + nv_count(s, -1) * NV_INDEX_OVERHEAD;
}

uint32_t nv_space_left(const struct nv_store *s)
{
	uint32_t c = cost(s) + NV_INDEX_OVERHEAD;

	if (nv_count(s, -1) >= NV_MAX_INDICES || c >= NV_SPACE)
		return 0;
	return NV_SPACE - c;
}

TPM_RC nv_add(struct nv_store *s, const struct nv_public *pub, const struct tpm2b_digest *auth,
	      struct nv_index **out)
{
	struct nv_index *slot = NULL;

	for (unsigned i = 0; i < NV_MAX_INDICES && !slot; i++)
		if (s->idx[i].pub.handle == 0)
			slot = &s->idx[i];
	if (!slot || pub->size > nv_space_left(s))
		return TPM_RC_NV_SPACE;
	slot->pub = *pub;
	slot->auth = *auth;
	slot->offset = s->used;
	memset(&s->data[s->used], 0, pub->size);
	s->used += pub->size;
	*out = slot;
	return TPM_RC_SUCCESS;
}

void nv_remove(struct nv_store *s, struct nv_index *idx)
{
	uint32_t off = idx->offset, len = idx->pub.size;

	/* close the gap: the data of every index behind it moves down */
	memmove(&s->data[off], &s->data[off + len], s->used - off - len);
	s->used -= len;
	crypto_wipe(&s->data[s->used], len);
	for (unsigned i = 0; i < NV_MAX_INDICES; i++)
		if (s->idx[i].pub.handle && s->idx[i].offset > off)
			s->idx[i].offset -= len;
	crypto_wipe(idx, sizeof(*idx));
}

uint8_t *nv_data(struct nv_store *s, const struct nv_index *idx)
{
	return &s->data[idx->offset];
}

uint64_t nv_get_u64(struct nv_store *s, const struct nv_index *idx)
{
	const uint8_t *p = nv_data(s, idx);
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

void nv_put_u64(struct nv_store *s, const struct nv_index *idx, uint64_t v)
{
	uint8_t *p = nv_data(s, idx);

	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

TPM_HANDLE nv_next_handle(const struct nv_store *s, TPM_HANDLE from)
{
	TPM_HANDLE best = 0;

	for (unsigned i = 0; s && i < NV_MAX_INDICES; i++) {
		TPM_HANDLE h = s->idx[i].pub.handle;

		if (h && h >= from && (!best || h < best))
			best = h;
	}
	return best;
}
