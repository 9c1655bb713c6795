#!/usr/bin/env bash
# Writes PROJECT/.cargo/config.toml for Synthase: usage  setup.sh PROJECT [PLUGIN]
# PLUGIN defaults to $SYNTHASE_PLUGIN, then to build/lib/Synthase.so of the source tree this crate
# lives in. The written file holds absolute paths only, so it keeps working wherever PROJECT is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
project=${1:?usage: setup.sh PROJECT [PLUGIN]}
plugin=${2:-${SYNTHASE_PLUGIN:-$here/../../build/lib/Synthase.so}}
[ -f "$plugin" ] || { echo "setup.sh: no plugin at $plugin (build Synthase or set SYNTHASE_PLUGIN)" >&2; exit 1; }
plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin")
mkdir -p "$project/.cargo"
sed "s|@SYNTHASE_PLUGIN@|$plugin|g" "$here/config.toml.in" >"$project/.cargo/config.toml"
echo "wrote $project/.cargo/config.toml (plugin: $plugin)"
