#!/usr/bin/env bash
# Runs scenarios on the tc engine (`discern run SCENARIO --link netns`) inside a virtual machine
# whose kernel has Linux's own qdiscs (sch_netem, sch_tbf, sch_codel, sch_pie, sch_fq_codel,
# act_police), for hosts whose kernel lacks them. Nothing is installed on the host beyond
# Debian's packages: the kernel package is downloaded and unpacked, not installed, and the VM
# needs no root on the host.
#
#   scripts/kernel-vm.sh [--out DIR] [--discern BIN] SCENARIO.toml... [-- DISCERN RUN ARGS...]
#   scripts/kernel-vm.sh --prepare      (only download and unpack the kernel into the cache)
#
# Limits, from the environment: VM_TIMEOUT_S (900) for the whole VM run, VM_BOOT_S (90) for its
# init to say it booted, VM_BOOT_ATTEMPTS (3) boots before giving up.
#
# Needs: qemu-system-x86 and busybox-static (apt-get install -y qemu-system-x86 busybox-static),
# iproute2, python3, and apt-get to fetch linux-image-cloud-amd64 (cached in $KERNEL_VM_DIR,
# default target/kernel-vm/). Uses KVM where /dev/kvm works, software emulation (TCG) otherwise.
#
# The VM boots from an initramfs holding busybox, iproute2's ip and tc with their libraries, the
# kernel modules, the discern binary with its libraries and the scenario files. Inside, it first
# runs a lossless calibration flow at the scenarios' highest link rate: its share of the link
# rate says whether the VM keeps up at that rate (under TCG every packet costs emulated CPU, and
# a CPU-bound VM would look like a slow link). Then each scenario runs; the outputs come back as
# a base64 tar on the serial console, into DIR/NAME/ (default out/kernel-vm/).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${KERNEL_VM_DIR:-$ROOT/target/kernel-vm}"
OUT="$ROOT/out/kernel-vm"
DISCERN="${DISCERN:-}"
# Under TCG every packet costs emulated CPU. A 2-vCPU VM carries 4 Mbit/s in full (the
# calibration says so each run); links faster than this limit are refused outright, and below it
# the calibration decides.
TCG_MAX_BPS="${TCG_MAX_BPS:-20000000}"
# The VM must carry this fraction of what the simulator carries on the calibration link.
MIN_SHARE="${MIN_SHARE:-0.90}"
TIMEOUT_S="${VM_TIMEOUT_S:-900}"
# A VM that has not said it booted within BOOT_S seconds is restarted, up to BOOT_ATTEMPTS times.
BOOT_S="${VM_BOOT_S:-90}"
BOOT_ATTEMPTS="${VM_BOOT_ATTEMPTS:-3}"

die() { echo "kernel-vm: $*" >&2; exit 1; }

SCENARIOS=()
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$(realpath -m "$2")"; shift 2 ;;
    --discern) DISCERN="$2"; shift 2 ;;
    --prepare) PREPARE=1; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) [ -f "$1" ] || die "scenario file $1 not found"; SCENARIOS+=("$(realpath "$1")"); shift ;;
  esac
done
PREPARE="${PREPARE:-0}"
[ ${#SCENARIOS[@]} -gt 0 ] || [ "$PREPARE" = 1 ] \
  || die "no scenario given: scripts/kernel-vm.sh SCENARIO.toml..."

QEMU="$(command -v qemu-system-x86_64 || true)"
[ -n "$QEMU" ] || die "qemu-system-x86_64 not found: apt-get install -y qemu-system-x86"
BUSYBOX="$(command -v busybox || true)"
[ -n "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 \
  || die "a static busybox is needed in the VM: apt-get install -y busybox-static"
IP="$(command -v ip || true)"; TC="$(command -v tc || true)"
[ -n "$IP" ] && [ -n "$TC" ] || die "ip and tc not found: apt-get install -y iproute2"
command -v python3 >/dev/null || die "python3 not found (it reads the scenarios' rates): apt-get install -y python3"
if [ -z "$DISCERN" ]; then
  for b in "$ROOT/target/release/discern" "${CARGO_TARGET_DIR:-$ROOT/target}/release/discern"; do
    [ -x "$b" ] && DISCERN="$b" && break
  done
fi
[ "$PREPARE" = 1 ] || { [ -n "$DISCERN" ] && [ -x "$DISCERN" ]; } \
  || die "no discern binary: cargo build --release -p quinn-discern-harness, or pass --discern BIN"

# The accelerator: KVM where a probe boot of the VM under it reaches /init (a /dev/kvm that
# opens may still fail at the first instruction, as on nested hosts), TCG otherwise.
accel() {
  if [ -w /dev/kvm ] && timeout 60 "$QEMU" -accel kvm -cpu host -smp 1 -m 256 -nographic \
      -no-reboot -kernel "$KERNEL" -initrd "$INITRD" -append "console=ttyS0 quiet discern_probe" \
      </dev/null 2>/dev/null | grep -q "discern-vm: booted"; then
    echo kvm
  elif "$QEMU" -accel help 2>/dev/null | grep -qx tcg; then
    echo tcg
  else
    die "qemu has neither a working KVM nor TCG: enable KVM (/dev/kvm), or install a qemu-system-x86 built with TCG"
  fi
}

# The kernel: Debian's cloud kernel, downloaded and unpacked once into the cache.
kernel() {
  local deb_dir="$CACHE/debs" root="$CACHE/root"
  if ! ls "$root"/boot/vmlinuz-* >/dev/null 2>&1; then
    mkdir -p "$deb_dir" "$root"
    ( cd "$deb_dir" && apt-get download linux-image-cloud-amd64 >/dev/null 2>&1 ) \
      || die "the package linux-image-cloud-amd64 was not found: run apt-get update (Debian or Ubuntu with Debian's archive), or unpack a kernel with sch_netem into $root"
    local dep
    dep="$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-/{print $2; exit}')"
    [ -n "$dep" ] || die "linux-image-cloud-amd64 names no versioned kernel package: run apt-get update"
    ( cd "$deb_dir" && apt-get download "$dep" >/dev/null 2>&1 ) \
      || die "the kernel package $dep was not found: run apt-get update"
    dpkg-deb -x "$deb_dir/${dep}_"*.deb "$root"
  fi
  ls "$root"/boot/vmlinuz-* | head -1
}

# Copies a binary and the shared libraries it loads (ldd) into the initramfs tree $1.
with_libs() {
  local tree="$1" bin="$2" dest="$3"
  install -D -m 755 "$bin" "$tree$dest"
  ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
    [ -e "$tree$lib" ] || install -D -m 755 "$lib" "$tree$lib"
  done
}

# The highest link rate over the scenarios, in bit/s, read from their TOML.
max_rate() {
  python3 - "$@" <<'EOF'
import sys, tomllib, re
units = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}
best = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        s = tomllib.load(f)
    for link in s.get("link", []):
        m = re.fullmatch(r"\s*([0-9.]+)\s*([kKmMgG]?)(bit|bps)?\s*", str(link.get("rate", "0")))
        if m:
            best = max(best, float(m.group(1)) * units[m.group(2).lower()])
print(int(best))
EOF
}

# The modules the tc engine and the user-space engine need, in load order (none depends on
# another in Debian's cloud kernel; fq_codel and cubic are built in).
MODULES="veth ifb tun sch_netem sch_tbf sch_codel sch_pie sch_ingress cls_matchall act_mirred act_police"

# What the VM runs as /init: mounts, modules, then the calibration and every scenario, each
# run's outputs sent back as one base64 tar between markers on the serial console.
write_init() {
  cat >"$1" <<'INIT'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /run /tmp /var
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox mount -t tmpfs tmp /tmp
/bin/busybox mount -t tmpfs run /run
/bin/busybox ln -s /run /var/run
# busybox's own ip and tc applets would shadow iproute2's: link every applet but those.
for a in $(/bin/busybox --list); do
  case $a in ip|tc|busybox) ;; *) [ -e /bin/$a ] || /bin/busybox ln -s busybox /bin/$a ;; esac
done
export PATH=/usr/sbin:/sbin:/usr/bin:/bin HOME=/tmp
echo "discern-vm: booted"
if grep -q discern_probe /proc/cmdline; then poweroff -f; fi
for m in $(cat /modules.list); do insmod /modules/$m.ko || echo "discern-vm: insmod $m failed"; done
/usr/sbin/ip link set lo up
cd /job
mkdir -p /tmp/out
for s in $(cat /job/order); do
  echo "discern-vm: run $s"
  args="$(cat /job/args)"
  # The calibration is one plain run, whatever the scenarios are given.
  [ "$s" = calibration ] && args=""
  ./discern run "scenarios/$s.toml" --link netns --out "/tmp/out/$s" $args >"/tmp/out/$s.log" 2>&1
  echo "$?" >"/tmp/out/$s.rc"
  echo "discern-vm: done $s rc=$(cat /tmp/out/$s.rc)"
done
echo "discern-vm: outputs begin"
tar -C /tmp -czf - out | base64
echo "discern-vm: outputs end"
poweroff -f
INIT
  chmod 755 "$1"
}

# The calibration scenario: one NewReno flow over a lossless link at RATE bit/s, one BDP of queue.
write_calibration() {
  local rate="$1" file="$2"
  local queue=$(( rate * 50 / 1000 / 12000 + 4 ))
  cat >"$file" <<CAL
name = "calibration"
description = "a lossless flow: what share of the link rate the VM carries"
duration = "4s"
seed = 1
[[link]]
name = "link"
rate = "${rate}bit"
delay = "20ms"
queue = $queue
[[flow]]
controller = "newreno"
path = ["link"]
CAL
}

build_initramfs() {
  local tree="$WORK/initramfs" mods kver
  rm -rf "$tree" && mkdir -p "$tree"/{bin,sbin,usr/sbin,modules,job/scenarios}
  install -m 755 "$BUSYBOX" "$tree/bin/busybox"
  with_libs "$tree" "$IP" /usr/sbin/ip
  with_libs "$tree" "$TC" /usr/sbin/tc
  with_libs "$tree" "$DISCERN" /job/discern
  # Debug information is most of a test build's size, and the initramfs lives in the VM's RAM.
  if command -v strip >/dev/null; then strip --strip-debug "$tree/job/discern"; fi
  kver="$(basename "$KERNEL" | sed 's/^vmlinuz-//')"
  mods="$CACHE/root/lib/modules/$kver/kernel"
  for m in $MODULES; do
    local ko; ko="$(find "$mods" -name "$m.ko" | head -1)"
    [ -n "$ko" ] || die "module $m.ko missing from the kernel package in $CACHE/root"
    cp "$ko" "$tree/modules/"
  done
  echo "$MODULES" | tr ' ' '\n' >"$tree/modules.list"
  # iproute2 reads its tables (rt_tables, ...) from here; tc's distribution tables for netem.
  for d in /etc/iproute2 /usr/share/iproute2 /usr/lib/tc /usr/lib/x86_64-linux-gnu/tc; do
    [ -d "$d" ] && mkdir -p "$tree$d" && cp -r "$d/." "$tree$d/"
  done
  write_calibration "$RATE" "$tree/job/scenarios/calibration.toml"
  cp "$tree/job/scenarios/calibration.toml" "$WORK/calibration.toml"
  local order="calibration"
  for s in "${SCENARIOS[@]}"; do
    local n; n="$(basename "$s" .toml)"
    cp "$s" "$tree/job/scenarios/$n.toml"
    order="$order $n"
  done
  echo "$order" >"$tree/job/order"
  printf '%s ' "${EXTRA[@]}" >"$tree/job/args"
  write_init "$tree/init"
  ( cd "$tree" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1 ) >"$INITRD"
  rm -rf "$tree"
}

cleanup() {
  [ -n "${QEMU_PID:-}" ] && kill "$QEMU_PID" 2>/dev/null || true
  rm -rf "${WORK:-}"
}
trap cleanup EXIT
trap 'echo "kernel-vm: interrupted" >&2; exit 130' INT TERM

mkdir -p "$CACHE"
KERNEL="$(kernel)"
if [ "$PREPARE" = 1 ]; then
  echo "kernel-vm: $KERNEL is ready" >&2
  exit 0
fi
RATE="$(max_rate "${SCENARIOS[@]}")"
[ "$RATE" -gt 0 ] || die "no link rate found in the scenarios"
# Everything of this run (initramfs, console log, outputs) is in WORK, removed on every way out,
# so that runs at once do not share files.
WORK="$(mktemp -d)"
INITRD="$WORK/initramfs.cpio.gz"
build_initramfs
ACCEL="$(accel)"
if [ "$ACCEL" = tcg ] && [ "$RATE" -gt "$TCG_MAX_BPS" ]; then
  die "a scenario's link runs at $((RATE / 1000000)) Mbit/s, more than the $((TCG_MAX_BPS / 1000000)) Mbit/s allowed under software emulation (no KVM here), where the emulated CPU rather than the link would set the pace: lower the rate in the scenario file (the calibration reads the files, not --set), or run where KVM works"
fi
case "$ACCEL" in
  kvm) ACCEL_ARGS=(-accel kvm -cpu host) ;;
  *) ACCEL_ARGS=(-accel tcg,thread=multi -cpu max) ;;
esac

# Starts the VM in the background (QEMU_PID), its console in $WORK/serial.log.
start_vm() {
  timeout "$TIMEOUT_S" "$QEMU" "${ACCEL_ARGS[@]}" -smp 2 -m 2048 -nographic -no-reboot \
    -kernel "$KERNEL" -initrd "$INITRD" -append "console=ttyS0 quiet panic=-1" \
    </dev/null >"$WORK/serial.log" 2>&1 &
  QEMU_PID=$!
}

# Whether the VM's init said it booted within BOOT_S seconds. Under TCG the firmware now and then
# hands over to the kernel and the console stays silent for good; a VM that boots prints its
# first line within seconds.
booted() {
  local waited=0
  while [ "$waited" -lt "$BOOT_S" ]; do
    grep -aq "discern-vm: booted" "$WORK/serial.log" 2>/dev/null && return 0
    kill -0 "$QEMU_PID" 2>/dev/null || return 1
    sleep 1
    waited=$((waited + 1))
  done
  return 1
}

echo "kernel-vm: booting $(basename "$KERNEL") under $ACCEL, calibration at $((RATE / 1000)) kbit/s, ${#SCENARIOS[@]} scenario(s)" >&2
START=$(date +%s)
for attempt in $(seq 1 "$BOOT_ATTEMPTS"); do
  start_vm
  booted && break
  kill "$QEMU_PID" 2>/dev/null || true
  wait "$QEMU_PID" 2>/dev/null || true
  echo "kernel-vm: the VM printed nothing for ${BOOT_S} s after boot (attempt $attempt of $BOOT_ATTEMPTS)" >&2
  [ "$attempt" -lt "$BOOT_ATTEMPTS" ] || die "the VM did not boot in $BOOT_ATTEMPTS attempts of ${BOOT_S} s; the console's tail: $(tail -c 300 "$WORK/serial.log" | tr -d '\033')"
done
wait "$QEMU_PID" || true
QEMU_PID=
echo "kernel-vm: the VM ran for $(( $(date +%s) - START )) s" >&2
grep -a "discern-vm: outputs end" "$WORK/serial.log" >/dev/null || {
  tail -30 "$WORK/serial.log" >&2
  die "the VM ended without sending its outputs (the console's tail is above)"
}
sed -n '/discern-vm: outputs begin/,/discern-vm: outputs end/p' "$WORK/serial.log" \
  | tr -d '\r' | grep -v '^discern-vm:' | base64 -d | tar -C "$WORK" -xzf -
mkdir -p "$OUT"
cp -r "$WORK/out/." "$OUT/"
cp "$WORK/serial.log" "$OUT/serial.log"

# The simulator's run of the same calibration: what a flow that is not CPU-bound gets (slow
# start and headers keep it below the link rate).
"$DISCERN" run "$WORK/calibration.toml" --out "$WORK/calibration-sim" >/dev/null
python3 - "$OUT" "$WORK/calibration-sim" "$RATE" "$MIN_SHARE" "$ACCEL" <<'PY'
import json, os, sys
out, sim, rate, min_share, accel = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
import csv
# From the first second on: under emulation the TLS handshake alone takes about half a second,
# which says how slow the VM's crypto is, not what rate its links carry.
def share(d, t0=1.0):
    end = float(json.load(open(os.path.join(d, "summary.json")))["duration_s"])
    rows = [(float(r["t_s"]), int(r["delivered_bytes"]))
            for r in csv.DictReader(open(os.path.join(d, "flows.csv")))]
    before = [b for t, b in rows if t <= t0]
    return (max(b for _, b in rows) - (before[-1] if before else 0)) * 8 / (end - t0) / rate
vm, model = share(os.path.join(out, "calibration")), share(sim)
print(f"calibration: a lossless NewReno flow carried (after its first second) {vm:.1%} of {rate / 1e6:g} Mbit/s in the VM "
      f"({accel}), {model:.1%} in the simulator")
with open(os.path.join(out, "calibration.json"), "w") as f:
    json.dump({"accel": accel, "rate_bps": rate, "share": vm, "simulator_share": model}, f)
if vm < min_share * model:
    sys.exit(f"kernel-vm: the VM carried {vm:.0%} of {rate / 1e6:g} Mbit/s lossless, the simulator "
             f"{model:.0%}: the VM is CPU-bound at this rate (or its host is busy), so its results "
             "would measure the emulation; lower the scenarios' rates, free the host's CPUs, or "
             "run where KVM works")
PY
FAILED=0
for s in "${SCENARIOS[@]}"; do
  n="$(basename "$s" .toml)"
  echo "== $n (exit $(cat "$OUT/$n.rc"))"
  # The run wrote to the VM's /tmp/out/; its outputs are now here.
  sed "s|/tmp/out/|$OUT/|g" "$OUT/$n.log"
  [ "$(cat "$OUT/$n.rc")" = 0 ] || FAILED=1
done
echo "kernel-vm: outputs in $OUT/NAME/ (summary.json), the console in $OUT/serial.log" >&2
exit "$FAILED"
