#!/usr/bin/env bash
# Copies the PeleLM chemistry systems (five classes, README there) into the git-ignored folder
# data/pelelm/ of the repository, so that a copy of the working tree on a GPU machine can take
# them along and `portla batch data/pelelm/<class>` finds them.
#   usage: scripts/fetch-pelelm.sh [SOURCE]   (default SOURCE: ../shared/data/pelelm)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${1:-../shared/data/pelelm}
DST=data/pelelm
classes="drm19 gri12 gri30 dodecane_lu isooctane"
[ -d "$SRC" ] || { echo "fetch-pelelm: no such directory: $SRC" >&2; exit 1; }
mkdir -p "$DST"
for c in $classes; do
  [ -f "$SRC/$c/0/A.mtx" ] || { echo "fetch-pelelm: $SRC/$c/0/A.mtx missing" >&2; exit 1; }
  rm -rf "${DST:?}/$c"
  cp -r "$SRC/$c" "$DST/$c"
  echo "$c: $(find "$DST/$c" -name A.mtx | wc -l) systems"
done
cp "$SRC/README.md" "$DST/README.md"
du -sh "$DST"
