/* Transport strings: the ones accepted reach their transport with the host, port or path they
 * name (an mssim listener of the test's own sees the connection; a FIFO stands in for a TPM
 * device and echoes the command back); the ones refused give -EINVAL and a log message that
 * names the bad part; a missing device gives -ENOENT and names the path. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "unit_main.h"

static char last[512];
static int nlogs;

static void capture(void *arg, int level, const char *msg)
{
	(void)arg;
	CU_ASSERT_EQUAL(level, PQTPM_LOG_ERROR);
	snprintf(last, sizeof(last), "%s", msg);
	nlogs++;
}

static void setup(void)
{
	last[0] = '\0';
	nlogs = 0;
	pqtpm_tss_set_log(capture, NULL);
}

static void teardown(void)
{
	pqtpm_tss_set_log(NULL, NULL);
}

/* conf is refused with -EINVAL and a message containing part. */
static void refused(const char *conf, const char *part)
{
	struct pqtpm_tss *t = NULL;

	last[0] = '\0';
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, conf), -EINVAL);
	CU_ASSERT_PTR_NULL(t);
	if (!strstr(last, part)) {
		printf("\"%s\": message \"%s\" does not name \"%s\"\n", conf ? conf : "(null)", last,
		       part);
		CU_FAIL("message");
	}
}

static void test_refused(void)
{
	char long_host[400];

	refused(NULL, "no string");
	refused("", "unknown transport \"\"");
	refused("tbs", "unknown transport \"tbs\"");
	refused("mssimx:port=1", "unknown transport \"mssimx\"");
	refused("mss", "unknown transport \"mss\"");
	refused("mssim:port=0", "\"port=0\"");
	refused("mssim:port=65535", "\"port=65535\"");
	refused("mssim:port=-1", "\"port=-1\"");
	refused("mssim:port=12x", "\"port=12x\"");
	refused("mssim:port=99999999999999999999", "\"port=99999999999999999999\"");
	refused("mssim:port=", "\"port=\"");
	refused("mssim:host=", "\"host=\"");
	refused("mssim:colour=blue", "\"colour=blue\"");
	refused("mssim:host=127.0.0.1,,port=2321", "\"\"");
	refused("mssim:host=127.0.0.1,", "bad option \"\"");
	snprintf(long_host, sizeof(long_host), "mssim:host=%0300d", 1);
	refused(long_host, "bad option");
	CU_ASSERT(nlogs > 0);
}

/* A listener of our own on a free loopback port. */
static int listener(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CU_ASSERT_FATAL(listen(fd, 4) == 0);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&a, &alen) == 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void test_mssim_accepted(void)
{
	struct pqtpm_tss *t = NULL;
	char conf[128];
	unsigned port;
	int l = listener(&port), c;

	CU_ASSERT_FATAL(port < 65535);
	snprintf(conf, sizeof(conf), "mssim:host=127.0.0.1,port=%u", port);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_tcti(&t, conf), 0);
	c = accept(l, NULL, NULL);
	CU_ASSERT(c >= 0);
	pqtpm_tss_close(t);
	close(c);
	snprintf(conf, sizeof(conf), "mssim:port=%u,host=localhost", port); /* any order */
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, conf), 0);
	pqtpm_tss_close(t);
	snprintf(conf, sizeof(conf), "mssim:port=%u", port); /* host: 127.0.0.1 */
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, conf), 0);
	pqtpm_tss_close(t);
	close(l);
	CU_ASSERT_EQUAL(nlogs, 0);
	/* the same string once nobody listens: accepted, then refused by the network */
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, conf), -ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(last, "Connection refused"));
}

/* A FIFO opened read-write returns what was written: the command comes back as the response,
 * so the "response code" is the command code. */
static void test_device(void)
{
	uint8_t cmd[12] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7B, 0, 16 }, rsp[64];
	char dir[] = "/tmp/pqtpm-tcti.XXXXXX", path[64], conf[80];
	struct pqtpm_tss *t = NULL;
	size_t len = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tpm", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	snprintf(conf, sizeof(conf), "device:%s", path);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_tcti(&t, conf), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_transmit(t, cmd, sizeof(cmd), rsp, sizeof(rsp), &len),
			TPM_CC_GetRandom);
	CU_ASSERT_EQUAL(len, sizeof(cmd));
	CU_ASSERT(memcmp(rsp, cmd, sizeof(cmd)) == 0);
	pqtpm_tss_close(t);
	CU_ASSERT_EQUAL(nlogs, 0);

	unlink(path);
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, conf), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(last, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(last, "No such file"));
	snprintf(conf, sizeof(conf), "device:%s", dir);
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, conf), -EISDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(last, "Is a directory"));
	rmdir(dir);
	/* "device" alone is /dev/tpmrm0: a machine without one says so, one with one opens it
	 * (or is refused by its permissions) */
	last[0] = '\0';
	if (access("/dev/tpmrm0", F_OK) != 0) {
		CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, "device"), -ENOENT);
		CU_ASSERT_PTR_NOT_NULL(strstr(last, "/dev/tpmrm0"));
	} else {
		int rc = pqtpm_tss_open_tcti(&t, "device");

		CU_ASSERT(rc == 0 || rc == -EACCES || rc == -EBUSY);
		if (rc == 0)
			pqtpm_tss_close(t);
	}
}

/* Without a callback nothing is said (and nothing breaks). */
static void test_silent(void)
{
	struct pqtpm_tss *t;

	pqtpm_tss_set_log(NULL, NULL);
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&t, "nope:"), -EINVAL);
	CU_ASSERT_EQUAL(nlogs, 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "strings refused, the bad part named", test_refused },
		{ "mssim strings accepted", test_mssim_accepted },
		{ "device: a character device, a missing one", test_device },
		{ "no callback: silent", test_silent },
	};

	return UNIT_RUN("tss_tcti", tests, setup, teardown);
}
