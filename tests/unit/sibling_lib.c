/* See sibling_lib.h. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sibling_lib.h"

void *sibling_lib_open(const char *name)
{
	char self[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;
	void *lib;

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (snprintf(path, sizeof(path), "%s/../lib/%s", self, name) >= (int)sizeof(path))
		return NULL;
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		fprintf(stderr, "%s\n", dlerror());
	return lib;
}
