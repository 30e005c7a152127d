#!/bin/sh
# lifecycle tether sidecar (dev.lifecycle.tether.Tether; docs/TETHER.md).
# Usage: sh tether.sh <grace-ms> <supervisor-pid>, stdin a pipe from the supervisor.
# Lines: "add <pgid|-> <leader-pid|-> <leader-start-ticks|-> <cookie>", "remove <cookie>",
# "exit" (leave without killing), "kill" (end every tree now). EOF or SIGTERM: end every tree.
# Ending a tree: TERM+CONT to its group and to processes carrying its cookie, up to the grace,
# then KILL. A group is signalled only when proven ours (its leader with the recorded start time,
# or a member carrying the cookie); never pid/pgid <= 1, never this script or its own group.
# Idle cost: one blocked read(2); no timers, no polling.

grace_ms=$1
parent=$2
case $grace_ms in '' | *[!0-9]*) grace_ms=5000 ;; esac
case $parent in '' | *[!0-9]*) parent=0 ;; esac
self=$$
rm -f "$0" 2>/dev/null && rmdir "${0%/*}" 2>/dev/null # nothing of ours stays on disk
[ -r /proc/self/stat ] && proc=1 || proc=0
trees=''

# stat_of PID: sets st (state), pg (group) and start (ticks, "-" when unknown); fails when gone.
stat_of() {
  if [ $proc = 1 ]; then
    { IFS= read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
    set -- ${line##*) } # fields from 3 (state) on: comm may hold spaces and parens
    st=$1 pg=$3 start=${20}
  else # macOS and other /proc-less systems (untested): no start time to compare
    line=$(ps -o stat= -o pgid= -p "$1" 2>/dev/null) || return 1
    set -- $line
    [ $# -ge 2 ] || return 1
    st=$1 pg=$2 start=-
  fi
  [ -n "$pg" ]
}

stat_of $self
own_group=$pg

# carriers COOKIE: prints "pid start group state" of every process whose environment has it.
carriers() {
  if [ $proc = 1 ]; then
    for f in $(grep -lzxF "LIFECYCLE_TREE_COOKIE=$1" /proc/[0-9]*/environ 2>/dev/null); do
      p=${f#/proc/}
      p=${p%/environ}
      stat_of "$p" && echo "$p $start $pg $st"
    done
  else
    ps -A -E -ww -o pid= -o pgid= -o stat= -o command= 2>/dev/null |
      while read -r p g s rest; do
        case " $rest " in *" LIFECYCLE_TREE_COOKIE=$1 "*) echo "$p - $g $s" ;; esac
      done
  fi
}

# group_alive PGID: whether a process that is not a zombie is in the group.
group_alive() {
  if [ $proc = 1 ]; then
    for d in /proc/[0-9]*; do
      stat_of "${d#/proc/}" && [ "$pg" = "$1" ] && [ "$st" != Z ] && return 0
    done
    return 1
  fi
  ps -A -o pgid= -o stat= 2>/dev/null | while read -r g s; do
    [ "$g" = "$1" ] && case $s in Z*) ;; *) exit 0 ;; esac
  done
}

# hit SIGNAL COOKIE PGID LEADER START: signals (SIGNAL "none": only probes) what is proven ours;
# sets alive=1 when any of it still runs.
hit() {
  sig=$1 cookie=$2 group=$3 leader=$4 lstart=$5 proven=0
  if [ "$lstart" != - ] && stat_of "$leader" && [ "$start" = "$lstart" ] && [ "$pg" = "$group" ]; then
    proven=1 # the leader, recognised by its start time, still pins the group id
  fi
  for c in $(carriers "$cookie" | tr ' ' ':'); do
    p=${c%%:*} c=${c#*:}
    s=${c%%:*} c=${c#*:}
    g=${c%%:*} state=${c#*:}
    case $state in Z*) continue ;; esac
    [ "$g" = "$group" ] && proven=1
    [ "$p" -gt 1 ] && [ "$p" != $self ] && [ "$p" != $parent ] || continue
    alive=1
    [ $sig = none ] && continue
    # Recheck the start time right before the signal: the pid may have been reused meanwhile.
    if [ "$s" = - ] || { stat_of "$p" && [ "$start" = "$s" ]; }; then
      kill -s $sig "$p" 2>/dev/null
      [ $sig = TERM ] && kill -s CONT "$p" 2>/dev/null
    fi
  done
  if [ $proven = 1 ] && [ "$group" != - ] && [ "$group" -gt 1 ] && [ "$group" != "$own_group" ]; then
    group_alive "$group" && alive=1
    if [ $sig != none ]; then
      kill -s $sig -- "-$group" 2>/dev/null
      [ $sig = TERM ] && kill -s CONT -- "-$group" 2>/dev/null
    fi
  fi
  return 0
}

# each SIGNAL: hit for every registered tree ("cookie pgid leader start" per line).
each() {
  IFS='
'
  for t in $trees; do # the list is split once, before the body runs
    IFS=' 	
'
    hit "$1" $t
  done
  IFS=' 	
'
}

nap() { sleep 0.1 2>/dev/null || sleep 1; }

teardown() {
  trap '' TERM HUP INT
  alive=0
  each TERM
  # The grace is timed by a sleep of its own: scans take time, so counting naps would stretch it.
  sleep "$((grace_ms / 1000)).$(printf %03d $((grace_ms % 1000)))" 2>/dev/null &
  timer=$!
  while [ $alive = 1 ] && kill -0 $timer 2>/dev/null; do
    nap
    alive=0
    each none
  done
  kill $timer 2>/dev/null
  if [ $alive = 1 ]; then
    each KILL
    nap
    each KILL # anything forked while the first KILL went out
  fi
  exit 0
}

trap teardown TERM HUP INT
echo "ready $self"
exec >/dev/null

while IFS= read -r line; do
  case $line in *[!A-Za-z0-9._\ -]*) continue ;; esac # nothing that could glob or inject
  set -- $line
  case $1 in
    add)
      [ $# = 5 ] || continue
      case "$2$3$4" in *[!0-9-]*) continue ;; esac
      [ ${#5} -ge 8 ] || continue
      trees="$trees$5 $2 $3 $4
"
      ;;
    remove)
      kept='' IFS='
'
      for t in $trees; do
        [ "${t%% *}" != "$2" ] && kept="$kept$t
"
      done
      IFS=' 	
'
      trees=$kept
      ;;
    exit) exit 0 ;;
    kill) teardown ;;
  esac
done
teardown
