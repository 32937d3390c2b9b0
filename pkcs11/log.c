/* The module's log: stderr at or below the configured level, nowhere by default (an
 * application loading the module must not see its output). */
#include <stdarg.h>
#include <stdio.h>

#include "p11.h"

static int log_level = P11_LOG_NONE;

void p11_log_init(int level)
{
	log_level = level;
}

void p11_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	fputs("pqtpm-pkcs11: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
