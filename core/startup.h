/* TPM lifecycle (Part 1 §12): the effects of Startup on the engine. */
#ifndef PQTPM_STARTUP_H
#define PQTPM_STARTUP_H

#include "engine_int.h"

/* Startup(type) as the command does it; used by the command and by in-process users that
 * ask the engine to start itself (auto_startup). */
TPM_RC startup_run(struct pqtpm_engine *e, uint16_t type, uint8_t locality);
/* Shutdown(STATE): PCRs 0-15 into e->ps for a TPM Resume. */
void startup_save_pcrs(struct pqtpm_engine *e);

#endif
