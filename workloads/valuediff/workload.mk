# valuediff: the interpreter's differential test.  interp.c and decode.c
# include the monitor's interpreter and the one instruction table's decoder.
WORKLOAD_SRCS := main.c gen.c native.S interp.c decode.c
