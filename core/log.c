/* The engine's log (log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>

#include "log.h"

static enum pqtpm_log_level log_level = PQTPM_LOG_INFO;
/* pqtpm_log_set_handler: the sink and its argument, swapped together under the mutex */
static pthread_mutex_t log_sink_lock = PTHREAD_MUTEX_INITIALIZER;
static pqtpm_log_fn log_sink;
static void *log_sink_arg;

void pqtpm_log_set_level(enum pqtpm_log_level level)
{
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

void pqtpm_log_set_handler(pqtpm_log_fn fn, void *arg)
{
	pthread_mutex_lock(&log_sink_lock);
	log_sink = fn;
	log_sink_arg = arg;
	pthread_mutex_unlock(&log_sink_lock);
}

static void vlog(enum pqtpm_log_level level, const char *fmt, va_list ap)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	char line[1024];

	if (level > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	pthread_mutex_lock(&log_sink_lock);
	if (log_sink)
		log_sink(log_sink_arg, level, line);
	else
		/* one line at a time, whichever thread logs */
		fprintf(stderr, "pqtpm: %s: %s\n", names[level], line);
	pthread_mutex_unlock(&log_sink_lock);
}

void pqtpm_log(enum pqtpm_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

void engine_log(struct pqtpm_engine *e, enum pqtpm_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	(void)e;
	va_start(ap, fmt);
	vlog(lvl, fmt, ap);
	va_end(ap);
}
