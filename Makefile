# alphaprof: top-level build.  `make run` and `make test` do everything on a
# fresh Debian machine: set-up (packages, newlib), build, then run or test.
#
# Each part has its own fragment (firmware/build.mk, ...) included below; the
# fragments add their outputs to ALL_OUTPUTS.  Set-up runs first in its own
# make invocation so that the fragments may rely on installed packages.

BUILD       := build
NEWLIB      := $(BUILD)/newlib/alpha-unknown-elf
TARGET      := alpha-linux-gnu
TARGET_CC   := $(TARGET)-gcc
TARGET_LD   := $(TARGET)-ld
TARGET_OBJCOPY := $(TARGET)-objcopy
TARGET_GCC_INC := $(shell $(TARGET_CC) -print-file-name=include 2>/dev/null)
TARGET_LIBGCC  := $(shell $(TARGET_CC) -print-libgcc-file-name 2>/dev/null)

# Flags for everything that runs on the board (monitor and workload images).
# The checkout's path is mapped out of the images (__FILE__, DWARF), so an
# image's bytes, its build-id and so a deterministic run's samples are the
# same wherever the tree is cloned (the build-id travels to the board).
TARGET_PATH_MAP := -ffile-prefix-map=$(CURDIR)=.
TARGET_CFLAGS := -std=gnu11 -O2 -g -mcpu=ev67 -mlong-double-64 \
    -nostdinc -isystem $(NEWLIB)/include -idirafter $(TARGET_GCC_INC) \
    -fno-pic -fno-stack-protector -fno-asynchronous-unwind-tables \
    -fno-unwind-tables -ffunction-sections -fdata-sections \
    -Wall -Wextra -Werror -I. $(TARGET_PATH_MAP)
TARGET_ASFLAGS := -mcpu=ev67 -I. -D__ASSEMBLER__ $(TARGET_PATH_MAP)
# One RWX segment is intended: bare metal, no loader to honour permissions.
TARGET_LDFLAGS := -nostdlib -static -Wl,--gc-sections -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments
TARGET_LIBS    := -L$(NEWLIB)/lib -lm -lc $(TARGET_LIBGCC)

# Flags for host C code; the -asan variants are built for the test run.
HOST_CC     := gcc
HOST_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I. -MMD -MP
HOST_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: all run test bench setup clean fresh-check
.DEFAULT_GOAL := all

# `make setup X ...` in one call: the fragments below ask the cross compiler
# for its paths when make reads them, before setup has installed it, so every
# other goal is handed to a second make that starts after setup.
define SETUP_RECIPE
	@sh setup/install-packages.sh
	@sh setup/newlib/build.sh $(BUILD)/newlib
endef
GOALS_AFTER_SETUP := $(filter-out setup,$(MAKECMDGOALS))
ifneq ($(and $(filter setup,$(MAKECMDGOALS)),$(GOALS_AFTER_SETUP)),)
setup:
	$(SETUP_RECIPE)
$(GOALS_AFTER_SETUP): setup
	@$(MAKE) --no-print-directory $@
else

# Goals that build for the board need set-up; without it the compiler errors
# would point anywhere but at the cause, so say what to run instead.  run,
# test and bench set up themselves.
ifneq ($(filter-out setup run test bench clean fresh-check,$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(NEWLIB)/lib/libc.a),)
$(error alphaprof is not set up: run `make setup` first (or `make run` / `make test`, which set up))
endif
endif

# The default workload that `make run` profiles, and its cores.
RUN_IMAGE ?= $(BUILD)/workloads/parallel.elf
RUN_CORES ?= 4

setup:
	$(SETUP_RECIPE)

# The run samples the hardware model's cycle, D-cache-miss and mispredict
# counters, keeps the model's truth and checks the profile against it.
RUN_EVENTS ?= cycles:6000-6400,dmiss:1000-1100,branchmp:1000-1100

run: setup
	@$(MAKE) --no-print-directory all
	@rm -f $(BUILD)/run.db $(BUILD)/run.oracle
	$(BUILD)/host/alphaprof record --deterministic --cores $(RUN_CORES) --events $(RUN_EVENTS) \
	    --oracle $(BUILD)/run.oracle --db $(BUILD)/run.db $(RUN_IMAGE)
	$(BUILD)/host/alphaprof report --db $(BUILD)/run.db
	$(BUILD)/host/alphaprof check --db $(BUILD)/run.db --oracle $(BUILD)/run.oracle

test: setup
	@$(MAKE) --no-print-directory all tests-build
	@python3 tests/run.py --build $(BUILD)

bench: setup
	@$(MAKE) --no-print-directory all
	@python3 tests/bench.py --build $(BUILD)

# A clean minimal bookworm chroot runs the README's commands on a clone of
# HEAD (commit first); see setup/fresh-check.sh.  Needs root or sudo.
fresh-check:
	@sh setup/fresh-check.sh $(FRESH_GOALS)

clean:
	rm -rf $(BUILD)/firmware $(BUILD)/workloads $(BUILD)/host $(BUILD)/host-asan \
	       $(BUILD)/hw-model $(BUILD)/tests

ALL_OUTPUTS :=
TEST_OUTPUTS :=
-include firmware/build.mk
-include workloads/build.mk
-include host-tools/build.mk
-include hw-model/build.mk
-include tests/build.mk

.PHONY: tests-build
all: $(ALL_OUTPUTS)
tests-build: $(TEST_OUTPUTS)

endif
