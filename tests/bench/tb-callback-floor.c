/*
 * The hardware-model speed bench's yardstick (tests/bench/bench_hwmodel.py):
 * what QEMU 7.2's plugin API itself costs, with no work of ours.
 *
 *   floor=callback  an empty callback on every executed translation block,
 *                   the least a plugin can do to see each block run (and so
 *                   to raise an overflow at an exact PC)
 *   floor=inline    an inline add per block instead: no call at all, but a
 *                   fixed, unconditional add, which can count and never
 *                   raise anything
 *
 * Other key=value arguments (the board's ram=, cores=, ...) are ignored.
 */
#include <stdint.h>
#include <string.h>

#include "hw-model/plugin/qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

static uint64_t instructions;  /* floor=inline: every vCPU's, racy under MTTCG */
static bool use_inline;

static void on_block(unsigned int vcpu_index, void *userdata)
{
    (void)vcpu_index;
    (void)userdata;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    if (use_inline)
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &instructions,
                                                 qemu_plugin_tb_n_insns(tb));
    else
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, NULL);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "floor=inline"))
            use_inline = true;
        else if (!strcmp(argv[i], "floor=callback"))
            use_inline = false;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    return 0;
}
