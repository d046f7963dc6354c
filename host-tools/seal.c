/*
 * alphaprof-seal: writes the seal fields of a workload image's header (name,
 * GNU build-id, payload and header CRC-32) into the ELF file in place, after
 * checking the fields the link put there.  With --check it only verifies a
 * sealed image, exactly as `alphaprof run` does before booting it.
 *
 * Invariants:
 *  1. --check opens the images read-only and never writes them; sealing
 *     takes one image at a time.
 *  2. Every image given is tried: a failing one is reported on stderr and
 *     the rest still checked, so one run reports every bad image.
 *  3. Success lines go to stdout (none with -q), errors to stderr.
 *  4. Exit status: 0 all good, 1 an image failed, 2 bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/image-file.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: alphaprof-seal [--name NAME] IMAGE.elf\n"
            "       alphaprof-seal --check IMAGE.elf [IMAGE.elf ...]\n"
            "\n"
            "Seals a workload image: fills name (default: the file name without\n"
            "extension), build-id and the CRC-32 checksums of its %s header.\n"
            "  --check      verify sealed images without writing\n"
            "  --name NAME  image name (letters, digits, _ - .; at most %d)\n"
            "  -q, --quiet  print nothing on success\n",
            IMAGE_HEADER_SECTION, IMAGE_NAME_MAX - 1);
}

static void print_id(const struct image_header *h)
{
    for (uint32_t i = 0; i < h->build_id_size && i < IMAGE_BUILD_ID_MAX; i++)
        printf("%02x", h->build_id[i]);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"check", no_argument, NULL, 'c'},
        {"name", required_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool check = false, quiet = false;
    const char *name = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "cn:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': check = true; break;
        case 'n': name = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    int nfiles = argc - optind;
    if (nfiles < 1) {
        fprintf(stderr, "alphaprof-seal: no image given\n");
        usage(stderr);
        return 2;
    }
    if (!check && nfiles != 1) {
        fprintf(stderr, "alphaprof-seal: seal one image at a time (got %d)\n", nfiles);
        return 2;
    }
    if (check && name) {
        fprintf(stderr, "alphaprof-seal: --name applies to sealing, not to --check\n");
        return 2;
    }

    int status = 0;
    for (int i = optind; i < argc; i++) {
        struct ap_err err;
        struct image_file img;
        if (image_open(&img, argv[i], !check, &err) ||
            (check ? image_check_sealed(&img, &err) : image_seal(&img, name, &err))) {
            fprintf(stderr, "alphaprof-seal: %s\n", err.msg);
            if (img.fd >= 0)
                image_close(&img);
            status = 1;
            continue;
        }
        if (!quiet) {
            const struct image_header *h = &img.hdr;
            printf("%s: %s %s build-id ", argv[i], check ? "ok," : "sealed", h->name);
            print_id(h);
            printf(" at 0x%llx size %llu payload-crc32 0x%08x\n",
                   (unsigned long long)h->load_base, (unsigned long long)h->load_size,
                   h->payload_crc32);
        }
        image_close(&img);
    }
    return status;
}
