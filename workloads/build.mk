# workloads: one image per directory of workloads/ (all but runtime/),
# build/workloads/NAME.elf, each linked with the image script, the runtime
# (header, entry, syscalls), libboard.a and newlib, then sealed (name,
# build-id, checksums) by alphaprof-seal.
#
# A directory may carry its own settings in workloads/NAME/workload.mk (a
# benchmark brought from elsewhere keeps its sources as they are); every
# variable is optional and paths are relative to the workload's directory:
#
#   WORKLOAD_SRCDIRS  := . core port        directories whose *.c and *.S are built (default .)
#   WORKLOAD_SRCS     := a.c port/b.c       exactly these files instead
#   WORKLOAD_INCLUDES := include port       -I directories
#   WORKLOAD_CFLAGS   := -DITERATIONS=10 -O3   appended to the target flags (so they win)
#   WORKLOAD_LDFLAGS  := -Wl,--defsym=x=1   link flags
#
# Every image again with other compiler flags, beside the usual ones (the
# runtime too; WL_OUT is where they go), e.g. as bench_instrument_flags
# builds them:
#
#   make WL_OUT=build/workloads-O0 WORKLOAD_EXTRA_CFLAGS=-O0 build/workloads-O0/drystone.elf
#
# Images of workloads whose directory is gone are removed from build/.

WL_OUT       ?= $(BUILD)/workloads
WORKLOADS    := $(sort $(filter-out runtime,$(patsubst workloads/%/,%,$(wildcard workloads/*/))))
RUNTIME_SRCS := $(wildcard workloads/runtime/*.c)
RUNTIME_OBJS := $(patsubst workloads/%.c,$(WL_OUT)/%.o,$(RUNTIME_SRCS))
IMAGE_LDS    := $(WL_OUT)/image.ld
SEAL         := $(BUILD)/host/alphaprof-seal
WL_SETTINGS  := WORKLOAD_SRCDIRS WORKLOAD_SRCS WORKLOAD_INCLUDES WORKLOAD_CFLAGS WORKLOAD_LDFLAGS

$(WL_OUT)/%.o: workloads/%.c
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_CFLAGS) -Iworkloads/runtime/include $(WL_FLAGS) $(WORKLOAD_EXTRA_CFLAGS) -MMD -MP -c $< -o $@

$(WL_OUT)/%.o: workloads/%.S
	@mkdir -p $(dir $@)
	$(TARGET_CC) $(TARGET_ASFLAGS) $(WL_FLAGS) -MMD -MP -c $< -o $@

$(IMAGE_LDS): linker/image.ld.S linker/ram-map.h
	@mkdir -p $(dir $@)
	$(TARGET_CC) -E -P -x c -I. $< -o $@

# wl_dir(NAME, DIR): workloads/NAME/DIR without a trailing "/."
wl_dir = $(patsubst %/.,%,workloads/$(1)/$(2))

# workload_settings(NAME): reads workloads/NAME/workload.mk (if any) into
# WL_SRCS_NAME, WL_FLAGS_NAME and WL_LDFLAGS_NAME.
define workload_settings
$(foreach v,$(WL_SETTINGS),$(eval $(v) :=))
-include workloads/$(1)/workload.mk
$$(foreach d,$$(WORKLOAD_SRCDIRS) $$(WORKLOAD_INCLUDES),$$(if $$(wildcard $$(call wl_dir,$(1),$$(d))/.),,\
    $$(error workloads/$(1)/workload.mk: directory $$(d) is not in workloads/$(1)/)))
WL_SRCS_$(1) := $$(if $$(strip $$(WORKLOAD_SRCS)),$$(addprefix workloads/$(1)/,$$(WORKLOAD_SRCS)),\
    $$(foreach d,$$(or $$(WORKLOAD_SRCDIRS),.),$$(wildcard $$(call wl_dir,$(1),$$(d))/*.c $$(call wl_dir,$(1),$$(d))/*.S)))
WL_FLAGS_$(1) := $$(addprefix -I,$$(foreach d,$$(WORKLOAD_INCLUDES),$$(call wl_dir,$(1),$$(d)))) $$(WORKLOAD_CFLAGS)
WL_LDFLAGS_$(1) := $$(WORKLOAD_LDFLAGS)
endef

# workload_image(NAME): compile with its settings, link and seal
# build/workloads/NAME.elf.
define workload_image
$(eval $(call workload_settings,$(1)))
$(if $(strip $(WL_SRCS_$(1))),,$(error workloads/$(1)/ has no sources (*.c, *.S, or WORKLOAD_SRCS in its workload.mk)))
WL_OBJS_$(1) := $(patsubst workloads/%,$(WL_OUT)/%.o,$(basename $(WL_SRCS_$(1))))
$(WL_OUT)/$(1)/%.o: private WL_FLAGS := $(WL_FLAGS_$(1))
$$(WL_OBJS_$(1)): $(wildcard workloads/$(1)/workload.mk)
$(WL_OUT)/$(1).elf: $$(WL_OBJS_$(1)) $(RUNTIME_OBJS) $(LIBBOARD) $(IMAGE_LDS) $(SEAL) $(wildcard workloads/$(1)/workload.mk)
	$(TARGET_CC) $(TARGET_LDFLAGS) $(WL_LDFLAGS_$(1)) -T $(IMAGE_LDS) -Wl,--build-id=sha1 -o $$@.tmp \
	    $$(filter %.o,$$^) $(LIBBOARD) $(TARGET_LIBS) $(LIBBOARD)
	$(SEAL) --name $(1) $$@.tmp
	mv $$@.tmp $$@
endef
$(foreach w,$(WORKLOADS),$(eval $(call workload_image,$(w))))

# Images (and objects) of workloads that no longer exist.
WL_STALE := $(filter-out $(addprefix $(WL_OUT)/,$(addsuffix .elf,$(WORKLOADS))),$(wildcard $(WL_OUT)/*.elf))
.PHONY: workloads-prune
workloads-prune:
	$(if $(WL_STALE),rm -rf $(WL_STALE) $(WL_STALE:.elf=))

ALL_OUTPUTS += workloads-prune $(addprefix $(WL_OUT)/,$(addsuffix .elf,$(WORKLOADS)))

-include $(foreach w,$(WORKLOADS),$(WL_OBJS_$(w):.o=.d)) $(RUNTIME_OBJS:.o=.d)
