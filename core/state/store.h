/* Durable state: the one file <state_dir>/pqtpm.state that holds struct persist (seeds,
 * proofs, auths, persistent objects, NV indices, counters), written atomically and checked on
 * load.
 *
 * File format (all integers big-endian, body marshalled with the wr_* functions):
 *   "PQTPMST\0"  u32 version (STATE_VERSION)  u32 body length  body  SHA-256(all before it)
 * A file that is not exactly that (wrong magic, version, length, checksum, or a body that
 * does not parse to its last byte) is refused with a message naming the file; it is never
 * replaced. Writers and readers of one directory serialize on flock(<dir>/pqtpm.lock).
 *
 * Several processes may share a directory. A command that may change the state runs between
 * state_begin and state_end, holding the lock exclusively: state_begin loads the file again if
 * another process replaced it since this one last read or wrote it, so that every command acts
 * on the newest state and no two writers lose each other's changes (a stat: inode, size,
 * times). A command that only reads the state (dispatch.c decides which) needs neither the lock
 * nor the stat while state_fresh says that nobody has begun to write since: <dir>/pqtpm.seq
 * holds a counter, mapped shared, that writers bump under the lock before they replace the
 * file, and each engine notes its value when it loads or saves (one memory read).
 */
#ifndef PQTPM_STATE_STORE_H
#define PQTPM_STATE_STORE_H

#include <stddef.h>

#include "engine_int.h"

#define STATE_FILE "pqtpm.state"
#define STATE_TMP_FILE "pqtpm.state.tmp"
#define STATE_LOCK_FILE "pqtpm.lock"
#define STATE_SEQ_FILE "pqtpm.seq"
#define STATE_VERSION 2u
#define STATE_VERSION_MIN 1u /* older versions still load */

/* mkdir -p (0700 for what we create); refuses a path that exists but is not a directory.
 * Returns 0 or a negative errno with a message in err. */
int state_dir_prepare(const char *dir, char *err, size_t errlen);

/* Read <state_dir>/pqtpm.state into e->ps (persistent objects included). Returns 0, -ENOENT
 * if there is no state file (a fresh TPM), or a negative errno with a message in err; on any
 * failure e->ps is left as it was. */
int state_load(struct pqtpm_engine *e, char *err, size_t errlen);

/* Write e->ps atomically (temp file, fsync, rename, fsync of the directory) and bump
 * e->ps.generation. Returns 0 (also when the engine has no state directory) or a negative
 * errno; on failure the old file and e->ps are unchanged. Outside state_begin/state_end it
 * takes the lock itself and refuses (-EAGAIN) to write over what another process wrote
 * since e->ps was loaded. */
int state_save(struct pqtpm_engine *e);

/* A command (or an engine open) on the state directory: lock it and, if the state file is
 * not the one e->ps came from, load it (keeping the larger Clock). With no state file yet,
 * e->state_id.known stays false. Returns 0 or a negative errno with a message in err (the
 * lock is held in any case until state_end). */
int state_begin(struct pqtpm_engine *e, char *err, size_t errlen);
void state_end(struct pqtpm_engine *e);
/* Without the lock: true if no process has begun to write the state file since e->ps was
 * loaded or saved (or there is no state directory), so that e->ps is the newest state; false
 * when that is not known (state_begin then finds out). One memory read. */
bool state_fresh(const struct pqtpm_engine *e);
/* e->ps may differ from the file (a change that could not be taken back): the next
 * state_begin loads the file again. */
void state_invalidate(struct pqtpm_engine *e);
/* Save outside a command (power off, pqtpm_engine_save): begin, save, end. */
int state_sync(struct pqtpm_engine *e);
/* The engine goes: close the lock file, unmap the counter, drop the primaries kept. */
void state_close(struct pqtpm_engine *e);

/* Free (wiping) what ps owns: persistent objects and the NV store. */
void state_free_persist(struct persist *ps);

#endif
