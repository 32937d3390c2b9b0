/* NV indices (Part 1 §37, Part 2 §13 TPMA_NV/TPMS_NV_PUBLIC, Part 3 §31): the index table that
 * lives in the state file, the access rules, and what the lifecycle does to indices.
 *
 * The table is flat: a fixed array of index slots and one data arena, so that a copy of the
 * whole store is a memcpy (dispatch snapshots it before the first change of a command and
 * puts it back when the state cannot be saved). Slots never move, so a struct nv_index *
 * stays valid for the length of a command; deleting an index compacts the arena.
 *
 * Orderly counters (TPM_NT_COUNTER with TPMA_NV_ORDERLY) count in RAM (struct nv_ram): the
 * store holds the value last written, which is brought up to date when the low bits of the
 * count roll over (every NV_ORDERLY_COUNT + 1 increments), at Shutdown and when the state is
 * saved for another reason. After a disorderly shutdown the stored value gets its low bits
 * set, so a counter never goes back (Part 1 §37.4.3). Every other index is written through.
 */
#ifndef PQTPM_NV_H
#define PQTPM_NV_H

#include "engine_int.h"
#include "txn.h" /* nv_begin_change */

#define NV_MAX_INDICES 256		/* defined at once */
#define NV_INDEX_MAX 8192		/* one index's data, PQTPM_CAPS_V185 (PQ certificates) */
/* One index's data with PQTPM_CAPS_RELEASED: released TSSs hold an index in a
 * TPM2B_MAX_NV_BUFFER of 2048 bytes (tpm2-tools 5.4 corrupts a larger write from stdin). */
#define NV_INDEX_MAX_RELEASED 2048
#define NV_BUFFER_MAX 1024		/* TPM_PT_NV_BUFFER_MAX: TPM2B_MAX_NV_BUFFER */
#define NV_SPACE (128u * 1024u)		/* data bytes of all indices together */
#define NV_INDEX_OVERHEAD 64u		/* bytes each index costs besides its data */
#define NV_ORDERLY_COUNT 255u		/* MAX_ORDERLY_COUNT (TPM_PT_ORDERLY_COUNT) */
#define NV_FIRST 0x01000000u
#define NV_LAST 0x01FFFFFFu

/* TPM_NT (TPMA_NV bits 4-7) */
#define TPM_NT_ORDINARY 0x0u
#define TPM_NT_COUNTER 0x1u
#define TPM_NT_BITS 0x2u
#define TPM_NT_EXTEND 0x4u
#define TPM_NT_PIN_FAIL 0x8u
#define TPM_NT_PIN_PASS 0x9u
#define TPMA_NV_RESERVED 0x01F00300u /* bits 8, 9, 20-24 */

struct nv_public { /* TPMS_NV_PUBLIC */
	TPM_HANDLE handle;
	TPM_ALG_ID name_alg;
	uint32_t attributes;
	struct tpm2b_digest policy;
	uint16_t size;
};

struct nv_index {
	struct nv_public pub;		/* pub.handle 0: a free slot */
	struct tpm2b_digest auth;	/* without trailing zeros */
	uint32_t offset;		/* of its data in nv_store.data */
};

struct nv_store {
	uint64_t max_counter;		/* largest value of any counter deleted so far */
	uint32_t used;			/* bytes of data in use, from data[0] on */
	struct nv_index idx[NV_MAX_INDICES];
	uint8_t data[NV_SPACE];
};

/* RAM values of orderly counters ahead of the store (engine-local, not saved per change). */
struct nv_ram {
	TPM_HANDLE handle[NV_MAX_INDICES]; /* 0: unused */
	uint64_t value[NV_MAX_INDICES];
};

static inline unsigned nv_type(uint32_t attributes)
{
	return (attributes & TPMA_NV_TPM2_NT_MASK) >> TPMA_NV_TPM2_NT_SHIFT;
}

static inline bool nv_is_counter_like(uint32_t attributes) /* 8-byte u64 data */
{
	unsigned t = nv_type(attributes);

	return t == TPM_NT_COUNTER || t == TPM_NT_BITS || t == TPM_NT_PIN_FAIL ||
	       t == TPM_NT_PIN_PASS;
}

/* ---- the store (nv/store.c) ---- */
struct nv_store *nv_store_new(void);			/* zeroed; NULL when out of memory */
void nv_store_free(struct nv_store *s);			/* wipes */
struct nv_index *nv_find(struct nv_store *s, TPM_HANDLE h);
unsigned nv_count(const struct nv_store *s, int type); /* type -1: all */
uint32_t nv_space_left(const struct nv_store *s);	/* data bytes a new index may still use */
/* A new index with zeroed data; TPM_RC_NV_SPACE when the table or the arena is full. */
TPM_RC nv_add(struct nv_store *s, const struct nv_public *pub, const struct tpm2b_digest *auth,
	      struct nv_index **out);
void nv_remove(struct nv_store *s, struct nv_index *idx); /* wipes its data */
uint8_t *nv_data(struct nv_store *s, const struct nv_index *idx);
/* TPM_PT_NV_INDEX_MAX: the largest index NV_DefineSpace makes under the engine's setting. An
 * index loaded from the state may be larger (up to NV_INDEX_MAX) and stays usable. */
uint16_t nv_index_max(const struct pqtpm_engine *e);
uint64_t nv_get_u64(struct nv_store *s, const struct nv_index *idx);
void nv_put_u64(struct nv_store *s, const struct nv_index *idx, uint64_t v);
/* Ascending handles from 'from' on: the next defined one, 0 when none. */
TPM_HANDLE nv_next_handle(const struct nv_store *s, TPM_HANDLE from);

/* ---- TPMS_NV_PUBLIC and Names (nv/public.c) ---- */
TPM_RC rd_nv_public(struct rd *r, struct nv_public *pub);	/* TPMS_NV_PUBLIC */
TPM_RC rd_tpm2b_nv_public(struct rd *r, struct nv_public *pub); /* TPM2B_NV_PUBLIC */
TPM_RC wr_nv_public(struct wr *w, const struct nv_public *pub);
TPM_RC wr_tpm2b_nv_public(struct wr *w, const struct nv_public *pub);
/* nameAlg || H_nameAlg(TPMS_NV_PUBLIC) with the current attributes (Part 1 §16). */
TPM_RC nv_name(const struct nv_public *pub, struct tpm2b_name *name);

/* ---- access rules (nv/access.c) ---- */
/* May the index be named at all (the hierarchy that made it is enabled)? */
bool nv_accessible(const struct pqtpm_engine *e, const struct nv_index *idx);
/* Is the command a write for the AUTHWRITE/POLICYWRITE rules (else a read)? */
bool nv_is_write_command(TPM_CC cc);
/* Authorization by the index itself: may its authValue (password, HMAC) or its policy be
 * used for this command? TPM_RC_SUCCESS or TPM_RC_AUTH_UNAVAILABLE. */
TPM_RC nv_auth_value_allowed(const struct cmd *c, unsigned slot);
TPM_RC nv_policy_allowed(const struct cmd *c, unsigned slot);
/* The authValue of the index in a slot was checked (ok or not): PIN Pass and PIN Fail
 * indices count it (Part 1 §37.2.3.6), saving the count at once. */
TPM_RC nv_auth_checked(struct cmd *c, unsigned slot, bool ok);
/* Part 3 §31.x: the checks of NV_Read/NV_ReadLock/PolicyNV and of the write commands. */
TPM_RC nv_read_access(const struct cmd *c, const struct nv_index *idx);
TPM_RC nv_write_access(const struct cmd *c, const struct nv_index *idx);
/* Set TPMA_NV_WRITTEN (an attribute change: the Name changes). */
void nv_mark_written(struct nv_index *idx);

/* ---- orderly counters (nv/orderly.c) ---- */
uint64_t nv_counter_value(struct pqtpm_engine *e, const struct nv_index *idx);
/* Set a counter's value; an orderly one is written to the store only when its low bits roll
 * over (*durable tells). */
void nv_counter_set(struct pqtpm_engine *e, struct nv_index *idx, uint64_t v, bool *durable);
/* n bytes of the index's data from offset, a counter as its current value (NV_Read,
 * PolicyNV); the caller checked the range. */
void nv_read_data(struct pqtpm_engine *e, const struct nv_index *idx, uint16_t offset,
		  uint16_t n, uint8_t *out);
/* Shutdown: the RAM values into the store (marks the state dirty if any changed). */
void nv_orderly_flush(struct pqtpm_engine *e);
/* Power loss: RAM values are gone. */
void nv_orderly_drop(struct pqtpm_engine *e);
void nv_orderly_forget(struct pqtpm_engine *e, TPM_HANDLE h);

/* ---- lifecycle (nv/lifecycle.c) ---- */
/* Startup: TPM Reset/Restart (startup_clear) clear READLOCKED, WRITELOCKED of WRITE_STCLEAR
 * indices, WRITTEN of CLEAR_STCLEAR and orderly non-counter indices; after a disorderly
 * shutdown (was_orderly false) orderly counters move to the top of their RAM window. */
void nv_startup(struct pqtpm_engine *e, bool startup_clear, bool was_orderly);
/* Delete an index (after nv_begin_change), remembering the value of a counter: a counter
 * defined later starts above it (Part 1 §37.4.3). */
void nv_delete(struct pqtpm_engine *e, struct nv_index *idx);
/* TPM2_Clear: delete the indices made with ownerAuth (PLATFORMCREATE clear). */
void nv_clear_owner(struct pqtpm_engine *e);

#endif
