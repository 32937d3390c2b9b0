/* MSSIM framing: one connection's input bytes in, decoded frames (events) out.
 *
 * Pure: no sockets, no engine. The caller receives into mssim_frame_space(), reports the byte
 * count with mssim_frame_received(), then calls mssim_frame_next() until it says
 * MSSIM_EV_NONE, acting on each event and sending the bytes it names.
 *
 * Which codes are served where (the reference simulator's split):
 *   command port:  TPM_SEND_COMMAND, TPM_REMOTE_HANDSHAKE, TPM_SET_ALTERNATIVE_RESULT (no-op,
 *                  ack 0), TPM_SIGNAL_HASH_START/DATA/END, TPM_SESSION_END, TPM_STOP
 *   platform port: the TPM_SIGNAL_* power, physical presence, cancel, NV, reset and hash
 *                  signals, TPM_SESSION_END, TPM_STOP
 * Known codes answered with u32 1 and skipped, the stream staying aligned because their length
 * is known: a code served only on the other port, and the codes we do not support
 * (KEY_CACHE_ON/OFF, RESTART, GET_COMMAND_RESPONSE_SIZES, ACT_GET_SIGNALED, TEST_FAILURE_MODE,
 * SET_FW_HASH, SET_FW_SVN).
 * Closed: an unknown code (u32 1 sent first; its length is unknown, so nothing after it can
 * be trusted), a declared size above PQTPM_MAX_COMMAND_SIZE, a handshake from client version
 * 0, TPM_SESSION_END (nothing sent), TPM_STOP (u32 0 sent; only this connection ends).
 */
#ifndef MSSIM_FRAME_H
#define MSSIM_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <pqtpm/engine.h>

/* Longest frame: TPM_SEND_COMMAND's 9-byte header plus the largest command. */
#define MSSIM_FRAME_CAP (12 + PQTPM_MAX_COMMAND_SIZE)

enum mssim_port { MSSIM_PORT_COMMAND, MSSIM_PORT_PLATFORM };

enum mssim_event_type {
	MSSIM_EV_NONE,		/* no complete frame buffered yet */
	MSSIM_EV_COMMAND,	/* execute data/len at locality; send u32 size, response, u32 0 */
	MSSIM_EV_SIGNAL,	/* pqtpm_engine_signal(signal); send u32 0, or 1 if it failed */
	MSSIM_EV_HASH_DATA,	/* pqtpm_engine_hash_data(data, len); send u32 0 or 1 */
	MSSIM_EV_REPLY,		/* answered here: send reply/reply_len */
	MSSIM_EV_CLOSE,		/* send reply/reply_len (may be none), then close */
};

struct mssim_event {
	enum mssim_event_type type;
	uint32_t code;		/* MSSIM code of the frame */
	const char *name;	/* its protocol name, for logs */
	char problem[96];	/* nonempty: a protocol problem worth a warning */
	uint8_t locality;	/* COMMAND */
	enum pqtpm_signal signal;	/* SIGNAL */
	const uint8_t *data;	/* COMMAND, HASH_DATA: valid until the next frame call */
	size_t len;
	uint8_t reply[12];	/* REPLY, CLOSE */
	size_t reply_len;
};

struct mssim_frame {
	enum mssim_port port;
	int closed;		/* a CLOSE was returned: every later call returns CLOSE again */
	size_t start;		/* first byte not yet decoded */
	size_t consumed;	/* length of the frame last returned, dropped on the next call */
	size_t len;		/* bytes in buf */
	uint8_t buf[MSSIM_FRAME_CAP];
};

void mssim_frame_init(struct mssim_frame *f, enum mssim_port port);
/* Where to receive and how much fits: never 0 after mssim_frame_next() said MSSIM_EV_NONE. */
uint8_t *mssim_frame_space(struct mssim_frame *f, size_t *room);
/* n bytes were written at mssim_frame_space(); n <= room. */
void mssim_frame_received(struct mssim_frame *f, size_t n);
void mssim_frame_next(struct mssim_frame *f, struct mssim_event *ev);
/* Bytes received but not yet returned as a frame (a partial frame after MSSIM_EV_NONE). */
size_t mssim_frame_pending(const struct mssim_frame *f);

uint32_t mssim_get_u32(const uint8_t *p);
void mssim_put_u32(uint8_t *p, uint32_t v);

#endif
