/* libFuzzer target: the engine's command entry, pqtpm_engine_execute.
 *
 * An input is a sequence of records, run in order by one client of an in-memory engine
 * (state_dir NULL, auto_startup 1), so that stateful paths (objects created then used,
 * sessions started then used, sequences, contexts saved and loaded) are reached:
 *
 *   u8 flags, u16 length (big-endian), length bytes (cut at the end of the input)
 *   flags bit 0      raw: leave the command's header size as it is; otherwise it is set to
 *                    the record's length, so that mutations reach the parameters
 *   flags bits 1-3   locality (values above 4 are taken modulo 5)
 *   flags bits 4-7   0: execute the bytes as a command;
 *                    1..11: first send platform signal (n - 1) (enum pqtpm_signal), then
 *                    execute; 12: the bytes are _TPM_Hash_Data, not a command;
 *                    13..15: execute on a second client of the same engine
 *
 * Oracle, beyond the sanitizers: every response is well formed (at least 10 bytes, its
 * header's size equal to its length, a known tag) and fits the buffer.
 *
 * The engine is recreated every PQTPM_FUZZ_RESET inputs (default 32; opening one costs about
 * 5 ms under ASan, 50 times an average input) and every input runs on a new client, so
 * objects and sessions never carry over, but engine-wide changes (hierarchy auths, PCRs,
 * persistent objects, Shutdown) do, for up to 31 inputs. A crash that does not reproduce
 * from its input alone with PQTPM_FUZZ_RESET=1 (how run.sh replays regressions) depends on
 * such an earlier input: rerun the fuzzer on the crash with -runs and the corpus to find it.
 * Seeds: tests/fuzz/corpus/engine/, recorded tpm2-tools traffic (tests/fuzz/record.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pqtpm/engine.h>

#define MAX_RECORDS 64
#define RSP_CAP PQTPM_MAX_RESPONSE_SIZE

static struct pqtpm_engine *engine;
static unsigned long inputs, reset_every = 32;

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "fuzz_engine: %s\n", what);
	abort();
}

static void engine_fresh(void)
{
	struct pqtpm_engine_config cfg = { .state_dir = NULL, .auto_startup = 1,
					   .log_level = PQTPM_LOG_ERROR };
	char err[256];

	pqtpm_engine_close(engine);
	engine = NULL;
	if (pqtpm_engine_open(&engine, &cfg, err, sizeof(err)) != 0)
		die(err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *r = getenv("PQTPM_FUZZ_RESET");

	(void)argc;
	(void)argv;
	if (r && atol(r) > 0)
		reset_every = (unsigned long)atol(r);
	/* a fuzzer makes the engine log every refusal: keep only errors */
	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	return 0;
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void check_response(const uint8_t *rsp, size_t len)
{
	uint16_t tag;

	if (len < 10 || len > RSP_CAP)
		die("response shorter than a header or longer than the buffer");
	if (get_u32(rsp + 2) != len)
		die("response header size differs from its length");
	tag = (uint16_t)(rsp[0] << 8 | rsp[1]);
	if (tag != 0x8001 && tag != 0x8002 && tag != 0x00c4)
		die("response with an unknown tag");
}

static void execute(struct pqtpm_client *cl, uint8_t locality, uint8_t *cmd, size_t len,
		    int raw)
{
	static uint8_t rsp[RSP_CAP];
	size_t rsp_len = 0;

	if (!raw && len >= 6) {
		cmd[2] = (uint8_t)(len >> 24);
		cmd[3] = (uint8_t)(len >> 16);
		cmd[4] = (uint8_t)(len >> 8);
		cmd[5] = (uint8_t)len;
	}
	if (pqtpm_engine_execute(cl, locality, cmd, len, rsp, sizeof(rsp), &rsp_len) != 0)
		die("pqtpm_engine_execute refused a full-size response buffer");
	check_response(rsp, rsp_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t cmd[65536];
	struct pqtpm_client *cl[2] = { NULL, NULL };
	size_t off = 0;
	unsigned n = 0;

	if (!engine || inputs++ % reset_every == 0)
		engine_fresh();
	cl[0] = pqtpm_client_new(engine);
	if (!cl[0])
		die("pqtpm_client_new");

	while (off + 3 <= size && n++ < MAX_RECORDS) {
		uint8_t flags = data[off];
		size_t len = (size_t)data[off + 1] << 8 | data[off + 2];
		unsigned op = flags >> 4;
		uint8_t locality = ((flags >> 1) & 7) % 5;
		struct pqtpm_client *who = cl[0];

		off += 3;
		if (len > size - off)
			len = size - off;
		/* a private copy: the engine must not depend on bytes past len, and the
		 * size patch must not touch the fuzzer's input */
		memcpy(cmd, data + off, len);
		off += len;

		if (op >= 1 && op <= 11) {
			/* refusals (a signal not valid now) are part of the game */
			(void)pqtpm_engine_signal(engine, (enum pqtpm_signal)(op - 1));
		} else if (op == 12) {
			(void)pqtpm_engine_hash_data(engine, cmd, len);
			continue;
		} else if (op >= 13) {
			if (!cl[1])
				cl[1] = pqtpm_client_new(engine);
			if (!cl[1])
				die("pqtpm_client_new");
			who = cl[1];
		}
		execute(who, locality, cmd, len, flags & 1);
	}
	pqtpm_client_free(cl[1]);
	pqtpm_client_free(cl[0]);
	return 0;
}
