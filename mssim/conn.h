/* One MSSIM connection: a non-blocking socket, its framing state, its output buffer and (on
 * the command port) its own engine client. Made, served and freed by one worker thread,
 * the only one that ever touches it.
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

/* An accepted socket on its way from the main thread to a worker: written whole into the
 * worker's handoff pipe (well below PIPE_BUF, so one atomic write), so that nothing but the
 * counters is shared between the threads. */
struct mssim_handoff {
	int fd;			/* accepted, non-blocking */
	enum mssim_port port;
	unsigned id;
	char peer[80];
};

/* Worker thread: takes over a handed-over socket (already counted in the worker's and the
 * server's connection counts): TCP_NODELAY, its engine client (command port), the worker's
 * epoll set and connection list. Returns 0, or -1 (logged, fd closed, uncounted). */
int mssim_conn_open(struct mssim_worker *wk, const struct mssim_handoff *h);

/* Handles epoll readiness (input, output room, hang-up or error); may close and free c. */
void mssim_conn_ready(struct mssim_conn *c);

/* Worker thread: closes and frees c, logging why at info. */
void mssim_conn_close(struct mssim_conn *c, const char *why);

#endif
