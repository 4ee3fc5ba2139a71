#!/usr/bin/env bash
# Turns every .ll that TLE_CORPUS_DUMP wrote into PTX with llc-19, as the
# backend's LLC toolchain does (PTX 8.3 where the module uses tensor maps).
#   TLE_CORPUS_DUMP=/tmp/a go test -count=1 -run TestGPUCompileCorpus ./tests && bash tools/corpus-ptx.sh /tmp/a
# Compare two compilers: diff -r /tmp/a /tmp/b.
set -euo pipefail
dir=${1:?usage: corpus-ptx.sh DIR}
llc=${TLE_LLC:-llc-19}
for ll in "$dir"/*.ll; do
  ptx=+ptx80
  grep -q "tensormap.replace." "$ll" && ptx=+ptx83
  "$llc" -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=$ptx "$ll" -o "${ll%.ll}.ptx"
done
find "$dir" -maxdepth 1 -name "*.ptx" | wc -l
