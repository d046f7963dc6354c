/* Image checks and sealing, on small Alpha ELF files made here with libelf
 * (each with one flaw), and on the real build/workloads/hello.elf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "linker/ram-map.h"
#include "util/image-file.h"

#define TEXT_LEN 64
#define BSS_LEN 4096

struct synth {
    uint64_t base;
    int64_t paddr_shift;        /* physical - virtual of the segment */
    uint16_t machine;
    bool build_id;
    bool header_section;
    struct image_header hdr;    /* the link-time fields */
};

static struct synth default_synth(void)
{
    struct synth s = {.base = IMAGE_DEFAULT_BASE, .machine = EM_ALPHA, .build_id = true,
                      .header_section = true};
    s.hdr.magic = IMAGE_MAGIC;
    s.hdr.version = IMAGE_HEADER_VERSION;
    s.hdr.header_size = sizeof(struct image_header);
    s.hdr.load_base = s.base;
    s.hdr.load_size = sizeof(struct image_header) + TEXT_LEN;
    s.hdr.bss_end = s.base + s.hdr.load_size + BSS_LEN;
    s.hdr.entry = s.base + sizeof(struct image_header);
    return s;
}

static char path[64];

static Elf_Scn *add_section(Elf *e, const char *name_unused, Elf64_Word type, uint64_t addr,
                            void *bytes, size_t len, size_t align, Elf64_Word name_off)
{
    (void)name_unused;
    Elf_Scn *scn = elf_newscn(e);
    Elf_Data *d = elf_newdata(scn);
    d->d_buf = bytes;
    d->d_size = len;
    d->d_align = align;
    d->d_type = ELF_T_BYTE;
    GElf_Shdr sh;
    gelf_getshdr(scn, &sh);
    sh.sh_name = name_off;
    sh.sh_type = type;
    sh.sh_flags = addr ? SHF_ALLOC | SHF_EXECINSTR | SHF_WRITE : 0;
    sh.sh_addr = addr;
    sh.sh_addralign = align;
    gelf_update_shdr(scn, &sh);
    return scn;
}

/* Writes an Alpha ELF: .image_header + .text in one PT_LOAD (+ bss), a
 * .note.gnu.build-id note, and a section name table. */
static void write_synth(const struct synth *s)
{
    strcpy(path, "/tmp/platform-unit-image-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    assert_non_null(e);
    assert_non_null(gelf_newehdr(e, ELFCLASS64));
    GElf_Ehdr eh;
    gelf_getehdr(e, &eh);
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_type = ET_EXEC;
    eh.e_machine = s->machine;
    eh.e_version = EV_CURRENT;
    eh.e_entry = s->hdr.entry;
    gelf_update_ehdr(e, &eh);
    assert_non_null(gelf_newphdr(e, 1));

    static char shstr[] = "\0.image_header\0.text\0.note.gnu.build-id\0.shstrtab\0.other";
    static struct image_header hdr;
    static uint8_t text[TEXT_LEN];
    static uint8_t note[16 + 20];
    hdr = s->hdr;
    for (int i = 0; i < TEXT_LEN; i++)
        text[i] = (uint8_t)(i * 7 + 1);
    uint32_t nh[3] = {4, 20, NT_GNU_BUILD_ID};
    memcpy(note, nh, sizeof nh);
    memcpy(note + 12, "GNU", 4);
    for (int i = 0; i < 20; i++)
        note[16 + i] = (uint8_t)(0xa0 + i);

    Elf_Scn *hs = add_section(e, NULL, SHT_PROGBITS, s->base, &hdr, sizeof hdr, 8,
                              s->header_section ? 1 : 50);
    add_section(e, NULL, SHT_PROGBITS, s->base + sizeof hdr, text, TEXT_LEN, 8, 15);
    if (s->build_id)
        add_section(e, NULL, SHT_NOTE, 0, note, sizeof note, 4, 21);
    Elf_Scn *strs = add_section(e, NULL, SHT_STRTAB, 0, shstr, sizeof shstr, 1, 40);
    gelf_getehdr(e, &eh);
    eh.e_shstrndx = (Elf64_Half)elf_ndxscn(strs);
    gelf_update_ehdr(e, &eh);

    assert_true(elf_update(e, ELF_C_NULL) >= 0);
    GElf_Shdr hsh;
    gelf_getshdr(hs, &hsh);
    GElf_Phdr ph = {
        .p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X, .p_offset = hsh.sh_offset,
        .p_vaddr = s->base, .p_paddr = s->base + (uint64_t)s->paddr_shift,
        .p_filesz = sizeof hdr + TEXT_LEN, .p_memsz = sizeof hdr + TEXT_LEN + BSS_LEN,
        .p_align = 8,
    };
    if (!gelf_update_phdr(e, 0, &ph))
        fail_msg("gelf_update_phdr: %s", elf_errmsg(-1));
    elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
    assert_true(elf_update(e, ELF_C_WRITE) >= 0);
    elf_end(e);
    close(fd);
}

static int seal_file(const char *name, struct ap_err *err)
{
    struct image_file img;
    if (image_open(&img, path, true, err))
        return -1;
    int rc = image_seal(&img, name, err);
    image_close(&img);
    return rc;
}

static void expect_msg(const struct ap_err *err, const char *what)
{
    if (!strstr(err->msg, what))
        fail_msg("expected '%s' in: %s", what, err->msg);
    if (!strstr(err->msg, path) && strncmp(path, "/tmp/platform-unit", 18) == 0)
        fail_msg("message does not name the file: %s", err->msg);
}

/* Offset in the file of the first byte of .text (right after the header). */
static long text_offset(void)
{
    struct image_file img;
    struct ap_err err;
    assert_int_equal(image_open(&img, path, false, &err), 0);
    long off = (long)img.header_offset + (long)sizeof(struct image_header);
    image_close(&img);
    return off;
}

static void poke(long off, uint8_t xor)
{
    int fd = open(path, O_RDWR);
    uint8_t b;
    assert_int_equal(pread(fd, &b, 1, off), 1);
    b ^= xor;
    assert_int_equal(pwrite(fd, &b, 1, off), 1);
    close(fd);
}

static void test_seal_then_check(void **state)
{
    (void)state;
    struct synth s = default_synth();
    write_synth(&s);
    struct ap_err err;
    /* unsealed: refused, telling how to seal */
    assert_int_equal(image_check_file(path, NULL, &err), -1);
    expect_msg(&err, "not sealed");
    char stem[IMAGE_NAME_MAX];
    assert_int_equal(image_name_from_path(path, stem, &err), 0);
    assert_int_equal(seal_file(NULL, &err), 0);
    struct image_header h;
    if (image_check_file(path, &h, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(h.name, stem);
    assert_int_equal(h.build_id_size, 20);
    assert_int_equal(h.build_id[0], 0xa0);
    assert_int_equal(h.build_id[19], 0xa0 + 19);
    /* the payload CRC is zlib's crc32 of the text bytes as laid out */
    uint8_t text[TEXT_LEN];
    for (int i = 0; i < TEXT_LEN; i++)
        text[i] = (uint8_t)(i * 7 + 1);
    assert_int_equal(h.payload_crc32, (uint32_t)crc32(0L, text, TEXT_LEN));
    assert_int_equal(h.header_crc32, image_header_crc(&h));
    /* sealing again with a name is allowed and changes only the name/CRC */
    assert_int_equal(seal_file("other-name", &err), 0);
    assert_int_equal(image_check_file(path, &h, &err), 0);
    assert_string_equal(h.name, "other-name");
    unlink(path);
}

static void test_corrupt_payload_and_header(void **state)
{
    (void)state;
    struct synth s = default_synth();
    write_synth(&s);
    struct ap_err err;
    assert_int_equal(seal_file("t", &err), 0);
    long toff = text_offset();
    poke(toff + 10, 0x40);
    assert_int_equal(image_check_file(path, NULL, &err), -1);
    expect_msg(&err, "payload checksum mismatch");
    poke(toff + 10, 0x40);
    assert_int_equal(image_check_file(path, NULL, &err), 0);
    /* the name lies inside the header: header CRC catches it */
    poke(toff - (long)sizeof(struct image_header) + (long)offsetof(struct image_header, name), 0x01);
    assert_int_equal(image_check_file(path, NULL, &err), -1);
    expect_msg(&err, "header checksum mismatch");
    unlink(path);
}

/* Each link-time flaw is refused by sealing with a message naming it. */
static void expect_seal_refused(struct synth s, const char *what)
{
    write_synth(&s);
    struct ap_err err;
    assert_int_equal(seal_file("t", &err), -1);
    expect_msg(&err, what);
    assert_int_equal(image_check_file(path, NULL, &err), -1);
    unlink(path);
}

static void test_link_field_flaws(void **state)
{
    (void)state;
    struct synth s;
    s = default_synth(); s.hdr.magic ^= 1;               expect_seal_refused(s, "bad magic");
    s = default_synth(); s.hdr.version = 99;             expect_seal_refused(s, "header version 99");
    s = default_synth(); s.hdr.header_size = 128;        expect_seal_refused(s, "header_size 128");
    s = default_synth(); s.hdr.load_base += 0x10000;     expect_seal_refused(s, "differs from the header's own address");
    s = default_synth(); s.hdr.entry = s.base - 4;       expect_seal_refused(s, "entry 0x");
    s = default_synth(); s.hdr.entry = s.base + s.hdr.load_size; expect_seal_refused(s, "entry 0x");
    s = default_synth(); s.hdr.core_entry = 8;           expect_seal_refused(s, "core_entry");
    s = default_synth(); s.hdr.bss_end = s.base + 8;     expect_seal_refused(s, "bss_end");
    s = default_synth(); s.hdr.flags = 1;                expect_seal_refused(s, "flags");
    s = default_synth(); s.hdr.load_size = s.hdr.load_size - 8; expect_seal_refused(s, "past load_base + load_size");
    s = default_synth(); s.hdr.bss_end += BSS_LEN;       /* bigger bss_end is fine */
    write_synth(&s);
    struct ap_err err;
    assert_int_equal(seal_file("t", &err), 0);
    unlink(path);
}

static void test_placement_flaws(void **state)
{
    (void)state;
    struct synth s = default_synth();
    s.paddr_shift = -(int64_t)KSEG_BASE;          /* linked without AT() */
    expect_seal_refused(s, "outside the image");
    s = default_synth();
    s.base = 0x300000;                            /* below the image area */
    s.hdr.load_base = s.base;
    s.hdr.entry = s.base + sizeof(struct image_header);
    s.hdr.bss_end = s.base + s.hdr.load_size + BSS_LEN;
    expect_seal_refused(s, "image area");
    s = default_synth();
    s.build_id = false;
    expect_seal_refused(s, "no GNU build-id");
}

static void test_not_an_image(void **state)
{
    (void)state;
    struct ap_err err;
    struct synth s = default_synth();
    s.header_section = false;
    write_synth(&s);
    assert_int_equal(image_check_file(path, NULL, &err), -1);
    expect_msg(&err, "no .image_header section");
    unlink(path);

    s = default_synth();
    s.machine = EM_X86_64;
    write_synth(&s);
    assert_int_equal(image_check_file(path, NULL, &err), -1);
    expect_msg(&err, "not an ELF for Alpha");
    unlink(path);

    strcpy(path, "/tmp/platform-unit-text-XXXXXX");
    int fd = mkstemp(path);
    assert_int_equal(write(fd, "hello\n", 6), 6);
    close(fd);
    assert_int_equal(image_check_file(path, NULL, &err), -1);
    expect_msg(&err, "not an ELF file");
    unlink(path);

    assert_int_equal(image_check_file("/nonexistent/x.elf", NULL, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/x.elf: no such file"));
}

static void test_names(void **state)
{
    (void)state;
    char n[IMAGE_NAME_MAX];
    struct ap_err err;
    assert_int_equal(image_name_from_path("build/workloads/hello.elf", n, &err), 0);
    assert_string_equal(n, "hello");
    assert_int_equal(image_name_from_path("a.b.elf", n, &err), 0);
    assert_string_equal(n, "a.b");
    assert_int_equal(image_name_from_path("dir/.elf", n, &err), 0);
    assert_string_equal(n, ".elf");
    assert_int_equal(image_name_from_path("x/has space.elf", n, &err), -1);
    assert_int_equal(image_name_from_path("x/0123456789012345678901234567890123.elf", n, &err), -1);
    assert_non_null(strstr(err.msg, "--name"));
    assert_int_equal(image_check_name("0123456789012345678901234567890", &err), 0);
    assert_int_equal(image_check_name("01234567890123456789012345678901", &err), -1);
}

/* The real image `make` builds and seals: must exist (make test builds
 * everything first) and pass every check. */
static void test_real_hello_image(void **state)
{
    (void)state;
    const char *hello = "build/workloads/hello.elf";
    if (access(hello, R_OK) != 0)
        fail_msg("%s is missing: build it with make (make test builds it first)", hello);
    struct ap_err err;
    struct image_header h;
    if (image_check_file(hello, &h, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(h.name, "hello");
    assert_int_equal(h.load_base % IMAGE_ALIGN, 0);
    assert_true(h.build_id_size > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seal_then_check),
        cmocka_unit_test(test_corrupt_payload_and_header),
        cmocka_unit_test(test_link_field_flaws),
        cmocka_unit_test(test_placement_flaws),
        cmocka_unit_test(test_not_an_image),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_real_hello_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
