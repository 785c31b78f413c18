#!/usr/bin/env bash
# A private Slurm (controller, node daemon, munge) for the sweep tests: slurm_cluster.sh DIR PORT
# writes DIR/slurm.conf (ports PORT and PORT+1 on loopback, state, spool, logs and key under DIR)
# and runs the daemons in the foreground in a new PID namespace (unshare --kill-child), so that
# killing this script's process stops the daemons and every job. docs/cluster.md, and
# ../shared/reference/cluster.md for why each setting is what it is. Needs root.
set -euo pipefail
export PATH=$PATH:/usr/sbin:/sbin  # the daemons live there; a CI PATH may lack it
D=$1
PORT=$2
mkdir -p "$D"/{munge,state,spool/localhost,run,log}
chmod 0755 "$D" "$D/munge"
cat > "$D/slurm.conf" <<CONF
ClusterName=pcglabtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket.2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,sched_interval=1,bf_interval=1
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=300
KillWait=5
InactiveLimit=0
Waittime=0
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
mungekey --create --keyfile="$D/munge/munge.key" --force >/dev/null 2>&1 ||
  { dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none; }
chmod 0600 "$D/munge/munge.key"
export SLURM_CONF=$D/slurm.conf
exec unshare --pid --fork --kill-child --mount-proc bash -c '
  D=$1
  munged -F --key-file="$D/munge/munge.key" --socket="$D/munge/munge.socket.2" \
    --pid-file="$D/munge/munged.pid" --seed-file="$D/munge/munge.seed" --log-file="$D/log/munged.log" &
  for _ in $(seq 100); do [ -S "$D/munge/munge.socket.2" ] && break; sleep 0.05; done
  slurmctld -D -i -f "$D/slurm.conf" &
  slurmd -D -N localhost -f "$D/slurm.conf" &
  wait' bash "$D"
