/* Starting a child process: fork, then in the child its own process group,
 * priority, folder and standard descriptors, then execv. The one place kgate
 * forks (kg_proc_capture alone uses posix_spawn, which says at once that a
 * program could not start); what to read, how long to wait and how to end
 * the child stay with the caller (proc.h for workers, disasm.c, plot.c). */
#ifndef KG_CHILD_H
#define KG_CHILD_H

#include <sys/types.h>

/* Exit statuses of a child that never ran its program. */
enum { KG_SPAWN_NO_DIR = 126, KG_SPAWN_NO_EXEC = 127 };

typedef struct kg_spawn_opts {
  int fd[3];        /* the child's stdin, stdout and stderr: a descriptor, or -1 for this process's own */
  const char *dir;  /* its working folder (NULL: this one); it exits KG_SPAWN_NO_DIR when it cannot go there */
  int nice;         /* added to its niceness, best effort (the lint runs below the timed rounds) */
  int own_group;    /* its own process group, set in the child and here, so that kill(-pid) ends all it forks */
  const char *what; /* when execv fails: "kgate: cannot run <what> <argv[0]>: <reason>" on its stderr (NULL: nothing) */
  char *const *env; /* its environment (NULL: this process's): kg_env_scrubbed's, for code nobody here reviewed */
} kg_spawn_opts;

/* Starts argv[0] with argv; a program that cannot be executed exits
 * KG_SPAWN_NO_EXEC. The pid, or -1 with errno when fork failed. */
pid_t kg_spawn(char *const argv[], const kg_spawn_opts *o);

/* Whether an environment variable's name is one a build or a module must
 * not see: the runner's (ACTIONS_*, GITHUB_*: its tokens, the OIDC request
 * and the files that set later steps' environment and outputs), an action's
 * inputs (INPUT_*), a cloud's or a tool's credentials (GH_*, AWS_*, AZURE_*,
 * GOOGLE_*, VAULT_*, SSH_AUTH_SOCK, ...) and any name holding TOKEN, SECRET,
 * PASSWORD, PASSWD, CREDENTIAL, PRIVATE, OIDC, JWT, ASKPASS, AUTH or API_KEY,
 * or ending in _KEY (case-insensitive). One table in child.c. */
int kg_env_secret(const char *name);

/* env (NULL-terminated "NAME=value" strings) without the variables
 * kg_env_secret names: a malloc'ed NULL-terminated array whose strings are
 * env's own (free only the array), or NULL when out of memory. */
char **kg_env_scrubbed(char *const *env);

#endif
