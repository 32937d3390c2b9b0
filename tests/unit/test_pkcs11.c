/* The PKCS#11 module through its function list, loaded with dlopen as applications load it:
 * the exported entry points and interfaces, C_Initialize's rules (arguments, twice, silent, no
 * file before C_InitToken, an unreachable TPM failing later), tokens and slots, PINs (SO and
 * user, C_SetPIN, the TPM's dictionary-attack lockout in the PIN flags), sessions, the store's
 * files and what survives C_Finalize. */
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-XXXXXX";
static char dir[PATH_MAX];
static void *lib;
static CK_FUNCTION_LIST *f;
static int counter;

#define SO_PIN "so-secret"
#define USER_PIN "1234"

/* A fresh state directory (not created: the module must not make it before C_InitToken). */
static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	setenv("PQTPM_STATE_DIR", dir, 1);
	unsetenv("PQTPM_PKCS11_CONF");
}

static void teardown(void)
{
	if (f)
		f->C_Finalize(NULL);
	harness_rm_tree(dir);
}

static CK_RV init(void)
{
	return f->C_Initialize(NULL);
}

static void label32(CK_UTF8CHAR out[32], const char *s)
{
	memset(out, ' ', 32);
	memcpy(out, s, strlen(s));
}

/* Initialize a token on the empty slot: its slot id. */
static CK_SLOT_ID make_token(const char *label)
{
	CK_SLOT_ID slots[8];
	CK_ULONG n = 8;
	CK_UTF8CHAR lbl[32];

	CU_ASSERT_EQUAL_FATAL(f->C_GetSlotList(CK_FALSE, slots, &n), CKR_OK);
	CU_ASSERT_FATAL(n >= 1);
	label32(lbl, label);
	CU_ASSERT_EQUAL_FATAL(f->C_InitToken(slots[n - 1], (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN),
					     lbl),
			      CKR_OK);
	return slots[n - 1];
}

/* A token with a user PIN, and a R/W session on it. */
static CK_SESSION_HANDLE user_token(CK_SLOT_ID *slot)
{
	CK_SESSION_HANDLE s;

	*slot = make_token("user");
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(*slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &s),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN)),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_InitPIN(s, (CK_UTF8CHAR *)USER_PIN, strlen(USER_PIN)), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Logout(s), CKR_OK);
	return s;
}

static void test_exports(void)
{
	CK_RV (*get_list)(CK_FUNCTION_LIST_PTR_PTR) =
		(CK_RV(*)(CK_FUNCTION_LIST_PTR_PTR))dlsym(lib, "C_GetFunctionList");
	CK_RV (*get_ifaces)(CK_INTERFACE_PTR, CK_ULONG_PTR) =
		(CK_RV(*)(CK_INTERFACE_PTR, CK_ULONG_PTR))dlsym(lib, "C_GetInterfaceList");
	CK_RV (*get_iface)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR, CK_FLAGS) =
		(CK_RV(*)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR, CK_FLAGS))dlsym(
			lib, "C_GetInterface");
	CK_INTERFACE ifaces[4], *iface = NULL;
	CK_VERSION v30 = { 3, 0 }, v99 = { 9, 9 };
	CK_FUNCTION_LIST_3_0 *l3;
	CK_ULONG n = 0;
	void **p;
	size_t i, nfn;

	CU_ASSERT_PTR_NOT_NULL_FATAL(get_list);
	CU_ASSERT_PTR_NOT_NULL_FATAL(get_ifaces);
	CU_ASSERT_PTR_NOT_NULL_FATAL(get_iface);
	CU_ASSERT_PTR_NULL(dlsym(lib, "C_Initialize")); /* only through the lists */
	CU_ASSERT_PTR_NULL(dlsym(lib, "pqtpm_tss_open_tcti"));
	CU_ASSERT_EQUAL(get_list(NULL), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->version.major, 2);
	CU_ASSERT_EQUAL(f->version.minor, 40);
	CU_ASSERT_EQUAL(get_ifaces(NULL, &n), CKR_OK);
	CU_ASSERT_EQUAL(n, 3); /* 3.2, 3.0, 2.40 (test_pkcs11_kem checks the 3.2 list) */
	n = 1;
	CU_ASSERT_EQUAL(get_ifaces(ifaces, &n), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(n, 3);
	n = 4;
	CU_ASSERT_EQUAL(get_ifaces(ifaces, &n), CKR_OK);
	CU_ASSERT_STRING_EQUAL((char *)ifaces[0].pInterfaceName, "PKCS 11");
	CU_ASSERT_EQUAL(get_iface((CK_UTF8CHAR *)"PKCS 11", &v30, &iface, 0), CKR_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(iface);
	l3 = iface->pFunctionList;
	CU_ASSERT_EQUAL(l3->version.major, 3);
	CU_ASSERT_EQUAL(get_iface((CK_UTF8CHAR *)"PKCS 11", &v99, &iface, 0), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(get_iface((CK_UTF8CHAR *)"other", NULL, &iface, 0), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(get_iface(NULL, NULL, &iface, 0), CKR_OK);
	/* every entry of the 3.0 list is a function */
	p = (void **)&l3->C_Initialize;
	nfn = (sizeof(*l3) - offsetof(CK_FUNCTION_LIST_3_0, C_Initialize)) / sizeof(void *);
	CU_ASSERT_EQUAL(nfn, 68 + 24);
	for (i = 0; i < nfn; i++)
		CU_ASSERT_PTR_NOT_NULL(p[i]);
	CU_ASSERT_PTR_EQUAL(l3->C_Login, f->C_Login);
	CU_ASSERT_EQUAL(l3->C_LoginUser(12345, CKU_USER, NULL, 0, NULL, 0),
			CKR_CRYPTOKI_NOT_INITIALIZED);
}

static void test_initialize(void)
{
	CK_RV (*get_ifaces)(CK_INTERFACE_PTR, CK_ULONG_PTR) =
		(CK_RV(*)(CK_INTERFACE_PTR, CK_ULONG_PTR))dlsym(lib, "C_GetInterfaceList");
	CK_INTERFACE ifaces[4];
	CK_ULONG nif = 4, i;
	CK_FUNCTION_LIST *l;
	CK_C_INITIALIZE_ARGS args;
	CK_SLOT_ID slots[4];
	CK_ULONG n = 4;
	CK_INFO info;
	struct stat st;

	CU_ASSERT_EQUAL(f->C_GetInfo(&info), CKR_CRYPTOKI_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_CRYPTOKI_NOT_INITIALIZED);
	memset(&args, 0, sizeof(args));
	args.pReserved = &args;
	CU_ASSERT_EQUAL(f->C_Initialize(&args), CKR_ARGUMENTS_BAD);
	memset(&args, 0, sizeof(args));
	args.flags = CKF_OS_LOCKING_OK;
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(&args), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Initialize(NULL), CKR_CRYPTOKI_ALREADY_INITIALIZED);
	/* each list tells its own version: 2.40 through C_GetFunctionList */
	CU_ASSERT_EQUAL_FATAL(get_ifaces(ifaces, &nif), CKR_OK);
	for (i = 0; i < nif; i++) {
		l = ifaces[i].pFunctionList;
		CU_ASSERT_EQUAL(l->C_GetInfo(&info), CKR_OK);
		CU_ASSERT_EQUAL(info.cryptokiVersion.major, l->version.major);
		CU_ASSERT_EQUAL(info.cryptokiVersion.minor, l->version.minor);
	}
	CU_ASSERT_EQUAL(f->C_GetInfo(&info), CKR_OK);
	CU_ASSERT(info.cryptokiVersion.major == 2 && info.cryptokiVersion.minor == 40);
	CU_ASSERT_EQUAL(f->C_GetInfo(NULL), CKR_ARGUMENTS_BAD);
	/* one empty slot; nothing on disk yet */
	CU_ASSERT_EQUAL(f->C_GetSlotList(CK_TRUE, slots, &n), CKR_OK);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_NOT_EQUAL(stat(dir, &st), 0);
	CU_ASSERT_EQUAL(f->C_Finalize(&args), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_NOT_EQUAL(stat(dir, &st), 0);
}

static void test_unreachable(void)
{
	char conf[PATH_MAX + 8];
	CK_SLOT_ID slots[4];
	CK_ULONG n = 4;
	CK_UTF8CHAR lbl[32];
	FILE *c;

	/* port 1 on loopback: nobody listens */
	snprintf(conf, sizeof(conf), "%s.conf", dir);
	c = fopen(conf, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	fprintf(c, "# no TPM there\ntpm = mssim:host=127.0.0.1,port=1\nstore = %s\n", dir);
	fclose(c);
	setenv("PQTPM_PKCS11_CONF", conf, 1);
	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSlotList(CK_TRUE, slots, &n), CKR_OK);
	CU_ASSERT_EQUAL(n, 1);
	label32(lbl, "x");
	CU_ASSERT_EQUAL(f->C_InitToken(slots[0], (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN), lbl),
			CKR_DEVICE_ERROR);
	f->C_Finalize(NULL);
	/* a file that does not parse fails C_Initialize */
	c = fopen(conf, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	fprintf(c, "tpm embedded\n");
	fclose(c);
	CU_ASSERT_EQUAL(init(), CKR_GENERAL_ERROR);
	unlink(conf);
}

static void test_tokens(void)
{
	CK_SLOT_ID slots[4], tok;
	CK_ULONG n = 4;
	CK_TOKEN_INFO ti;
	CK_UTF8CHAR lbl[32];
	CK_SESSION_HANDLE s;
	char path[PATH_MAX + 16];
	struct stat st;

	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSlotList(CK_FALSE, NULL, &n), CKR_OK);
	CU_ASSERT_EQUAL(n, 1);
	n = 4;
	CU_ASSERT_EQUAL(f->C_GetSlotList(CK_FALSE, slots, &n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slots[0], &ti), CKR_OK);
	CU_ASSERT_FALSE(ti.flags & CKF_TOKEN_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_OpenSession(slots[0], CKF_SERIAL_SESSION, NULL, NULL, &s),
			CKR_TOKEN_NOT_RECOGNIZED);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slots[0] + 100, &ti), CKR_SLOT_ID_INVALID);
	label32(lbl, "first");
	CU_ASSERT_EQUAL(f->C_InitToken(slots[0], (CK_UTF8CHAR *)"abc", 3, lbl), CKR_PIN_LEN_RANGE);
	tok = make_token("first");
	/* the token stays in its slot; a new empty slot appears */
	n = 4;
	CU_ASSERT_EQUAL(f->C_GetSlotList(CK_FALSE, slots, &n), CKR_OK);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(slots[0], tok);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(tok, &ti), CKR_OK);
	CU_ASSERT(ti.flags & CKF_TOKEN_INITIALIZED);
	CU_ASSERT_FALSE(ti.flags & CKF_USER_PIN_INITIALIZED);
	CU_ASSERT_EQUAL(memcmp(ti.label, lbl, 32), 0);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slots[1], &ti), CKR_OK);
	CU_ASSERT_FALSE(ti.flags & CKF_TOKEN_INITIALIZED);
	/* the store: a 0600 database in a 0700 directory */
	CU_ASSERT_EQUAL(stat(dir, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/pkcs11.db", dir);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	/* a second token, then both survive C_Finalize */
	make_token("second");
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	n = 4;
	CU_ASSERT_EQUAL(f->C_GetSlotList(CK_TRUE, slots, &n), CKR_OK);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slots[1], &ti), CKR_OK);
	label32(lbl, "second");
	CU_ASSERT_EQUAL(memcmp(ti.label, lbl, 32), 0);
	/* initializing again takes the SO PIN and no open session */
	CU_ASSERT_EQUAL(f->C_OpenSession(tok, CKF_SERIAL_SESSION, NULL, NULL, &s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_InitToken(tok, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN), lbl),
			CKR_SESSION_EXISTS);
	CU_ASSERT_EQUAL(f->C_CloseSession(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_InitToken(tok, (CK_UTF8CHAR *)"wrong-so", 8, lbl), CKR_PIN_INCORRECT);
	CU_ASSERT_EQUAL(f->C_InitToken(tok, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN), lbl), CKR_OK);
}

static void test_sessions_login(void)
{
	CK_SESSION_HANDLE s, ro;
	CK_SESSION_INFO si;
	CK_SLOT_ID slot;

	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	slot = make_token("login");
	CU_ASSERT_EQUAL(f->C_OpenSession(slot, 0, NULL, NULL, &s),
			CKR_SESSION_PARALLEL_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, NULL),
			CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &s),
			      CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(ro, &si), CKR_OK);
	CU_ASSERT_EQUAL(si.state, CKS_RO_PUBLIC_SESSION);
	CU_ASSERT_EQUAL(si.slotID, slot);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(s, &si), CKR_OK);
	CU_ASSERT_EQUAL(si.state, CKS_RW_PUBLIC_SESSION);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(s + 1000, &si), CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4),
			CKR_USER_PIN_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_Login(s, 7, (CK_UTF8CHAR *)USER_PIN, 4), CKR_USER_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN)),
			CKR_SESSION_READ_ONLY_EXISTS);
	CU_ASSERT_EQUAL(f->C_InitPIN(s, (CK_UTF8CHAR *)USER_PIN, 4), CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_CloseSession(ro), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CloseSession(ro), CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN)), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN)),
			CKR_USER_ALREADY_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4),
			CKR_USER_ANOTHER_ALREADY_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro),
			CKR_SESSION_READ_WRITE_SO_EXISTS);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(s, &si), CKR_OK);
	CU_ASSERT_EQUAL(si.state, CKS_RW_SO_FUNCTIONS);
	CU_ASSERT_EQUAL(f->C_InitPIN(s, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(s, &si), CKR_OK);
	CU_ASSERT_EQUAL(si.state, CKS_RW_USER_FUNCTIONS);
	/* closing the last session logs out */
	CU_ASSERT_EQUAL(f->C_CloseAllSessions(slot), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(s, &si), CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(ro, &si), CKR_OK);
	CU_ASSERT_EQUAL(si.state, CKS_RO_PUBLIC_SESSION);
	CU_ASSERT_EQUAL(f->C_Login(ro, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(ro, &si), CKR_OK);
	CU_ASSERT_EQUAL(si.state, CKS_RO_USER_FUNCTIONS);
	CU_ASSERT_EQUAL(f->C_SetPIN(ro, (CK_UTF8CHAR *)USER_PIN, 4, (CK_UTF8CHAR *)"5678", 4),
			CKR_SESSION_READ_ONLY);
}

static void test_set_pin(void)
{
	CK_SESSION_HANDLE s;
	CK_SLOT_ID slot;

	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	s = user_token(&slot);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SetPIN(s, (CK_UTF8CHAR *)USER_PIN, 4, (CK_UTF8CHAR *)"ab", 2),
			CKR_PIN_LEN_RANGE);
	CU_ASSERT_EQUAL(f->C_SetPIN(s, (CK_UTF8CHAR *)USER_PIN, 4, (CK_UTF8CHAR *)"new-pin", 7),
			CKR_OK);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	/* the new PIN survives C_Finalize, the old one is gone */
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &s),
			      CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"new-pin", 7), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN)), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SetPIN(s, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN),
				    (CK_UTF8CHAR *)"so-new", 6),
			CKR_OK);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_SO, (CK_UTF8CHAR *)"so-new", 6), CKR_OK);
}

/* Wrong PINs: the TPM counts them (a fresh TPM allows 3 tries), the flags say so, and in
 * lockout even the right PIN is refused. */
static void test_lockout(void)
{
	CK_SESSION_HANDLE s;
	CK_TOKEN_INFO ti;
	CK_SLOT_ID slot;

	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	s = user_token(&slot);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slot, &ti), CKR_OK);
	CU_ASSERT_FALSE(ti.flags & (CKF_USER_PIN_COUNT_LOW | CKF_USER_PIN_FINAL_TRY |
				    CKF_USER_PIN_LOCKED));
	CU_ASSERT(ti.flags & CKF_USER_PIN_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"0000", 4), CKR_PIN_INCORRECT);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slot, &ti), CKR_OK);
	CU_ASSERT(ti.flags & CKF_USER_PIN_COUNT_LOW);
	CU_ASSERT_FALSE(ti.flags & (CKF_USER_PIN_FINAL_TRY | CKF_USER_PIN_LOCKED));
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"0001", 4), CKR_PIN_INCORRECT);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slot, &ti), CKR_OK);
	CU_ASSERT(ti.flags & CKF_USER_PIN_FINAL_TRY);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"0002", 4), CKR_PIN_INCORRECT);
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slot, &ti), CKR_OK);
	CU_ASSERT(ti.flags & CKF_USER_PIN_LOCKED);
	CU_ASSERT_FALSE(ti.flags & CKF_USER_PIN_FINAL_TRY);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_PIN_LOCKED);
	/* a PIN of a form no token has is refused without a try */
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"ab", 2), CKR_PIN_INCORRECT);
}

static void test_random(void)
{
	uint8_t a[100], b[100];
	CK_SESSION_HANDLE s;
	CK_SLOT_ID slot;

	CU_ASSERT_EQUAL_FATAL(init(), CKR_OK);
	slot = make_token("rng");
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &s), CKR_OK);
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CU_ASSERT_EQUAL(f->C_GenerateRandom(s, a, sizeof(a)), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GenerateRandom(s, b, sizeof(b)), CKR_OK);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_EQUAL(f->C_GenerateRandom(s, NULL, 4), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_GenerateRandom(s + 99, a, 4), CKR_SESSION_HANDLE_INVALID);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "exported entry points and interfaces", test_exports },
		{ "C_Initialize and C_Finalize, nothing on disk", test_initialize },
		{ "an unreachable TPM fails the token, not C_Initialize", test_unreachable },
		{ "tokens and slots, the store's files", test_tokens },
		{ "sessions, C_Login / C_Logout / C_InitPIN", test_sessions_login },
		{ "C_SetPIN of the user and the SO", test_set_pin },
		{ "wrong PINs: the TPM's lockout in the PIN flags", test_lockout },
		{ "C_GenerateRandom", test_random },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, &f) != 0)
		return 1;
	failed = UNIT_RUN("pkcs11", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
