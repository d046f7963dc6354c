# firmware: the resident monitor (build/firmware/monitor-$(BOARD).elf) and
# libboard.a, the board support every workload image links too (integer
# division helpers, setjmp/longjmp).
#
# The board is a build parameter, as in Zephyr: `make BOARD=NAME` builds the
# monitor for boards/NAME/ (default clipper).  The firmware includes the
# board's device addresses as "board.h" through the include path
# (-Iboards/$(BOARD)), never by path, and the monitor is named after the
# board.  A board directory with a board.h is a firmware board; one with
# only a board.conf (clipper-pm) is the host's variant of another board's
# monitor (its board.conf names that monitor's ELF).  BOARD_ROOT (default
# boards) lets a board live outside the tree, as Zephyr's does.

BOARD       ?= clipper
BOARD_ROOT  ?= boards
BOARD_DIR   := $(BOARD_ROOT)/$(BOARD)
ifeq ($(wildcard $(BOARD_DIR)/board.h),)
$(error BOARD=$(BOARD): no $(BOARD_DIR)/board.h; firmware boards: $(patsubst $(BOARD_ROOT)/%/board.h,%,$(wildcard $(BOARD_ROOT)/*/board.h)))
endif
ifeq ($(shell grep -c '^\#define BOARD_NAME *"$(BOARD)"' $(BOARD_DIR)/board.h),0)
$(error $(BOARD_DIR)/board.h must define BOARD_NAME "$(BOARD)": the monitor is named after its board)
endif

FW_OUT      := $(BUILD)/firmware
FW_OBJ      := $(FW_OUT)/$(BOARD)
FW_C_SRCS   := $(wildcard firmware/boot/*.c firmware/drivers/*.c firmware/kernel/*.c \
                          firmware/profiler/*.c firmware/abi/*.c)
FW_S_SRCS   := firmware/boot/start.S firmware/arch/trap-entry.S
BOARD_S_SRCS := $(wildcard firmware/lib/*.S)

FW_OBJS     := $(patsubst firmware/%.c,$(FW_OBJ)/%.o,$(FW_C_SRCS)) \
               $(patsubst firmware/%.S,$(FW_OBJ)/%.o,$(FW_S_SRCS)) \
               $(FW_OBJ)/isa/alpha-decode.o
BOARD_OBJS  := $(patsubst firmware/%.S,$(FW_OUT)/%.o,$(BOARD_S_SRCS))
LIBBOARD    := $(FW_OUT)/libboard.a
FW_ELF      := $(FW_OUT)/monitor-$(BOARD).elf
FW_LDS      := $(FW_OUT)/firmware.ld
FW_CFLAGS    = $(TARGET_CFLAGS) -I$(BOARD_DIR)

$(FW_OBJ)/%.o: firmware/%.c
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(FW_CFLAGS) -MMD -MP -c $< -o $@

# The sampling path runs with only the integer registers saved.
$(FW_OBJ)/profiler/%.o: TARGET_CFLAGS += -mno-fp-regs

# The one instruction table's decoder, for the value-sampling interpreter
# (in the sampling path too).
$(FW_OBJ)/isa/alpha-decode.o: hw-model/isa/alpha-decode.c
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(FW_CFLAGS) -mno-fp-regs -MMD -MP -c $< -o $@

$(FW_OBJ)/%.o: firmware/%.S
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_ASFLAGS) -I$(BOARD_DIR) -MMD -MP -c $< -o $@

# libboard.a holds no device addresses: one for every board.
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

-include $(wildcard $(FW_OBJ)/*/*.d $(FW_OUT)/lib/*.d)
