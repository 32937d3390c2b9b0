/* The library's one log sink (pqtpm_tss_set_log): silent until a callback is set. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "tss_int.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pqtpm_tss_log_fn log_fn;
static void *log_arg;

void pqtpm_tss_set_log(pqtpm_tss_log_fn fn, void *arg)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_arg = arg;
	pthread_mutex_unlock(&log_lock);
}

void tss_log(int level, const char *fmt, ...)
{
	pqtpm_tss_log_fn fn;
	char msg[512];
	va_list ap;
	void *arg;

	pthread_mutex_lock(&log_lock);
	fn = log_fn;
	arg = log_arg;
	pthread_mutex_unlock(&log_lock);
	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(arg, level, msg); /* outside the lock: the callback may set another one */
}
