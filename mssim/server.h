/* pqtpm-server: the two MSSIM listeners and the epoll loop that serves their connections.
 *
 * One server = one epoll loop on one thread. The state is all in struct mssim_server (no
 * globals), so a thread per core can later run one each on SO_REUSEPORT listeners.
 */
#ifndef MSSIM_SERVER_H
#define MSSIM_SERVER_H

#include <pqtpm/engine.h>

#include "config.h"
#include "frame.h"

/* Open connections over both ports; beyond that new ones are accepted and closed at once. */
#define MSSIM_MAX_CONNS 256

/* What an epoll event points at. */
struct mssim_watch {
	enum { MSSIM_WATCH_LISTEN, MSSIM_WATCH_SIGNAL, MSSIM_WATCH_CONN } kind;
	int fd;
	enum mssim_port port;	/* listeners and connections */
};

struct mssim_conn;

struct mssim_server {
	struct pqtpm_engine *engine;
	int epfd;
	struct mssim_watch listener[2];	/* indexed by enum mssim_port */
	struct mssim_watch stop;	/* signalfd for SIGINT and SIGTERM */
	struct mssim_conn *conns;	/* every open connection */
	unsigned nconns;
	unsigned next_id;	/* connection numbers in logs */
};

/* Call first, before any thread exists: ignores SIGPIPE, blocks SIGINT and SIGTERM (they are
 * read from a signalfd by the loop). Returns 0 or -1 (logged). */
int mssim_server_block_signals(void);

/* Listens on both ports. Returns 0 or -1 (logged); call mssim_server_close() either way. */
int mssim_server_open(struct mssim_server *s, struct pqtpm_engine *e,
		      const struct mssim_config *cfg);

/* Serves until SIGINT or SIGTERM (returns 0) or a fatal error (-1, logged). */
int mssim_server_run(struct mssim_server *s);

/* Closes every connection (freeing its engine client) and the listeners. */
void mssim_server_close(struct mssim_server *s);

#endif
