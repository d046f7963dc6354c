# pmutime: only the files listed are built (measure/loop-x86_64.c is the
# same kernel for another machine and must not be).
WORKLOAD_SRCS     := main.c measure/loop-alpha.c
WORKLOAD_INCLUDES := measure
WORKLOAD_CFLAGS   := -DLOOP_ITERATIONS=1000 -DREPEATS=8
