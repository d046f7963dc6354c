# tests: host unit tests (cmocka), each built twice: plain and with
# ASan+UBSan.  tests/run.py runs both and the end-to-end tests.

UNIT_TEST_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_TEST_NAMES := $(patsubst tests/unit/%.c,%,$(UNIT_TEST_SRCS))
UNIT_TEST_BINS  := $(addprefix $(BUILD)/tests/unit/,$(UNIT_TEST_NAMES)) \
                   $(addprefix $(BUILD)/tests/unit-asan/,$(UNIT_TEST_NAMES))
UNIT_TEST_CFLAGS = $(HOST_TOOLS_CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null)
UNIT_TEST_LIBS   = $(HOST_TOOLS_LIBS) $(or $(shell pkg-config --libs cmocka 2>/dev/null),-lcmocka)

$(BUILD)/tests/unit/%: tests/unit/%.c $(HOST_UTIL_LIB)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(UNIT_TEST_CFLAGS) -o $@ $< $(HOST_UTIL_LIB) $(UNIT_TEST_LIBS)

$(BUILD)/tests/unit-asan/%: tests/unit/%.c $(HOST_UTIL_LIB_ASAN)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(UNIT_TEST_CFLAGS) $(HOST_SANITIZE) -o $@ $< $(HOST_UTIL_LIB_ASAN) $(UNIT_TEST_LIBS)

TEST_OUTPUTS += $(UNIT_TEST_BINS)

-include $(wildcard $(BUILD)/tests/unit/*.d $(BUILD)/tests/unit-asan/*.d)
