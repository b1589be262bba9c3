#!/usr/bin/env bash
# A one-node Slurm cluster on 127.0.0.1 for tests and demos: munged,
# slurmctld and slurmd as root, every file under one state folder, two fake
# GPUs in gres.conf (character devices made with mknod, as /dev/null).
#
#   scripts/slurm-local.sh start DIR   # prints "export SLURM_CONF=DIR/slurm.conf"
#   scripts/slurm-local.sh stop DIR
#
# Needs root and Debian's slurm-wlm and munge (scripts/install-deps.sh).
# Ports: the first free pair from 16817/16818 up, or SLURM_LOCAL_PORT (ctld)
# and the next one (slurmd).
set -euo pipefail

cmd="${1:-}"
dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|start-if-possible|stop DIR" >&2; exit 2; }
# start-if-possible: as start, but where no cluster can run here (not root,
# Slurm not installed) says why, also in DIR.why (the tests' skip message
# quotes it), and exits 0; tests then skip.
if_possible=0
if [ "$cmd" = start-if-possible ]; then if_possible=1; cmd=start; fi
why_file="${dir%/}.why"
cannot() {
  echo "slurm-local: $1" >&2
  rm -rf "$dir"
  [ "$if_possible" = 1 ] && echo "$1" > "$why_file"
  [ "$if_possible" = 1 ] && exit 0
  exit 3
}
# A free pair of ports from 16817 up (another cluster, e.g. a second test
# run, may hold the first), unless SLURM_LOCAL_PORT says which.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port="${SLURM_LOCAL_PORT:-}"
if [ -z "$port" ]; then
  port=16817
  while listening "$port" || listening "$((port + 1))"; do port=$((port + 2)); done
fi

stop() {
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    if [ -f "$pidfile" ]; then
      kill "$(cat "$pidfile")" 2>/dev/null || true
    fi
  done
  for _ in $(seq 50); do
    alive=0
    for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
      [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && alive=1
    done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
}

case "$cmd" in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac

rm -f "$why_file"
[ "$(id -u)" = 0 ] || cannot "needs root"
for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || cannot "$tool is not installed"
done

stop
rm -rf "$dir"
mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool" "$dir/log" "$dir/dev"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/seed" --force
for i in 0 1; do mknod "$dir/dev/gpu$i" c 1 3; done
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
cat > "$dir/slurm.conf" <<EOC
ClusterName=hpt-local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: also how long a requeued job waits before it may run again
# (Slurm's default, 120 s, would hold the requeue tests two minutes).
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
# A requeued job's begin time passes without an event that would schedule
# it: the main scheduling pass every second starts it (every 60 s by
# default; the backfill pass skips a queue that has not changed).
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu,shard
DefMemPerCPU=256
MinJobAge=600
KillWait=5
ReturnToService=2
NodeName=localhost CPUs=$(nproc) RealMemory=$mem_mb Gres=gpu:2,shard:8 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
# A job in "urgent" preempts jobs of "debug" that hold what it needs, and
# Slurm cancels them (state PREEMPTED); nothing is submitted there but by
# the tests of that.
PartitionName=urgent Nodes=localhost MaxTime=INFINITE State=UP PriorityTier=2
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
EOC
# Each card also offers 4 shards (a quarter each): jobs asking for shards
# share a card, as --slurm-shards-per-gpu 4 tells hpt.
{
  for i in 0 1; do
    printf 'Name=gpu File=%s\n' "$dir/dev/gpu$i"
    printf 'Name=shard Count=4 File=%s\n' "$dir/dev/gpu$i"
  done
} > "$dir/gres.conf"
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  if sinfo -h -o %t 2>/dev/null | grep -q idle; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "slurm-local: the node did not come up; see $dir/log" >&2
exit 1
