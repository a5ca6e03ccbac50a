#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Regenerates the committed icons of packaging/icons/ from resources/icons/eventdesk.svg, the one
# source of the EventDesk icon. Builds do not run this (they use the committed files); run it after
# changing the SVG. Needs rsvg-convert (librsvg2-bin), icotool (icoutils) and png2icns (icnsutils).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
svg="$here/../../resources/icons/eventdesk.svg"

for size in 16 24 32 48 64 128 256 512; do
    rsvg-convert --width "$size" --height "$size" "$svg" --output "$here/eventdesk-$size.png"
done
# Windows: 16-256 px; the 256 px image is stored as PNG (-r), as Windows Vista and later expect.
icotool --create --output "$here/eventdesk.ico" \
    "$here"/eventdesk-{16,24,32,48,64,128}.png --raw="$here/eventdesk-256.png"
# macOS: 16-512 px (the icns types png2icns can write).
png2icns "$here/eventdesk.icns" "$here"/eventdesk-{16,32,48,128,256,512}.png >/dev/null
