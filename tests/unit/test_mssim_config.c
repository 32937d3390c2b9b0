/* pqtpm-server configuration: the conf file, flags over it, and the errors naming the culprit. */
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "config.h"
#include "unit_main.h"

static char path[64];
static char err[512];
static struct mssim_config cfg;

/* Writes text to a fresh temporary file, named in path. */
static void write_conf(const char *text)
{
	size_t n = strlen(text);
	int fd;

	strcpy(path, "/tmp/test_mssim_config.XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, n) == (ssize_t)n);
	CU_ASSERT_FATAL(close(fd) == 0);
}

static void remove_conf(void)
{
	unlink(path);
}

#define ARGS(...) (sizeof((char *[]){ "pqtpm-server", __VA_ARGS__ }) / sizeof(char *)), \
	(char *[]){ "pqtpm-server", __VA_ARGS__ }

static enum mssim_config_result parse(int argc, char **argv)
{
	err[0] = '\0';
	return mssim_config_from_args(&cfg, argc, argv, err, sizeof(err));
}

/* err mentions every one of the (NULL-terminated) words. */
static int err_has(const char *first, ...)
{
	const char *words[8] = { first };
	va_list ap;
	size_t i, n = 1;

	va_start(ap, first);
	while (n < 8 && (words[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	for (i = 0; i < n && words[i]; i++)
		if (!strstr(err, words[i]))
			return 0;
	return 1;
}

static void test_defaults(void)
{
	char *argv[] = { "pqtpm-server" };

	CU_ASSERT_EQUAL_FATAL(parse(1, argv), MSSIM_CONFIG_OK);
	CU_ASSERT_STRING_EQUAL(cfg.state_dir, "./var/pqtpm");
	CU_ASSERT_STRING_EQUAL(cfg.bind, "127.0.0.1");
	CU_ASSERT_EQUAL(cfg.port, 2321);
	CU_ASSERT_EQUAL(cfg.platform_port, 2322);
	CU_ASSERT_EQUAL(cfg.pcr_banks, PQTPM_BANK_SHA1 | PQTPM_BANK_SHA256);
	CU_ASSERT_EQUAL(cfg.log_level, PQTPM_LOG_INFO);
	CU_ASSERT_EQUAL(cfg.threads, 0);	/* auto */
	CU_ASSERT_EQUAL(cfg.capabilities, PQTPM_CAPS_RELEASED);
	CU_ASSERT_FALSE(cfg.no_ek_certificates);
}

static void test_file(void)
{
	write_conf("# a comment\n"
		   "\n"
		   "state_dir = /srv/tpm state   # trailing comment\n"
		   "   bind=::1\n"
		   "port\t=\t3000\n"
		   "pcr_banks = sha256 , sha384,sha512\n"
		   "log_level = debug");	/* no final newline */
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_OK);
	CU_ASSERT_STRING_EQUAL(cfg.state_dir, "/srv/tpm state");
	CU_ASSERT_STRING_EQUAL(cfg.bind, "::1");
	CU_ASSERT_EQUAL(cfg.port, 3000);
	CU_ASSERT_EQUAL(cfg.platform_port, 3001);
	CU_ASSERT_EQUAL(cfg.pcr_banks, PQTPM_BANK_SHA256 | PQTPM_BANK_SHA384 | PQTPM_BANK_SHA512);
	CU_ASSERT_EQUAL(cfg.log_level, PQTPM_LOG_DEBUG);
	remove_conf();
}

static void test_flags_override_file(void)
{
	write_conf("port = 3000\nplatform_port = 4000\nstate_dir = /a\nlog_level = error\n");
	/* --config last: the flags before it still win. */
	CU_ASSERT_EQUAL(parse(ARGS("--port", "5000", "--state-dir=/b", "--log-level", "warn",
				   "--bind=0.0.0.0", "--config", path)),
			MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.port, 5000);
	CU_ASSERT_EQUAL(cfg.platform_port, 4000);	/* set in the file, not derived */
	CU_ASSERT_STRING_EQUAL(cfg.state_dir, "/b");
	CU_ASSERT_STRING_EQUAL(cfg.bind, "0.0.0.0");
	CU_ASSERT_EQUAL(cfg.log_level, PQTPM_LOG_WARN);
	CU_ASSERT_EQUAL(parse(ARGS("--config", path, "--platform-port", "4100")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.port, 3000);
	CU_ASSERT_EQUAL(cfg.platform_port, 4100);
	remove_conf();
}

static void test_file_errors_name_line_and_key(void)
{
	write_conf("port = 3000\n# fine\nprot = 3000\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":3:", "unknown key", "'prot'", NULL));
	remove_conf();

	write_conf("\nport = 70000\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":2:", "'port'", "'70000'", NULL));
	remove_conf();

	write_conf("log_level = verbose\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "'log_level'", "'verbose'", NULL));
	remove_conf();

	write_conf("pcr_banks = sha1,md5\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "'pcr_banks'", NULL));
	remove_conf();

	write_conf("bind = localhost\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "'bind'", NULL));
	remove_conf();

	write_conf("state_dir =\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "'state_dir'", NULL));
	remove_conf();

	write_conf("port 3000\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "key = value", NULL));
	remove_conf();

	CU_ASSERT_EQUAL(parse(ARGS("--config", "/nonexistent/pqtpm.conf")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("/nonexistent/pqtpm.conf", "cannot open", NULL));
}

static void test_long_line(void)
{
	static char text[2100];

	memset(text, 'x', sizeof(text) - 2);
	memcpy(text, "state_dir = ", 12);
	text[sizeof(text) - 2] = '\n';
	write_conf(text);
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "longer", NULL));
	remove_conf();
}

static void test_flag_errors_name_the_flag(void)
{
	CU_ASSERT_EQUAL(parse(ARGS("--port", "http")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--port", "'http'", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--platform-port=0")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--platform-port", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--port", "-1")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--port", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--log-level", "loud")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--log-level", "'loud'", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--bind", "1.2.3")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--bind", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--state-dir", "")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--state-dir", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--verbose")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("unknown option", "--verbose", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--pcr-banks", "sha1")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--pcr-banks", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--port")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--port", "needs a value", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("2321")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("'2321'", NULL));
}

static void test_help(void)
{
	CU_ASSERT_EQUAL(parse(ARGS("--help")), MSSIM_CONFIG_HELP);
	CU_ASSERT_EQUAL(parse(ARGS("--port", "x", "--help")), MSSIM_CONFIG_HELP);
}

static void test_platform_port(void)
{
	CU_ASSERT_EQUAL(parse(ARGS("--port", "65534")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.platform_port, 65535);
	CU_ASSERT_EQUAL(parse(ARGS("--port", "65535")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("65535", "platform_port", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--port", "65535", "--platform-port", "1")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(parse(ARGS("--port", "4000", "--platform-port", "4000")),
			MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("4000", NULL));
}

static void test_loopback_and_tcti(void)
{
	static const struct { const char *bind; bool loopback; const char *tcti; } cases[] = {
		{ "127.0.0.1", true, "mssim:host=127.0.0.1,port=2321" },
		{ "127.1.2.3", true, "mssim:host=127.1.2.3,port=2321" },
		{ "::1", true, "mssim:host=::1,port=2321" },
		{ "::ffff:127.0.0.1", true, "mssim:host=::ffff:127.0.0.1,port=2321" },
		{ "0.0.0.0", false, "mssim:host=127.0.0.1,port=2321" },
		{ "::", false, "mssim:host=::1,port=2321" },
		{ "192.168.1.10", false, "mssim:host=192.168.1.10,port=2321" },
		{ "fe80::1", false, "mssim:host=fe80::1,port=2321" },
	};
	char tcti[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(parse(ARGS("--bind", (char *)cases[i].bind)), MSSIM_CONFIG_OK);
		CU_ASSERT_EQUAL(mssim_config_is_loopback(&cfg), cases[i].loopback);
		CU_ASSERT_EQUAL(mssim_config_tcti(&cfg, tcti, sizeof(tcti)), 0);
		CU_ASSERT_STRING_EQUAL(tcti, cases[i].tcti);
	}
	CU_ASSERT_EQUAL(mssim_config_tcti(&cfg, tcti, 10), -1);
}

static void test_threads(void)
{
	cpu_set_t set, one;
	long cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
								   : sysconf(_SC_NPROCESSORS_ONLN);
	unsigned want = cpus < 1 ? 1 : cpus > MSSIM_AUTO_THREADS_MAX ? MSSIM_AUTO_THREADS_MAX
								      : (unsigned)cpus;
	char *none[] = { "pqtpm-server" };

	/* auto: one per CPU we may run on, capped */
	CU_ASSERT_EQUAL_FATAL(parse(1, none), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(mssim_config_threads(&cfg), want);
	CU_ASSERT_EQUAL(parse(ARGS("--threads", "auto")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.threads, 0);
	CU_ASSERT_EQUAL(mssim_config_threads(&cfg), want);

	/* pinned to one CPU (taskset -c N): one worker */
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		CPU_ZERO(&one);
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set)) {
				CPU_SET(i, &one);
				break;
			}
		CU_ASSERT_EQUAL_FATAL(sched_setaffinity(0, sizeof(one), &one), 0);
		CU_ASSERT_EQUAL(mssim_config_threads(&cfg), 1);
		CU_ASSERT_EQUAL(sched_setaffinity(0, sizeof(set), &set), 0);
	}

	CU_ASSERT_EQUAL(parse(ARGS("--threads", "4")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(mssim_config_threads(&cfg), 4);
	CU_ASSERT_EQUAL(parse(ARGS("--threads=1")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(mssim_config_threads(&cfg), 1);
	CU_ASSERT_EQUAL(parse(ARGS("--threads", "64")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(mssim_config_threads(&cfg), MSSIM_THREADS_MAX);

	/* the file, and a flag over it */
	write_conf("threads = 3\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(mssim_config_threads(&cfg), 3);
	CU_ASSERT_EQUAL(parse(ARGS("--threads", "auto", "--config", path)), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.threads, 0);
	CU_ASSERT_EQUAL(parse(ARGS("--config", path, "--threads", "2")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.threads, 2);
	remove_conf();

	/* bad values name the key or the flag */
	write_conf("\nthreads = 0\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":2:", "'threads'", "'0'", "auto", NULL));
	remove_conf();
	write_conf("threads = 65\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "'threads'", "'65'", NULL));
	remove_conf();
	write_conf("threads =\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "'threads'", NULL));
	remove_conf();
	CU_ASSERT_EQUAL(parse(ARGS("--threads", "-1")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--threads", "'-1'", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--threads", "2x")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--threads", "'2x'", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--threads", "Auto")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--threads", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--threads", "99999999999999999999")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--threads", NULL));
	CU_ASSERT_EQUAL(parse(ARGS("--threads")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--threads", "needs a value", NULL));
}

static void test_capabilities(void)
{
	write_conf("capabilities = v1.85\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.capabilities, PQTPM_CAPS_V185);
	CU_ASSERT_EQUAL(parse(ARGS("--config", path, "--capabilities", "released")),
			MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.capabilities, PQTPM_CAPS_RELEASED);
	remove_conf();
	CU_ASSERT_EQUAL(parse(ARGS("--capabilities=v1.85")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(cfg.capabilities, PQTPM_CAPS_V185);

	write_conf("\ncapabilities = all\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":2:", "'capabilities'", "'all'", "released or v1.85", NULL));
	remove_conf();
	CU_ASSERT_EQUAL(parse(ARGS("--capabilities", "1.85")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--capabilities", "'1.85'", NULL));
}

static void test_ek_certificates(void)
{
	write_conf("ek_certificates = no\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_OK);
	CU_ASSERT_TRUE(cfg.no_ek_certificates);
	CU_ASSERT_EQUAL(parse(ARGS("--config", path, "--ek-certificates", "yes")), MSSIM_CONFIG_OK);
	CU_ASSERT_FALSE(cfg.no_ek_certificates);
	remove_conf();
	CU_ASSERT_EQUAL(parse(ARGS("--ek-certificates=no")), MSSIM_CONFIG_OK);
	CU_ASSERT_TRUE(cfg.no_ek_certificates);

	write_conf("ek_certificates = false\n");
	CU_ASSERT_EQUAL(parse(ARGS("--config", path)), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has(path, ":1:", "'ek_certificates'", "'false'", "yes or no", NULL));
	remove_conf();
	CU_ASSERT_EQUAL(parse(ARGS("--ek-certificates", "0")), MSSIM_CONFIG_ERROR);
	CU_ASSERT(err_has("--ek-certificates", "'0'", NULL));
}

static void test_usage_mentions_threads(void)
{
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	CU_ASSERT_FATAL(f != NULL);
	mssim_config_usage(f);
	fclose(f);
	CU_ASSERT(strstr(buf, "--threads") != NULL);
}

static void test_shipped_conf(void)
{
	/* conf/pqtpm.conf parses and says what the defaults say. */
	struct mssim_config defaults;
	char *none[] = { "pqtpm-server" };

	CU_ASSERT_EQUAL_FATAL(parse(1, none), MSSIM_CONFIG_OK);
	defaults = cfg;
	CU_ASSERT_EQUAL_FATAL(parse(ARGS("--config", "conf/pqtpm.conf")), MSSIM_CONFIG_OK);
	CU_ASSERT_EQUAL(memcmp(&cfg, &defaults, sizeof(cfg)), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "defaults", test_defaults },
		{ "config file", test_file },
		{ "flags override the file", test_flags_override_file },
		{ "file errors name file, line and key", test_file_errors_name_line_and_key },
		{ "over-long line", test_long_line },
		{ "flag errors name the flag", test_flag_errors_name_the_flag },
		{ "--help", test_help },
		{ "platform port", test_platform_port },
		{ "loopback and TCTI string", test_loopback_and_tcti },
		{ "threads", test_threads },
		{ "capabilities", test_capabilities },
		{ "ek_certificates", test_ek_certificates },
		{ "--help mentions --threads", test_usage_mentions_threads },
		{ "shipped conf/pqtpm.conf", test_shipped_conf },
	};

	return UNIT_RUN("mssim_config", tests, NULL, NULL);
}
