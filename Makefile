# pqtpm: one GNU make entry point. Sources are found by folder, so adding a .c file needs no edit.
#   make            libpqtpm and libpqtpm-tss (static + shared) and pqtpm-server under build/
#   make run        install missing Debian packages, build, start the server on 127.0.0.1
#   make check      install, build, run every test (then once more under ASan/UBSan, TSan)
#   make bench      benchmarks: build/bench/report.md and report.png (BENCH_QUICK=1: short)
#   make fuzz       libFuzzer targets (FUZZ_SECONDS per target, default 60)
#   make fuzz-smoke each fuzz target for 10 s plus every regression input (for check)
#   make valgrind   a subset under valgrind memcheck and the constant-time check (for check)
#   make install    PREFIX=/usr/local DESTDIR=
#   WOLFSSL=sp      (default) link a static wolfCrypt with SP math and x86-64 assembly, built
#                   from Debian's wolfssl source package by scripts/build-wolfssl-sp.sh
#   WOLFSSL=system  link Debian's libwolfssl instead (objects in build-system/)

WOLFSSL ?= sp
ifeq ($(WOLFSSL),system)
BUILD ?= build-system
endif
BUILD ?= build
WOLFSSL_SP := build/wolfssl-sp
ifeq ($(WOLFSSL),sp)
WOLFSSL_CFLAGS := -I$(WOLFSSL_SP)/include
WOLFSSL_LIB := $(WOLFSSL_SP)/lib/libwolfssl.a
LIBS := $(WOLFSSL_LIB) -lpthread -lm
else
LIBS := -lwolfssl -lpthread -lm
endif
PREFIX ?= /usr/local
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
DESTDIR ?=
SAN ?=
CC ?= cc

# Hidden by default: a shared library exports what its public header declares (the headers
# of include/pqtpm/ mark their declarations visible) and its version script lists.
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -fPIC \
	-fvisibility=hidden -Iinclude -Icore -Imssim -MMD -MP $(WOLFSSL_CFLAGS)
ifeq ($(SAN),1)
# PQTPM_CHECK_STATE: the engine checks what its commands changed against what they said they
# would (core/txn.c's check_reading)
CFLAGS_OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-DPQTPM_CHECK_STATE
LDFLAGS_SAN := -fsanitize=address,undefined
else
CFLAGS_OPT := -O2 -g
LDFLAGS_SAN :=
endif
ifeq ($(WERROR),1)
CFLAGS_BASE += -Werror
endif
CFLAGS ?=
ALL_CFLAGS := $(CFLAGS_BASE) $(CFLAGS_OPT) $(CFLAGS)

CORE_SRC := $(shell find core -name '*.c' | sort)
TSS_SRC := $(sort $(wildcard tss/*.c))
# core's bottom layer (the bounded reader/writer, the crypto wrappers): libpqtpm-tss.so links
# what it uses of it from this archive, as a private copy that its version script keeps local
BOTTOM_SRC := core/marshal.c $(shell find core/crypto -name '*.c' | sort)
MSSIM_SRC := $(filter-out mssim/main.c,$(sort $(wildcard mssim/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_SUPPORT := $(filter-out tests/unit/test_%,$(sort $(wildcard tests/unit/*.c)))
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
ITEST_C := $(sort $(wildcard tests/integration/*.c))
# Code shared by a folder's programs lives in its common/ and is linked into each of them.
BENCH_SUPPORT := $(sort $(wildcard tests/bench/common/*.c))
ITEST_SUPPORT := $(sort $(wildcard tests/integration/common/*.c))

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
TSS_OBJ := $(TSS_SRC:%.c=$(BUILD)/obj/%.o)
BOTTOM_OBJ := $(BOTTOM_SRC:%.c=$(BUILD)/obj/%.o)
MSSIM_OBJ := $(MSSIM_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SUPPORT_OBJ := $(UNIT_SUPPORT:%.c=$(BUILD)/obj/%.o)
BENCH_SUPPORT_OBJ := $(BENCH_SUPPORT:%.c=$(BUILD)/obj/%.o)
ITEST_SUPPORT_OBJ := $(ITEST_SUPPORT:%.c=$(BUILD)/obj/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
ITEST_BIN := $(ITEST_C:tests/integration/%.c=$(BUILD)/tests/%)

LIB_A := $(BUILD)/lib/libpqtpm.a
LIB_SO := $(BUILD)/lib/libpqtpm.so
TSS_A := $(BUILD)/lib/libpqtpm-tss.a
TSS_SO := $(BUILD)/lib/libpqtpm-tss.so
# not installed: the server's objects (its unit tests and fuzz target link them too) and the
# bottom layer for libpqtpm-tss.so
MSSIM_A := $(BUILD)/obj/libmssim.a
BOTTOM_A := $(BUILD)/obj/libbottom.a
SERVER := $(BUILD)/bin/pqtpm-server
# Programs linked against the two shared libraries rather than the archives (symbols.sh).
SHARED_SRC := $(sort $(wildcard tests/integration/shared/*.c))
SHARED_BIN := $(SHARED_SRC:tests/integration/shared/%.c=$(BUILD)/tests/shared/%)

.PHONY: all run check deps test test-build unit integration asan-check bench conformance fuzz fuzz-smoke valgrind \
	tsan install \
	clean
all: $(LIB_A) $(LIB_SO) $(TSS_A) $(TSS_SO) $(SERVER)

$(BUILD)/obj/%.o: %.c | $(WOLFSSL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# Files named *_avx2.c hold AVX2 intrinsics (ML-DSA's NTT, Keccak four at a time): only they are
# compiled for AVX2, and their code runs only where crypto_cpu_avx2() found it (core/crypto/cpu.h).
AVX2_CFLAGS := $(if $(findstring x86_64,$(shell $(CC) -dumpmachine)),-mavx2 -mbmi -mbmi2)
$(BUILD)/obj/%_avx2.o: ALL_CFLAGS += $(AVX2_CFLAGS)

# Unit tests may test the client library's internals (tss/tss_int.h) too.
$(BUILD)/obj/tests/unit/%.o: ALL_CFLAGS += -Itss

$(LIB_A): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(TSS_A): $(TSS_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(MSSIM_A): $(MSSIM_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BOTTOM_A): $(BOTTOM_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(CORE_OBJ) core/libpqtpm.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpqtpm.so -Wl,--version-script=core/libpqtpm.map \
		$(LDFLAGS_SAN) -o $@ $(CORE_OBJ) $(LIBS)

# The in-process transport calls pqtpm_engine_* and pqtpm_client_* of libpqtpm.so.
$(TSS_SO): $(TSS_OBJ) $(BOTTOM_A) $(LIB_SO) tss/libpqtpm-tss.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpqtpm-tss.so -Wl,--version-script=tss/libpqtpm-tss.map \
		$(LDFLAGS_SAN) -o $@ $(TSS_OBJ) $(BOTTOM_A) -L$(BUILD)/lib -lpqtpm $(LIBS)

$(SERVER): $(BUILD)/obj/mssim/main.o $(MSSIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(LIBS)

# ---- attestation (attest/): libpqtpm-attest.a, the pqtpm-attest CLI (attest/cli/), and the
# unit test of the verifier; JSON through jansson, `pqtpm-attest serve` through libmicrohttpd
ATTEST_SRC := $(sort $(wildcard attest/*.c))
ATTEST_CLI_SRC := $(sort $(wildcard attest/cli/*.c))
ATTEST_A := $(BUILD)/lib/libpqtpm-attest.a
ATTEST_CLI := $(BUILD)/bin/pqtpm-attest
all: $(ATTEST_A) $(ATTEST_CLI)
$(ATTEST_A): $(ATTEST_SRC:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(ATTEST_CLI): $(ATTEST_CLI_SRC:%.c=$(BUILD)/obj/%.o) $(ATTEST_A) $(TSS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -lmicrohttpd -ljansson $(LIBS)
$(BUILD)/bench/attest_bench: $(BUILD)/obj/tests/bench/attest_bench.o $(BENCH_SUPPORT_OBJ) \
		$(ATTEST_A) $(TSS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -ljansson $(LIBS)
$(BUILD)/bench/attest_serve_bench: $(BUILD)/obj/tests/bench/attest_serve_bench.o \
		$(BENCH_SUPPORT_OBJ) $(ATTEST_A) $(TSS_A) $(LIB_A) | $(ATTEST_CLI)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -ljansson $(LIBS)
.PHONY: install-attest
install: install-attest
install-attest: $(ATTEST_A) $(ATTEST_CLI)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib
	install -m 0755 $(ATTEST_CLI) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(ATTEST_A) $(DESTDIR)$(PREFIX)/lib/
$(BUILD)/obj/tests/unit/test_serve.o: ALL_CFLAGS += -Iattest/cli
$(BUILD)/tests/test_serve: $(BUILD)/obj/tests/unit/test_serve.o $(UNIT_SUPPORT_OBJ) \
		$(filter $(BUILD)/obj/attest/cli/serve_% $(BUILD)/obj/attest/cli/cli.o, \
			$(ATTEST_CLI_SRC:%.c=$(BUILD)/obj/%.o)) $(ATTEST_A) $(TSS_A) $(MSSIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -lcunit -ljansson $(LIBS)
$(BUILD)/tests/test_verifier: $(BUILD)/obj/tests/unit/test_verifier.o $(UNIT_SUPPORT_OBJ) \
		$(ATTEST_A) $(TSS_A) $(MSSIM_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -lcunit -ljansson $(LIBS)

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(UNIT_SUPPORT_OBJ) $(TSS_A) $(MSSIM_A) \
		$(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -lcunit $(LIBS)

$(BUILD)/tests/shared/%: $(BUILD)/obj/tests/integration/shared/%.o $(TSS_SO) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $< -L$(BUILD)/lib -lpqtpm-tss -lpqtpm \
		-Wl,-rpath,$(abspath $(BUILD)/lib)

$(BUILD)/tests/%: $(BUILD)/obj/tests/integration/%.o $(ITEST_SUPPORT_OBJ) $(TSS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -ltss2-esys -ltss2-tctildr -ltss2-mu -ltss2-rc $(LIBS)

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(BENCH_SUPPORT_OBJ) $(TSS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -ltss2-esys -ltss2-tctildr -ltss2-mu -ltss2-rc $(LIBS)
# lock_share switches callgrind's collection where the engine takes and lets go of its lock
$(BUILD)/bench/lock_share: LDFLAGS_SAN += -Wl,--wrap=pthread_mutex_lock \
	-Wl,--wrap=pthread_mutex_unlock -Wl,--wrap=pqtpm_engine_execute

ifeq ($(WOLFSSL),sp)
$(WOLFSSL_LIB): scripts/build-wolfssl-sp.sh
	@scripts/build-wolfssl-sp.sh $(WOLFSSL_SP)
endif

deps:
	@scripts/install-deps.sh

run: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@mkdir -p var && chmod 0700 var
	$(SERVER) --config conf/pqtpm.conf --state-dir var/pqtpm

unit: $(UNIT_BIN)
	@tests/run-unit.sh $(BUILD)

# ITEST="name ..." runs those integration tests only.
integration: all $(ITEST_BIN) $(SHARED_BIN)
	@tests/run-integration.sh $(BUILD) $(ITEST)

test: all unit integration

# Everything the tests run, built in parallel; the tests themselves then run one at a time.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test-build: all $(UNIT_BIN) $(ITEST_BIN) $(SHARED_BIN)

# The whole suite once as built (SP wolfCrypt) and once under ASan/UBSan (with LSan) in
# build-asan/; against Debian's libwolfssl, every unit test (each crypto path) and the
# integration tests of SYSTEM_ITEST (each kind of key, session, algorithm and client, the
# exported symbols, the stress test: the rest runs the same crypto calls again); the
# concurrency tests under ThreadSanitizer (make tsan), a subset under valgrind with the
# constant-time check, then a short run of every fuzz target with its regression inputs.
SYSTEM_ITEST ?= tpm2tools_basic tpm2tools_keys tpm2tools_algs tpm2tools_sym tpm2tools_sessions \
	tpm2tools_dup tpm2tools_attest fapi_tools esys_basic esys_sessions tss_conformance pq_mssim \
	pq_crosscheck pkcs11_tools_mssim pkcs11_sym pkcs11_tls attest_cli stress symbols hardening_load
check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) WERROR=1 test-build
	@$(MAKE) --no-print-directory WERROR=1 test
	@$(MAKE) --no-print-directory -j$(JOBS) WERROR=1 WOLFSSL=system BUILD=build-system test-build
	@$(MAKE) --no-print-directory WERROR=1 WOLFSSL=system BUILD=build-system \
		ITEST="$(SYSTEM_ITEST)" test
	@$(MAKE) --no-print-directory -j$(JOBS) WERROR=1 BUILD=build-asan SAN=1 test-build
	@$(MAKE) --no-print-directory WERROR=1 BUILD=build-asan SAN=1 test
	@$(MAKE) --no-print-directory WERROR=1 tsan
	@$(MAKE) --no-print-directory WERROR=1 valgrind
	@$(MAKE) --no-print-directory fuzz-smoke

# Both flavours (SP in $(BUILD), Debian's libwolfssl in BENCH_SYSTEM_BUILD), then the run
# against both and swtpm; it writes $(BUILD)/bench/report.md and report.png (BENCH_QUICK=1: ~1 min).
BENCH_SYSTEM_BUILD ?= $(if $(filter build,$(BUILD)),build-system,$(BUILD)-sys)
bench:
	@[ "$(WOLFSSL)" = sp ] || { echo "make bench builds both flavours itself: no WOLFSSL=" >&2; exit 1; }
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory -j$(JOBS) all $(BENCH_BIN)
	@$(MAKE) --no-print-directory -j$(JOBS) WOLFSSL=system BUILD=$(BENCH_SYSTEM_BUILD) all \
		$(BENCH_SRC:tests/bench/%.c=$(BENCH_SYSTEM_BUILD)/bench/%)
	@tests/bench/run.sh $(BUILD) $(BENCH_SYSTEM_BUILD)

# make conformance (outside make check, several minutes): tpm2-tools 5.4's own integration suite
# from shared/peer-suites behind tpm2-abrmd, a fresh server per test, against pqtpm-server and
# swtpm; the table and each failing test go to $(BUILD)/conformance/report.md.
conformance: deps
	@scripts/install-deps.sh conformance
	@$(MAKE) --no-print-directory all
	@tests/conformance/run.sh $(BUILD)

# The constant-time check: the ML-DSA / ML-KEM sources and the comparisons again, with
# -DPQTPM_CT_CHECK (declassification points for memcheck, core/crypto/ct.h), at -O2 as shipped,
# the AVX2 files with their flag.
CT_ALL := tests/ct/ct_check.c core/crypto/util.c core/crypto/cpu.c $(wildcard core/crypto/keccak*.c) \
	$(sort $(wildcard core/crypto/mldsa/*.c core/crypto/mlkem/*.c))
CT_AVX2 := $(filter %_avx2.c,$(CT_ALL))
CT_SRC := $(filter-out %_avx2.c,$(CT_ALL))
CT_CFLAGS = $(filter-out -MMD -MP -fPIC,$(CFLAGS_BASE)) -O2 -g -DPQTPM_CT_CHECK
$(BUILD)/ct/ct_check: $(CT_ALL) $(LIB_A)
	@mkdir -p $(dir $@)
	$(foreach f,$(CT_AVX2),$(CC) $(CT_CFLAGS) $(AVX2_CFLAGS) -c $(f) -o $(BUILD)/ct/$(notdir $(f:.c=.o)) &&) true
	$(CC) $(CT_CFLAGS) -o $@ $(CT_SRC) $(addprefix $(BUILD)/ct/,$(notdir $(CT_AVX2:.c=.o))) \
		$(LIB_A) $(LIBS)

VALGRIND_UNIT ?= marshal session object context state mlkem wipe
valgrind: deps all $(VALGRIND_UNIT:%=$(BUILD)/tests/test_%) $(BUILD)/ct/ct_check
	@VALGRIND_UNIT="$(VALGRIND_UNIT)" tests/run-valgrind.sh $(BUILD)

# make tsan: the engine's, the client library's and the PKCS#11 module's concurrency tests
# built with ThreadSanitizer in $(TSAN_BUILD) (the module the PKCS#11 test loads too) and run,
# then the stress test (its clients over MSSIM to a pqtpm-server built with it too, then in
# process) and the head-of-line test; any report fails them (TSan's exit status, a report in the
# server's log). docs/engine-concurrency.md, docs/pkcs11.md.
TSAN_BUILD ?= build-tsan
TSAN_UNIT ?= concurrency tss_threads pkcs11_threads
TSAN_ITEST ?= stress concurrent_clients
tsan:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(TSAN_BUILD) CFLAGS_OPT="-O1 -g -fsanitize=thread" \
		LDFLAGS_SAN=-fsanitize=thread $(TSAN_UNIT:%=$(TSAN_BUILD)/tests/test_%) \
		$(TSAN_BUILD)/bin/pqtpm-server $(TSAN_ITEST:%=$(TSAN_BUILD)/tests/%)
	@for t in $(TSAN_UNIT); do $(TSAN_BUILD)/tests/test_$$t || exit 1; done
	@tests/run-integration.sh $(TSAN_BUILD) $(TSAN_ITEST)

fuzz: deps
	@MAKE="$(MAKE)" tests/fuzz/run.sh run $${FUZZ_SECONDS:-60}

fuzz-smoke: deps
	@MAKE="$(MAKE)" tests/fuzz/run.sh smoke

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/pqtpm \
		$(DESTDIR)$(SYSCONFDIR)/pqtpm
	install -m 0755 $(SERVER) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(LIB_A) $(TSS_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(LIB_SO) $(TSS_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 include/pqtpm/*.h $(DESTDIR)$(PREFIX)/include/pqtpm/
	install -m 0644 conf/pqtpm.conf $(DESTDIR)$(SYSCONFDIR)/pqtpm/

# ---- the PKCS#11 module (pkcs11/): libpqtpm-pkcs11.so, self-contained (the client library,
# the engine and wolfCrypt linked in and kept local by its version script), loaded by
# applications through p11-kit or by path; its test programs dlopen it. Never unloaded
# (-z nodelete): the engine's per-thread state (its DRBGs) outlives a dlclose.
P11_SRC := $(sort $(wildcard pkcs11/*.c))
P11_OBJ := $(P11_SRC:%.c=$(BUILD)/obj/%.o)
P11_SO := $(BUILD)/lib/libpqtpm-pkcs11.so
P11_CFLAGS := $(shell pkg-config --cflags p11-kit-1 2>/dev/null || echo -I/usr/include/p11-kit-1)
P11_MODULE_PATH := $(shell pkg-config --variable p11_module_path p11-kit-1 2>/dev/null)
P11_MODULE_CONFIGS := $(shell pkg-config --variable p11_module_configs p11-kit-1 2>/dev/null)
$(BUILD)/obj/pkcs11/%.o: ALL_CFLAGS += $(P11_CFLAGS)
$(BUILD)/obj/tests/unit/test_pkcs%.o $(BUILD)/obj/tests/unit/p11_token.o: ALL_CFLAGS += $(P11_CFLAGS) -Ipkcs11
all: $(P11_SO)
$(P11_SO): $(P11_OBJ) $(TSS_A) $(LIB_A) pkcs11/libpqtpm-pkcs11.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpqtpm-pkcs11.so -Wl,--version-script=pkcs11/libpqtpm-pkcs11.map \
		-Wl,-z,defs -Wl,-z,nodelete $(LDFLAGS_SAN) -o $@ $(P11_OBJ) $(TSS_A) $(LIB_A) -lsqlite3 $(LIBS)
# The module's unit tests load it with dlopen, as applications do (so it is built first, not
# linked in).
P11_TESTS := $(filter $(BUILD)/tests/test_pkcs11%,$(UNIT_BIN))
$(P11_TESTS): | $(P11_SO)
$(P11_TESTS): LIBS += -ldl
# test_pkcs11_store damages the store's database with SQLite's own hands
$(BUILD)/tests/test_pkcs11_store: LIBS += -lsqlite3
# not installed: the module's objects for its fuzz target (tests/fuzz/fuzz_pkcs11.c)
P11_A := $(BUILD)/obj/libp11.a
$(P11_A): $(P11_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
# The PKCS#11 benchmark loads the module (and SoftHSMv2) with dlopen, as applications do.
$(BUILD)/obj/tests/bench/p11_bench.o: ALL_CFLAGS += $(P11_CFLAGS) -Ipkcs11
$(BUILD)/bench/p11_bench: LIBS += -ldl
$(BUILD)/bench/p11_bench: | $(P11_SO)
install: install-pkcs11
install-pkcs11: $(P11_SO)
	install -d $(DESTDIR)$(or $(P11_MODULE_PATH),$(PREFIX)/lib/pkcs11) \
		$(DESTDIR)$(or $(P11_MODULE_CONFIGS),$(PREFIX)/share/p11-kit/modules) \
		$(DESTDIR)$(SYSCONFDIR)/pqtpm
	install -m 0755 $(P11_SO) $(DESTDIR)$(or $(P11_MODULE_PATH),$(PREFIX)/lib/pkcs11)/
	sed 's|@MODULE@|$(or $(P11_MODULE_PATH),$(PREFIX)/lib/pkcs11)/libpqtpm-pkcs11.so|' \
		conf/pqtpm.module >$(DESTDIR)$(or $(P11_MODULE_CONFIGS),$(PREFIX)/share/p11-kit/modules)/pqtpm.module
	install -m 0644 conf/pqtpm-pkcs11.conf $(DESTDIR)$(SYSCONFDIR)/pqtpm/
.PHONY: install-pkcs11

clean:
	rm -rf build build-system build-asan build-tsan build-fuzz

# Objects made on the way to a program stay (make would delete them as intermediates).
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
