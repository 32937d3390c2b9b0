/* pqtpm-server: a pqtpm TPM 2.0 over the Microsoft simulator (MSSIM) TCP protocol. */
#include <stdio.h>
#include <string.h>

#include <pqtpm/engine.h>

#include "config.h"
#include "export_ca.h"
#include "server.h"

int main(int argc, char **argv)
{
	struct pqtpm_engine_config ecfg = { 0 };
	struct pqtpm_engine *engine = NULL;
	struct mssim_config cfg;
	struct mssim_server srv;
	char err[512] = "", tcti[128];
	int rc;

	switch (mssim_config_from_args(&cfg, argc, argv, err, sizeof(err))) {
	case MSSIM_CONFIG_HELP:
		mssim_config_usage(stdout);
		return 0;
	case MSSIM_CONFIG_ERROR:
		fprintf(stderr, "pqtpm-server: %s\n", err);
		return 2;
	case MSSIM_CONFIG_OK:
		break;
	}
	pqtpm_log_set_level(cfg.log_level);
	if (cfg.export_ca[0]) {
		if (mssim_export_ca(&cfg, err, sizeof(err)) == 0)
			return 0;
		fprintf(stderr, "pqtpm-server: %s\n", err);
		return 1;
	}
	/* Before the engine exists, so that any thread it starts inherits the signal mask. */
	if (mssim_server_block_signals() < 0)
		return 1;

	ecfg.state_dir = cfg.state_dir;
	ecfg.pcr_banks = cfg.pcr_banks;
	ecfg.log_level = cfg.log_level;
	ecfg.capabilities = cfg.capabilities;
	ecfg.no_ek_certificates = cfg.no_ek_certificates;
	ecfg.auto_startup = 0;	/* like the reference simulator: clients power on and start up */
	rc = pqtpm_engine_open(&engine, &ecfg, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "pqtpm-server: %s\n", err[0] ? err : strerror(-rc));
		return 1;
	}
	if (mssim_server_open(&srv, engine, &cfg) < 0) {
		mssim_server_close(&srv);
		pqtpm_engine_close(engine);
		return 1;
	}
	if (mssim_config_tcti(&cfg, tcti, sizeof(tcti)) == 0 &&
	    (printf("pqtpm-server: listening; export TPM2TOOLS_TCTI=\"%s\"\n", tcti) < 0 ||
	     fflush(stdout) != 0))
		pqtpm_log(PQTPM_LOG_WARN, "cannot write to stdout");

	rc = mssim_server_run(&srv);
	mssim_server_close(&srv);
	pqtpm_engine_close(engine);
	return rc < 0 ? 1 : 0;
}
