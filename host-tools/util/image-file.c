/*
 * Workload image files: the checks shared by the sealing tool and the
 * launcher, and sealing (interface and the two levels of checks:
 * image-file.h).
 *
 * Invariants:
 *   1. Only regular files are opened (util/regular-file): a FIFO or a
 *      directory is named, never waited on.
 *   2. A check names the file and the first field at fault; sealing writes
 *      the header only after every link-time field has passed.
 */
#include "util/image-file.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "linker/ram-map.h"
#include "util/regular-file.h"

/* The header is read and written as raw bytes: both sides are little endian. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "image headers are little endian like the Alpha");

#define REBUILD_HINT "rebuild it with make (images are sealed by build/host/alphaprof-seal)"

static int elf_lib_ready(struct ap_err *err)
{
    static int ready;
    if (!ready) {
        if (elf_version(EV_CURRENT) == EV_NONE)
            return ap_err_set(err, "libelf is too old: %s", elf_errmsg(-1));
        ready = 1;
    }
    return 0;
}

void image_close(struct image_file *img)
{
    if (img->elf)
        elf_end(img->elf);
    if (img->fd >= 0)
        close(img->fd);
    img->elf = NULL;
    img->fd = -1;
}

/* An ELF machine's common name, for the one line that refuses it. */
static const char *machine_name(unsigned m)
{
    switch (m) {
    case EM_ALPHA: return "Alpha";
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_RISCV: return "RISC-V";
    case EM_MIPS: return "MIPS";
    case EM_PPC: return "PowerPC";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "s390";
    case EM_SPARCV9: return "SPARC V9";
    default: return "another machine";
    }
}

int image_open(struct image_file *img, const char *path, bool writable,
               struct ap_err *err)
{
    memset(img, 0, sizeof *img);
    img->fd = -1;
    img->path = path;
    if (elf_lib_ready(err))
        return -1;

    img->fd = regular_open(path, writable ? O_RDWR : O_RDONLY, "the path of a workload image (.elf)", err);
    if (img->fd == -1) {
        if (errno == ENOENT && *path)
            return ap_err_set(err, "%s: no such file; build it first (make) or check the path", path);
        return ap_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    }
    if (img->fd < 0) {
        img->fd = -1;
        return -1;      /* not a regular file: err says what it is */
    }

    Elf *elf = elf_begin(img->fd, ELF_C_READ, NULL);
    img->elf = elf;
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        image_close(img);
        return ap_err_set(err, "%s: not an ELF file; give a workload image built by make (build/workloads/NAME.elf)", path);
    }
    GElf_Ehdr eh;
    if (!gelf_getehdr(elf, &eh)) {
        image_close(img);
        return ap_err_set(err, "%s: unreadable ELF header: %s", path, elf_errmsg(-1));
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_machine != EM_ALPHA) {
        image_close(img);
        return ap_err_set(err, "%s: not an ELF for Alpha (%s%s, machine %u); workload images are built with "
                          "alpha-linux-gnu-gcc (make)", path, machine_name(eh.e_machine),
                          eh.e_ident[EI_CLASS] != ELFCLASS64 ? ", 32-bit" :
                          eh.e_ident[EI_DATA] != ELFDATA2LSB ? ", big-endian" : "", (unsigned)eh.e_machine);
    }

    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
        image_close(img);
        return ap_err_set(err, "%s: no section name table: %s", path, elf_errmsg(-1));
    }
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    bool found = false;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name && strcmp(name, IMAGE_HEADER_SECTION) == 0) {
            found = true;
            break;
        }
    }
    if (!found) {
        image_close(img);
        return ap_err_set(err, "%s: no %s section: not a workload image; link it with workloads/runtime/image.ld.S",
                          path, IMAGE_HEADER_SECTION);
    }
    if (sh.sh_type != SHT_PROGBITS || sh.sh_size < sizeof(struct image_header)) {
        image_close(img);
        return ap_err_set(err, "%s: section %s holds %llu bytes of file data, the header needs %zu; check workloads/runtime/image.ld.S",
                          path, IMAGE_HEADER_SECTION,
                          sh.sh_type == SHT_PROGBITS ? (unsigned long long)sh.sh_size : 0ULL,
                          sizeof(struct image_header));
    }
    img->header_addr = sh.sh_addr;
    img->header_offset = sh.sh_offset;
    ssize_t got = pread(img->fd, &img->hdr, sizeof img->hdr, (off_t)sh.sh_offset);
    if (got != (ssize_t)sizeof img->hdr) {
        image_close(img);
        return ap_err_set(err, "%s: truncated file: the %s section lies past its end; rebuild it", path,
                          IMAGE_HEADER_SECTION);
    }
    return 0;
}

int image_check_link_fields(const struct image_header *h, uint64_t section_addr,
                            struct ap_err *err)
{
    const char *fix = "the image was not linked with workloads/runtime/image.ld.S and its start-up code; rebuild it with make";
    if (h->magic != IMAGE_MAGIC)
        return ap_err_set(err, "bad magic 0x%016llx in %s (expected 0x%016llx): %s",
                          (unsigned long long)h->magic, IMAGE_HEADER_SECTION,
                          (unsigned long long)IMAGE_MAGIC, fix);
    if (h->version != IMAGE_HEADER_VERSION)
        return ap_err_set(err, "header version %u, this alphaprof knows %u: rebuild the image with this tree (make)",
                          h->version, IMAGE_HEADER_VERSION);
    if (h->header_size != sizeof(struct image_header))
        return ap_err_set(err, "header_size %u, expected %zu: %s", h->header_size,
                          sizeof(struct image_header), fix);
    if (h->load_base != section_addr)
        return ap_err_set(err, "load_base 0x%llx differs from the header's own address 0x%llx: %s",
                          (unsigned long long)h->load_base, (unsigned long long)section_addr, fix);
    if (h->load_base < IMAGE_AREA_PHYS || h->load_base >= IMAGE_AREA_END ||
        h->load_base % IMAGE_ALIGN != 0)
        return ap_err_set(err, "load_base 0x%llx is not a %#x-aligned address in the image area [%#x, %#x): link the image at such a base",
                          (unsigned long long)h->load_base, IMAGE_ALIGN, IMAGE_AREA_PHYS, IMAGE_AREA_END);
    if (h->load_size < h->header_size)
        return ap_err_set(err, "load_size %llu is smaller than the header: %s",
                          (unsigned long long)h->load_size, fix);
    if (h->bss_end < h->load_base || h->bss_end - h->load_base < h->load_size)
        return ap_err_set(err, "bss_end 0x%llx lies before the end of the loaded bytes 0x%llx: %s",
                          (unsigned long long)h->bss_end,
                          (unsigned long long)(h->load_base + h->load_size), fix);
    if (h->bss_end > IMAGE_AREA_END)
        return ap_err_set(err, "the image ends at 0x%llx, past the image area end %#x: make it smaller or link it lower",
                          (unsigned long long)h->bss_end, IMAGE_AREA_END);
    uint64_t end = h->load_base + h->load_size;
    if (h->entry < h->load_base || h->entry >= end)
        return ap_err_set(err, "entry 0x%llx lies outside the loaded image [0x%llx, 0x%llx): %s",
                          (unsigned long long)h->entry, (unsigned long long)h->load_base,
                          (unsigned long long)end, fix);
    if (h->core_entry != 0 && (h->core_entry < h->load_base || h->core_entry >= end))
        return ap_err_set(err, "core_entry 0x%llx lies outside the loaded image [0x%llx, 0x%llx): %s",
                          (unsigned long long)h->core_entry, (unsigned long long)h->load_base,
                          (unsigned long long)end, fix);
    if (h->flags != 0)
        return ap_err_set(err, "flags 0x%x: reserved, must be zero: %s", h->flags, fix);
    return 0;
}

int image_check_layout(struct image_file *img, struct ap_err *err)
{
    struct ap_err sub;
    if (image_check_link_fields(&img->hdr, img->header_addr, &sub))
        return ap_err_set(err, "%s: %s", img->path, sub.msg);

    const struct image_header *h = &img->hdr;
    size_t nph;
    if (elf_getphdrnum(img->elf, &nph) != 0 || nph == 0)
        return ap_err_set(err, "%s: no program headers: link it as an executable with workloads/runtime/image.ld.S", img->path);
    bool header_loaded = false;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(img->elf, (int)i, &ph))
            return ap_err_set(err, "%s: unreadable program header %zu: %s", img->path, i, elf_errmsg(-1));
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_filesz > ph.p_memsz)
            return ap_err_set(err, "%s: segment %zu has more file bytes than memory bytes; the ELF is damaged, rebuild it", img->path, i);
        if (ph.p_paddr < h->load_base || ph.p_paddr + ph.p_memsz > h->bss_end ||
            ph.p_paddr + ph.p_memsz < ph.p_paddr)
            return ap_err_set(err, "%s: segment %zu at physical 0x%llx..0x%llx lies outside the image [0x%llx, 0x%llx): every section must be inside the image (AT() = its address in image.ld.S)",
                              img->path, i, (unsigned long long)ph.p_paddr,
                              (unsigned long long)(ph.p_paddr + ph.p_memsz),
                              (unsigned long long)h->load_base, (unsigned long long)h->bss_end);
        if (ph.p_filesz && ph.p_paddr + ph.p_filesz > h->load_base + h->load_size)
            return ap_err_set(err, "%s: segment %zu has file bytes up to 0x%llx, past load_base + load_size 0x%llx: load_size must cover text and data",
                              img->path, i, (unsigned long long)(ph.p_paddr + ph.p_filesz),
                              (unsigned long long)(h->load_base + h->load_size));
        if (img->header_offset >= ph.p_offset &&
            img->header_offset + sizeof(struct image_header) <= ph.p_offset + ph.p_filesz) {
            uint64_t at = ph.p_paddr + (img->header_offset - ph.p_offset);
            if (at != h->load_base)
                return ap_err_set(err, "%s: the header is loaded at physical 0x%llx, not at its address 0x%llx: give every section AT() = its address in image.ld.S",
                                  img->path, (unsigned long long)at, (unsigned long long)h->load_base);
            header_loaded = true;
        }
    }
    if (!header_loaded)
        return ap_err_set(err, "%s: the %s section is not in a loadable segment, so the monitor would never find it; check image.ld.S",
                          img->path, IMAGE_HEADER_SECTION);
    return 0;
}

uint32_t image_header_crc(const struct image_header *h)
{
    struct image_header copy = *h;
    copy.header_crc32 = 0;
    return (uint32_t)crc32(0L, (const Bytef *)&copy, sizeof copy);
}

int image_payload_crc(struct image_file *img, uint32_t *crc, struct ap_err *err)
{
    const struct image_header *h = &img->hdr;
    uint64_t lo = h->load_base + h->header_size;
    uint64_t hi = h->load_base + h->load_size;
    if (hi < lo || hi - lo > (uint64_t)(IMAGE_AREA_END - IMAGE_AREA_PHYS))
        return ap_err_set(err, "%s: load_size %llu is not plausible; rebuild the image",
                          img->path, (unsigned long long)h->load_size);
    size_t len = (size_t)(hi - lo);
    uint8_t *mem = calloc(1, len ? len : 1);
    if (!mem)
        return ap_err_set(err, "%s: out of memory for %zu payload bytes", img->path, len);

    size_t nph = 0;
    elf_getphdrnum(img->elf, &nph);
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(img->elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_filesz == 0)
            continue;
        uint64_t s = ph.p_paddr, e = ph.p_paddr + ph.p_filesz;
        if (s < lo)
            s = lo;
        if (e > hi)
            e = hi;
        if (s >= e)
            continue;
        size_t n = (size_t)(e - s);
        off_t off = (off_t)(ph.p_offset + (s - ph.p_paddr));
        if (pread(img->fd, mem + (s - lo), n, off) != (ssize_t)n) {
            free(mem);
            return ap_err_set(err, "%s: truncated file: segment %zu lies past its end; rebuild it", img->path, i);
        }
    }
    *crc = (uint32_t)crc32(0L, mem, (uInt)len);
    free(mem);
    return 0;
}

int image_build_id(struct image_file *img, uint8_t id[IMAGE_BUILD_ID_MAX],
                   uint32_t *size, struct ap_err *err)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(img->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data)
            continue;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
                if (nh.n_descsz == 0 || nh.n_descsz > IMAGE_BUILD_ID_MAX)
                    return ap_err_set(err, "%s: build-id of %u bytes, the header holds 1..%d: link with -Wl,--build-id=sha1",
                                      img->path, (unsigned)nh.n_descsz, IMAGE_BUILD_ID_MAX);
                memset(id, 0, IMAGE_BUILD_ID_MAX);
                memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
                *size = nh.n_descsz;
                return 0;
            }
        }
    }
    return ap_err_set(err, "%s: no GNU build-id note: link the image with -Wl,--build-id=sha1 and keep .note.gnu.build-id in image.ld.S",
                      img->path);
}

int image_check_name(const char *name, struct ap_err *err)
{
    size_t n = strlen(name);
    if (n == 0)
        return ap_err_set(err, "empty image name");
    if (n >= IMAGE_NAME_MAX)
        return ap_err_set(err, "image name '%s' is %zu characters, at most %d fit: give a shorter --name",
                          name, n, IMAGE_NAME_MAX - 1);
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return ap_err_set(err, "image name '%s' has the character '%c'; use only letters, digits, '_', '-' and '.'",
                              name, c);
    }
    return 0;
}

int image_name_from_path(const char *path, char name[IMAGE_NAME_MAX], struct ap_err *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = (dot && dot != base) ? (size_t)(dot - base) : strlen(base);
    if (len == 0 || len >= IMAGE_NAME_MAX)
        return ap_err_set(err, "%s: cannot make an image name of 1..%d characters from the file name; give one with --name",
                          path, IMAGE_NAME_MAX - 1);
    memcpy(name, base, len);
    name[len] = '\0';
    struct ap_err sub;
    if (image_check_name(name, &sub))
        return ap_err_set(err, "%s: %s", path, sub.msg);
    return 0;
}

int image_check_sealed(struct image_file *img, struct ap_err *err)
{
    if (image_check_layout(img, err))
        return -1;
    const struct image_header *h = &img->hdr;
    if (h->header_crc32 == 0 && h->payload_crc32 == 0 && h->name[0] == '\0')
        return ap_err_set(err, "%s: not sealed (no name, no checksums): run build/host/alphaprof-seal %s (make does this for the images it builds)",
                          img->path, img->path);
    uint32_t want = image_header_crc(h);
    if (h->header_crc32 != want)
        return ap_err_set(err, "%s: header checksum mismatch (0x%08x stored, 0x%08x computed): the header changed after sealing; %s",
                          img->path, h->header_crc32, want, REBUILD_HINT);
    if (memchr(h->name, '\0', sizeof h->name) == NULL)
        return ap_err_set(err, "%s: image name is not NUL-terminated; %s", img->path, REBUILD_HINT);
    struct ap_err sub;
    if (image_check_name(h->name, &sub))
        return ap_err_set(err, "%s: %s", img->path, sub.msg);
    uint8_t id[IMAGE_BUILD_ID_MAX];
    uint32_t idsize;
    if (image_build_id(img, id, &idsize, err))
        return -1;
    if (idsize != h->build_id_size || memcmp(id, h->build_id, idsize) != 0)
        return ap_err_set(err, "%s: the header's build-id is not the ELF's: the image was relinked without sealing; %s",
                          img->path, REBUILD_HINT);
    uint32_t crc;
    if (image_payload_crc(img, &crc, err))
        return -1;
    if (crc != h->payload_crc32)
        return ap_err_set(err, "%s: payload checksum mismatch (0x%08x stored, 0x%08x computed): the image was modified after sealing; %s",
                          img->path, h->payload_crc32, crc, REBUILD_HINT);
    return 0;
}

int image_seal(struct image_file *img, const char *name, struct ap_err *err)
{
    if (image_check_layout(img, err))
        return -1;
    struct image_header h = img->hdr;
    char stem[IMAGE_NAME_MAX];
    if (name) {
        struct ap_err sub;
        if (image_check_name(name, &sub))
            return ap_err_set(err, "%s: %s", img->path, sub.msg);
        strcpy(stem, name);
    } else if (image_name_from_path(img->path, stem, err)) {
        return -1;
    }
    memset(h.name, 0, sizeof h.name);
    memcpy(h.name, stem, strlen(stem));
    if (image_build_id(img, h.build_id, &h.build_id_size, err))
        return -1;
    if (image_payload_crc(img, &h.payload_crc32, err))
        return -1;
    h.header_crc32 = image_header_crc(&h);
    if (pwrite(img->fd, &h, sizeof h, (off_t)img->header_offset) != (ssize_t)sizeof h)
        return ap_err_set(err, "%s: cannot write the header: %s", img->path, strerror(errno));
    img->hdr = h;
    return 0;
}

int image_check_file(const char *path, struct image_header *out, struct ap_err *err)
{
    struct image_file img;
    if (image_open(&img, path, false, err))
        return -1;
    int rc = image_check_sealed(&img, err);
    if (rc == 0 && out)
        *out = img.hdr;
    image_close(&img);
    return rc;
}
