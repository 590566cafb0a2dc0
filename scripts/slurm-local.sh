#!/usr/bin/env bash
# A single-node Slurm on this machine, to try the job array of docs/sharding.md before a cluster:
# munged, slurmctld and slurmd on loopback, one node of 2 CPUs, with their key, configuration,
# spool, state and logs in one folder.
#
#   sudo scripts/slurm-local.sh up [DIR]     # starts it; prints the SLURM_CONF to export
#   export SLURM_CONF=DIR/slurm.conf         # sbatch, squeue, scontrol now talk to it
#   sudo scripts/slurm-local.sh down [DIR]   # stops it and removes DIR
#
# DIR defaults to ${TMPDIR:-/tmp}/discern-slurm. `down` cancels the jobs, stops the daemons by the
# pids `up` recorded (and any job step still running under them), then removes DIR: nothing is
# left. `up` that fails part way takes down what it started. Needs root (slurmd starts each job as
# its user) and Debian's packages: apt-get install slurm-wlm munge.
set -euo pipefail
# The daemons are in sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin

usage="usage: scripts/slurm-local.sh up|down [DIR]"
action=${1:?$usage}
dir=${2:-${TMPDIR:-/tmp}/discern-slurm}
# The node slurmd says it is; slurmctld runs on this host, reached on loopback.
node=localnode
# How long the daemons may take to start, and any process to stop, in tenths of a second.
start_tenths=300
stop_tenths=50

die() {
    echo "slurm-local: $*" >&2
    exit 1
}

# Make DIR absolute, so that the configuration and the environment marker name it one way.
case $dir in
/*) ;;
*) dir=$PWD/$dir ;;
esac
conf=$dir/slurm.conf
# Every daemon `up` starts carries this variable, which names this folder alone: `down` finds by it
# what is left of them.
marker="DISCERN_SLURM_LOCAL=$dir"

alive() { kill -0 "$1" 2>/dev/null; }

# Waits until none of the processes $2... is left, for up to $1 tenths of a second.
wait_gone() {
    local tenths=$1 i pid
    shift
    for ((i = 0; i < tenths; i++)); do
        for pid in "$@"; do
            if alive "$pid"; then
                sleep 0.1
                continue 2
            fi
        done
        return 0
    done
    return 1
}

# Stops the processes $@: SIGTERM, and SIGKILL for those still there after the stop limit
# (slurmstepd ignores SIGTERM).
stop_pids() {
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    wait_gone "$stop_tenths" "$@" && return 0
    kill -KILL "$@" 2>/dev/null || true
    wait_gone "$stop_tenths" "$@" || echo "slurm-local: processes survived SIGKILL: $*" >&2
}

# Whether process $1 belongs to this folder's Slurm: a daemon `up` started (it carries the
# marker), or a job step's slurmstepd, which clears its environment but keeps slurmd's log open.
ours() {
    grep -qzxF "$marker" "/proc/$1/environ" 2>/dev/null && return 0
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = slurmstepd ] || return 1
    local fd
    for fd in "/proc/$1"/fd/*; do
        case $(readlink "$fd" 2>/dev/null) in "$dir"/*) return 0 ;; esac
    done
    return 1
}

# This folder's Slurm processes, and every process below them (the jobs' own), one a line.
marked_tree() {
    local -A parent=()
    local proc pid stat rest
    local tree=()
    for proc in /proc/[0-9]*; do
        pid=${proc#/proc/}
        # /proc/PID/stat: "PID (NAME) STATE PPID ..."; the name may hold spaces and parentheses.
        read -r stat 2>/dev/null <"$proc/stat" || continue
        rest=${stat##*) }
        read -r _ "parent[$pid]" _ <<<"$rest"
        ours "$pid" && tree+=("$pid")
    done
    local i=0
    while [ "$i" -lt ${#tree[@]} ]; do
        for pid in "${!parent[@]}"; do
            [ "${parent[$pid]}" = "${tree[$i]}" ] && tree+=("$pid")
        done
        i=$((i + 1))
    done
    [ ${#tree[@]} -eq 0 ] || printf '%s\n' "${tree[@]}"
}

down() {
    if [ ! -e "$dir/.slurm-local" ]; then
        [ -e "$dir" ] && die "$dir is not a folder slurm-local.sh made; not removing it"
        echo "slurm-local: nothing at $dir"
        return 0
    fi
    # Cancel the jobs while the controller still runs, so that their steps end cleanly.
    if [ -s "$dir/pids/slurmctld" ] && alive "$(cat "$dir/pids/slurmctld")"; then
        local jobs
        jobs=$(SLURM_CONF=$conf timeout 10 squeue -h -o %A 2>/dev/null | sort -u || true)
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086 # one job id a word
            SLURM_CONF=$conf timeout 10 scancel $jobs 2>/dev/null || true
            local i
            for ((i = 0; i < 50; i++)); do
                [ -z "$(SLURM_CONF=$conf timeout 10 squeue -h -o %A 2>/dev/null)" ] && break
                sleep 0.2
            done
        fi
    fi
    local name pids=()
    for name in slurmd slurmctld munged; do
        [ -s "$dir/pids/$name" ] && pids+=("$(cat "$dir/pids/$name")")
    done
    stop_pids "${pids[@]+"${pids[@]}"}"
    # Job steps (slurmstepd and what it started) that outlived slurmd.
    # shellcheck disable=SC2046 # one pid a word
    stop_pids $(marked_tree)
    rm -rf "${dir:?}"
    echo "slurm-local: stopped, $dir removed"
}

# A TCP port nobody listens on, from /proc/net/tcp{,6} (hex port, state 0A = LISTEN).
free_port() {
    local used port
    used=$(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
    for ((port = 20000 + RANDOM % 20000; port < 65000; port++)); do
        grep -qix "$(printf '%04X' "$port")" <<<"$used" || [ "$port" = "${1:-}" ] || {
            echo "$port"
            return 0
        }
    done
    die "no free TCP port"
}

# Starts daemon $1 (the rest: its command, in the foreground) with the marker, logging to
# DIR/log/$1.log, and records its pid.
start() {
    local name=$1
    shift
    env "$marker" SLURM_CONF="$conf" "$@" </dev/null >>"$dir/log/$name.log" 2>&1 &
    echo $! >"$dir/pids/$name"
}

up() {
    [ "$(id -u)" = 0 ] || die "needs root: slurmd starts each job as the user who submitted it"
    local tool
    for tool in munged slurmctld slurmd sbatch sinfo; do
        command -v "$tool" >/dev/null || die "$tool not found: apt-get install slurm-wlm munge"
    done
    [ -e "$dir" ] && die "$dir exists: a Slurm is up there, or left over; run: $0 down $dir"
    # munged wants its socket's folder, and each one above it, searchable by all.
    mkdir -p "$(dirname "$dir")"
    mkdir -m 0755 "$dir"
    touch "$dir/.slurm-local"
    trap 'echo "slurm-local: up failed; taking down what it started" >&2; down >&2' EXIT
    mkdir -m 0755 "$dir/munge"
    mkdir -m 0700 "$dir/log" "$dir/pids" "$dir/state" "$dir/spool"

    # munge: a fresh key, readable by root alone, and a socket in this folder.
    head -c 1024 /dev/urandom >"$dir/munge/munge.key"
    chmod 0400 "$dir/munge/munge.key"
    start munged munged --foreground --key-file="$dir/munge/munge.key" \
        --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
        --seed-file="$dir/munge/munged.seed" --log-file="$dir/log/munged.log"
    local i
    for ((i = 0; i < start_tenths; i++)); do
        [ -S "$dir/munge/munge.socket" ] && break
        alive "$(cat "$dir/pids/munged")" || die "munged stopped: $(tail -n 5 "$dir/log/munged.log")"
        sleep 0.1
    done
    [ -S "$dir/munge/munge.socket" ] || die "munged made no socket: $(tail -n 5 "$dir/log/munged.log")"

    local ctld_port slurmd_port host
    ctld_port=$(free_port)
    slurmd_port=$(free_port "$ctld_port")
    host=$(hostname -s)
    cat >"$conf" <<EOF
# A single-node Slurm for trying docs/sharding.md, written by scripts/slurm-local.sh.
ClusterName=discern-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups: jobs are tracked by their process tree, and not confined.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
# Each CPU is scheduled on its own, so two one-CPU tasks run at once.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    start slurmctld slurmctld -D -f "$conf"
    start slurmd slurmd -D -f "$conf" -N "$node"
    local state=""
    for ((i = 0; i < start_tenths; i++)); do
        state=$(SLURM_CONF=$conf sinfo -h -n "$node" -o %T 2>/dev/null || true)
        [ "$state" = idle ] && break
        for tool in slurmctld slurmd; do
            alive "$(cat "$dir/pids/$tool")" || die "$tool stopped: $(tail -n 5 "$dir/log/$tool.log")"
        done
        sleep 0.1
    done
    [ "$state" = idle ] || die "node $node is '${state:-unknown}', not idle: $(tail -n 5 "$dir/log/slurmd.log")"
    trap - EXIT
    echo "slurm-local: up in $dir; now: export SLURM_CONF=$conf"
}

case $action in
up) up ;;
down) down ;;
*) die "$usage" ;;
esac
