#!/bin/sh
# run.sh OLD [NEW] [N]: compare DefaultRedactor at git revision OLD with
# NEW (a revision, or the work tree when left out) over the string
# literals of the module's tests at NEW and N mutations of each (default
# 10: about 217k inputs in December 2026).
# Prints the leaks (words OLD redacted and NEW keeps) and a summary; work
# files go to ${TMPDIR:-/tmp}/redactdiff.
set -eu
old=$1 new=${2:-} n=${3:-10}
top=$(git rev-parse --show-toplevel)
work=${TMPDIR:-/tmp}/redactdiff
mkdir -p "$work"
tool=$top/engine/redactdiff/main.go
# tree REV NAME: REV's files in $work/NAME, with this tool added, built.
tree() {
	rm -rf "$work/$2" && mkdir -p "$work/$2"
	git -C "$top" archive "$1" | tar -x -C "$work/$2"
	mkdir -p "$work/$2/engine/redactdiff" && cp "$tool" "$work/$2/engine/redactdiff/"
	(cd "$work/$2" && go build -tags redactdiff -o "$work/rd-$2" ./engine/redactdiff)
}
tree "$old" old
if [ -n "$new" ]; then
	tree "$new" new
	src=$work/new
else
	(cd "$top" && go build -tags redactdiff -o "$work/rd-new" ./engine/redactdiff)
	src=$top
fi
dirs=$(cd "$src" && find . -name '*_test.go' -not -path './.git/*' | xargs -n1 dirname | sort -u | sed "s|^\.|$src|")
# shellcheck disable=SC2086 # one directory a word
"$work/rd-new" gen "$n" $dirs >"$work/inputs.jsonl"
"$work/rd-old" redact <"$work/inputs.jsonl" >"$work/out-old.jsonl"
"$work/rd-new" redact <"$work/inputs.jsonl" >"$work/out-new.jsonl"
"$work/rd-new" compare "$work/inputs.jsonl" "$work/out-old.jsonl" "$work/out-new.jsonl"
