# hw-model: the QEMU plugin (build/hw-model/alphaprof-core.so) and the
# timing model as a host library for its unit tests.

HW_OUT        := $(BUILD)/hw-model
HW_MODEL_SRCS := $(wildcard hw-model/model/*.c) hw-model/isa/alpha-decode.c
HW_PLUGIN_SRCS := $(wildcard hw-model/plugin/*.c)
HW_PLUGIN     := $(HW_OUT)/alphaprof-core.so
# No auto-vectorisation: per instruction, the plugin reads back fields the
# model has just stored one by one; vector loads over them miss store
# forwarding and stall (perf: finish() from 31% to 23% of the run).
# -O3 and link-time optimisation (the model's step, the predictor and the
# plugin's finish() inline across files): qsort's full model 3.6-3.9 ->
# 3.2-3.5 s user, A/B alternating; integer code, the same results.
# (-fno-tree-vectorize still pays at -O3: 3.32-3.37 s against 3.50-3.56.)
HW_PLUGIN_CFLAGS := $(HOST_CFLAGS) -fPIC -fvisibility=hidden -fno-tree-vectorize -flto=auto -O3

$(HW_OUT)/pic/%.o: hw-model/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HW_PLUGIN_CFLAGS) -c $< -o $@

$(HW_PLUGIN): $(patsubst hw-model/%.c,$(HW_OUT)/pic/%.o,$(HW_MODEL_SRCS) $(HW_PLUGIN_SRCS))
	$(HOST_CC) $(HW_PLUGIN_CFLAGS) -shared -o $@.tmp $^ -lm
	@# a rename, not a rewrite in place: a running QEMU keeps its mapping
	mv -f $@.tmp $@

ALL_OUTPUTS += $(HW_PLUGIN)

-include $(wildcard $(HW_OUT)/pic/*/*.d)

# The model as a host library for its unit tests (plain and ASan+UBSan).
HW_LIB      := $(HW_OUT)/libhwmodel.a
HW_LIB_ASAN := $(HW_OUT)/libhwmodel-asan.a
HW_TEST_SRCS := $(wildcard tests/unit/test_hw_*.c)

$(HW_OUT)/obj/%.o: hw-model/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(HW_OUT)/asan/%.o: hw-model/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(HOST_SANITIZE) -c $< -o $@

# The plugin's guest-interface pieces that need no QEMU, for their tests.
HW_LIB_SRCS := $(HW_MODEL_SRCS) hw-model/plugin/counter-unit.c hw-model/plugin/irq-delivery.c \
               hw-model/plugin/pc-table.c hw-model/plugin/path-oracle.c hw-model/plugin/bl-oracle.c \
               hw-model/plugin/truth-file.c

$(HW_LIB): $(patsubst hw-model/%.c,$(HW_OUT)/obj/%.o,$(HW_LIB_SRCS))
	@rm -f $@
	ar rcs $@ $^

$(HW_LIB_ASAN): $(patsubst hw-model/%.c,$(HW_OUT)/asan/%.o,$(HW_LIB_SRCS))
	@rm -f $@
	ar rcs $@ $^

# These tests link the model library, not the host-tools one.
$(BUILD)/tests/unit/test_hw_%: tests/unit/test_hw_%.c $(HW_LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $< $(HW_LIB) $(or $(shell pkg-config --libs cmocka 2>/dev/null),-lcmocka) -lm

$(BUILD)/tests/unit-asan/test_hw_%: tests/unit/test_hw_%.c $(HW_LIB_ASAN)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(HOST_SANITIZE) -o $@ $< $(HW_LIB_ASAN) $(or $(shell pkg-config --libs cmocka 2>/dev/null),-lcmocka) -lm

TEST_OUTPUTS += $(HW_LIB) $(HW_LIB_ASAN)

-include $(wildcard $(HW_OUT)/obj/*/*.d $(HW_OUT)/asan/*/*.d)
