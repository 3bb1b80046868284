/* The page's folder, written whole or not at all (site.h). */
#include "site.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)ftw;
  return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* rm -rf path, never following a link out of it. */
static void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* Whether dir holds nothing, or a page kgate wrote (index.html's title). */
static int replaceable(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int empty = 1;
  for (struct dirent *e; empty && (e = readdir(d));) empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
  closedir(d);
  if (empty) return 1;
  char path[PATH_MAX + 16], head[512] = "";
  snprintf(path, sizeof path, "%s/index.html", dir);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  return strstr(head, KG_SITE_TITLE) != NULL || strstr(head, KG_SITE_TITLE_REPORT) != NULL;
}

/* Removes the temp folders beside dir of reports that were killed:
 * <dir>.tmp.<pid>.XXXXXX whose process is gone. */
static void sweep_killed(const char *dir) {
  char parent[PATH_MAX], prefix[NAME_MAX + 8];
  snprintf(parent, sizeof parent, "%s", dir);
  char *slash = strrchr(parent, '/');
  const char *base = slash ? slash + 1 : dir;
  if (slash == parent) parent[1] = '\0';
  else if (slash) *slash = '\0';
  else snprintf(parent, sizeof parent, ".");
  size_t plen = (size_t)snprintf(prefix, sizeof prefix, "%s.tmp.", base);
  DIR *d = plen < sizeof prefix ? opendir(parent) : NULL;
  for (struct dirent *e; d && (e = readdir(d));) {
    char *end, path[PATH_MAX];
    long pid = strncmp(e->d_name, prefix, plen) ? 0 : strtol(e->d_name + plen, &end, 10);
    if (pid <= 0 || *end != '.' || strlen(end + 1) != 6 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 ||
        errno != ESRCH)
      continue;
    if (snprintf(path, sizeof path, "%s/%s", parent, e->d_name) < (int)sizeof path) remove_tree(path);
  }
  if (d) closedir(d);
}

int kg_site_begin(kg_site *s, const char *dir, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/') len--; /* "site/" is the folder site */
  if (len >= sizeof s->dir) return snprintf(err, errlen, "cannot write %.60s...: path too long", dir), -1;
  memcpy(s->dir, dir, len);
  struct stat st;
  if (stat(s->dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return snprintf(err, errlen, "cannot write the page into %s: not a folder", dir), -1;
    char real[PATH_MAX];
    if (!realpath(s->dir, real)) return snprintf(err, errlen, "cannot write %s: %s", dir, strerror(errno)), -1;
    if (!replaceable(real))
      return snprintf(err, errlen, "%s holds files and no kgate page (index.html): refusing to replace it; give an "
                      "empty or new folder", dir), -1;
    snprintf(s->dir, sizeof s->dir, "%s", real);
    s->replace = 1;
  } else if (errno != ENOENT) {
    return snprintf(err, errlen, "cannot write %s: %s", dir, strerror(errno)), -1;
  }
  /* Beside DIR, so the rename never crosses a file system. */
  char parent[PATH_MAX];
  snprintf(parent, sizeof parent, "%s", s->dir);
  char *slash = strrchr(parent, '/');
  if (slash && slash != parent) *slash = '\0', kg_mkdirs(parent, err, errlen);
  sweep_killed(s->dir);
  if (snprintf(s->tmp, sizeof s->tmp, "%s.tmp.%ld.XXXXXX", s->dir, (long)getpid()) >= (int)sizeof s->tmp) {
    s->tmp[0] = '\0';
    return snprintf(err, errlen, "cannot write %.60s...: path too long", dir), -1;
  }
  if (!mkdtemp(s->tmp)) {
    snprintf(err, errlen, "cannot write the page beside %s: %s", dir, strerror(errno));
    s->tmp[0] = '\0';
    return -1;
  }
  /* mkdtemp makes 0700: the page keeps the old folder's mode, or a new one's. */
  mode_t mask = umask(0);
  umask(mask);
  chmod(s->tmp, s->replace ? (st.st_mode & 07777) : (0777 & ~mask));
  return 0;
}

int kg_site_commit(kg_site *s, char *err, size_t errlen) {
  int rc = -1;
  if (!s->replace) {
    rc = rename(s->tmp, s->dir);
  } else if (renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->dir, RENAME_EXCHANGE) == 0) {
    rc = 0; /* the old site is now at tmp */
  } else if (errno == EINVAL || errno == ENOSYS) {
    /* No atomic exchange on this file system: the old folder steps aside
     * first, so DIR is missing for a moment but never partial. */
    char old[sizeof s->tmp + 8];
    snprintf(old, sizeof old, "%s.old", s->tmp);
    if (rename(s->dir, old) == 0) {
      rc = rename(s->tmp, s->dir);
      if (rc) rename(old, s->dir);
      else remove_tree(old), s->replace = 0; /* nothing of the old site is left at tmp */
    }
  }
  if (rc) {
    snprintf(err, errlen, "cannot put the page in place at %s: %s (the old one is kept)", s->dir, strerror(errno));
    kg_site_abort(s);
    return -1;
  }
  if (s->replace) remove_tree(s->tmp);
  s->tmp[0] = '\0';
  return 0;
}

void kg_site_abort(kg_site *s) {
  if (s->tmp[0]) remove_tree(s->tmp);
  s->tmp[0] = '\0';
}
