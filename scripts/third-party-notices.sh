#!/usr/bin/env bash
# Writes THIRD-PARTY-NOTICES: the libraries linked statically into the kgate
# executable (CMakeLists.txt, KG_STATIC_DEPS: jansson and nettle; Check goes
# into the test runners only, which are not installed), each with its version
# and its licence, the texts copied from the Debian packages' copyright files
# and /usr/share/common-licenses. Run it on the machine that builds the
# release (Debian 12 for the committed file) after a library's version
# changes; CMake installs the file with the versions it links (configure).
# Usage: scripts/third-party-notices.sh [OUT]   (default: THIRD-PARTY-NOTICES)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-THIRD-PARTY-NOTICES}
need() { [[ -r $1 ]] || { echo "third-party-notices: $1 not found (apt-get install $2)" >&2; exit 3; }; }
need /usr/share/doc/libjansson-dev/copyright libjansson-dev
need /usr/share/doc/nettle-dev/copyright nettle-dev
need /usr/share/common-licenses/LGPL-3 base-files
need /usr/share/common-licenses/GPL-3 base-files
need /usr/share/common-licenses/GPL-2 base-files
jv=$(pkg-config --modversion jansson) nv=$(pkg-config --modversion nettle)
rule='================================================================================'
{
  cat <<TXT
Third-party software in kgate
$rule

The kgate executable (bin/kgate, and /usr/bin/kgate of the Debian package)
links these libraries statically (CMake option KG_STATIC_DEPS, on by
default), so their code is part of it:

  library   version   licence                    used for
  jansson   $jv$(printf '%*s' $((10 - ${#jv})) '')MIT (Expat)                reading and writing every JSON file
  nettle    $nv$(printf '%*s' $((10 - ${#nv})) '')LGPL-3.0+ or GPL-2.0+      SHA-256 (refpin.c: the nightly's pins)

nettle is used under the GNU Lesser General Public License, version 3 or
later. kgate's complete source is public; to link kgate against another
version of nettle (or jansson), build it with -DKG_STATIC_DEPS=OFF, which
links the system's shared libraries (docs/install.md). The source of the
versions linked here: https://github.com/akheron/jansson (tag v$jv) and
https://ftp.gnu.org/gnu/nettle/nettle-$nv.tar.gz.

Not linked statically, and not part of this notice: the C library, libm,
libpthread and libdl; the CUDA runtime (libcudart.so, dynamic, from the NVIDIA
toolkit, not shipped); NVML (opened at run time when present). The kernel
module lib/kgate/libkgate_kernels.so compiles in template code of CUB
(NVIDIA CCCL, Apache-2.0 WITH LLVM-exception: its exception waives the notice
for compiled forms) from the CUDA toolkit that built it.

The texts below are copied from Debian 12's packages: the copyright files of
libjansson-dev and nettle-dev, and /usr/share/common-licenses (base-files),
by scripts/third-party-notices.sh.

$rule
jansson $jv
$rule

TXT
  cat /usr/share/doc/libjansson-dev/copyright
  printf '\n%s\nnettle %s\n%s\n\n' "$rule" "$nv" "$rule"
  cat /usr/share/doc/nettle-dev/copyright
  printf '\n%s\nThe GNU Lesser General Public License, version 3 (nettle)\n%s\n\n' "$rule" "$rule"
  cat /usr/share/common-licenses/LGPL-3
  printf '\n%s\nThe GNU General Public License, version 3 (which the LGPL-3 supplements)\n%s\n\n' "$rule" "$rule"
  cat /usr/share/common-licenses/GPL-3
  printf '\n%s\nThe GNU General Public License, version 2 (nettle'"'"'s other licence)\n%s\n\n' "$rule" "$rule"
  cat /usr/share/common-licenses/GPL-2
} > "$out"
echo "third-party-notices: wrote $out (jansson $jv, nettle $nv; $(wc -l < "$out") lines)"
