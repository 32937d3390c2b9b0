/* pqtpm-attest: attestation with a TPM 2.0 (docs/attestation.md). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"Usage: pqtpm-attest [--tpm TCTI | --state-dir DIR] COMMAND [ARGS]\n"
	"Attestation keys, quotes as JSON evidence, and their verification.\n"
	"\n"
	"  --tpm TCTI       the TPM: embedded:DIR, mssim:host=H,port=P, swtpm:host=H,port=P,\n"
	"                   device:/dev/tpmrm0, unix:PATH\n"
	"  --state-dir DIR  without --tpm: the TPM of state directory DIR (default\n"
	"                   $PQTPM_STATE_DIR, else ./var/pqtpm), shared by every process\n"
	"\n"
	"Commands (each with --help):\n"
	"  ek       the EK public key and its certificate\n"
	"  ca       the manufacturer CA certificate\n"
	"  ak       create an attestation key (ak create), its public area (ak public)\n"
	"  credential  make (verifier, no TPM) and activate (the AK's binding to the EK)\n"
	"  measure  extend a PCR and append the event to a TCG event log\n"
	"  quote    a quote of PCRs (and an event log) as JSON evidence\n"
	"  import   evidence from tpm2_quote's files\n"
	"  verify   check evidence (no TPM needed)\n"
	"  serve    a stateless verifier over HTTP (challenges and verify)\n"
	"\n"
	"Exit status: 0 success (verify: valid), 1 verify: invalid, 2 usage, I/O or TPM error.\n";

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(const struct cli *c, int argc, char **argv);
	} cmds[] = {
		{ "ek", cmd_ek }, { "ca", cmd_ca }, { "ak", cmd_ak }, { "credential", cmd_credential }, { "measure", cmd_measure },
		{ "quote", cmd_quote }, { "import", cmd_import },
		{ "verify", cmd_verify }, { "serve", cmd_serve },
	};
	struct cli c = { 0 };
	int i = 1;

	while (i < argc && strncmp(argv[i], "--", 2) == 0) {
		const char **v = NULL;

		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		if (strcmp(argv[i], "--tpm") == 0)
			v = &c.tpm;
		else if (strcmp(argv[i], "--state-dir") == 0)
			v = &c.state_dir;
		else
			return cli_error("unknown option '%s' (see --help)", argv[i]);
		if (i + 1 >= argc)
			return cli_error("%s needs a value", argv[i]);
		*v = argv[i + 1];
		i += 2;
	}
	if (c.tpm && c.state_dir)
		return cli_error("--tpm and --state-dir name two TPMs: give one");
	if (i == argc)
		return cli_error("a command is needed (see --help)");
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
		if (strcmp(argv[i], cmds[k].name) == 0)
			return cmds[k].fn(&c, argc - i, argv + i);
	return cli_error("unknown command '%s' (see --help)", argv[i]);
}
