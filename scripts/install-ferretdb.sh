#!/usr/bin/env bash
# Builds FerretDB 1.24.0 (the MongoDB-compatible server the tests run the MongoDB
# store against) into "$(go env GOPATH)/bin/ferretdb". `go install …@version`
# cannot work here (the module proxy refuses FerretDB's version list), so:
# download the module, copy it somewhere writable, stamp the version file the
# binary reads at start-up (it panics without it), build, clean up.
set -euo pipefail

VERSION="v1.24.0"
command -v go >/dev/null 2>&1 || { echo "install-ferretdb: Go is required (Go 1.22 or newer) to build FerretDB $VERSION" >&2; exit 1; }
TARGET="$(go env GOPATH)/bin/ferretdb"

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null || true; rm -rf "$work"' EXIT

echo "install-ferretdb: downloading github.com/FerretDB/FerretDB@$VERSION"
dir="$(cd "$work" && go mod download -json "github.com/FerretDB/FerretDB@$VERSION" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[ -n "$dir" ] && [ -d "$dir" ] || { echo "install-ferretdb: go mod download gave no module folder" >&2; exit 1; }

cp -R "$dir" "$work/src"
chmod -R u+w "$work/src"
echo "$VERSION" > "$work/src/build/version/version.txt"

echo "install-ferretdb: building (about two minutes on 2 cores)"
mkdir -p "$(dirname "$TARGET")"
(cd "$work/src" && go build -trimpath -o "$TARGET" ./cmd/ferretdb)
"$TARGET" --version >/dev/null
echo "install-ferretdb: $TARGET"
