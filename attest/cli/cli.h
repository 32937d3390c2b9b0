/* pqtpm-attest: what the commands share (cli.c). Exit codes: EXIT_OK, EXIT_INVALID (verify
 * found the evidence invalid), EXIT_ERROR (usage, I/O, TPM). */
#ifndef PQTPM_ATTEST_CLI_H
#define PQTPM_ATTEST_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pqtpm/attest.h>

#define EXIT_OK 0
#define EXIT_INVALID 1
#define EXIT_ERROR 2

struct cli {
	const char *tpm;	/* --tpm */
	const char *state_dir;	/* --state-dir, $PQTPM_STATE_DIR, ./var/pqtpm */
};

/* A command's flags: --name VALUE or --name=VALUE, each at most once; *value stays NULL when
 * absent. */
struct flag {
	const char *name;
	const char **value;
};
/* Parse argv[0..argc) of a command (argv[0] its name). Returns EXIT_OK, or prints the usage
 * (--help: to stdout, returns -1) or an error naming the flag (returns EXIT_ERROR). */
int cli_flags(int argc, char **argv, struct flag *flags, size_t n, const char *usage);
/* "--name is needed" */
int cli_missing(const char *cmd, const char *flag);

/* Open the TPM (--tpm, else embedded:STATE_DIR), powered and started. NULL after a message. */
struct pqtpm_tss *cli_open(const struct cli *c);
/* The state directory the TPM lives in, if it is one (embedded:DIR or the default). */
const char *cli_state_dir(const struct cli *c);

/* Message helpers: all print "pqtpm-attest: ..." and return EXIT_ERROR. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_tpm_error(const char *what, TPM_RC rc);

/* Files: whole file into a malloc'd buffer (at most max bytes); written at once (0600 for
 * secrets such as AK.json is not needed: the private blob is wrapped by the TPM). 0 or
 * EXIT_ERROR after a message naming the file. */
int cli_read_file(const char *path, size_t max, uint8_t **out, size_t *len);
int cli_write_file(const char *path, const void *data, size_t len);
/* JSON: loaded (EXIT_ERROR with the file, line and jansson's text) or dumped, indented. */
int cli_read_json(const char *path, json_t **out);
int cli_write_json(const char *path, const json_t *doc); /* path NULL or "-": stdout */

/* An AK from AK.json; a trusted public area from AK.json or a TPM2B_PUBLIC (tpm2-tools). */
int cli_read_ak(const char *path, struct pqtpm_attest_ak *ak);
int cli_read_ak_public(const char *path, struct pqtpm_tss_public *pub);
/* A nonce in hex, 1..64 bytes. */
int cli_nonce(const char *hex, uint8_t *out, size_t *len);

int cmd_ek(const struct cli *c, int argc, char **argv);
int cmd_ca(const struct cli *c, int argc, char **argv);
int cmd_ak(const struct cli *c, int argc, char **argv);
int cmd_credential(const struct cli *c, int argc, char **argv);
int cmd_measure(const struct cli *c, int argc, char **argv);
int cmd_import(const struct cli *c, int argc, char **argv);
int cmd_quote(const struct cli *c, int argc, char **argv);
int cmd_verify(const struct cli *c, int argc, char **argv);
int cmd_serve(const struct cli *c, int argc, char **argv);

#endif
