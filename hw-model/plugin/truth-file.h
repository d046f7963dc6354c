/*
 * The model's side truth files (FILE.values, .cct, .blpaths, .pmepaths
 * beside the oracle) appear whole or not at all: each is written to
 * PATH.tmp and renamed over PATH only once every byte is out and the file
 * is closed, so a reader never takes a cut file for the truth.
 */
#ifndef HW_MODEL_PLUGIN_TRUTH_FILE_H
#define HW_MODEL_PLUGIN_TRUTH_FILE_H

#include <stdio.h>

struct truth_file {
    FILE *f;                    /* write the file's bytes here */
    char tmp[4300];
};

/* 0, or -1 with errno set. */
int truth_file_open(struct truth_file *t, const char *path);
/* Closes and renames over path: 0, or -1 with errno set (the temporary
 * file removed) when any write, the close or the rename failed. */
int truth_file_commit(struct truth_file *t, const char *path);

#endif
