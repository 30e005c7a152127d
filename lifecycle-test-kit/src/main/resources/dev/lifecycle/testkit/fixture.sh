#!/bin/sh
# lifecycle test-kit fixture child: a scriptable adversary for process-lifecycle tests.
# Driven by dev.lifecycle.testkit.FixtureScript, whose javadoc documents the grammar.
# Words are processed in order; blocks are "{ ... }" and may nest. POSIX sh only.
set -f
SELF=$0
export LIFECYCLE_FIXTURE=1
if [ -n "${LIFECYCLE_FIXTURE_PIDFILE:-}" ]; then
  echo "$$" >> "$LIFECYCLE_FIXTURE_PIDFILE"
fi
IN_SLEEP=0
BEFORE_SLEEP=
TERM_HANDLER=0

die() {
  echo "fixture[$$]: $*" >&2
  exit 98
}

on_term() { # $1 = exit code
  # Traps run between commands: if "sleep &" already ran, $! moved past BEFORE_SLEEP. KILL,
  # because a TERM can be lost while the child is between fork and exec.
  if [ "$IN_SLEEP" -eq 1 ] && [ "${!:-}" != "$BEFORE_SLEEP" ]; then kill -9 "$!" 2> /dev/null; fi
  exit "$1"
}

number() { # $1 = name of the command, $2 = value
  case ${2:-} in
    '' | *[!0-9]*) die "$1 needs a non-negative integer, got '${2:-<end>}'" ;;
  esac
}

# read_block WORDS...: the words start with "{"; sets BLOCK to the inner words and TAKEN to the
# number of words consumed, braces included.
read_block() {
  [ "${1:-}" = "{" ] || die "expected '{' but got '${1:-<end>}'"
  depth=0
  BLOCK=
  TAKEN=0
  for w in "$@"; do
    TAKEN=$((TAKEN + 1))
    case $w in
      '{')
        depth=$((depth + 1))
        if [ "$depth" -gt 1 ]; then BLOCK="$BLOCK $w"; fi
        ;;
      '}')
        depth=$((depth - 1))
        if [ "$depth" -eq 0 ]; then return 0; fi
        BLOCK="$BLOCK $w"
        ;;
      *) BLOCK="$BLOCK $w" ;;
    esac
  done
  die "unbalanced '{'"
}

while [ $# -gt 0 ]; do
  cmd=$1
  shift
  case $cmd in
    spawn)
      number spawn "${1:-}"
      n=$1
      shift
      read_block "$@"
      shift "$TAKEN"
      i=0
      while [ "$i" -lt "$n" ]; do
        sh "$SELF" $BLOCK &
        i=$((i + 1))
      done
      ;;
    chain)
      number chain "${1:-}"
      d=$1
      shift
      read_block "$@"
      shift "$TAKEN"
      if [ "$d" -gt 1 ]; then
        sh "$SELF" chain $((d - 1)) '{' $BLOCK '}' $BLOCK &
      elif [ "$d" -eq 1 ]; then
        sh "$SELF" $BLOCK &
      fi
      ;;
    setsid)
      read_block "$@"
      shift "$TAKEN"
      command -v setsid > /dev/null 2>&1 || {
        echo "fixture[$$]: setsid(1) not found (util-linux): cannot escape the session" >&2
        exit 97
      }
      setsid sh "$SELF" $BLOCK &
      ;;
    daemon)
      read_block "$@"
      shift "$TAKEN"
      (sh "$SELF" $BLOCK &)
      ;;
    ignore-term) trap '' TERM ;;
    exit-on-term)
      number exit-on-term "${1:-}"
      trap "on_term $1" TERM
      TERM_HANDLER=1
      shift
      ;;
    close-stdin) exec 0<&- ;;
    close-stdout) exec 1>&- ;;
    close-stderr) exec 2>&- ;;
    detach-stdio) exec < /dev/null > /dev/null 2>&1 ;;
    announce) echo "pid $$" ;;
    ready) echo "ready $$" ;;
    print)
      echo "${1:-}"
      shift
      ;;
    spin) while :; do :; done ;;
    write-forever) while :; do echo "fixture line $$"; done ;;
    write-until-epipe)
      number write-until-epipe "${1:-}"
      code=$1
      shift
      trap '' PIPE
      while printf 'fixture line %s\n' "$$" 2> /dev/null; do :; done
      echo "epipe $$" >&2
      exit "$code"
      ;;
    sleep)
      s=${1:-}
      case $s in
        '' | *[!0-9.]*) die "sleep needs seconds, got '${s:-<end>}'" ;;
      esac
      shift
      if [ $# -eq 0 ] && [ "$TERM_HANDLER" -eq 0 ]; then
        exec sleep "$s"
      fi
      BEFORE_SLEEP=${!:-}
      IN_SLEEP=1
      sleep "$s" &
      wait "$!"
      IN_SLEEP=0
      ;;
    wait) wait ;;
    exit)
      number exit "${1:-}"
      exit "$1"
      ;;
    *) die "unknown command '$cmd'" ;;
  esac
done
exit 0
