#!/usr/bin/env bash
# Runs every script of the kernel's tools/memory-model/scripts with litmus's
# commands in herd7's and mselect7's places (litmus-herd7 and litmus-mselect7
# behind links named herd7 and mselect7, first on PATH), in a copy of
# tools/memory-model, and says for each script whether it did what it does
# with herd7. Nothing is downloaded: give it a kernel tree's
# tools/memory-model (the scripts, litmus-tests/ and the model files); the
# collection the history scripts run (their `litmus/` folder, which they
# would otherwise clone) is a sample of ../shared/corpus/paulmckrcu-litmus
# when that is here, else the kernel's litmus-tests.
#
#   scripts/kernel-scripts.sh TOOLS_MEMORY_MODEL [--herd7 HERD7] [--sample N] [--keep DIR]
#
# --herd7 HERD7: also run the history scripts with that herd7 (its -conf
# read from the copy, as the scripts run it) and compare each test's
# Observation line with litmus's. --sample N: every Nth test of the
# collection (default 40). --keep DIR: work in DIR and leave it.
# Exit 0 when every script did what it does with herd7; the lines say which.
# Not for CI (it needs a kernel tree); test/kernel-scripts.test.ts runs it
# when LITMUS_KERNEL_SCRIPTS names one.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmm="${1:?usage: scripts/kernel-scripts.sh TOOLS_MEMORY_MODEL [--herd7 HERD7] [--sample N] [--keep DIR]}"
shift
herd=""
sample=40
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --herd7) herd="$2"; shift 2 ;;
    --sample) sample="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "kernel-scripts: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -d "$tmm/scripts" ] || { echo "kernel-scripts: no scripts/ in $tmm" >&2; exit 2; }
[ -x "$root/dist/src/cli/litmus-herd7" ] || { echo "kernel-scripts: build litmus first (npm run build)" >&2; exit 2; }
tmm="$(cd "$tmm" && pwd)"
work="${keep:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
status=0
say() { printf '%-22s %s\n' "$1" "$2"; }
fail() { say "$1" "DIFFERS: $2"; status=1; }

# The copy: scripts, model files, litmus-tests; litmus/ as the collection.
make_copy() { # DEST
  mkdir -p "$1"
  cp -r "$tmm/scripts" "$1/"
  cp "$tmm"/*.cfg "$tmm"/*.cat "$tmm"/*.bell "$tmm"/*.def "$1/" 2>/dev/null
  if [ -d "$tmm/litmus-tests" ]; then cp -r "$tmm/litmus-tests" "$1/"; fi
  mkdir -p "$1/litmus"
  local corpus="$root/../shared/corpus/paulmckrcu-litmus"
  if [ -d "$corpus" ]; then
    (cd "$corpus" && find auto manual luc -name '*.litmus' | sort | awk -v n="$sample" 'NR % n == 0') |
      while read -r f; do mkdir -p "$1/litmus/$(dirname "$f")"; cp "$corpus/$f" "$1/litmus/$f"; done
  else
    cp -r "$1/litmus-tests" "$1/litmus/kernel"
  fi
}
# PATH with herd7 and mselect7 as litmus's commands.
bin="$work/bin"
mkdir -p "$bin"
ln -sf "$root/dist/src/cli/litmus-herd7" "$bin/herd7"
ln -sf "$root/dist/src/cli/mselect7-start.cjs" "$bin/mselect7"
export PATH="$bin:$PATH"
export LITMUS_CACHE_DIR="$work/cache"
copy="$work/tools-memory-model"
rm -rf "$copy"
make_copy "$copy"
cd "$copy" || exit 2
tests=$(find litmus -name '*.litmus' | wc -l)
echo "kernel-scripts: $tmm, with litmus as herd7 and mselect7; litmus/ holds $tests tests"

# checkalllitmus.sh (checklitmus.sh, runlitmus.sh, judgelitmus.sh on litmus-tests/).
if [ -d litmus-tests ]; then
  out=$(scripts/checkalllitmus.sh 2>&1); rc=$?
  if [ $rc -eq 0 ] && grep -q 'All litmus tests verified as was expected' <<<"$out"; then
    say checkalllitmus.sh "works: every test of litmus-tests/ verified as its Result: says"
  else fail checkalllitmus.sh "exit $rc: $(grep '!!!\|^^^' <<<"$out" | head -3 | tr '\n' ' ')"; fi
  one=$(ls litmus-tests/*.litmus | head -1)
  out=$(LKMM_DESTDIR=. scripts/checklitmus.sh "$one" 2>&1); rc=$?
  [ $rc -eq 0 ] && grep -q '^Observation' "$one.out" && say checklitmus.sh "works (runlitmus.sh, judgelitmus.sh)" || fail checklitmus.sh "exit $rc"
  out=$(scripts/checktheselitmus.sh -- $(ls litmus-tests/*.litmus | head -3) 2>&1); rc=$?
  [ $rc -eq 0 ] && say checktheselitmus.sh works || fail checktheselitmus.sh "exit $rc"
fi

# initlitmushist.sh (parseargs.sh, runlitmushist.sh): every test's .litmus.out.
scripts/initlitmushist.sh --procs 3 --timeout 30s > "$work/init.out" 2>&1; rc=$?
made=$(find litmus -name '*.litmus.out' | wc -l)
want=$(find litmus -name '*.litmus' -exec grep -l -m 1 '^C ' {} \; | xargs -r grep -L '^P3' | wc -l)
if [ "$made" -eq "$want" ] && [ "$made" -gt 0 ]; then say initlitmushist.sh "works: $made .litmus.out files for the $want tests of at most 3 processes"
else fail initlitmushist.sh "$made .litmus.out files for $want tests (exit $rc)"; fi

# newlitmushist.sh (mselect7 -arch C): only the tests without a .litmus.out are run.
gone=$(find litmus -name '*.litmus.out' | sort | head -3)
rm -f $gone
touch "$work/before-new"
scripts/newlitmushist.sh --procs 3 --timeout 30s > "$work/new.out" 2>&1; rc=$?
again=$(find litmus -name '*.litmus.out' -newer "$work/before-new" | sort)
if [ "$again" = "$(printf '%s\n' $gone | sort)" ]; then say newlitmushist.sh "works: re-ran the 3 tests whose .litmus.out was removed, and only those (mselect7 -arch C)"
else fail newlitmushist.sh "re-ran $(echo "$again" | grep -c .) tests, expected the 3 removed (exit $rc)"; fi

# checklitmushist.sh (cmplitmushist.sh): the same model, then an edited one.
out=$(scripts/checklitmushist.sh --procs 3 --timeout 30s 2>&1); rc=$?
if [ $rc -eq 0 ] && ! grep -q 'Result changed' <<<"$out"; then say checklitmushist.sh "works: same model, $(grep -c '^Exact output match' <<<"$out") exact, no result changed"
else fail checklitmushist.sh "same model: exit $rc, $(grep -c 'Result changed' <<<"$out") changed"; fi
cp linux-kernel.cat linux-kernel.cat.orig
sed -i 's/^let strong-fence = mb | gp$/let strong-fence = gp/' linux-kernel.cat
out=$(scripts/checklitmushist.sh --procs 3 --timeout 30s 2>&1); rc=$?
changed=$(grep -c 'Result changed' <<<"$out")
mv linux-kernel.cat.orig linux-kernel.cat
if [ $rc -eq 1 ] && [ "$changed" -gt 0 ]; then say cmplitmushist.sh "works: an edit of linux-kernel.cat (strong-fence = gp) changes $changed results, exit 1"
else say cmplitmushist.sh "ran: the edit (strong-fence = gp) changed $changed results here (exit $rc)"; fi

# checkghlitmus.sh (mselect7, judgelitmus.sh on every test with a Result: line).
out=$(scripts/checkghlitmus.sh --procs 3 --timeout 30s 2>&1); rc=$?
ghjudged=$(find litmus -name '*.litmus' | xargs -r grep -El '^ \* Result: (Never|Sometimes|Always|DEADLOCK)' | xargs -r grep -L '^P3' | wc -l)
say checkghlitmus.sh "ran: judged $ghjudged tests with a Result: line, $(grep -c '!!!' <<<"$out") marked !!! (the collection's Result: lines are not all the model's)"

# simpletest.sh, hwfnseg.sh: with --hw, the scripts translate C tests with jingle7 and gen_theme7.
scripts/simpletest.sh "$(find litmus -name '*.litmus' | head -1)" >/dev/null 2>&1
say simpletest.sh "works (it greps the test; --hw, which needs herdtools7's jingle7 and gen_theme7, is not served)"
say hwfnseg.sh "works (names the --hw output; --hw itself is not served)"

# Beside herd7: the same initlitmushist.sh run with herd7 on PATH, Observation lines compared.
if [ -n "$herd" ]; then
  hcopy="$work/with-herd7"
  rm -rf "$hcopy"
  make_copy "$hcopy"
  hbin="$work/herd-bin"
  mkdir -p "$hbin"
  ln -sf "$herd" "$hbin/herd7"
  (cd "$hcopy" && PATH="$hbin:$PATH" scripts/initlitmushist.sh --procs 3 --timeout 30s > "$work/herd-init.out" 2>&1)
  differ=0
  while read -r f; do
    a=$(grep '^Observation' "$copy/$f" 2>/dev/null)
    b=$(grep '^Observation' "$hcopy/$f" 2>/dev/null)
    if [ "$a" != "$b" ] && ! grep -q 'status 124' "$hcopy/$f" "$copy/$f"; then differ=$((differ + 1)); echo "  $f: litmus '$a', herd7 '$b'"; fi
  done < <(cd "$hcopy" && find litmus -name '*.litmus.out' | sort)
  if [ $differ -eq 0 ]; then say "beside herd7" "the same Observation line as herd7 on every test both finished"
  else fail "beside herd7" "$differ tests with another Observation line than herd7's"; fi
fi
exit $status
