/* libFuzzer target: the context-blob loader (core/context_blob.c, core/cmd/context.c,
 * core/session_context.c).
 *
 * Byte 0 of the input picks a mode (modulo 3), the rest is its data:
 *   0  raw TPMS_CONTEXT bytes as ContextLoad's parameter, through pqtpm_engine_execute:
 *      the TPMS_CONTEXT unmarshalling and the integrity check in front of everything else
 *      (an attacker's path: anyone may send ContextLoad);
 *   1  u8 savedHandle choice, u8 hierarchy choice, then the plaintext of a saved object,
 *      protected with this engine's own key (context_protect) and loaded with ContextLoad:
 *      the object decoder behind the HMAC, which only a holder of the proof could reach;
 *      an object that loads is then read (ReadPublic), saved again and the new context
 *      loaded again, which must succeed (round trip), and flushed;
 *   2  context_unprotect called directly: u64 sequence, u32 savedHandle, u32 hierarchy,
 *      u8 type, then the blob.
 *
 * The engine is in memory, fresh every PQTPM_FUZZ_RESET inputs (default 64; its proofs are
 * random, so inputs of mode 0 never pass the integrity check, by design).
 *
 * PQTPM_FUZZ_WRITE_SEEDS=DIR: write seed inputs (saved contexts of a key, an HMAC key, and of
 * hash, HMAC and event sequences, for modes 0 and 1) into DIR and exit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pqtpm/engine.h>

#include "context_blob.h"
#include "engine_int.h"
#include "fuzz_util.h"

#define ME "fuzz_context"

static struct pqtpm_engine *engine;
static struct pqtpm_client *client;
static unsigned long inputs, reset_every = 64;
static struct fz_cmd cmd;
static uint8_t rsp[PQTPM_MAX_RESPONSE_SIZE];

static const uint32_t saved_handles[] = { CONTEXT_HANDLE_OBJECT, CONTEXT_HANDLE_SEQUENCE,
					  CONTEXT_HANDLE_STCLEAR, 0x02000000u, 0x03000000u };
static const uint32_t hierarchies[] = { FZ_RH_OWNER, FZ_RH_ENDORSEMENT, FZ_RH_PLATFORM,
					FZ_RH_NULL, 0x40000005u /* no proof */ };
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void engine_fresh(void)
{
	struct pqtpm_engine_config cfg = { .auto_startup = 1, .log_level = PQTPM_LOG_ERROR };
	char err[256];

	pqtpm_client_free(client);
	pqtpm_engine_close(engine);
	if (pqtpm_engine_open(&engine, &cfg, err, sizeof(err)) != 0)
		fz_die(ME, err);
	client = pqtpm_client_new(engine);
	if (!client)
		fz_die(ME, "pqtpm_client_new");
}

/* ContextLoad of the marshalled TPMS_CONTEXT p/n: the rc, the handle in *h. */
static uint32_t context_load(const uint8_t *p, size_t n, uint32_t *h)
{
	size_t len;
	uint32_t rc;

	fz_begin(&cmd, FZ_ST_NO_SESSIONS, TPM_CC_ContextLoad);
	fz_bytes(&cmd, p, n);
	rc = fz_run(client, &cmd, rsp, &len);
	if (rc == 0 && len >= 14)
		*h = fz_get_u32(rsp + 10);
	return rc;
}

static uint32_t context_save(uint32_t h, uint8_t *out, size_t *out_len)
{
	size_t len;
	uint32_t rc;

	fz_begin(&cmd, FZ_ST_NO_SESSIONS, TPM_CC_ContextSave);
	fz_u32(&cmd, h);
	rc = fz_run(client, &cmd, rsp, &len);
	if (rc == 0) {
		*out_len = len - 10;
		memcpy(out, rsp + 10, len - 10);
	}
	return rc;
}

/* A command whose only argument is a handle (in the handle area or as the parameter: the
 * bytes are the same). */
static void simple(uint32_t cc, uint32_t h)
{
	size_t len;

	fz_begin(&cmd, FZ_ST_NO_SESSIONS, cc);
	fz_u32(&cmd, h);
	(void)fz_run(client, &cmd, rsp, &len);
}

static void mode_protected(const uint8_t *p, size_t n)
{
	static struct tpms_context ctx;
	static uint8_t saved[PQTPM_MAX_RESPONSE_SIZE], marshalled[sizeof(struct tpms_context) + 32];
	size_t saved_len;
	uint32_t h, h2;
	struct wr w;

	if (n < 2)
		return;
	memset(&ctx, 0, sizeof(ctx));
	ctx.saved_handle = saved_handles[p[0] % 3];
	ctx.hierarchy = hierarchies[p[1] % N(hierarchies)];
	ctx.sequence = ++engine->context_counter;
	volatile_dirty(engine);	/* as ContextSave marks its count (check builds verify it) */
	p += 2;
	n -= 2;
	if (n > CONTEXT_MAX_PLAIN - 9)
		n = CONTEXT_MAX_PLAIN - 9;
	if (context_protect(engine, &ctx, CONTEXT_TYPE_OBJECT, p, n) != TPM_RC_SUCCESS)
		return;	/* a hierarchy without a proof */
	wr_init(&w, marshalled, sizeof(marshalled));
	if (wr_context(&w, &ctx) != TPM_RC_SUCCESS)
		fz_die(ME, "wr_context");
	if (context_load(marshalled, w.off, &h) != 0)
		return;
	/* it loaded: use it, and it must survive a save/load round trip */
	simple(TPM_CC_ReadPublic, h);
	if (context_save(h, saved, &saved_len) != 0)
		fz_die(ME, "ContextSave of a loaded context failed");
	if (context_load(saved, saved_len, &h2) != 0)
		fz_die(ME, "ContextLoad of a context just saved failed");
	simple(TPM_CC_FlushContext, h2);
	simple(TPM_CC_FlushContext, h);
}

static void mode_unprotect(const uint8_t *p, size_t n)
{
	static struct tpms_context ctx;
	static uint8_t plain[CONTEXT_MAX_PLAIN];
	struct rd r, entity;

	memset(&ctx, 0, sizeof(ctx));
	rd_init(&r, p, n);
	if (rd_u64(&r, &ctx.sequence) || rd_u32(&r, &ctx.saved_handle) ||
	    rd_u32(&r, &ctx.hierarchy))
		return;
	{
		uint8_t type = 1;

		(void)rd_u8(&r, &type);
		ctx.blob_size = (uint16_t)(rd_left(&r) < sizeof(ctx.blob) ? rd_left(&r)
									 : sizeof(ctx.blob));
		memcpy(ctx.blob, r.buf + r.off, ctx.blob_size);
		if (context_unprotect(engine, &ctx, (enum context_type)(type & 3), plain,
				      &entity) == TPM_RC_SUCCESS &&
		    (entity.off > entity.len || entity.buf < plain ||
		     entity.buf + entity.len > plain + sizeof(plain)))
			fz_die(ME, "context_unprotect gave a reader outside its buffer");
	}
}

/* ---- seeds ---- */

static void write_seed(const char *dir, const char *name, uint8_t mode, const uint8_t *pre,
		       size_t pre_len, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&mode, 1, 1, f) != 1 || fwrite(pre, 1, pre_len, f) != pre_len ||
	    fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fz_die(ME, path);
}

static void seed_from(const char *dir, const char *name, uint32_t h)
{
	static uint8_t saved[PQTPM_MAX_RESPONSE_SIZE], plain[CONTEXT_MAX_PLAIN];
	static struct tpms_context ctx;
	char fname[128];
	uint8_t pre[2];
	size_t len;
	struct rd r, entity;

	if (context_save(h, saved, &len) != 0)
		fz_die(ME, "seed: ContextSave");
	snprintf(fname, sizeof(fname), "raw-%s", name);
	write_seed(dir, fname, 0, NULL, 0, saved, len);
	rd_init(&r, saved, len);
	if (rd_context(&r, &ctx) || context_unprotect(engine, &ctx, CONTEXT_TYPE_OBJECT, plain,
						      &entity))
		fz_die(ME, "seed: unprotect");
	for (uint8_t i = 0; i < 3; i++)
		if (saved_handles[i] == ctx.saved_handle)
			pre[0] = i;
	for (uint8_t i = 0; i < N(hierarchies); i++)
		if (hierarchies[i] == ctx.hierarchy)
			pre[1] = i;
	snprintf(fname, sizeof(fname), "plain-%s", name);
	write_seed(dir, fname, 1, pre, 2, entity.buf + entity.off, rd_left(&entity));
	/* mode 2: the same blob, field by field */
	{
		uint8_t hdr[17];
		struct wr w;

		wr_init(&w, hdr, sizeof(hdr));
		(void)wr_u64(&w, ctx.sequence);
		(void)wr_u32(&w, ctx.saved_handle);
		(void)wr_u32(&w, ctx.hierarchy);
		(void)wr_u8(&w, CONTEXT_TYPE_OBJECT);
		snprintf(fname, sizeof(fname), "unprotect-%s", name);
		write_seed(dir, fname, 2, hdr, sizeof(hdr), ctx.blob, ctx.blob_size);
	}
}

static uint32_t start_seq(uint32_t cc, uint32_t key, uint16_t alg)
{
	size_t len;

	fz_begin(&cmd, key ? FZ_ST_SESSIONS : FZ_ST_NO_SESSIONS, cc);
	if (key) {
		fz_u32(&cmd, key);
		fz_pw_auth(&cmd);
	}
	fz_u16(&cmd, 0);	/* auth */
	fz_u16(&cmd, alg);
	if (fz_run(client, &cmd, rsp, &len) != 0)
		fz_die(ME, "seed: sequence start");
	return fz_get_u32(rsp + 10);
}

static void write_seeds(const char *dir)
{
	uint32_t ecc, hmac_key, seq;
	size_t len;

	engine_fresh();
	if (fz_create_primary(client, FZ_RH_OWNER, 0, &ecc) ||
	    fz_create_primary(client, FZ_RH_ENDORSEMENT, 1, &hmac_key))
		fz_die(ME, "seed: CreatePrimary");
	seed_from(dir, "ecc-key", ecc);
	seed_from(dir, "hmac-key", hmac_key);
	seq = start_seq(TPM_CC_HashSequenceStart, 0, 0x000b);
	fz_begin(&cmd, FZ_ST_SESSIONS, TPM_CC_SequenceUpdate);
	fz_u32(&cmd, seq);
	fz_pw_auth(&cmd);
	fz_u16(&cmd, 3);
	fz_bytes(&cmd, "abc", 3);
	(void)fz_run(client, &cmd, rsp, &len);
	seed_from(dir, "hash-seq", seq);
	seed_from(dir, "hmac-seq", start_seq(TPM_CC_HMAC_Start, hmac_key, 0x000b));
	seed_from(dir, "event-seq", start_seq(TPM_CC_HashSequenceStart, 0, 0x0010));
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *r = getenv("PQTPM_FUZZ_RESET"), *seeds = getenv("PQTPM_FUZZ_WRITE_SEEDS");

	(void)argc;
	(void)argv;
	if (r && atol(r) > 0)
		reset_every = (unsigned long)atol(r);
	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	if (seeds)
		write_seeds(seeds);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t h;

	if (size < 1)
		return 0;
	fz_input_start();
	if (!engine || inputs++ % reset_every == 0)
		engine_fresh();
	switch (data[0] % 3) {
	case 0:
		if (context_load(data + 1, size - 1, &h) == 0)
			simple(TPM_CC_FlushContext, h);
		break;
	case 1:
		mode_protected(data + 1, size - 1);
		break;
	case 2:
		mode_unprotect(data + 1, size - 1);
		break;
	}
	return 0;
}
