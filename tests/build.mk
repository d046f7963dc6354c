# tests: host unit tests (cmocka), each built twice: plain and with
# ASan+UBSan.  tests/run.py runs both and the end-to-end tests.

UNIT_TEST_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_TEST_NAMES := $(patsubst tests/unit/%.c,%,$(UNIT_TEST_SRCS))
UNIT_TEST_BINS  := $(addprefix $(BUILD)/tests/unit/,$(UNIT_TEST_NAMES)) \
                   $(addprefix $(BUILD)/tests/unit-asan/,$(UNIT_TEST_NAMES))
UNIT_TEST_CFLAGS = $(HOST_TOOLS_CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null)
UNIT_TEST_LIBS   = $(HOST_TOOLS_LIBS) $(or $(shell pkg-config --libs cmocka 2>/dev/null),-lcmocka)

# Host unit tests of pure firmware code: each also compiles the firmware
# sources it tests (extra prerequisites below, picked up by the recipes).
FW_UNIT_TESTS := test_sample_table test_control_machine test_value_interp test_value_hotlist test_link_resend
$(foreach v,unit unit-asan,$(BUILD)/tests/$(v)/test_link_resend): firmware/profiler/link-resend.c
$(foreach v,unit unit-asan,$(BUILD)/tests/$(v)/test_value_hotlist): firmware/profiler/value-hotlist.c
$(foreach v,unit unit-asan,$(BUILD)/tests/$(v)/test_value_interp): firmware/profiler/value-interp.c
$(foreach v,unit unit-asan,$(BUILD)/tests/$(v)/test_sample_table): firmware/profiler/sample-table.c
$(foreach v,unit unit-asan,$(BUILD)/tests/$(v)/test_control_machine): \
    firmware/profiler/control-machine.c firmware/profiler/profiler-config.c

$(BUILD)/tests/unit/%: tests/unit/%.c $(HOST_UTIL_LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(UNIT_TEST_CFLAGS) -o $@ $< $(filter firmware/%.c,$^) $(HOST_UTIL_LIB) $(UNIT_TEST_LIBS)

$(BUILD)/tests/unit-asan/%: tests/unit/%.c $(HOST_UTIL_LIB_ASAN)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(UNIT_TEST_CFLAGS) $(HOST_SANITIZE) -o $@ $< $(filter firmware/%.c,$^) $(HOST_UTIL_LIB_ASAN) $(UNIT_TEST_LIBS)

TEST_OUTPUTS += $(UNIT_TEST_BINS)

# Data the unit tests open: an Alpha object with no function symbols; two
# small functions whose CFGs test_path_recon walks; a linked switch with a
# jump table (flags as the board's images: non-PIC).
UNIT_TEST_DATA := $(BUILD)/tests/data/no-functions.o $(BUILD)/tests/data/path-cfgs.o \
                  $(BUILD)/tests/data/switch-table.elf
$(BUILD)/tests/data/%.o: tests/unit/data/%.S
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_ASFLAGS) -c $< -o $@
$(BUILD)/tests/data/switch-table.elf: tests/unit/data/switch-table.c
	@mkdir -p $(dir $@)
	$(TARGET_CC) -std=gnu11 -O2 -mcpu=ev67 -fno-pic -Wall -Wextra -Werror $(TARGET_LDFLAGS) -Wl,-e,classify $< -o $@
TEST_OUTPUTS += $(UNIT_TEST_DATA)

-include $(wildcard $(BUILD)/tests/unit/*.d $(BUILD)/tests/unit-asan/*.d)

# libFuzzer targets (clang): each tests/fuzz/fuzz_*.c with the shared firmware/abi sources.
# tests/run.py runs them briefly; see the top of tests/fuzz/fuzz_link_decoder.c.
FUZZ_CC    := clang
FUZZ_FLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -I. \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

FUZZ_ABI_SRCS := firmware/abi/link-codec.c firmware/abi/boot-line.c firmware/abi/event-spec.c \
                 firmware/abi/value-capture.c
$(BUILD)/tests/fuzz/%: tests/fuzz/%.c $(FUZZ_ABI_SRCS) $(wildcard firmware/abi/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_ABI_SRCS)

# The link codec must build for the board as it does for the host.
LINK_CODEC_TARGET_OBJ := $(BUILD)/tests/target/link-codec.o
$(LINK_CODEC_TARGET_OBJ): firmware/abi/link-codec.c firmware/abi/link-codec.h firmware/abi/link-protocol.h
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -ffreestanding -c $< -o $@

# So must the boot-line and event-list grammars, freestanding.
GRAMMAR_TARGET_OBJS := $(BUILD)/tests/target/boot-line.o $(BUILD)/tests/target/event-spec.o \
                       $(BUILD)/tests/target/value-capture.o
$(GRAMMAR_TARGET_OBJS): $(BUILD)/tests/target/%.o: firmware/abi/%.c
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -ffreestanding -MMD -MP -c $< -o $@

TEST_OUTPUTS += $(FUZZ_BINS) $(LINK_CODEC_TARGET_OBJ) $(GRAMMAR_TARGET_OBJS)

# Host ingest benchmark (make bench: tests/bench/bench_ingest.py).
INGEST_BENCH := $(BUILD)/tests/bench/ingest-bench
$(INGEST_BENCH): tests/bench/ingest-bench.c $(HOST_UTIL_LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(UNIT_TEST_CFLAGS) -o $@ $< $(HOST_UTIL_LIB) $(HOST_TOOLS_LIBS)
ALL_OUTPUTS += $(INGEST_BENCH)

# The plugin-API yardstick of the hardware-model speed bench.
TB_CALLBACK_FLOOR := $(BUILD)/tests/bench/tb-callback-floor.so
$(TB_CALLBACK_FLOOR): tests/bench/tb-callback-floor.c hw-model/plugin/qemu-plugin-api.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -fPIC -fvisibility=hidden -shared -o $@ $<
ALL_OUTPUTS += $(TB_CALLBACK_FLOOR)

# The independent per-PC instruction counter (tests/plugins/insn-count.c):
# a QEMU plugin sharing no code with hw-model/, checked against the oracle.
INSN_COUNT_PLUGIN := $(BUILD)/tests/plugins/insn-count.so
$(INSN_COUNT_PLUGIN): tests/plugins/insn-count.c hw-model/plugin/qemu-plugin-api.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -fPIC -shared -o $@ $<

TEST_OUTPUTS += $(INSN_COUNT_PLUGIN)
