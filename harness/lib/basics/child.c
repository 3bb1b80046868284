/* Starting a child process (child.h). */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

pid_t kg_spawn(char *const argv[], const kg_spawn_opts *o) {
  pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0 && o->own_group) setpgid(pid, pid); /* also here: a kill(-pid) right after fork must find the group */
    return pid;
  }
  if (o->own_group) setpgid(0, 0);
  if (o->nice && nice(o->nice) == -1) { /* not fatal: it just runs at the same priority */
  }
  if (o->dir && chdir(o->dir)) _exit(KG_SPAWN_NO_DIR);
  for (int i = 0; i < 3; i++) {
    if (o->fd[i] < 0) continue;
    /* A descriptor may already sit on its place (this process was started
     * with it closed): then dup2 is a no-op and only clearing close-on-exec helps. */
    if (o->fd[i] == i) fcntl(i, F_SETFD, 0);
    else dup2(o->fd[i], i);
  }
  execv(argv[0], argv);
  if (o->what) fprintf(stderr, "kgate: cannot run %s %s: %s\n", o->what, argv[0], strerror(errno));
  _exit(KG_SPAWN_NO_EXEC);
}
