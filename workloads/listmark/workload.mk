# listmark: a benchmark shaped like one brought in from elsewhere (its
# sources unchanged): kernels in core/, one port per platform under port/
# (only ours is built), its own defines, and pointers kept in 32-bit
# integers, which the compiler warns about: those two warnings stay
# warnings here (every user address fits 32 bits on this board).
WORKLOAD_SRCDIRS  := core port/alphaprof
WORKLOAD_INCLUDES := include port/alphaprof
WORKLOAD_CFLAGS   := -DITERATIONS=40 -DSEED=7 -DFLAGS_STR='"-O2 -DITERATIONS=40 -DSEED=7"' \
                     -Wno-pointer-to-int-cast -Wno-int-to-pointer-cast
