/* One MSSIM connection: a non-blocking socket, its framing state, its output buffer and (on
 * the command port) its own engine client.
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
	struct mssim_server *srv;
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

/* Takes over an accepted non-blocking socket: registers it with the server's epoll. Returns 0,
 * or -1 (logged, fd closed). */
int mssim_conn_open(struct mssim_server *s, int fd, enum mssim_port port, const char *peer);

/* Handles epoll readiness (input, output room, hang-up or error); may close and free c. */
void mssim_conn_ready(struct mssim_conn *c);

/* Closes and frees c, logging why at info. */
void mssim_conn_close(struct mssim_conn *c, const char *why);

#endif
