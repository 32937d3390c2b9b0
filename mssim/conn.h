/* One MSSIM connection: a non-blocking socket, its framing state, its output buffer and (on
 * the command port) its own engine client. Made by the main thread when it accepts, then
 * owned by one worker thread, the only one that touches it from then on.
 */
#ifndef MSSIM_CONN_H
#define MSSIM_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "server.h"

/* A whole reply: u32 size, the largest response, u32 0. */
#define MSSIM_OUT_CAP (4 + PQTPM_MAX_RESPONSE_SIZE + 4)

struct mssim_conn {
	struct mssim_watch w;	/* first: epoll hands back a pointer to it */
	struct mssim_worker *wk;	/* the worker that serves it */
	struct mssim_conn *prev, *next;
	struct pqtpm_client *client;	/* command port only */
	unsigned id;
	char peer[80];
	uint32_t events;	/* epoll interest registered */
	int closing;		/* close once out is sent, logging close_why */
	enum pqtpm_log_level close_level;
	char close_why[96];
	size_t out_len, out_off;	/* out[out_off..out_len) is still to send */
	uint8_t out[MSSIM_OUT_CAP];
	struct mssim_frame frame;
};

/* Main thread: a connection for an accepted non-blocking socket, bound for worker wk (whose
 * open count and the server's connection count it adds to). Sets TCP_NODELAY. Returns NULL
 * (logged, fd closed) if out of memory. */
struct mssim_conn *mssim_conn_new(struct mssim_worker *wk, int fd, enum mssim_port port,
				  unsigned id, const char *peer);

/* Main thread: frees a connection that never reached its worker (fd closed, counts taken
 * back). */
void mssim_conn_discard(struct mssim_conn *c);

/* Worker thread: takes over c from the handoff pipe: its engine client (command port), the
 * worker's epoll set and connection list. Returns 0, or -1 (logged, c freed). */
int mssim_conn_start(struct mssim_conn *c);

/* Handles epoll readiness (input, output room, hang-up or error); may close and free c. */
void mssim_conn_ready(struct mssim_conn *c);

/* Worker thread: closes and frees c, logging why at info. */
void mssim_conn_close(struct mssim_conn *c, const char *why);

#endif
