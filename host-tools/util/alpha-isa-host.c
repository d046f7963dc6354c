/* The shared Alpha decoder (hw-model/isa), built into the host tools from
 * its one source file. */
#include "hw-model/isa/alpha-decode.c"
