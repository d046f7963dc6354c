# workloads: one image per directory, build/workloads/NAME.elf, each linked
# with the image script, the runtime (header, entry, syscalls), libboard.a
# and newlib, then sealed (name, build-id, checksums) by alphaprof-seal.

WORKLOADS   := copy chase branches matmul qsort compress parallel hello trap libcheck sprawl
WL_OUT      := $(BUILD)/workloads
RUNTIME_SRCS := $(wildcard workloads/runtime/*.c)
RUNTIME_OBJS := $(patsubst workloads/%.c,$(WL_OUT)/%.o,$(RUNTIME_SRCS))
IMAGE_LDS   := $(WL_OUT)/image.ld
SEAL        := $(BUILD)/host/alphaprof-seal

$(WL_OUT)/%.o: workloads/%.c
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -MMD -MP -c $< -o $@

$(IMAGE_LDS): linker/image.ld.S linker/ram-map.h
	@mkdir -p $(dir $@)
	$(TARGET_CC) -E -P -x c -I. $< -o $@

# workload_image(NAME): link and seal build/workloads/NAME.elf.
define workload_image
$(WL_OUT)/$(1).elf: $(patsubst workloads/%.c,$(WL_OUT)/%.o,$(wildcard workloads/$(1)/*.c)) \
                    $(RUNTIME_OBJS) $(LIBBOARD) $(IMAGE_LDS) $(SEAL)
	$(TARGET_CC) $(TARGET_LDFLAGS) -T $(IMAGE_LDS) -Wl,--build-id=sha1 -o $$@.tmp \
	    $$(filter %.o,$$^) $(LIBBOARD) $(TARGET_LIBS) $(LIBBOARD)
	$(SEAL) --name $(1) $$@.tmp
	mv $$@.tmp $$@
endef
$(foreach w,$(WORKLOADS),$(eval $(call workload_image,$(w))))

ALL_OUTPUTS += $(addprefix $(WL_OUT)/,$(addsuffix .elf,$(WORKLOADS)))

-include $(wildcard $(WL_OUT)/*/*.d)
