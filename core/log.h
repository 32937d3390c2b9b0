/* The engine's log (pqtpm_log* in include/pqtpm/engine.h): one line at a time to the handler
 * the application set, or to stderr. */
#ifndef PQTPM_LOG_H
#define PQTPM_LOG_H

#include <pqtpm/engine.h>

struct pqtpm_engine;
void engine_log(struct pqtpm_engine *e, enum pqtpm_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
