/* Starting a child process (child.h). */
#include "child.h"

#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

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
  execve(argv[0], argv, o->env ? o->env : environ);
  if (o->what) fprintf(stderr, "kgate: cannot run %s %s: %s\n", o->what, argv[0], strerror(errno));
  _exit(KG_SPAWN_NO_EXEC);
}

/* What a build or a module must not see, by where the name matches. */
static const struct {
  enum { PREFIX, ANYWHERE, SUFFIX, EXACT } at;
  const char *text;
} k_secret[] = {
    {PREFIX, "ACTIONS_"},  {PREFIX, "GITHUB_"},   {PREFIX, "INPUT_"},     {PREFIX, "GH_"},
    {PREFIX, "AWS_"},      {PREFIX, "AZURE_"},    {PREFIX, "GOOGLE_"},    {PREFIX, "VAULT_"},
    {PREFIX, "DOCKER_"},   {PREFIX, "GPG_"},      {EXACT, "SSH_AUTH_SOCK"}, {EXACT, "NETRC"},
    {ANYWHERE, "TOKEN"},   {ANYWHERE, "SECRET"},  {ANYWHERE, "PASSWORD"}, {ANYWHERE, "PASSWD"},
    {ANYWHERE, "CREDENTIAL"}, {ANYWHERE, "PRIVATE"}, {ANYWHERE, "OIDC"}, {ANYWHERE, "JWT"},
    {ANYWHERE, "ASKPASS"}, {ANYWHERE, "AUTH"},    {ANYWHERE, "API_KEY"},  {ANYWHERE, "APIKEY"},
    {SUFFIX, "_KEY"},
};

int kg_env_secret(const char *name) {
  char up[256];
  size_t n = strcspn(name, "=");
  if (n >= sizeof up) return 1; /* a name this long is nobody's build setting */
  for (size_t i = 0; i < n; i++) up[i] = (char)toupper((unsigned char)name[i]);
  up[n] = '\0';
  for (size_t k = 0; k < sizeof k_secret / sizeof *k_secret; k++) {
    const char *t = k_secret[k].text;
    size_t tl = strlen(t);
    switch (k_secret[k].at) {
    case PREFIX: if (!strncmp(up, t, tl)) return 1; break;
    case ANYWHERE: if (strstr(up, t)) return 1; break;
    case SUFFIX: if (n >= tl && !strcmp(up + n - tl, t)) return 1; break;
    case EXACT: if (!strcmp(up, t)) return 1; break;
    }
  }
  return 0;
}

char **kg_env_scrubbed(char *const *env) {
  size_t n = 0, k = 0;
  while (env && env[n]) n++;
  char **out = malloc((n + 1) * sizeof *out);
  for (size_t i = 0; out && i < n; i++)
    if (strchr(env[i], '=') && !kg_env_secret(env[i])) out[k++] = env[i];
  if (out) out[k] = NULL;
  return out;
}
