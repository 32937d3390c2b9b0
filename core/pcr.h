/* The PCR model (Part 1 §17, PC Client Platform TPM Profile §4.6): banks, values, the PC Client
 * attributes of each PCR (reset value, which localities may extend or reset it), extend, read,
 * selection digests, and the H-CRTM / D-RTM sequence of the platform hash signals.
 *
 * Banks are allocated whole (all 24 PCRs or none). e->banks[] holds the allocated banks in the
 * order SHA-1, SHA-256, SHA-384, SHA-512; e->ps.pcr_banks (PQTPM_BANK_*) says which, from
 * the last TPM Reset on. The attributes follow the TCG reference implementation's PC Client
 * table:
 *
 *   PCR    reset value  extend localities  PCR_Reset localities  state saved  counter
 *   0-15   0 (*)        0-4                none                  yes          +1
 *   16     0            0-4                0-3                   no           +1
 *   17-18  all 0xFF     2-4                (4: D-RTM only)       no           +1
 *   19     all 0xFF     2-3                (4: D-RTM only)       no           +1
 *   20     all 0xFF     1-3                2                     no           no increment
 *   21-22  all 0xFF     2                  2                     no           no increment
 *   23     0            0-4                0-3                   no           +1
 *
 * (*) PCR 0 ends in the startup locality (0...03 after Startup from locality 3), or holds the
 * H-CRTM measurement (0...04 extended with the digest) when an H-CRTM sequence ran before
 * Startup. Locality 4 never resets a PCR with TPM2_PCR_Reset: a D-RTM TPM resets 17-22 only
 * through the _TPM_Hash_Start/_TPM_Hash_End sequence.
 */
#ifndef PQTPM_PCR_H
#define PQTPM_PCR_H

#include "engine_int.h"

#define PCR_HCRTM 0 /* H-CRTM measurements */
#define PCR_DRTM 17 /* D-RTM measurements */

/* ---- banks ---- */
/* The hash algorithms a bank can be allocated with, in bank order; 0 past the end. */
TPM_ALG_ID pcr_bank_alg(size_t i);
size_t pcr_bank_alg_count(void);
/* The PQTPM_BANK_* bit of a bank algorithm, 0 for an algorithm that cannot have a bank. */
uint32_t pcr_bank_bit(TPM_ALG_ID alg);
/* The current value of a PCR in an allocated bank; NULL if the bank is not allocated. */
const uint8_t *pcr_value(const struct pqtpm_engine *e, TPM_ALG_ID alg, unsigned pcr);

/* ---- lifecycle ----
 * Startup: startup_clear (TPM Reset or Restart) builds the banks from e->ps.pcr_banks and gives
 * every PCR its reset value; otherwise (TPM Resume) PCRs 0-15 keep their values and 16-23 are
 * reset, unless the banks are gone (a new process), which resets everything. Consumes a
 * finished pre-Startup H-CRTM sequence. */
void pcr_reset_all(struct pqtpm_engine *e, bool startup_clear);

/* ---- changes (no locality checks: callers check with the rules below) ---- */
/* Extend one bank: value = H(value || digest). An unallocated bank is skipped (success);
 * TPM_RC_HASH for an algorithm without a bank, TPM_RC_VALUE for a PCR past 23. */
TPM_RC pcr_extend_digest(struct pqtpm_engine *e, unsigned pcr, TPM_ALG_ID alg,
			 const uint8_t *digest);
/* An event: hash data with each allocated bank's algorithm and extend that bank. */
TPM_RC pcr_extend_all(struct pqtpm_engine *e, unsigned pcr, const uint8_t *data, size_t len);
/* TPM2_PCR_Reset: zero in every allocated bank. */
TPM_RC pcr_reset(struct pqtpm_engine *e, unsigned pcr);

/* ---- PC Client locality rules ---- */
bool pcr_extend_allowed(unsigned pcr, uint8_t locality);
bool pcr_reset_allowed(unsigned pcr, uint8_t locality);
/* PCRs 20-22 form the one authorization group and the one policy group, as in the reference
 * implementation: PCR_SetAuthValue and PCR_SetAuthPolicy (cmd/pcr_auth.c) set them. */
#define PCR_AUTH_GROUP_FIRST 20
#define PCR_AUTH_GROUP_LAST 22
bool pcr_in_auth_group(unsigned pcr);
/* The PCRs a TPM_PT_PCR_* property names, as a 24-bit map (bit n = PCR n); false for a
 * property this TPM does not report. */
bool pcr_property_map(uint32_t property, uint32_t *map);

/* ---- selections ---- */
bool pcr_is_selected(const struct tpms_pcr_selection *s, unsigned pcr);
/* Clear the bits of PCRs that cannot be read: all of a bank that is not allocated. */
void pcr_filter_selection(const struct pqtpm_engine *e, struct tpml_pcr_selection *sel);
/* The digest with hash of the selected values (unallocated ones left out) concatenated in
 * selection order, then PCR order: what creationData, PolicyPCR and Quote use.
 * out needs crypto_hash_size(hash) bytes; *outlen is set to that. */
TPM_RC pcr_digest(const struct pqtpm_engine *e, const struct tpml_pcr_selection *sel,
		  TPM_ALG_ID hash, uint8_t *out, size_t *outlen);

/* ---- platform hash signals (Part 1 §34.3; PC Client PTP §4.6.3) ----
 * Before Startup, the sequence is an H-CRTM: at Startup PCR 0 becomes 0...04 extended with
 * its digest. After Startup, it is a D-RTM: _TPM_Hash_End resets PCRs 17-22 to zero, extends
 * PCR 17 with the digest and counts a restart. Returns 0 or a negative errno. */
int pcr_hcrtm_start(struct pqtpm_engine *e);
int pcr_hcrtm_data(struct pqtpm_engine *e, const uint8_t *data, size_t len);
int pcr_hcrtm_end(struct pqtpm_engine *e);

#endif
