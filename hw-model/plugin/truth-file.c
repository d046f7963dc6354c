/* Side truth files written whole or not at all (see truth-file.h). */
#include "hw-model/plugin/truth-file.h"

#include <errno.h>
#include <unistd.h>

int truth_file_open(struct truth_file *t, const char *path)
{
    if ((size_t)snprintf(t->tmp, sizeof t->tmp, "%s.tmp", path) >= sizeof t->tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    t->f = fopen(t->tmp, "wb");
    return t->f ? 0 : -1;
}

int truth_file_commit(struct truth_file *t, const char *path)
{
    int err = ferror(t->f) ? EIO : 0;
    if (fclose(t->f) != 0 && !err)
        err = errno ? errno : EIO;
    t->f = NULL;
    if (!err && rename(t->tmp, path) != 0)
        err = errno ? errno : EIO;
    if (err) {
        unlink(t->tmp);
        errno = err;
        return -1;
    }
    return 0;
}
