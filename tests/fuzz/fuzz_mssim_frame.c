/* libFuzzer target: the MSSIM framing state machine (mssim/frame.h), pure, no sockets.
 *
 * Input: byte 0 chooses the port (bit 0) and seeds the chunking; the rest is the byte stream
 * a client sends. The stream is decoded three times: in chunks of sizes drawn from the seed,
 * one byte at a time, and as much at once as fits. The oracle, beyond the sanitizers:
 *   - every event is consistent: data inside the frame buffer, len at most the largest
 *     command, a COMMAND's locality and length as the frame header said, replies at most 12
 *     bytes, after a CLOSE nothing but CLOSE, room never 0 after NONE, pending never more
 *     than was received;
 *   - the three decodings give the same sequence of events (framing does not depend on how
 *     TCP cut the stream).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

#define MAX_EVENTS 4096

struct seen {
	enum mssim_event_type type;
	uint32_t code;
	uint8_t locality;
	int signal;
	size_t len;
	uint32_t data_sum;	/* FNV-1a of the payload */
	size_t reply_len;
	uint8_t reply[12];
};

struct run {
	struct seen ev[MAX_EVENTS];
	size_t n;
	int overflow;
};

static struct mssim_frame frame;	/* 8 KiB: not on the stack */
static struct run runs[3];

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "fuzz_mssim_frame: %s\n", what);
	abort();
}

static uint32_t fnv(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* Drains the decoder after a receive; returns 1 once closed. */
static int drain(struct run *r, size_t received_total)
{
	struct mssim_event ev;

	for (;;) {
		struct seen *s;

		mssim_frame_next(&frame, &ev);
		if (mssim_frame_pending(&frame) > received_total)
			die("pending exceeds what was received");
		if (ev.type == MSSIM_EV_NONE)
			return 0;
		if (ev.reply_len > sizeof(ev.reply))
			die("reply longer than its buffer");
		if (ev.type == MSSIM_EV_COMMAND || ev.type == MSSIM_EV_HASH_DATA) {
			if (ev.len > PQTPM_MAX_COMMAND_SIZE)
				die("payload longer than the largest command");
			if (ev.data < frame.buf || ev.data + ev.len > frame.buf + frame.len)
				die("payload outside the frame buffer");
			if (ev.type == MSSIM_EV_COMMAND &&
			    (mssim_get_u32(ev.data - 4) != ev.len || ev.data[-5] != ev.locality))
				die("command event disagrees with its frame header");
		}
		if (!ev.name)
			die("event without a name");
		if (r->n == MAX_EVENTS) {
			r->overflow = 1;
			return 1;
		}
		s = &r->ev[r->n++];
		memset(s, 0, sizeof(*s));
		s->type = ev.type;
		s->code = ev.code;
		if (ev.type == MSSIM_EV_COMMAND) {
			s->locality = ev.locality;
			s->len = ev.len;
			s->data_sum = fnv(ev.data, ev.len);
		} else if (ev.type == MSSIM_EV_HASH_DATA) {
			s->len = ev.len;
			s->data_sum = fnv(ev.data, ev.len);
		} else if (ev.type == MSSIM_EV_SIGNAL) {
			s->signal = (int)ev.signal;
		}
		s->reply_len = ev.reply_len;
		memcpy(s->reply, ev.reply, ev.reply_len);
		if (ev.type == MSSIM_EV_CLOSE) {
			/* closed for good */
			mssim_frame_next(&frame, &ev);
			if (ev.type != MSSIM_EV_CLOSE)
				die("an event after CLOSE");
			return 1;
		}
	}
}

/* mode 0: chunks from a tiny PRNG; 1: bytes one by one; 2: as much as fits */
static void decode(struct run *r, enum mssim_port port, const uint8_t *p, size_t n, int mode,
		   uint32_t seed)
{
	size_t off = 0;

	memset(r, 0, sizeof(*r));
	mssim_frame_init(&frame, port);
	while (off < n) {
		size_t room, chunk;
		uint8_t *space = mssim_frame_space(&frame, &room);

		if (room == 0)
			die("no room after the decoder said NONE");
		if (mode == 1) {
			chunk = 1;
		} else if (mode == 2) {
			chunk = room;
		} else {
			seed = seed * 1103515245u + 12345u;
			chunk = 1 + (seed >> 16) % 64;
			if ((seed >> 8 & 7) == 0)
				chunk = 1 + (seed >> 12) % 9000;
		}
		if (chunk > room)
			chunk = room;
		if (chunk > n - off)
			chunk = n - off;
		memcpy(space, p + off, chunk);
		mssim_frame_received(&frame, chunk);
		off += chunk;
		if (drain(r, off))
			return;
	}
}

static int same(const struct run *a, const struct run *b)
{
	if (a->overflow || b->overflow)
		return 1;	/* cut at MAX_EVENTS: not comparable */
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct seen *x = &a->ev[i], *y = &b->ev[i];

		if (x->type != y->type || x->code != y->code || x->locality != y->locality ||
		    x->signal != y->signal || x->len != y->len || x->data_sum != y->data_sum ||
		    x->reply_len != y->reply_len || memcmp(x->reply, y->reply, x->reply_len))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum mssim_port port;

	if (size < 1)
		return 0;
	port = data[0] & 1 ? MSSIM_PORT_PLATFORM : MSSIM_PORT_COMMAND;
	decode(&runs[0], port, data + 1, size - 1, 0, data[0]);
	decode(&runs[1], port, data + 1, size - 1, 1, 0);
	decode(&runs[2], port, data + 1, size - 1, 2, 0);
	if (!same(&runs[0], &runs[1]) || !same(&runs[0], &runs[2]))
		die("the events depend on how the stream was cut");
	return 0;
}
