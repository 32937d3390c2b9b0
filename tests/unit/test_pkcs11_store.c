/* The PKCS#11 module's token store when its files are damaged (the module through its function
 * list, loaded with dlopen): a file that is no database, a database truncated at a page
 * boundary and inside a page, garbage in its header, a damaged page, the WAL of an unrelated
 * database, the WAL of another token store. Each is refused with CKR_DEVICE_ERROR (at
 * C_GetSlotList, or at the token's C_FindObjectsInit when only the objects' pages are
 * damaged) and a log line at the configured level, never emptied: the database and its WAL
 * are left byte for byte as the damage left them, and with the damage undone every object is
 * there. (tests/integration/pkcs11_store_crash.sh kills writers at spread moments instead.) */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-store-XXXXXX";
static char dir[PATH_MAX];
static char db_path[PATH_MAX + 32], wal_path[PATH_MAX + 32], shm_path[PATH_MAX + 32];
static char conf_path[PATH_MAX + 32], log_path[PATH_MAX + 32], other_path[PATH_MAX + 32];
static CK_FUNCTION_LIST *f;
static void *lib;
static int counter;
/* the store as the module left it, before any damage */
static uint8_t *pristine;
static size_t pristine_len;

#define SO_PIN "so-secret"
#define USER_PIN "1234"
#define OBJECTS 12
#define PAGE 4096

/* The whole file (NULL, 0 if it does not exist). */
static uint8_t *slurp(const char *path, size_t *len)
{
	uint8_t *b = NULL;
	long n;
	FILE *fp = fopen(path, "rb");

	*len = 0;
	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
		b = malloc((size_t)n + 1);
		if (b && fread(b, 1, (size_t)n, fp) == (size_t)n)
			*len = (size_t)n;
	}
	fclose(fp);
	return b;
}

static void spit(const char *path, const uint8_t *b, size_t n)
{
	FILE *fp = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	CU_ASSERT_EQUAL(fwrite(b, 1, n, fp), n);
	fclose(fp);
}

static void copy_file(const char *from, const char *to)
{
	size_t n;
	uint8_t *b = slurp(from, &n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	spit(to, b, n);
	free(b);
}

static void sql(sqlite3 *db, const char *q)
{
	char *err = NULL;

	if (sqlite3_exec(db, q, NULL, NULL, &err) != SQLITE_OK)
		fprintf(stderr, "%s: %s\n", q, err ? err : "?");
	CU_ASSERT_PTR_NULL(err);
	sqlite3_free(err);
}

static CK_SLOT_ID the_token(void)
{
	CK_SLOT_ID slots[8];
	CK_ULONG n = 8, i;
	CK_TOKEN_INFO ti;

	CU_ASSERT_EQUAL_FATAL(f->C_GetSlotList(CK_TRUE, slots, &n), CKR_OK);
	for (i = 0; i < n; i++)
		if (f->C_GetTokenInfo(slots[i], &ti) == CKR_OK &&
		    (ti.flags & CKF_TOKEN_INITIALIZED))
			return slots[i];
	CU_FAIL_FATAL("no token");
	return 0;
}

/* The public objects the token has, as a new process of the module finds them. */
static CK_ULONG count_objects(void)
{
	CK_OBJECT_HANDLE h[OBJECTS + 8];
	CK_SESSION_HANDLE s;
	CK_ULONG n = 0;

	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(NULL), CKR_OK);
	CU_ASSERT_EQUAL(f->C_OpenSession(the_token(), CKF_SERIAL_SESSION, NULL, NULL, &s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsInit(s, NULL, 0), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjects(s, h, OBJECTS + 8, &n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsFinal(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	return n;
}

/* A token with OBJECTS public data objects (a store of several pages); the module finalized,
 * so the store is closed (its WAL checkpointed and gone), and read into pristine. Then the
 * module is told by a configuration file of ours to log errors. */
static void setup(void)
{
	static CK_OBJECT_CLASS data = CKO_DATA;
	static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
	uint8_t value[1000];
	char label[16];
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &data, sizeof(data) }, { CKA_TOKEN, &yes, sizeof(yes) },
		{ CKA_PRIVATE, &no, sizeof(no) },   { CKA_LABEL, label, 0 },
		{ CKA_VALUE, value, sizeof(value) },
	};
	CK_OBJECT_HANDLE h;
	CK_SESSION_HANDLE s;
	CK_SLOT_ID slot;
	FILE *fp;
	int i;

	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	snprintf(db_path, sizeof(db_path), "%s/pkcs11.db", dir);
	snprintf(wal_path, sizeof(wal_path), "%s/pkcs11.db-wal", dir);
	snprintf(shm_path, sizeof(shm_path), "%s/pkcs11.db-shm", dir);
	snprintf(conf_path, sizeof(conf_path), "%s.conf", dir);
	snprintf(log_path, sizeof(log_path), "%s.log", dir);
	snprintf(other_path, sizeof(other_path), "%s/other.db", dir);
	setenv("PQTPM_STATE_DIR", dir, 1);
	unsetenv("PQTPM_PKCS11_CONF");
	p11_token_user_session(f, "store", SO_PIN, USER_PIN, &slot, &s);
	memset(value, 0xA5, sizeof(value));
	for (i = 0; i < OBJECTS; i++) {
		t[3].ulValueLen = (CK_ULONG)snprintf(label, sizeof(label), "object %d", i);
		CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, t, 5, &h), CKR_OK);
	}
	CU_ASSERT_EQUAL_FATAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL(access(wal_path, F_OK), -1);
	pristine = slurp(db_path, &pristine_len);
	CU_ASSERT_FATAL(pristine && pristine_len >= 4 * PAGE && pristine_len % PAGE == 0);
	fp = fopen(conf_path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fprintf(fp, "tpm = embedded:%s\nstore = %s\nlog_level = error\n", dir, dir);
	fclose(fp);
	setenv("PQTPM_PKCS11_CONF", conf_path, 1);
}

static void teardown(void)
{
	f->C_Finalize(NULL);
	free(pristine);
	pristine = NULL;
	harness_rm_tree(dir);
	unlink(conf_path);
	unlink(log_path);
}

/* The module on the damaged store: CKR_DEVICE_ERROR at C_GetSlotList (at_open) or at the
 * token's C_FindObjectsInit, a log line, the database and its WAL as they were; undone, the
 * damage leaves every object there. */
static void refused(bool at_open)
{
	size_t db_len, wal_len, db2_len, wal2_len, log_len;
	uint8_t *db = slurp(db_path, &db_len), *wal = slurp(wal_path, &wal_len), *db2, *wal2;
	CK_SLOT_ID slots[8];
	CK_ULONG n = 8;
	CK_SESSION_HANDLE s;
	char *log;
	int saved, fd;

	/* the module's log goes to stderr: to a file, for the time of the calls */
	fflush(stderr);
	saved = dup(2);
	fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	CU_ASSERT_EQUAL(f->C_Initialize(NULL), CKR_OK);
	if (at_open) {
		CU_ASSERT_EQUAL(f->C_GetSlotList(CK_FALSE, slots, &n), CKR_DEVICE_ERROR);
		CU_ASSERT_EQUAL(f->C_GetSlotList(CK_FALSE, NULL, &n), CKR_DEVICE_ERROR);
	} else {
		CU_ASSERT_EQUAL(f->C_OpenSession(the_token(), CKF_SERIAL_SESSION, NULL, NULL, &s),
				CKR_OK);
		CU_ASSERT_EQUAL(f->C_FindObjectsInit(s, NULL, 0), CKR_DEVICE_ERROR);
	}
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	log = (char *)slurp(log_path, &log_len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	log[log_len] = '\0';
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "pqtpm-pkcs11: token store"));
	if (!strstr(log, "pqtpm-pkcs11: token store"))
		fprintf(stderr, "log: %s\n", log);
	free(log);

	db2 = slurp(db_path, &db2_len);
	wal2 = slurp(wal_path, &wal2_len);
	CU_ASSERT(db2_len == db_len && !memcmp(db, db2, db_len));
	/* a WAL given stays as it is (none given: SQLite's empty one may be left) */
	if (wal) {
		CU_ASSERT(wal2_len == wal_len && !memcmp(wal, wal2, wal_len));
	} else {
		CU_ASSERT_EQUAL(wal2_len, 0);
	}
	free(db);
	free(wal);
	free(db2);
	free(wal2);

	unlink(wal_path);
	unlink(shm_path);
	spit(db_path, pristine, pristine_len);
	CU_ASSERT_EQUAL(count_objects(), OBJECTS);
}

static void test_undamaged(void)
{
	CU_ASSERT_EQUAL(count_objects(), OBJECTS);
	CU_ASSERT_EQUAL(count_objects(), OBJECTS);
}

static void test_not_a_database(void)
{
	uint8_t junk[PAGE];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 131 + 7);
	spit(db_path, junk, sizeof(junk));
	refused(true);
}

static void test_truncated_at_page(void)
{
	spit(db_path, pristine, 2 * PAGE);
	refused(true);
}

static void test_truncated_in_page(void)
{
	spit(db_path, pristine, 2 * PAGE + 1000);
	refused(true);
}

static void test_header_garbage(void)
{
	uint8_t *b = malloc(pristine_len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	memcpy(b, pristine, pristine_len);
	memcpy(b, "no SQLite here!", 16);
	spit(db_path, b, pristine_len);
	free(b);
	refused(true);
}

/* The attributes table's root page: the token is listed, its objects cannot be read. */
static void test_damaged_page(void)
{
	uint8_t *b = malloc(pristine_len);
	sqlite3 *db;
	sqlite3_stmt *st;
	long page = 0;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	copy_file(db_path, other_path);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(other_path, &db, SQLITE_OPEN_READONLY, NULL),
			      SQLITE_OK);
	CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE "
						     "name = 'attributes'",
						 -1, &st, NULL),
			      SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		page = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	CU_ASSERT_FATAL(page > 1 && (size_t)page * PAGE <= pristine_len);
	memcpy(b, pristine, pristine_len);
	for (i = 0; i < PAGE; i++)
		b[(size_t)(page - 1) * PAGE + i] = (uint8_t)(i * 7 + 3);
	spit(db_path, b, pristine_len);
	free(b);
	refused(false);
}

/* A database in WAL mode changed by q, its WAL copied (before SQLite's close checkpoints it)
 * next to the store's database. */
static void foreign_wal(const char *q)
{
	char other_wal[PATH_MAX + 40];
	sqlite3 *db;

	snprintf(other_wal, sizeof(other_wal), "%s-wal", other_path);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(other_path, &db), SQLITE_OK);
	sql(db, "PRAGMA journal_mode=WAL;");
	sql(db, q);
	copy_file(other_wal, wal_path);
	sqlite3_close(db);
	unlink(other_path);
}

static void test_wal_of_another_database(void)
{
	foreign_wal("CREATE TABLE t (x); INSERT INTO t VALUES (zeroblob(5000));");
	refused(true);
}

/* Another token store (a copy of this one with its own id, its objects deleted): seen through
 * its WAL, the store would be empty. */
static void test_wal_of_another_store(void)
{
	copy_file(db_path, other_path);
	foreign_wal("PRAGMA user_version = 12345; DELETE FROM attributes; DELETE FROM objects;");
	refused(true);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "an undamaged store reopens with every object", test_undamaged },
		{ "a file that is no database", test_not_a_database },
		{ "truncated at a page boundary", test_truncated_at_page },
		{ "truncated inside a page", test_truncated_in_page },
		{ "garbage in the header", test_header_garbage },
		{ "a damaged page (the attributes' root)", test_damaged_page },
		{ "the WAL of an unrelated database", test_wal_of_another_database },
		{ "the WAL of another token store", test_wal_of_another_store },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, &f) != 0)
		return 1;
	failed = UNIT_RUN("pkcs11 store", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
