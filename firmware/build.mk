# firmware: the resident monitor (build/firmware/monitor-clipper.elf) and
# libboard.a, the board support every workload image links too (integer
# division helpers, setjmp/longjmp).

FW_OUT      := $(BUILD)/firmware
FW_C_SRCS   := $(wildcard firmware/boot/*.c firmware/drivers/*.c firmware/kernel/*.c \
                          firmware/profiler/*.c firmware/abi/*.c)
FW_S_SRCS   := firmware/boot/start.S firmware/arch/trap-entry.S
BOARD_S_SRCS := $(wildcard firmware/lib/*.S)

FW_OBJS     := $(patsubst firmware/%.c,$(FW_OUT)/%.o,$(FW_C_SRCS)) \
               $(patsubst firmware/%.S,$(FW_OUT)/%.o,$(FW_S_SRCS))
BOARD_OBJS  := $(patsubst firmware/%.S,$(FW_OUT)/%.o,$(BOARD_S_SRCS))
LIBBOARD    := $(FW_OUT)/libboard.a
FW_ELF      := $(FW_OUT)/monitor-clipper.elf
FW_LDS      := $(FW_OUT)/firmware.ld

$(FW_OUT)/%.o: firmware/%.c
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -MMD -MP -c $< -o $@

# The sampling path runs with only the integer registers saved.
$(FW_OUT)/profiler/%.o: TARGET_CFLAGS += -mno-fp-regs

$(FW_OUT)/%.o: firmware/%.S
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_ASFLAGS) -MMD -MP -c $< -o $@

$(LIBBOARD): $(BOARD_OBJS)
	@rm -f $@
	$(TARGET)-ar rcs $@ $^

$(FW_LDS): linker/firmware.ld.S linker/ram-map.h
	@mkdir -p $(dir $@)
	$(TARGET_CC) -E -P -x c -I. $< -o $@

$(FW_ELF): $(FW_OBJS) $(LIBBOARD) $(FW_LDS)
	$(TARGET_CC) $(TARGET_LDFLAGS) -T $(FW_LDS) -Wl,--build-id=sha1 -o $@ \
	    $(FW_OBJS) $(LIBBOARD) $(TARGET_LIBS) $(LIBBOARD)

ALL_OUTPUTS += $(FW_ELF) $(LIBBOARD)

-include $(wildcard $(FW_OUT)/*/*.d)
