/* pqtpm engine: one instance = one TPM = one state directory.
 *
 * Thread-safe: commands and signals on one instance act as if one ran at a time; the key
 * generation of one client's command runs while other clients' commands go on (so give each
 * thread its own client for parallelism). One client's commands run one after the other.
 * A client is one connection (an MSSIM socket, a PKCS#11 process): the transient objects,
 * sessions and sequences it creates are visible only to it and flushed when it is freed.
 */
#ifndef PQTPM_ENGINE_H
#define PQTPM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: what this header declares is its API. */
#pragma GCC visibility push(default)

/* Largest command and response the engine accepts / produces (TPM_PT_MAX_COMMAND_SIZE). */
#define PQTPM_MAX_COMMAND_SIZE 8192u
#define PQTPM_MAX_RESPONSE_SIZE 8192u

enum pqtpm_log_level { PQTPM_LOG_ERROR = 0, PQTPM_LOG_WARN, PQTPM_LOG_INFO, PQTPM_LOG_DEBUG };

/* PCR banks to allocate when a state directory is first created (bit set). */
#define PQTPM_BANK_SHA1 0x1u
#define PQTPM_BANK_SHA256 0x2u
#define PQTPM_BANK_SHA384 0x4u
#define PQTPM_BANK_SHA512 0x8u

/* What the TPM shows its clients (docs/pq-decisions.md, "Capabilities"). */
enum pqtpm_capabilities {
	/* What released TSSs (Library 1.59) can name and hold: GetCapability lists leave out the
	 * TPM 2.0 v1.85 algorithms and TPM_PT_ML_PARAMETER_SETS unless a query starts at their
	 * own ID; NV indices up to 2048 bytes. */
	PQTPM_CAPS_RELEASED = 0,
	PQTPM_CAPS_V185,	/* every list has the v1.85 IDs; NV indices up to 8192 bytes */
};

/* One state directory is one TPM, whoever opens it (docs/state-directory.md). The engine that
 * opens a directory owns it until closed: a second open of it, in this process or another,
 * fails with -EBUSY naming the owner's PID. The owner serves the others on a UNIX stream socket
 * in the directory (0600), each connection an engine client of its own:
 *   request:  u8 kind, u8 arg, u32 length, length bytes   (integers big-endian)
 *             kind 0: a TPM command, arg its locality;
 *             kind 1: a platform signal, arg an enum pqtpm_signal, length 0
 *   response: u32 length, length bytes: the TPM response; for a signal the 4-byte result of
 *             pqtpm_engine_signal (0 or a negative errno, two's complement)
 * A length over PQTPM_MAX_COMMAND_SIZE, a signal with bytes, an unknown kind, or a connection
 * that closes mid-frame ends that connection only. The volatile state (PCRs, the NULL
 * hierarchy, saved contexts, power and startup) is kept in the directory too, so that the next
 * owner finds the TPM as this one left it: open is not a TPM Reset. */
#define PQTPM_SOCKET_NAME "pqtpm.sock"
/* A connected stream socket to the owner's socket at path (e.g. DIR/pqtpm.sock), whatever the
 * path's length (sun_path holds 107 bytes; a longer one is reached through its directory),
 * or a negative errno. */
int pqtpm_engine_connect(const char *path);
#define PQTPM_FRAME_COMMAND 0u
#define PQTPM_FRAME_SIGNAL 1u
#define PQTPM_FRAME_HEADER 6u

/* The manufacturer CA's certificate (PEM) in a state directory: made with the EK certificates
 * when the TPM is first opened (docs/attestation.md); what a verifier trusts. */
#define PQTPM_CA_CERT_NAME "pqtpm.ca.pem"

struct pqtpm_engine_config {
	const char *state_dir;	 /* created 0700 if missing; NULL = no persistence (tests) */
	unsigned pcr_banks;	 /* PQTPM_BANK_*; 0 = SHA-1 and SHA-256 */
	enum pqtpm_log_level log_level;
	int auto_startup;	 /* nonzero: run Startup(CLEAR) at open unless the TPM is started */
	enum pqtpm_capabilities capabilities; /* 0: PQTPM_CAPS_RELEASED */
	/* nonzero: this open makes no EK certificates (nor the CA), for a TPM manufactured
	 * without them as test suites' reference simulators are; 0: a TPM without them gets them
	 * (docs/attestation.md). Certificates already in NV stay either way. */
	int no_ek_certificates;
};

struct pqtpm_engine;
struct pqtpm_client;

/* Open an engine. Returns 0 or a negative errno; on failure writes a message naming the file
 * and the problem into err (if errlen > 0). A corrupt state file is refused, never replaced. */
int pqtpm_engine_open(struct pqtpm_engine **out, const struct pqtpm_engine_config *cfg,
		      char *err, size_t errlen);

/* Stop serving the socket, save the state (persistent and volatile: the TPM stays powered
 * and started for the next owner; clients' loaded objects and sessions are gone) and free
 * everything. NULL is accepted. */
void pqtpm_engine_close(struct pqtpm_engine *e);

/* Write any pending state to disk. Returns 0 or a negative errno. */
int pqtpm_engine_save(struct pqtpm_engine *e);

struct pqtpm_client *pqtpm_client_new(struct pqtpm_engine *e);
/* Flushes every transient object, session and sequence the client owns. NULL is accepted. */
void pqtpm_client_free(struct pqtpm_client *c);

/* Execute one command. Always produces a well-formed TPM response (possibly just an error
 * header) in rsp and returns 0, unless rsp_cap is smaller than 1024 (-EINVAL). Pass
 * PQTPM_MAX_RESPONSE_SIZE bytes for the largest responses. */
int pqtpm_engine_execute(struct pqtpm_client *c, uint8_t locality, const uint8_t *cmd,
			 size_t cmd_len, uint8_t *rsp, size_t rsp_cap, size_t *rsp_len);

/* Platform signals (the MSSIM platform port). */
enum pqtpm_signal {
	PQTPM_SIGNAL_POWER_ON,
	PQTPM_SIGNAL_POWER_OFF,
	PQTPM_SIGNAL_RESET,	/* power off + power on */
	PQTPM_SIGNAL_PHYS_PRES_ON,
	PQTPM_SIGNAL_PHYS_PRES_OFF,
	PQTPM_SIGNAL_NV_ON,
	PQTPM_SIGNAL_NV_OFF,
	PQTPM_SIGNAL_CANCEL_ON,
	PQTPM_SIGNAL_CANCEL_OFF,
	PQTPM_SIGNAL_HASH_START, /* H-CRTM sequence (_TPM_Hash_Start/Data/End) */
	PQTPM_SIGNAL_HASH_END,
};

/* Returns 0, or a negative errno for a signal not valid now. */
int pqtpm_engine_signal(struct pqtpm_engine *e, enum pqtpm_signal sig);
/* _TPM_Hash_Data: data for the H-CRTM sequence started with PQTPM_SIGNAL_HASH_START. */
int pqtpm_engine_hash_data(struct pqtpm_engine *e, const uint8_t *data, size_t len);

/* Log sink (default: stderr with a level prefix). */
void pqtpm_log(enum pqtpm_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pqtpm_log_set_level(enum pqtpm_log_level level);
/* Where log lines go instead of stderr (one call per line, without a newline; may come from
 * any thread); NULL restores stderr. */
typedef void (*pqtpm_log_fn)(void *arg, enum pqtpm_log_level level, const char *msg);
void pqtpm_log_set_handler(pqtpm_log_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop
#endif
