/* The manufacturer CA: see ca.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "endorse/ca.h"
#include "crypto/pem.h"

static const uint8_t oid_subject_key_id[] = { 0x55, 0x1D, 0x0E };

static int path_of(char *out, size_t cap, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* temp file, fsync, rename, fsync of the directory: the file is whole or absent */
static int write_atomically(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096], tmp[4096];
	int fd, rc = 0;

	if (path_of(path, sizeof(path), dir, name) || snprintf(tmp, sizeof(tmp), "%s.tmp", path) >=
							      (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len || fsync(fd) != 0)
		rc = errno ? -errno : -EIO;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

/* The key file: exactly the scalar. -ENOENT when there is none. */
static int read_key(const char *path, uint8_t d[X509_CA_KEY_BYTES])
{
	uint8_t extra;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (read(fd, d, X509_CA_KEY_BYTES) != X509_CA_KEY_BYTES || read(fd, &extra, 1) != 0)
		rc = -EINVAL;
	close(fd);
	return rc;
}

static TPM_RC self_signed(const struct endorse_ca *ca, uint8_t *cert, size_t cap, size_t *len)
{
	static const uint8_t ca_true[] = { DER_BOOLEAN, 1, 0xFF };
	static const uint8_t cert_sign_crl_sign = 0x06; /* keyCertSign (5), cRLSign (6) */
	uint8_t tbs[1024], serial[16];
	struct spki_key k = { .kind = SPKI_ECC_P256, .a = ca->x, .alen = sizeof(ca->x),
			      .b = ca->y, .blen = sizeof(ca->y) };
	struct der d;
	size_t tbs_len;

	TRY(x509_serial(serial));
	der_init(&d, tbs, sizeof(tbs));
	x509_tbs_start(&d, serial);
	x509_ca_name(&d); /* subject = issuer */
	spki_write(&d, &k);
	der_open(&d, DER_CONTEXT(3));
	der_open(&d, DER_SEQUENCE);
	x509_ext_start(&d, x509_oid_basic_constraints, sizeof(x509_oid_basic_constraints), true);
	der_tlv(&d, DER_SEQUENCE, ca_true, sizeof(ca_true));
	x509_ext_end(&d);
	x509_ext_start(&d, x509_oid_key_usage, sizeof(x509_oid_key_usage), true);
	der_bits(&d, &cert_sign_crl_sign, 1, 1);
	x509_ext_end(&d);
	x509_ext_start(&d, oid_subject_key_id, sizeof(oid_subject_key_id), false);
	der_tlv(&d, DER_OCTET_STRING, ca->key_id, sizeof(ca->key_id));
	x509_ext_end(&d);
	der_close(&d);
	der_close(&d);
	der_close(&d);
	TRY(der_finish(&d, &tbs_len));
	return x509_sign(tbs, tbs_len, ca->d, cert, cap, len);
}

static int make_cert(const char *dir, const struct endorse_ca *ca)
{
	uint8_t der[X509_MAX_CERT];
	char pem[2 * X509_MAX_CERT];
	size_t len, plen;

	if (self_signed(ca, der, sizeof(der), &len) != TPM_RC_SUCCESS)
		return -EIO;
	plen = pem_encode("CERTIFICATE", der, len, pem, sizeof(pem));
	if (plen == 0)
		return -EIO;
	return write_atomically(dir, CA_CERT_FILE, pem, plen);
}

int endorse_ca_open(const char *dir, struct endorse_ca *ca, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;
	int rc;

	rc = path_of(path, sizeof(path), dir, CA_KEY_FILE);
	if (rc == 0)
		rc = read_key(path, ca->d);
	if (rc == -ENOENT) {
		rc = crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, ca->d, ca->x,
					 ca->y) == TPM_RC_SUCCESS
			     ? write_atomically(dir, CA_KEY_FILE, ca->d, sizeof(ca->d))
			     : -EIO;
		/* a new key needs a new certificate, whatever lies there */
		if (rc == 0 && path_of(path, sizeof(path), dir, CA_CERT_FILE) == 0)
			unlink(path);
	} else if (rc == 0 && crypto_ecc_public(TPM_ECC_NIST_P256, ca->d, ca->x, ca->y)) {
		rc = -EINVAL;
	}
	if (rc == 0 && x509_key_id(ca->x, ca->y, ca->key_id) != TPM_RC_SUCCESS)
		rc = -EIO;
	if (rc) {
		if (errlen)
			snprintf(err, errlen, "%s/%s: %s", dir, CA_KEY_FILE,
				 rc == -EINVAL ? "not a P-256 key of 32 bytes" : strerror(-rc));
		endorse_ca_wipe(ca);
		return rc;
	}
	rc = path_of(path, sizeof(path), dir, CA_CERT_FILE);
	if (rc == 0 && stat(path, &st) != 0)
		rc = errno == ENOENT ? make_cert(dir, ca) : -errno;
	if (rc) {
		if (errlen)
			snprintf(err, errlen, "%s/%s: %s", dir, CA_CERT_FILE, strerror(-rc));
		endorse_ca_wipe(ca);
	}
	return rc;
}

void endorse_ca_wipe(struct endorse_ca *ca)
{
	crypto_wipe(ca, sizeof(*ca));
}
