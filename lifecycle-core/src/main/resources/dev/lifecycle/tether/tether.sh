#!/bin/sh
# lifecycle tether sidecar (dev.lifecycle.tether.Tether; docs/TETHER.md).
# Run as: sh -c "<this text>" lifecycle-tether <grace-ms> <supervisor-pid>; stdin a pipe from the
# supervisor. No file on disk: nothing is left behind whenever either side dies.
# Lines: "add <pgid|-> <leader-pid|-> <leader-start-ticks|-> <cookie> [<cgroup dir>]" (a repeated
# cookie replaces its entry), "remove <cookie>", "exit" (leave without killing), "kill" (end every
# tree now). EOF or SIGTERM: end every tree.
# A tree with a cgroup: TERM+CONT to its members (cgroup.procs), up to the grace while the cgroup
# is populated, then cgroup.kill; its cgroup is removed once empty. No /proc walk.
# A tree without one: TERM+CONT to its group and to the processes carrying its cookie (a /proc
# environ search at the start, again when all it found is gone, and before KILL; none per poll),
# up to the grace, then KILL.
# A group is signalled only when proven ours (its leader with the recorded start time, or a member
# carrying the cookie); never pid/pgid <= 1, never this script or its own group.
# Idle cost: one blocked read(2); no timers, no polling.

grace_ms=$1
parent=$2
case $grace_ms in '' | *[!0-9]*) grace_ms=5000 ;; esac
case $parent in '' | *[!0-9]*) parent=0 ;; esac
self=$$
[ -r /proc/self/stat ] && proc=1 || proc=0
trees=''
found='' # "pid:start" of cookie carriers found at the last search, per teardown

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

# populated DIR: whether the cgroup (or a descendant) still holds a process.
populated() {
  [ -f "$1/cgroup.events" ] || return 1
  while IFS=' ' read -r k v; do
    [ "$k" = populated ] && { [ "$v" = 1 ]; return; }
  done <"$1/cgroup.events"
  return 1
}

# hit_cgroup SIGNAL DIR: TERM (+CONT) to every member, or cgroup.kill for KILL; "none" probes.
hit_cgroup() {
  populated "$2" || return 0
  alive=1
  case $1 in
    none) ;;
    KILL) echo 1 >"$2/cgroup.kill" 2>/dev/null ;;
    *)
      for p in $(cat "$2/cgroup.procs" "$2"/*/cgroup.procs 2>/dev/null); do
        [ "$p" -gt 1 ] && [ "$p" != $self ] && [ "$p" != $parent ] || continue
        kill -s "$1" "$p" 2>/dev/null
        kill -s CONT "$p" 2>/dev/null
      done
      ;;
  esac
}

# group_alive PGID: a targeted check (one kill(2)); zombies count until reaped.
group_alive() {
  kill -0 -- "-$1" 2>/dev/null
}

# hit SIGNAL COOKIE PGID LEADER START [CGROUP]: signals (SIGNAL "none": only probes) what is
# proven ours; sets alive=1 when any of it still runs. "search" refreshes the cookie carriers.
hit() {
  sig=$1 cookie=$2 group=$3 leader=$4 lstart=$5 cg=$6 proven=0
  if [ -n "$cg" ]; then
    hit_cgroup "$sig" "$cg"
  fi
  if [ "$lstart" != - ] && stat_of "$leader" && [ "$start" = "$lstart" ] && [ "$pg" = "$group" ]; then
    proven=1 # the leader, recognised by its start time, still pins the group id
  fi
  if [ -z "$cg" ]; then
    if [ "$search" = 1 ]; then
      list=$(carriers "$cookie" | tr ' ' ':')
      eval "found_$cookie_var=\$list"
    fi
    eval "list=\$found_$cookie_var"
    for c in $list; do
      p=${c%%:*} c=${c#*:}
      s=${c%%:*} c=${c#*:}
      g=${c%%:*}
      stat_of "$p" || continue # gone
      [ "$s" = - ] || [ "$start" = "$s" ] || continue # the pid was reused meanwhile
      case $st in Z*) continue ;; esac
      [ "$g" = "$group" ] && proven=1
      [ "$p" -gt 1 ] && [ "$p" != $self ] && [ "$p" != $parent ] || continue
      alive=1
      [ $sig = none ] && continue
      kill -s $sig "$p" 2>/dev/null
      [ $sig = TERM ] && kill -s CONT "$p" 2>/dev/null
    done
  fi
  if [ $proven = 1 ] && [ "$group" != - ] && [ "$group" -gt 1 ] && [ "$group" != "$own_group" ]; then
    group_alive "$group" && alive=1
    if [ $sig != none ]; then
      kill -s $sig -- "-$group" 2>/dev/null
      [ $sig = TERM ] && kill -s CONT -- "-$group" 2>/dev/null
    fi
  fi
  return 0
}

# each_sig SIGNAL: hit for every registered tree ("cookie pgid leader start [cgroup]" per line).
each_sig() {
  sig_arg=$1
  i=0
  IFS='
'
  for t in $trees; do # the list is split once, before the body runs
    IFS=' 	
'
    set -- $t
    i=$((i + 1))
    cookie_var=$i
    hit "$sig_arg" "$1" "$2" "$3" "$4" "$5"
  done
  IFS=' 	
'
}

# each_sig_searched SIGNAL: each_sig with the cookie carriers searched again first.
each_sig_searched() {
  search=1
  each_sig "$1"
  search=0
}

nap() { sleep 0.1 2>/dev/null || sleep 1; }

# remove_cgroups: rmdir every bound cgroup once empty (bounded), deepest first.
remove_cgroups() {
  n=0
  IFS='
'
  for t in $trees; do
    IFS=' 	
'
    set -- $t
    [ -n "$5" ] || continue
    while populated "$5" && [ $n -lt 50 ]; do
      nap
      n=$((n + 1))
    done
    for d in "$5"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
    rmdir "$5" 2>/dev/null
  done
  IFS=' 	
'
}

teardown() {
  trap '' TERM HUP INT
  alive=0
  each_sig_searched TERM
  # The grace is timed by a sleep of its own: checks take time, so counting naps would stretch it.
  # It inherits the ignored TERM, so it is ended with KILL: nothing of the tether outlives it.
  sleep "$((grace_ms / 1000)).$(printf %03d $((grace_ms % 1000)))" 2>/dev/null &
  timer=$!
  while [ $alive = 1 ] && kill -0 $timer 2>/dev/null; do
    nap
    alive=0
    each_sig none
    # All the last search found is gone, but a member may have forked since (on TERM, say):
    # search again before calling the trees gone.
    [ $alive = 0 ] && each_sig_searched none
  done
  kill -s KILL $timer 2>/dev/null
  wait $timer 2>/dev/null
  if [ $alive = 1 ]; then
    each_sig_searched KILL
    nap
    each_sig KILL # anything forked while the first KILL went out
  fi
  remove_cgroups
  exit 0
}

trap teardown TERM HUP INT
echo "ready $self"
exec >/dev/null

while IFS= read -r line; do
  case $line in *[!A-Za-z0-9._/\ -]*) continue ;; esac # nothing that could glob or inject
  set -- $line
  case $1 in
    add)
      [ $# = 5 ] || [ $# = 6 ] || continue
      case "$2$3$4" in *[!0-9-]*) continue ;; esac
      [ ${#5} -ge 8 ] || continue
      case "$5" in *[!A-Za-z0-9._-]*) continue ;; esac
      cg=''
      if [ $# = 6 ]; then
        case "$6" in /*) ;; *) continue ;; esac
        case "$6" in *..*) continue ;; esac
        cg=$6
      fi
      kept='' IFS='
'
      for t in $trees; do
        [ "${t%% *}" != "$5" ] && kept="$kept$t
"
      done
      IFS=' 	
'
      trees="$kept$5 $2 $3 $4${cg:+ $cg}
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
