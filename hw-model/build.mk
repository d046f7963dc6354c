# hw-model: the QEMU plugin (build/hw-model/alphaprof-core.so) and the
# timing model as a host library for its unit tests.

HW_OUT        := $(BUILD)/hw-model
HW_MODEL_SRCS := $(wildcard hw-model/model/*.c) hw-model/isa/alpha-decode.c
HW_PLUGIN_SRCS := $(wildcard hw-model/plugin/*.c)
HW_PLUGIN     := $(HW_OUT)/alphaprof-core.so
HW_PLUGIN_CFLAGS := $(HOST_CFLAGS) -fPIC -fvisibility=hidden

$(HW_OUT)/pic/%.o: hw-model/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HW_PLUGIN_CFLAGS) -c $< -o $@

$(HW_PLUGIN): $(patsubst hw-model/%.c,$(HW_OUT)/pic/%.o,$(HW_MODEL_SRCS) $(HW_PLUGIN_SRCS))
	$(HOST_CC) -shared -o $@ $^

ALL_OUTPUTS += $(HW_PLUGIN)

-include $(wildcard $(HW_OUT)/pic/*/*.d)
