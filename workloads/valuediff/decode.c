/* The one instruction table's decoder, built into this image unchanged. */
#include "hw-model/isa/alpha-decode.c"
