/*
 * Test adversary (lifecycle-tests): does what redis, nginx and every setproctitle user does.
 *   titled daemon <pidfile> : double fork + setsid, then overwrite argv AND environ area with a
 *                              process title (the environment moves to the heap), ignore SIGTERM,
 *                              write the daemon's pid to <pidfile>, sleep until killed.
 *   titled storm <n>        : ignore SIGTERM, keep <n> children alive (re-fork each one that
 *                              dies); children ignore SIGTERM and pause. Bounded to n.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void set_title(int argc, char **argv, const char *title) {
  char *start = argv[0];
  char *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
  int n = 0;
  while (environ[n]) n++;
  char **copy = calloc(n + 1, sizeof(char *));
  for (int i = 0; i < n; i++) {
    if (environ[i] == end) end = environ[i] + strlen(environ[i]) + 1;
    copy[i] = strdup(environ[i]);
  }
  environ = copy; /* the area is ours now, as in redis' setproctitle */
  memset(start, 0, end - start);
  strncpy(start, title, end - start - 1);
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  signal(SIGTERM, SIG_IGN);
  if (strcmp(argv[1], "daemon") == 0) {
    char *pidfile = strdup(argv[2]); /* the title overwrites argv */
    if (fork() != 0) _exit(0);
    setsid();
    if (fork() != 0) _exit(0);
    set_title(argc, argv, "titled: daemon accepting connections on *:6379");
    FILE *f = fopen(pidfile, "w");
    if (!f) return 3;
    fprintf(f, "%d\n", getpid());
    fclose(f);
    for (;;) pause();
  }
  if (strcmp(argv[1], "storm") == 0) {
    int n = atoi(argv[2]);
    if (n <= 0 || n > 2000) return 2;
    int alive = 0;
    for (;;) {
      while (alive < n) {
        pid_t c = fork();
        if (c == 0) {
          for (;;) pause();
        }
        if (c > 0) alive++;
        else break;
      }
      int st;
      if (waitpid(-1, &st, 0) > 0) alive--;
    }
  }
  return 2;
}
