# host-tools: the alphaprof command and the image sealing tool (host C).
#   build/host/alphaprof, build/host/alphaprof-seal      (make all)
#   build/host/libalphaprof-util.a                       (util/, for unit tests)
#   build/host-asan/libalphaprof-util.a                  (ASan+UBSan, make tests-build)

HOST_TOOLS_PKGS    := libelf libdw zlib sqlite3 libpq
HOST_TOOLS_CFLAGS  := $(HOST_CFLAGS) -Ihost-tools $(shell pkg-config --cflags $(HOST_TOOLS_PKGS) 2>/dev/null)
HOST_TOOLS_LIBS    := $(or $(shell pkg-config --libs $(HOST_TOOLS_PKGS) 2>/dev/null),-ldw -lelf -lz -lsqlite3 -lpq) -lm

HOST_UTIL_SRCS     := $(wildcard host-tools/util/*.c)
HOST_BUILTIN_SRCS  := $(wildcard host-tools/builtin-*.c)
host_objs           = $(patsubst host-tools/%.c,$(1)/%.o,$(2))

# Sources shared with the other sides, compiled once more for the host from
# their one file by an explicit rule (never #included as .c): the link codec
# and the grammars the monitor also builds (firmware/abi/, freestanding), and
# the Alpha decoder the hardware model also builds, and the model's
# parameters and issue rules (calc's scheduler, value sampling's
# load-latency bins).
HOST_SHARED_SRCS   := firmware/abi/link-codec.c firmware/abi/boot-line.c firmware/abi/event-spec.c \
                      firmware/abi/value-capture.c hw-model/isa/alpha-decode.c \
                      hw-model/model/issue-rules.c
shared_objs         = $(patsubst %.c,$(1)/shared/%.o,$(HOST_SHARED_SRCS))

HOST_UTIL_LIB      := $(BUILD)/host/libalphaprof-util.a
HOST_UTIL_LIB_ASAN := $(BUILD)/host-asan/libalphaprof-util.a

$(BUILD)/host/%.o: host-tools/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) -c $< -o $@

$(BUILD)/host-asan/%.o: host-tools/%.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) $(HOST_SANITIZE) -c $< -o $@

$(BUILD)/host/shared/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) -c $< -o $@

$(BUILD)/host-asan/shared/%.o: %.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) $(HOST_SANITIZE) -c $< -o $@

# The report's stylesheet and script are assembled into html-assets.o (.incbin).
$(BUILD)/host/util/html-assets.o $(BUILD)/host-asan/util/html-assets.o: host-tools/html/report.css host-tools/html/report.js

$(HOST_UTIL_LIB): $(call host_objs,$(BUILD)/host,$(HOST_UTIL_SRCS)) $(call shared_objs,$(BUILD)/host)
	@rm -f $@
	ar rcs $@ $^

$(HOST_UTIL_LIB_ASAN): $(call host_objs,$(BUILD)/host-asan,$(HOST_UTIL_SRCS)) $(call shared_objs,$(BUILD)/host-asan)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/host/alphaprof: $(call host_objs,$(BUILD)/host,host-tools/alphaprof.c $(HOST_BUILTIN_SRCS)) $(HOST_UTIL_LIB)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) -o $@ $^ $(HOST_TOOLS_LIBS)

$(BUILD)/host/alphaprof-seal: $(BUILD)/host/seal.o $(HOST_UTIL_LIB)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) -o $@ $^ $(HOST_TOOLS_LIBS)

$(BUILD)/host-asan/alphaprof: $(call host_objs,$(BUILD)/host-asan,host-tools/alphaprof.c $(HOST_BUILTIN_SRCS)) $(HOST_UTIL_LIB_ASAN)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) $(HOST_SANITIZE) -o $@ $^ $(HOST_TOOLS_LIBS)

$(BUILD)/host-asan/alphaprof-seal: $(BUILD)/host-asan/seal.o $(HOST_UTIL_LIB_ASAN)
	$(HOST_CC) $(HOST_TOOLS_CFLAGS) $(HOST_SANITIZE) -o $@ $^ $(HOST_TOOLS_LIBS)

ALL_OUTPUTS  += $(BUILD)/host/alphaprof $(BUILD)/host/alphaprof-seal
TEST_OUTPUTS += $(HOST_UTIL_LIB_ASAN) $(BUILD)/host-asan/alphaprof $(BUILD)/host-asan/alphaprof-seal

-include $(wildcard $(BUILD)/host/*.d $(BUILD)/host/util/*.d $(BUILD)/host-asan/*.d $(BUILD)/host-asan/util/*.d \
                    $(BUILD)/host/shared/*/*/*.d $(BUILD)/host-asan/shared/*/*/*.d)
