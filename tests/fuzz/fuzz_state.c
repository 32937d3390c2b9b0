/* libFuzzer target: the state-file loader (core/state/).
 *
 * Byte 0 of the input picks a mode (modulo 3) and, in bit 0 of byte 0 / 3, the body's
 * version (STATE_VERSION or STATE_VERSION_MIN); the rest is the mode's data:
 *   0  a state body: state_decode() on it directly (the parser, fast);
 *   1  a state body, framed as a valid file (magic, version, length, SHA-256 fixed up) in a
 *      temporary state directory, then a whole engine opened on it (state_load, then
 *      Startup(CLEAR) on what was loaded), asked a few questions (GetCapability of
 *      persistent handles and properties, ReadPublic of the first persistent object,
 *      PCR_Read) and closed (which writes the state back);
 *   2  the whole file as given (no fix-up): the frame checks (magic, version, length,
 *      checksum, trailing bytes) of state_load.
 * A state file is written by this TPM alone (0600 in a 0700 directory), so a bad one means
 * a damaged disk or a local attacker who already owns the TPM's files; it must still be
 * refused cleanly, never crash the server.
 *
 * PQTPM_FUZZ_WRITE_SEEDS=DIR: write seeds (the state of a fresh TPM and of one with two
 * persistent keys) into DIR and exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pqtpm/engine.h>

#include "engine_int.h"
#include "fuzz_util.h"
#include "state/state_int.h"
#include "state/store.h"

#define ME "fuzz_state"
#define HEADER 16	/* magic[8], version u32, body length u32 */

static char dir[256], path[300];
static uint8_t file[HEADER + STATE_MAX_BODY + 32 + 1024];

static int write_file(const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t w;

	if (fd < 0)
		fz_die(ME, "cannot create the state file");
	w = write(fd, p, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

static void frame_body(const uint8_t *body, size_t n, uint32_t version, size_t *len)
{
	struct wr w;

	if (n > STATE_MAX_BODY)
		n = STATE_MAX_BODY;
	wr_init(&w, file, sizeof(file));
	(void)wr_bytes(&w, "PQTPMST", 8);
	(void)wr_u32(&w, version);
	(void)wr_u32(&w, (uint32_t)n);
	(void)wr_bytes(&w, body, n);
	if (crypto_hash(TPM_ALG_SHA256, file, w.off, file + w.off) != TPM_RC_SUCCESS)
		fz_die(ME, "sha256");
	*len = w.off + 32;
}

static void mode_decode(const uint8_t *p, size_t n, uint32_t version)
{
	static struct persist ps;
	const char *what = NULL;
	struct rd r;

	rd_init(&r, p, n);
	if (state_decode(&r, &ps, version, &what) == TPM_RC_SUCCESS) {
		static uint8_t again[HEADER + STATE_MAX_BODY], third[HEADER + STATE_MAX_BODY];
		struct wr w, w3;

		/* what decodes must encode again, and that encoding is a fixed point: it decodes
		 * and encodes to the same bytes (a body may lack an optional section, such as
		 * "PLAT" from before it existed, which the encoder then writes) */
		wr_init(&w, again, sizeof(again));
		if (state_encode(&ps, ps.generation, &w) != TPM_RC_SUCCESS)
			fz_die(ME, "a decoded state does not encode");
		state_free_persist(&ps);
		rd_init(&r, again, w.off);
		if (state_decode(&r, &ps, STATE_VERSION, &what) != TPM_RC_SUCCESS)
			fz_die(ME, "an encoded state does not decode");
		wr_init(&w3, third, sizeof(third));
		if (state_encode(&ps, ps.generation, &w3) != TPM_RC_SUCCESS)
			fz_die(ME, "a decoded state does not encode");
		if (w3.off != w.off || memcmp(third, again, w.off) != 0)
			fz_die(ME, "a decoded state encodes to other bytes");
		state_free_persist(&ps);
	} else if (!what) {
		fz_die(ME, "state_decode failed without saying why");
	}
}

static void ask(struct pqtpm_client *cl)
{
	static struct fz_cmd c;
	static uint8_t rsp[PQTPM_MAX_RESPONSE_SIZE];
	size_t len;
	uint32_t first = 0;

	fz_begin(&c, FZ_ST_NO_SESSIONS, TPM_CC_GetCapability);
	fz_u32(&c, TPM_CAP_HANDLES);
	fz_u32(&c, 0x81000000u);
	fz_u32(&c, 32);
	/* rc, moreData u8, capability u32, count u32, handles */
	if (fz_run(cl, &c, rsp, &len) == 0 && len >= 23 && fz_get_u32(rsp + 15) > 0)
		first = fz_get_u32(rsp + 19);
	fz_begin(&c, FZ_ST_NO_SESSIONS, TPM_CC_GetCapability);
	fz_u32(&c, TPM_CAP_TPM_PROPERTIES);
	fz_u32(&c, 0x200);	/* PT_VAR */
	fz_u32(&c, 64);
	(void)fz_run(cl, &c, rsp, &len);
	if (first) {
		fz_begin(&c, FZ_ST_NO_SESSIONS, TPM_CC_ReadPublic);
		fz_u32(&c, first);
		(void)fz_run(cl, &c, rsp, &len);
	}
	fz_begin(&c, FZ_ST_NO_SESSIONS, TPM_CC_PCR_Read);
	fz_u32(&c, 2);	/* SHA-1 and SHA-256, PCRs 0-7 */
	fz_u16(&c, TPM_ALG_SHA1);
	fz_u8(&c, 3);
	fz_u8(&c, 0xff);
	fz_u8(&c, 0);
	fz_u8(&c, 0);
	fz_u16(&c, TPM_ALG_SHA256);
	fz_u8(&c, 3);
	fz_u8(&c, 0xff);
	fz_u8(&c, 0);
	fz_u8(&c, 0);
	(void)fz_run(cl, &c, rsp, &len);
}

static void open_engine(int startup)
{
	struct pqtpm_engine_config cfg = { .state_dir = dir, .auto_startup = startup,
					   .log_level = PQTPM_LOG_ERROR };
	struct pqtpm_engine *e = NULL;
	struct pqtpm_client *cl;
	char err[512];
	int rc;

	rc = pqtpm_engine_open(&e, &cfg, err, sizeof(err));
	if (rc != 0) {
		if (!err[0])
			fz_die(ME, "pqtpm_engine_open failed without a message");
		return;
	}
	cl = pqtpm_client_new(e);
	if (!cl)
		fz_die(ME, "pqtpm_client_new");
	ask(cl);
	pqtpm_client_free(cl);
	pqtpm_engine_close(e);
}

static void mode_file(const uint8_t *p, size_t n, int fix, uint32_t version)
{
	size_t len = n;

	if (fix) {
		frame_body(p, n, version, &len);
		p = file;
	}
	if (write_file(p, len) < 0)
		return;
	open_engine(1);
	/* the engine must not have replaced a file it refused; leave no state behind */
	unlink(path);
}

/* ---- seeds ---- */

static void write_seed(const char *sdir, const char *name, uint8_t mode, const uint8_t *p,
		       size_t n)
{
	char spath[4096];
	FILE *f;

	snprintf(spath, sizeof(spath), "%s/%s", sdir, name);
	f = fopen(spath, "wb");
	if (!f || fwrite(&mode, 1, 1, f) != 1 || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fz_die(ME, spath);
}

static void seed_state(const char *sdir, const char *name)
{
	static uint8_t buf[sizeof(file)];
	char fname[128];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		fz_die(ME, "seed: no state file");
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < HEADER + 32)
		fz_die(ME, "seed: short state file");
	snprintf(fname, sizeof(fname), "body-%s", name);
	write_seed(sdir, fname, 0, buf + HEADER, (size_t)n - HEADER - 32);
	snprintf(fname, sizeof(fname), "framed-%s", name);
	write_seed(sdir, fname, 1, buf + HEADER, (size_t)n - HEADER - 32);
	snprintf(fname, sizeof(fname), "file-%s", name);
	write_seed(sdir, fname, 2, buf, (size_t)n);
}

static void write_seeds(const char *sdir)
{
	struct pqtpm_engine_config cfg = { .state_dir = dir, .auto_startup = 1,
					   .log_level = PQTPM_LOG_ERROR };
	static struct fz_cmd c;
	static uint8_t rsp[PQTPM_MAX_RESPONSE_SIZE];
	struct pqtpm_engine *e;
	struct pqtpm_client *cl;
	char err[512];
	uint32_t h[2];
	size_t len;

	if (pqtpm_engine_open(&e, &cfg, err, sizeof(err)) != 0)
		fz_die(ME, err);
	pqtpm_engine_close(e);
	seed_state(sdir, "fresh");
	if (pqtpm_engine_open(&e, &cfg, err, sizeof(err)) != 0)
		fz_die(ME, err);
	cl = pqtpm_client_new(e);
	if (fz_create_primary(cl, FZ_RH_OWNER, 0, &h[0]) ||
	    fz_create_primary(cl, FZ_RH_ENDORSEMENT, 1, &h[1]))
		fz_die(ME, "seed: CreatePrimary");
	for (int i = 0; i < 2; i++) {
		fz_begin(&c, FZ_ST_SESSIONS, TPM_CC_EvictControl);
		fz_u32(&c, FZ_RH_OWNER);
		fz_u32(&c, h[i]);
		fz_pw_auth(&c);
		fz_u32(&c, 0x81000001u + (uint32_t)i);
		if (fz_run(cl, &c, rsp, &len) != 0)
			fz_die(ME, "seed: EvictControl");
	}
	/* NV: an ordinary index written, a counter incremented (failures ignored: a build
	 * without NV writes the same state as above) */
	for (uint32_t i = 0; i < 2; i++) {

		fz_begin(&c, FZ_ST_SESSIONS, 0x12A);	/* NV_DefineSpace */
		fz_u32(&c, FZ_RH_OWNER);
		fz_pw_auth(&c);
		fz_u16(&c, 0);
		fz_u16(&c, 14);
		fz_u32(&c, 0x01000001u + i);
		fz_u16(&c, TPM_ALG_SHA256);
		/* OWNERWRITE|AUTHWRITE|OWNERREAD|AUTHREAD, TPM_NT_COUNTER for the second */
		fz_u32(&c, 0x00060006u | (i ? 0x10u : 0));
		fz_u16(&c, 0);
		fz_u16(&c, i ? 8 : 32);
		(void)fz_run(cl, &c, rsp, &len);
		fz_begin(&c, FZ_ST_SESSIONS, i ? 0x134 : 0x137);	/* NV_Increment / Write */
		fz_u32(&c, FZ_RH_OWNER);
		fz_u32(&c, 0x01000001u + i);
		fz_pw_auth(&c);
		if (!i) {
			fz_u16(&c, 5);
			fz_bytes(&c, "hello", 5);
			fz_u16(&c, 0);
		}
		(void)fz_run(cl, &c, rsp, &len);
	}
	pqtpm_client_free(cl);
	pqtpm_engine_close(e);
	seed_state(sdir, "persistent");
	unlink(path);
	exit(0);
}

static void cleanup(void)
{
	static const char *const names[] = { STATE_FILE, STATE_TMP_FILE, STATE_LOCK_FILE };
	char p[400];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR"), *seeds = getenv("PQTPM_FUZZ_WRITE_SEEDS");

	(void)argc;
	(void)argv;
	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	snprintf(dir, sizeof(dir), "%s/pqtpm-fuzz-state.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		fz_die(ME, "mkdtemp");
	snprintf(path, sizeof(path), "%s/%s", dir, STATE_FILE);
	atexit(cleanup);
	if (seeds)
		write_seeds(seeds);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t version;

	if (size < 1)
		return 0;
	fz_input_start();
	/* bit: a body of the oldest version still loaded (STATE_VERSION_MIN) */
	version = (data[0] / 3) & 1 ? STATE_VERSION_MIN : STATE_VERSION;
	switch (data[0] % 3) {
	case 0:
		mode_decode(data + 1, size - 1, version);
		break;
	case 1:
		mode_file(data + 1, size - 1, 1, version);
		break;
	case 2:
		mode_file(data + 1, size - 1, 0, version);
		break;
	}
	return 0;
}
