#!/usr/bin/env bash
# The steps of .github/workflows/collection.yml (a whole collection recorded
# on several machines at once), one subcommand each, so that the workflow
# and test/collection-ci.test.ts run the same commands:
#
#   scripts/collection-ci.sh shard K N COLLECTION [PREVIOUS]   -> shard-K.hist
#       record the K-th of N shares of the tests under COLLECTION, dealt by
#       what each cost in PREVIOUS (an earlier whole history; without one,
#       every Nth test), the costliest started first
#   scripts/collection-ci.sh merge OUT SHARD...                -> OUT
#       the shards' histories as one
#   scripts/collection-ci.sh compare PREVIOUS CURRENT REPORT   -> REPORT, REPORT.json
#       cmplitmushist.sh's categories of CURRENT against PREVIOUS, nothing
#       run again; exit 1 when a result changed with an Observation on both
#       sides (one that changed only by a timeout in one run is named in
#       REPORT, not failed: the time limit is wall time)
#
# LITMUS (default: this checkout's CLI), LITMUS_TIMEOUT (default 10s),
# LITMUS_JOBS (default: one per core) and LITMUS_SPEEDCHECK (1: record with
# --speedcheck) are read from the environment.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
litmus=(${LITMUS:-node "$root/dist/src/cli/start.cjs"})
timeout="${LITMUS_TIMEOUT:-10s}"
jobs=()
[ -n "${LITMUS_JOBS:-}" ] && jobs=(-j "$LITMUS_JOBS")
usage() { sed -n '6,20p' "$0" >&2; exit 2; }
case "${1:-}" in
  shard)
    [ $# -ge 4 ] || usage
    k="$2" n="$3" collection="$4" previous="${5:-}"
    costs=()
    if [ -n "$previous" ] && [ -f "$previous" ]; then costs=(--costs "$previous"); fi
    speed=()
    [ -n "${LITMUS_SPEEDCHECK:-}" ] && speed=(--speedcheck)
    "${litmus[@]}" history record "${jobs[@]}" "${speed[@]}" --timeout "$timeout" --shard "$k/$n" "${costs[@]}" --out "shard-$k.hist" "$collection"
    ;;
  merge)
    [ $# -ge 3 ] || usage
    out="$2"
    shift 2
    "${litmus[@]}" history merge --out "$out" "$@"
    ;;
  compare)
    [ $# -eq 4 ] || usage
    previous="$2" current="$3" report="$4"
    status=0
    "${litmus[@]}" history diff --json "$previous" "$current" > "$report.json" || status=$?
    [ "$status" -le 1 ] || exit "$status"
    "${litmus[@]}" history diff "$previous" "$current" > "$report" || true
    if [ "$status" -eq 1 ]; then
      # A time limit is wall time: a test near it may time out in one run and
      # not in the other, which cmplitmushist.sh's categories call a changed
      # result. The job fails on a result that changed with an Observation on
      # both sides; those that changed only by a timeout are named, not failed.
      read -r results timeouts < <(node -e '
        const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const t = r.changed.filter((c) => c.before === "timed out" || c.after === "timed out").length;
        console.log(r.changed.length - t, t);' "$report.json")
      if [ "$timeouts" -gt 0 ]; then
        echo "Of the changed results, $timeouts changed only by a test that timed out in one run (not failed; raise LITMUS_TIMEOUT to judge them)" >> "$report"
      fi
      [ "$results" -gt 0 ] || status=0
    fi
    tail -n 8 "$report"
    exit "$status"
    ;;
  *) usage ;;
esac
