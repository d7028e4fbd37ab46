#!/usr/bin/env bash
# Seeds the fuzz corpora from the repository, into fuzz/corpus/TARGET:
# the conformance programs and examples as source (compile_bytes), the same
# programs printed as IR (ir_roundtrip), and JSON profiles of the examples,
# alone and two end to end (profile_json). Run from the repository's root;
# it builds the `cove` binary and the print_ir example (debug) if need be.
# Files already in a corpus stay: a corpus grown by earlier runs is kept.
set -euo pipefail
root=$(pwd)
corpus="$root/fuzz/corpus"
mkdir -p "$corpus"/{compile_bytes,ir_roundtrip,profile_json,generated_program}
mapfile -t sources < <(find cove_runtime/tests/programs examples -name '*.cove' | sort)

# A copy is named .src, not .cove, so that the repository's formatting test
# (which walks every .cove file) does not take the corpus for sources.
for f in "${sources[@]}"; do
  cp "$f" "$corpus/compile_bytes/$(echo "$f" | tr '/' '_').src"
done

# Printed IR larger than 20 kB slows every execution; leave those out.
ir=$(mktemp -d)
cargo run -q -p cove_runtime --example print_ir -- "$ir" "${sources[@]}"
find "$ir" -name '*.ir' -size -20k -exec cp {} "$corpus/ir_roundtrip/" \;
rm -rf "$ir"

cargo build -q -p cove_cli
cove="$root/target/debug/cove"
json="$corpus/profile_json"
export COVE_FAKE_CLOCK=1
for p in fib hello channels; do
  "$cove" profile --format json -o "$json/$p.json" "examples/$p.cove" > /dev/null
done
"$cove" profile --format json -o "$json/wordfreq.json" examples/wordfreq.cove examples/wordfreq.txt > /dev/null
# The target reads the two halves of its input as a `cove diff` pair.
cat "$json/hello.json" "$json/hello.json" > "$json/hello_twice.json"
cat "$json/hello.json" "$json/fib.json" > "$json/hello_fib.json"
echo "seeded $(find "$corpus" -type f | wc -l) files under $corpus"
