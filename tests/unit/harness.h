/* Unit-test harness: an engine in memory (or on a state directory), a client, and a small
 * command builder, so tests speak TPM commands exactly as clients do. */
#ifndef PQTPM_TEST_HARNESS_H
#define PQTPM_TEST_HARNESS_H

#include <pqtpm/engine.h>

#include "marshal.h"
#include "types.h"

/* A response code with its parameter, handle or session number n */
#define RC_P(rc, n) ((rc) | TPM_RC_P | ((n) << 8))
#define RC_H(rc, n) ((rc) | TPM_RC_H | ((n) << 8))
#define RC_S(rc, n) ((rc) | TPM_RC_S | ((n) << 8))

struct pqtpm_tss;

struct harness {
	struct pqtpm_engine *e;
	struct pqtpm_client *c;
	struct pqtpm_tss *remote;	/* harness_open_socket: commands go over the owner's socket */
	uint8_t rsp[PQTPM_MAX_RESPONSE_SIZE];
	size_t rsp_len;
	uint8_t locality;
};

struct cmdbuf {
	TPM_CC cc;
	TPM_HANDLE handles[3];
	unsigned nhandles;
	uint8_t auth_buf[512];
	struct wr auth;
	unsigned nauth;
	uint8_t param_buf[PQTPM_MAX_COMMAND_SIZE];
	struct wr params;
};

/* In memory, powered on, Startup(CLEAR) done. Aborts the test program on failure. */
void harness_open(struct harness *h);
/* The same with this capabilities setting (engine.h), in memory (dir NULL) or on dir. */
void harness_open_caps(struct harness *h, const char *dir, enum pqtpm_capabilities caps);
/* The same on a state directory (created if missing). */
void harness_open_dir(struct harness *h, const char *dir);
/* The engine opened with cfg as it is, and a client of it. */
void harness_open_config(struct harness *h, const struct pqtpm_engine_config *cfg);
/* A client of the engine that owns dir, over its socket (dir/pqtpm.sock). */
void harness_open_socket(struct harness *h, const char *dir);
void harness_close(struct harness *h);
/* The persistent state as dir's state file holds it now, read (and written back with
 * state_save) by the state layer alone, beside the engine that owns the directory. */
struct pqtpm_engine *harness_disk_open(const char *dir);
void harness_disk_close(struct pqtpm_engine *disk);
/* Remove a directory tree (a state directory, a test's temporary root); nftw's result. */
int harness_rm_tree(const char *path);

void cmd_begin(struct cmdbuf *b, TPM_CC cc);
void cmd_handle(struct cmdbuf *b, TPM_HANDLE h);
/* A password session (TPM_RS_PW) with this password; one per authorized handle, in order. */
void cmd_auth_pw(struct cmdbuf *b, const char *password);
void cmd_auth_pw_bytes(struct cmdbuf *b, const uint8_t *pw, size_t len);
/* A TPM2B_SENSITIVE_CREATE parameter: userAuth auth, data (len bytes; may be NULL if 0). */
void cmd_sensitive(struct cmdbuf *b, const char *auth, const void *data, uint16_t len);

/* Run; returns the response code. On success rsp is positioned at the response parameters
 * (authorization area excluded) and *rh holds the response handle, if the command has one. */
TPM_RC harness_run(struct harness *h, struct cmdbuf *b, struct rd *rsp, TPM_HANDLE *rh);
/* Assemble the command bytes without running them (for malformed-input tests). */
size_t cmd_bytes(const struct cmdbuf *b, uint8_t *out, size_t cap);
/* Raw bytes in, raw response out; returns the response code from the header. */
TPM_RC harness_raw(struct harness *h, const uint8_t *cmd, size_t len, uint8_t *out,
		   size_t *outlen);

#endif
