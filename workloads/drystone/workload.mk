# drystone: shaped like Dhrystone as people bring it (its sources unchanged):
# two translation units in src/ that share globals through a header in
# include/, a timing port in port/, and settings only on the command line
# (-DRUNS, -DSTRUCT_ASSIGN, a -DCOMPILER string with spaces and quotes).
WORKLOAD_SRCDIRS  := src port
WORKLOAD_INCLUDES := include port
WORKLOAD_CFLAGS   := -DRUNS=20000 -DSTRUCT_ASSIGN -DCOMPILER='"gcc -O2 \"alpha\""' -Wno-unused-parameter
