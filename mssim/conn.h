/* One MSSIM connection: a blocking socket, its framing state, its output buffer and (on the
 * command port) its own engine client, served by a thread of its own (server.h says why),
 * which keeps the structure for the connections it serves after it.
 */
#ifndef MSSIM_CONN_H
#define MSSIM_CONN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "server.h"

/* A whole reply: u32 size, the largest response, u32 0. */
#define MSSIM_OUT_CAP (4 + PQTPM_MAX_RESPONSE_SIZE + 4)

struct mssim_conn {
	struct mssim_server *srv;
	pthread_t thread;	/* the main thread's, to join it */
	/* Under srv->lock: in srv->conns while serving a connection, in srv->spare while
	 * waiting for the next one (on wake), in srv->done once the thread ends. */
	struct mssim_conn *prev, *next;
	pthread_cond_t wake;
	int fd;			/* accepted, blocking; -1 between connections */
	enum mssim_port port;
	unsigned id;
	char peer[80];
	/* The rest belongs to the thread. */
	struct pqtpm_client *client;	/* command port only */
	uint64_t idle_avg_ns;	/* recent gaps between its clients' commands (receive()) */
	size_t out_len;		/* out[0..out_len) is the reply to send */
	uint8_t out[MSSIM_OUT_CAP];
	struct mssim_frame frame;
};

/* A connection's thread (pthread_create's start routine; arg is the connection, in
 * srv->conns and counted in srv->open): serves it until either side closes it, frees its
 * engine client and counts it out, then serves the next one mssim_server_next() hands it,
 * or ends. */
void *mssim_conn_main(void *arg);

#endif
