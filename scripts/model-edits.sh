#!/usr/bin/env bash
# Edits of the kernel's LKMM files, each checked by herd7 and by litmus herd7
# in a copy of the files: the Observation and Flag lines of every test of the
# kernel corpus must be identical. Needs herd7 built by
# ../shared/tools/build-herd.sh (HERD_HOME, default ~/herd); not for CI.
# Usage: scripts/model-edits.sh [LKMM_DIR] [CORPUS_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lkmm="${1:-$root/../shared/lkmm}"
corpus="${2:-$root/../shared/corpus}"
H="${HERD_HOME:-$HOME/herd}"
herd="$H/bin/herd7"
[ -x "$herd" ] || { echo "no herd7 at $herd (build it with shared/tools/build-herd.sh)"; exit 2; }
litmus="$root/dist/src/cli/herd7-start.cjs"
work="$(mktemp -d)"
files=$(find "$corpus/kernel" "$corpus/herd-linux" -name '*.litmus' | sort)
status=0
edit() { # NAME FILE SED-EXPRESSION
  local d="$work/$1"
  mkdir -p "$d" && cp "$lkmm"/*.cfg "$lkmm"/*.cat "$lkmm"/*.bell "$lkmm"/*.def "$d"/
  sed -i "$3" "$d/$2"
  if [ "$1" != unedited ] && cmp -s "$d/$2" "$lkmm/$2"; then echo "$1: the edit does not apply"; status=1; return; fi
  for f in $files; do
    (cd "$d" && timeout 60 "$herd" -set-libdir "$H/src/herd/libdir" -I "$d" -conf linux-kernel.cfg "$f" 2>&1 | grep -E '^(Observation|Flag)' || true) >> "$d/herd7.txt"
    (cd "$d" && node "$litmus" -I "$d" -conf linux-kernel.cfg "$f" 2>&1 | grep -E '^(Observation|Flag)' || true) >> "$d/litmus.txt"
  done
  if diff "$d/herd7.txt" "$d/litmus.txt" > "$d/diff.txt"; then
    echo "$1: identical on $(grep -c '^Observation' "$d/herd7.txt") tests ($(sort -u "$d/herd7.txt" | grep -c ' Sometimes ') Sometimes)"
  else
    echo "$1: DIFFERENT"; head -20 "$d/diff.txt"; status=1
  fi
}
edit unedited linux-kernel.cfg 's/^squished true$/squished true/'
edit strong-fence=gp linux-kernel.cat 's/^let strong-fence = mb | gp$/let strong-fence = gp/'
edit no-rcu-axiom linux-kernel.cat 's/^irreflexive rb as rcu$/(* irreflexive rb as rcu *)/'
edit ppo-without-to-w linux-kernel.cat 's/^let ppo = to-r | to-w | /let ppo = to-r | /'
edit smp_mb-as-barrier linux-kernel.def 's/^smp_mb() { __fence{MB}; }$/smp_mb() { __fence{barrier}; }/'
edit Marked-without-ONCE linux-kernel.bell 's/IW | ONCE | RELEASE/IW | RELEASE/'
rm -rf "$work"
exit $status
