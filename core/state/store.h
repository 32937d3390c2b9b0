/* Durable state: the one file <state_dir>/pqtpm.state that holds struct persist (seeds,
 * proofs, auths, persistent objects, counters), written atomically and checked on load.
 *
 * File format (all integers big-endian, body marshalled with the wr_* functions):
 *   "PQTPMST\0"  u32 version (STATE_VERSION)  u32 body length  body  SHA-256(all before it)
 * A file that is not exactly that (wrong magic, version, length, checksum, or a body that
 * does not parse to its last byte) is refused with a message naming the file; it is never
 * replaced. Writers and readers of one directory serialize on flock(<dir>/pqtpm.lock).
 */
#ifndef PQTPM_STATE_STORE_H
#define PQTPM_STATE_STORE_H

#include <stddef.h>

#include "engine_int.h"

#define STATE_FILE "pqtpm.state"
#define STATE_TMP_FILE "pqtpm.state.tmp"
#define STATE_LOCK_FILE "pqtpm.lock"
#define STATE_VERSION 1u

/* mkdir -p (0700 for what we create); refuses a path that exists but is not a directory.
 * Returns 0 or a negative errno with a message in err. */
int state_dir_prepare(const char *dir, char *err, size_t errlen);

/* Read <state_dir>/pqtpm.state into e->ps (persistent objects included). Returns 0, -ENOENT
 * if there is no state file (a fresh TPM), or a negative errno with a message in err; on any
 * failure e->ps is left as it was. */
int state_load(struct pqtpm_engine *e, char *err, size_t errlen);

/* Write e->ps atomically (temp file, fsync, rename, fsync of the directory) and bump
 * e->ps.generation. Returns 0 (also when the engine has no state directory) or a negative
 * errno; on failure the old file and e->ps are unchanged. */
int state_save(struct pqtpm_engine *e);

/* For handlers that change e->ps themselves: state_save, logging a failure, as a TPM_RC
 * (TPM_RC_NV_UNAVAILABLE when the state could not be written, so the handler undoes its
 * change and the command fails). */
TPM_RC state_commit(struct pqtpm_engine *e);

#endif
