/* pqtpm-server configuration: defaults, then the --config file, then the other flags. */
#ifndef MSSIM_CONFIG_H
#define MSSIM_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <pqtpm/engine.h>

#define MSSIM_DEFAULT_STATE_DIR "./var/pqtpm"
#define MSSIM_DEFAULT_BIND "127.0.0.1"
#define MSSIM_DEFAULT_PORT 2321
/* Spare connection threads (server.h): "auto" is one per CPU the server may run on, at most
 * MSSIM_AUTO_THREADS_MAX; an explicit count may go up to MSSIM_THREADS_MAX. */
#define MSSIM_AUTO_THREADS_MAX 8
#define MSSIM_THREADS_MAX 64

struct mssim_config {
	char state_dir[PATH_MAX];
	char bind[64];		/* numeric IPv4 or IPv6 address */
	unsigned port;
	unsigned platform_port;	/* 0 until resolved: port + 1 */
	unsigned pcr_banks;	/* PQTPM_BANK_* */
	enum pqtpm_log_level log_level;
	unsigned threads;	/* spare connection threads; 0 = auto (mssim_config_threads()) */
	enum pqtpm_capabilities capabilities;
	bool no_ek_certificates; /* ek_certificates = no (pqtpm_engine_config's) */
	char export_ca[PATH_MAX]; /* --export-ca: write the CA certificate there and exit */
};

enum mssim_config_result { MSSIM_CONFIG_OK, MSSIM_CONFIG_HELP, MSSIM_CONFIG_ERROR };

void mssim_config_defaults(struct mssim_config *c);

/* Reads `key = value` lines (# starts a comment) into c. Returns 0, or -1 with a message
 * naming the file, the line and the key in err. */
int mssim_config_load(struct mssim_config *c, const char *path, char *err, size_t errlen);

/* The whole command line: defaults, --config FILE, then the other flags over it, then the
 * platform port resolved. On MSSIM_CONFIG_ERROR err names the file and line, or the flag. */
enum mssim_config_result mssim_config_from_args(struct mssim_config *c, int argc, char **argv,
						char *err, size_t errlen);

void mssim_config_usage(FILE *out);

/* How many connection threads to keep for new connections once their own clients left:
 * c->threads, or for auto (0) the number of CPUs in
 * the process's affinity mask (taskset, cpusets; the online CPUs if it cannot be read),
 * capped at MSSIM_AUTO_THREADS_MAX. */
unsigned mssim_config_threads(const struct mssim_config *c);

/* Whether the bind address is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z). */
bool mssim_config_is_loopback(const struct mssim_config *c);

/* The tpm2-tss TCTI string a local client uses, e.g. "mssim:host=127.0.0.1,port=2321".
 * Returns 0, or -1 if it does not fit. */
int mssim_config_tcti(const struct mssim_config *c, char *buf, size_t len);

#endif
