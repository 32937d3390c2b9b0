/* One TPM per state directory (docs/state-directory.md): the process that runs the engine on a
 * directory holds its owner lock, serves the others on <dir>/pqtpm.sock and keeps the volatile
 * state in <dir>/pqtpm.volatile, so that the next owner finds the TPM as this one left it. */
#ifndef PQTPM_STATE_OWNER_H
#define PQTPM_STATE_OWNER_H

#include <stdbool.h>
#include <stddef.h>

#include "engine_int.h"

#define VOLATILE_FILE "pqtpm.volatile"

/* owner.c: take the owner lock (an OFD write lock on byte 0 of pqtpm.lock, released by the
 * kernel when the process dies). -EBUSY, with the owner's PID in err, if another engine holds
 * it (in this process or another). */
int owner_lock(struct pqtpm_engine *e, char *err, size_t errlen);
void owner_unlock(struct pqtpm_engine *e);
/* The PID of the process serving <dir>/pqtpm.sock (SO_PEERCRED), or a negative errno. */
int owner_pid(const char *dir);

/* sockaddr.c: bind (listen_here) or connect fd to the UNIX socket at path, of any length
 * (pqtpm_engine_connect in engine.h is the connecting half for clients). 0 or -errno. */
int socket_at(int fd, const char *path, bool listen_here);

/* serve.c: listen on <dir>/pqtpm.sock (0600) and serve it from a thread, each connection an
 * engine client. serve_stop closes every connection, joins the thread, unlinks the socket. */
int serve_start(struct pqtpm_engine *e, char *err, size_t errlen);
void serve_stop(struct pqtpm_engine *e);

/* volatile.c: open <dir>/pqtpm.volatile and restore what it holds into e. Returns 1 if the
 * TPM was restored, 0 if there was nothing to restore (no file, or one from an earlier boot
 * of the host: a power loss), or a negative errno with a message naming the file (both slots
 * damaged, or a slot that checks but does not parse). */
int volatile_open(struct pqtpm_engine *e, char *err, size_t errlen);
/* Remove <dir>/pqtpm.volatile (a new state file: the TPM was never powered). */
void volatile_discard(struct pqtpm_engine *e);
/* Write the volatile state if it changed since the last write (before a command's answer
 * leaves): only if something was marked (volatile_dirty, engine_int.h) since; clean marks an
 * orderly close and always writes. Logs a failure (and the mark stays, for the next try). */
void volatile_update(struct pqtpm_engine *e, bool clean);
/* Whether the restored state came from an owner that did not close (kill -9, crash). */
bool volatile_restored_unclean(const struct pqtpm_engine *e);
void volatile_close(struct pqtpm_engine *e);

#endif
