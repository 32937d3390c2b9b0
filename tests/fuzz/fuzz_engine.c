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
 *                    13: execute on a second client of the same engine;
 *                    14, 15: a command wrapped in a real HMAC session (see below), whose
 *                    symmetric algorithm is AES-128-CFB (14) or XOR (15)
 *
 * A wrapped record is: u32 commandCode, u8 handle count (modulo 4), the handles, u8
 * sessionAttributes, the parameters. The target starts an unbound, unsalted HMAC session
 * (SHA-256) if this client has none with that symmetric algorithm, computes cpHash (names
 * of transient and persistent objects from ReadPublic, NV indices from NV_ReadPublic, the
 * handle for anything else), encrypts the first parameter if the decrypt attribute is set,
 * and computes the command HMAC as a caller knowing empty authValues would. The session's
 * nonceTPM is followed from response to response. A blind fuzzer never gets past the HMAC
 * check; this reaches parameter decryption and response encryption (where
 * CVE-2023-1017/1018 were) and session bookkeeping with fuzzer-chosen sizes and attributes.
 *
 * Oracle, beyond the sanitizers: every response is well formed (at least 10 bytes, its
 * header's size equal to its length, a known tag) and fits the buffer; once the input's
 * clients are freed, none is left registered with the engine (LeakSanitizer, at exit, sees
 * whatever they owned and did not free).
 *
 * The engine is recreated every PQTPM_FUZZ_RESET inputs (default 32; opening one costs about
 * 5 ms under ASan, 50 times an average input) and every input runs on a new client, so
 * objects and sessions never carry over, but engine-wide changes (hierarchy auths, PCRs,
 * persistent objects, Shutdown) do, for up to 31 inputs. A crash that does not reproduce
 * from its input alone with PQTPM_FUZZ_RESET=1 (how run.sh replays regressions) depends on
 * such an earlier input: rerun the fuzzer on the crash with -runs and the corpus to find it.
 * Every input starts crypto_random's stream over (PQTPM_FUZZ_DETERMINISTIC_RNG), so with
 * PQTPM_FUZZ_RESET=1 an input replays exactly.
 * Seeds: tests/fuzz/corpus/engine/, recorded tpm2-tools traffic (tests/fuzz/record.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pqtpm/engine.h>

#include "crypto/crypto.h"
#include "engine_int.h"

#define MAX_RECORDS 128
#define RSP_CAP PQTPM_MAX_RESPONSE_SIZE

static struct pqtpm_engine *engine;
static unsigned long inputs, reset_every = 32;
/* PQTPM_FUZZ_DEBUG=1: print every command's code, response code and a hash of the response
 * (two replays of an input print the same, but for responses that carry Clock or Time) */
static int debug;

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
	debug = getenv("PQTPM_FUZZ_DEBUG") != NULL;
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

static uint8_t rsp[RSP_CAP];
static size_t rsp_len;

static void execute(struct pqtpm_client *cl, uint8_t locality, uint8_t *cmd, size_t len,
		    int raw)
{
	rsp_len = 0;

	if (!raw && len >= 6) {
		cmd[2] = (uint8_t)(len >> 24);
		cmd[3] = (uint8_t)(len >> 16);
		cmd[4] = (uint8_t)(len >> 8);
		cmd[5] = (uint8_t)len;
	}
	if (pqtpm_engine_execute(cl, locality, cmd, len, rsp, sizeof(rsp), &rsp_len) != 0)
		die("pqtpm_engine_execute refused a full-size response buffer");
	check_response(rsp, rsp_len);
	if (debug) {
		uint32_t fnv = 2166136261u; /* FNV-1a */

		for (size_t i = 0; i < rsp_len; i++)
			fnv = (fnv ^ rsp[i]) * 16777619u;
		fprintf(stderr, "fuzz_engine: cc 0x%x (%zu bytes) -> rc 0x%x (%zu bytes, %08x)\n",
			len >= 10 ? get_u32(cmd + 6) : 0, len, get_u32(rsp + 6), rsp_len, fnv);
	}
}

/* ---- commands wrapped in a real HMAC session ---- */

#define SHA256 0x000bu
#define NONCE_CALLER 16

struct wsession {
	uint32_t handle;	/* 0: none */
	uint16_t sym;		/* TPM_ALG_AES or TPM_ALG_XOR */
	uint8_t nonce_tpm[64];
	uint16_t nonce_len;
};

static struct wsession wsess;

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	put_u16(p, (uint16_t)(v >> 16));
	put_u16(p + 2, (uint16_t)v);
}

/* Runs a command built by the target (no size patch needed: n is exact). */
static uint32_t run_built(struct pqtpm_client *cl, uint8_t *cmd, size_t n)
{
	put_u32(cmd + 2, (uint32_t)n);
	execute(cl, 0, cmd, n, 1);
	return get_u32(rsp + 6);
}

static int start_session(struct pqtpm_client *cl, uint16_t sym)
{
	uint8_t c[64];
	size_t n = 0;

	put_u16(c, 0x8001);
	put_u32(c + 6, 0x176);	/* StartAuthSession */
	n = 10;
	put_u32(c + n, 0x40000007), n += 4;	/* tpmKey, bind: TPM_RH_NULL */
	put_u32(c + n, 0x40000007), n += 4;
	put_u16(c + n, NONCE_CALLER), n += 2;
	memset(c + n, 0x5a, NONCE_CALLER), n += NONCE_CALLER;
	put_u16(c + n, 0), n += 2;	/* no salt */
	c[n++] = 0x00;			/* TPM_SE_HMAC */
	put_u16(c + n, sym), n += 2;
	if (sym == 0x0006) {		/* AES-128-CFB */
		put_u16(c + n, 128), n += 2;
		put_u16(c + n, 0x0043), n += 2;
	} else {			/* XOR with SHA-256 */
		put_u16(c + n, SHA256), n += 2;
	}
	put_u16(c + n, SHA256), n += 2;
	if (run_built(cl, c, n) != 0 || rsp_len < 16)
		return -1;
	wsess.handle = get_u32(rsp + 10);
	wsess.sym = sym;
	wsess.nonce_len = (uint16_t)(rsp[14] << 8 | rsp[15]);
	if (wsess.nonce_len > sizeof(wsess.nonce_tpm) || 16u + wsess.nonce_len > rsp_len)
		die("StartAuthSession: bad nonceTPM");
	memcpy(wsess.nonce_tpm, rsp + 16, wsess.nonce_len);
	return 0;
}

/* The name of h as cpHash wants it, into name (at most 70 bytes); its length. */
static size_t handle_name(struct pqtpm_client *cl, uint32_t h, uint8_t *name)
{
	uint8_t c[14];
	uint8_t type = (uint8_t)(h >> 24);

	if (type == 0x80 || type == 0x81 || type == 0x01) {
		put_u16(c, 0x8001);
		put_u32(c + 6, type == 0x01 ? 0x169 /* NV_ReadPublic */ : 0x173 /* ReadPublic */);
		put_u32(c + 10, h);
		if (run_built(cl, c, sizeof(c)) == 0) {
			/* TPM2B_PUBLIC / TPM2B_NV_PUBLIC, then TPM2B_NAME */
			size_t off = 10, n;

			if (off + 2 <= rsp_len) {
				off += 2 + (size_t)(rsp[off] << 8 | rsp[off + 1]);
				if (off + 2 <= rsp_len) {
					n = (size_t)(rsp[off] << 8 | rsp[off + 1]);
					if (n <= 70 && off + 2 + n <= rsp_len) {
						memcpy(name, rsp + off + 2, n);
						return n;
					}
				}
			}
		}
	}
	put_u32(name, h);
	return 4;
}

static void wrapped(struct pqtpm_client *cl, const uint8_t *p, size_t n, uint16_t sym)
{
	static uint8_t c[PQTPM_MAX_COMMAND_SIZE + 256], hbuf[PQTPM_MAX_COMMAND_SIZE + 512];
	uint8_t nonce[NONCE_CALLER], cp[32], mac[32], attrs, name[70];
	uint32_t cc, handles[3];
	unsigned nh;
	size_t hn = 0, off = 0, plen, at;
	const uint8_t *params;
	struct crypto_hmac_ctx h;

	if (n < 6)
		return;
	cc = get_u32(p);
	nh = p[4] % 4;
	off = 5;
	if (nh > 3 || off + 4 * nh + 1 > n)
		return;
	for (unsigned i = 0; i < nh; i++, off += 4)
		handles[i] = get_u32(p + off);
	attrs = p[off++];
	params = p + off;
	plen = n - off;
	if (plen > PQTPM_MAX_COMMAND_SIZE - 128)
		return;
	if (!wsess.handle || wsess.sym != sym) {
		if (start_session(cl, sym) < 0) {
			wsess.handle = 0;
			return;
		}
	}
	/* cpHash = H(cc || names || parameters); the parameters as sent, encrypted or not */
	put_u32(hbuf, cc);
	hn = 4;
	for (unsigned i = 0; i < nh; i++) {
		size_t k = handle_name(cl, handles[i], name);

		memcpy(hbuf + hn, name, k);
		hn += k;
	}
	/* the command: header, handles, authorization area, parameters */
	put_u16(c, 0x8002);
	put_u32(c + 6, cc);
	at = 10;
	for (unsigned i = 0; i < nh; i++, at += 4)
		put_u32(c + at, handles[i]);
	put_u32(c + at, 4 + 2 + NONCE_CALLER + 1 + 2 + 32);
	put_u32(c + at + 4, wsess.handle);
	put_u16(c + at + 8, NONCE_CALLER);
	for (unsigned i = 0; i < NONCE_CALLER; i++)
		nonce[i] = (uint8_t)(i * 7 + plen);
	memcpy(c + at + 10, nonce, NONCE_CALLER);
	c[at + 10 + NONCE_CALLER] = attrs;
	put_u16(c + at + 11 + NONCE_CALLER, 32);
	{
		size_t pat = at + 13 + NONCE_CALLER + 32;

		memcpy(c + pat, params, plen);
		/* decrypt: the first parameter's TPM2B content, encrypted as a caller would */
		if ((attrs & 0x20) && plen >= 2) {
			size_t dlen = (size_t)(params[0] << 8 | params[1]);

			if (dlen > plen - 2)
				dlen = plen - 2;
			if (sym == 0x0006) {
				uint8_t kiv[32];

				if (crypto_kdfa(SHA256, (const uint8_t *)"", 0, "CFB", nonce,
						NONCE_CALLER, wsess.nonce_tpm, wsess.nonce_len,
						(16 + 16) * 8, kiv) == TPM_RC_SUCCESS)
					(void)crypto_aes(TPM_ALG_CFB, true, kiv, 16, kiv + 16,
							 c + pat + 2, c + pat + 2, dlen);
			} else if (dlen <= 1024 + 128) {
				static uint8_t mask[1024 + 128];

				if (crypto_kdfa(SHA256, (const uint8_t *)"", 0, "XOR", nonce,
						NONCE_CALLER, wsess.nonce_tpm, wsess.nonce_len,
						(uint32_t)dlen * 8, mask) == TPM_RC_SUCCESS)
					for (size_t i = 0; i < dlen; i++)
						c[pat + 2 + i] ^= mask[i];
			}
		}
		memcpy(hbuf + hn, c + pat, plen);
		hn += plen;
		if (crypto_hash(SHA256, hbuf, hn, cp) != TPM_RC_SUCCESS)
			die("sha256");
		/* HMAC(sessionKey (empty) || authValue (empty), cpHash || nonceCaller ||
		 * nonceTPM || attributes) */
		if (crypto_hmac_start(&h, SHA256, (const uint8_t *)"", 0) ||
		    crypto_hmac_update(&h, cp, 32) || crypto_hmac_update(&h, nonce, NONCE_CALLER) ||
		    crypto_hmac_update(&h, wsess.nonce_tpm, wsess.nonce_len) ||
		    crypto_hmac_update(&h, &attrs, 1) || crypto_hmac_finish(&h, mac))
			die("hmac");
		memcpy(c + at + 13 + NONCE_CALLER, mac, 32);
		if (run_built(cl, c, pat + plen) != 0)
			return;
	}
	/* success: the response's auth area ends with nonceTPM(32), attributes, hmac(32) */
	if (rsp_len >= 10 + 2 + 32 + 1 + 2 + 32 && rsp[0] == 0x80 && rsp[1] == 0x02) {
		const uint8_t *e = rsp + rsp_len - (2 + 32 + 1 + 2 + 32);

		if ((e[0] << 8 | e[1]) == 32) {
			memcpy(wsess.nonce_tpm, e + 2, 32);
			wsess.nonce_len = 32;
		}
	}
	if (!(attrs & 0x01))
		wsess.handle = 0;	/* not continued: the TPM flushed it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t cmd[65536];
	struct pqtpm_client *cl[2] = { NULL, NULL };
	size_t off = 0;
	unsigned n = 0;

	/* the random stream starts over (run.sh builds with PQTPM_FUZZ_DETERMINISTIC_RNG) */
	crypto_fuzz_rng_reset();
	if (!engine || inputs++ % reset_every == 0)
		engine_fresh();
	memset(&wsess, 0, sizeof(wsess));
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
		} else if (op >= 14) {
			wrapped(cl[0], cmd, len, op == 14 ? 0x0006 : 0x000A);
			continue;
		} else if (op == 13) {
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
	/* a client that goes leaves nothing registered (its objects and sessions go with it) */
	if (engine->clients || engine->nclients)
		die("a freed client is still registered");
	return 0;
}
