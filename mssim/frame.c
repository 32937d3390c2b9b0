/* MSSIM framing state machine: see frame.h for what is served where. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "protocol.h"

/* What follows the u32 code. */
enum shape {
	SHAPE_NONE,	/* nothing */
	SHAPE_U32,	/* one u32 */
	SHAPE_VAR,	/* u32 size, size bytes */
	SHAPE_COMMAND,	/* u8 locality, u32 size, size bytes */
};

enum action {
	ACT_SIGNAL,
	ACT_HASH_DATA,
	ACT_COMMAND,
	ACT_HANDSHAKE,
	ACT_ACK,	/* accepted, nothing to do */
	ACT_UNSUPPORTED,
	ACT_WRONG_PORT,
	ACT_SESSION_END,
	ACT_STOP,
};

struct code_def {
	uint32_t code;
	const char *name;
	enum shape shape;
	enum action on_command;	/* on the command port */
	enum action on_platform;	/* on the platform port */
	enum pqtpm_signal signal;	/* for ACT_SIGNAL */
};

#define DEF(c, shape, cmd, plat, sig) { c, #c, shape, cmd, plat, sig }

static const struct code_def codes[] = {
	DEF(TPM_SIGNAL_POWER_ON, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL, PQTPM_SIGNAL_POWER_ON),
	DEF(TPM_SIGNAL_POWER_OFF, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL, PQTPM_SIGNAL_POWER_OFF),
	DEF(TPM_SIGNAL_PHYS_PRES_ON, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL,
	    PQTPM_SIGNAL_PHYS_PRES_ON),
	DEF(TPM_SIGNAL_PHYS_PRES_OFF, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL,
	    PQTPM_SIGNAL_PHYS_PRES_OFF),
	/* The reference serves the H-CRTM signals on the command port; accept both. */
	DEF(TPM_SIGNAL_HASH_START, SHAPE_NONE, ACT_SIGNAL, ACT_SIGNAL, PQTPM_SIGNAL_HASH_START),
	DEF(TPM_SIGNAL_HASH_DATA, SHAPE_VAR, ACT_HASH_DATA, ACT_HASH_DATA, 0),
	DEF(TPM_SIGNAL_HASH_END, SHAPE_NONE, ACT_SIGNAL, ACT_SIGNAL, PQTPM_SIGNAL_HASH_END),
	DEF(TPM_SEND_COMMAND, SHAPE_COMMAND, ACT_COMMAND, ACT_WRONG_PORT, 0),
	DEF(TPM_SIGNAL_CANCEL_ON, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL, PQTPM_SIGNAL_CANCEL_ON),
	DEF(TPM_SIGNAL_CANCEL_OFF, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL,
	    PQTPM_SIGNAL_CANCEL_OFF),
	DEF(TPM_SIGNAL_NV_ON, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL, PQTPM_SIGNAL_NV_ON),
	DEF(TPM_SIGNAL_NV_OFF, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL, PQTPM_SIGNAL_NV_OFF),
	DEF(TPM_SIGNAL_KEY_CACHE_ON, SHAPE_NONE, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
	DEF(TPM_SIGNAL_KEY_CACHE_OFF, SHAPE_NONE, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
	DEF(TPM_REMOTE_HANDSHAKE, SHAPE_U32, ACT_HANDSHAKE, ACT_WRONG_PORT, 0),
	DEF(TPM_SET_ALTERNATIVE_RESULT, SHAPE_U32, ACT_ACK, ACT_WRONG_PORT, 0),
	DEF(TPM_SIGNAL_RESET, SHAPE_NONE, ACT_WRONG_PORT, ACT_SIGNAL, PQTPM_SIGNAL_RESET),
	/* In the reference a timer restart, which the engine has no signal for. */
	DEF(TPM_SIGNAL_RESTART, SHAPE_NONE, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
	DEF(TPM_SESSION_END, SHAPE_NONE, ACT_SESSION_END, ACT_SESSION_END, 0),
	DEF(TPM_STOP, SHAPE_NONE, ACT_STOP, ACT_STOP, 0),
	DEF(TPM_GET_COMMAND_RESPONSE_SIZES, SHAPE_NONE, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
	DEF(TPM_ACT_GET_SIGNALED, SHAPE_U32, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
	DEF(TPM_TEST_FAILURE_MODE, SHAPE_NONE, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
	DEF(TPM_SET_FW_HASH, SHAPE_U32, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
	DEF(TPM_SET_FW_SVN, SHAPE_U32, ACT_WRONG_PORT, ACT_UNSUPPORTED, 0),
};

uint32_t mssim_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void mssim_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void mssim_frame_init(struct mssim_frame *f, enum mssim_port port)
{
	f->port = port;
	f->closed = 0;
	f->start = 0;
	f->consumed = 0;
	f->len = 0;
}

static void drop_consumed(struct mssim_frame *f)
{
	f->start += f->consumed;
	f->consumed = 0;
}

uint8_t *mssim_frame_space(struct mssim_frame *f, size_t *room)
{
	drop_consumed(f);
	if (f->start > 0) {
		memmove(f->buf, f->buf + f->start, f->len - f->start);
		f->len -= f->start;
		f->start = 0;
	}
	*room = sizeof(f->buf) - f->len;
	return f->buf + f->len;
}

void mssim_frame_received(struct mssim_frame *f, size_t n)
{
	assert(n <= sizeof(f->buf) - f->len);
	f->len += n;
}

size_t mssim_frame_pending(const struct mssim_frame *f)
{
	return f->len - f->start - f->consumed;
}

static const struct code_def *find_code(uint32_t code)
{
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i].code == code)
			return &codes[i];
	return NULL;
}

static void reply_u32(struct mssim_event *ev, uint32_t v)
{
	mssim_put_u32(ev->reply + ev->reply_len, v);
	ev->reply_len += 4;
}

static void close_conn(struct mssim_frame *f, struct mssim_event *ev)
{
	ev->type = MSSIM_EV_CLOSE;
	f->closed = 1;
}

/* Acts on a complete frame p (whose header says size bytes follow) found on this port. */
static void decode(struct mssim_frame *f, const struct code_def *d, const uint8_t *p,
		   uint32_t size, struct mssim_event *ev)
{
	enum action act = f->port == MSSIM_PORT_COMMAND ? d->on_command : d->on_platform;

	switch (act) {
	case ACT_SIGNAL:
		ev->type = MSSIM_EV_SIGNAL;
		ev->signal = d->signal;
		break;
	case ACT_HASH_DATA:
		ev->type = MSSIM_EV_HASH_DATA;
		ev->data = p + 8;
		ev->len = size;
		break;
	case ACT_COMMAND:
		ev->type = MSSIM_EV_COMMAND;
		ev->locality = p[4];
		ev->data = p + 9;
		ev->len = size;
		break;
	case ACT_HANDSHAKE:
		/* The reference refuses version 0 by hanging up. */
		if (mssim_get_u32(p + 4) == 0) {
			snprintf(ev->problem, sizeof(ev->problem), "handshake from client version 0");
			close_conn(f, ev);
			break;
		}
		ev->type = MSSIM_EV_REPLY;
		reply_u32(ev, MSSIM_SERVER_VERSION);
		reply_u32(ev, MSSIM_EP_IN_RAW_MODE | MSSIM_EP_PLATFORM_AVAILABLE |
				      MSSIM_EP_SUPPORTS_PP | MSSIM_EP_NO_FORCE_FAILURE);
		reply_u32(ev, MSSIM_ACK_OK);
		break;
	case ACT_ACK:
		ev->type = MSSIM_EV_REPLY;
		reply_u32(ev, MSSIM_ACK_OK);
		break;
	case ACT_UNSUPPORTED:
		ev->type = MSSIM_EV_REPLY;
		reply_u32(ev, MSSIM_ACK_FAIL);
		snprintf(ev->problem, sizeof(ev->problem), "%s is not supported", d->name);
		break;
	case ACT_WRONG_PORT:
		ev->type = MSSIM_EV_REPLY;
		reply_u32(ev, MSSIM_ACK_FAIL);
		snprintf(ev->problem, sizeof(ev->problem), "%s is not served on the %s port",
			 d->name, f->port == MSSIM_PORT_COMMAND ? "command" : "platform");
		break;
	case ACT_SESSION_END:
		close_conn(f, ev);
		break;
	case ACT_STOP:
		/* Acknowledged, but it ends only this connection, never the server. */
		reply_u32(ev, MSSIM_ACK_OK);
		close_conn(f, ev);
		break;
	}
}

void mssim_frame_next(struct mssim_frame *f, struct mssim_event *ev)
{
	const struct code_def *d;
	const uint8_t *p;
	size_t avail, header = 4;
	uint32_t code, size = 0;

	memset(ev, 0, sizeof(*ev));
	ev->type = MSSIM_EV_NONE;
	if (f->closed) {
		ev->type = MSSIM_EV_CLOSE;
		return;
	}
	drop_consumed(f);
	p = f->buf + f->start;
	avail = f->len - f->start;
	if (avail < 4)
		return;

	code = mssim_get_u32(p);
	ev->code = code;
	d = find_code(code);
	if (!d) {
		ev->name = "unknown";
		snprintf(ev->problem, sizeof(ev->problem), "unknown code %u", code);
		reply_u32(ev, MSSIM_ACK_FAIL);
		close_conn(f, ev);
		return;
	}
	ev->name = d->name;

	switch (d->shape) {
	case SHAPE_NONE:
		break;
	case SHAPE_U32:
	case SHAPE_VAR:
		header = 8;
		break;
	case SHAPE_COMMAND:
		header = 9;
		break;
	}
	if (avail < header)
		return;
	if (d->shape == SHAPE_VAR || d->shape == SHAPE_COMMAND) {
		size = mssim_get_u32(p + header - 4);
		/* Decided on the header alone: the body is never waited for. */
		if (size > PQTPM_MAX_COMMAND_SIZE) {
			snprintf(ev->problem, sizeof(ev->problem),
				 "%s declares %u bytes, more than the maximum %u", d->name, size,
				 PQTPM_MAX_COMMAND_SIZE);
			close_conn(f, ev);
			return;
		}
	}
	if (avail - header < size)
		return;

	f->consumed = header + size;
	decode(f, d, p, size, ev);
}
