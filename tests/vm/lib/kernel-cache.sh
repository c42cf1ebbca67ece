# shellcheck shell=bash
# shellcheck disable=SC2034 # VM_KERNEL, VM_INITRD, VM_RELEASE are this file's outputs
# shellcheck disable=SC2012 # ls over names this file created itself (no odd characters)
# Guest kernel + initramfs cache for rxe-run (sourced, not executed).
#
# The guest kernel is a stock Debian kernel package: `apt-get download` + `dpkg-deb -x` into a
# cache, then `depmod -b`. Nothing is installed on the host and no package scripts run, so this
# works as non-root. Kept per kernel: the ELF vmlinux (PVH boot: no BIOS, no self-decompression,
# ~3 s faster under TCG, docs/vm.md#recipe-pitfalls), the modules the VM loads, in insmod order,
# and the initramfs images built from them. The unpacked package (~400 MB) is deleted again.
#
# Layout: $VM_CACHE/debs/<pkg>_<ver>_amd64.deb
#         $VM_CACHE/kernel-<pkg-version>/{vmlinux|vmlinuz, modules/*.ko, modules.order, release}
#         $VM_CACHE/kernel-<pkg-version>/initramfs-<hash>.cpio
# Callers define vm_skip (exit 77 with a reason) and vm_die (exit 125 with a reason).

VM_CACHE="${RDMATOP_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmatop-vm}"

# Modules the guest loads. crc32_generic explicitly: rxe needs the crc32 crypto transform for
# the ICRC, which the kernel would request_module() - impossible without modprobe in the
# initramfs (pitfall 1). The generic variant because crc32-pclmul needs a CPU flag qemu64 lacks.
# virtio_net for --netdev eth0 and the two-VM link; sch_netem and veth for fault injection.
VM_MODULES=(virtio_pci 9pnet_virtio 9p overlay dummy crc32_generic rdma_rxe ib_uverbs rdma_ucm
  virtio_net sch_netem veth)

# Prints the name and version of the guest kernel package, e.g.
# "linux-image-6.1.0-57-amd64 6.1.192-3". Empty output when apt cannot tell (offline, no lists).
# apt-cache takes ~1 s of CPU, so the answer is memoized against a fingerprint of the apt lists
# (`apt-get update` changes it).
vm_resolve_kernel_package() {
  local pkg="${RDMATOP_VM_KERNEL_PACKAGE:-}" ver="" memo="$VM_CACHE/resolved" fp
  fp=$(ls -l --time-style=+%s /var/lib/apt/lists/ 2>/dev/null | sha256sum | cut -c1-16 || true)
  fp="$fp ${pkg:-linux-image-amd64}"
  if [[ -s "$memo" && "$(head -n 1 "$memo")" == "$fp" ]]; then
    sed -n 2p "$memo"
    return 0
  fi
  if [[ -z "$pkg" ]]; then
    # linux-image-amd64 is a metapackage: "Depends: linux-image-6.1.0-57-amd64 (= 6.1.192-3)".
    read -r pkg ver < <(apt-cache show --no-all-versions linux-image-amd64 2>/dev/null |
      awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ {
        gsub(/[()=,]/, "", $4); print $2, $4; exit }') || true
  else
    ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null |
      awk '$1 == "Version:" { print $2; exit }' || true)
  fi
  [[ -n "$pkg" && -n "$ver" ]] || return 0
  printf '%s\n%s %s\n' "$fp" "$pkg" "$ver" >"$memo.tmp" && mv "$memo.tmp" "$memo"
  printf '%s %s\n' "$pkg" "$ver"
}

# Copies the ELF vmlinux out of a bzImage into $2. Returns non-zero when it cannot (then the
# caller boots the bzImage, which works but is slower). Like linux/scripts/extract-vmlinux.
vm_extract_vmlinux() {
  local bzimage="$1" out="$2" offsets off
  offsets=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bzimage" 2>/dev/null | cut -d: -f1 || true)
  for off in $offsets; do
    # The payload is followed by other bytes, so xz reports trailing garbage: ignore its rc and
    # check the ELF magic instead.
    tail -c "+$((off + 1))" "$bzimage" | xz -dc 2>/dev/null >"$out.tmp" || true
    if [[ "$(head -c 4 "$out.tmp" 2>/dev/null | od -An -c | tr -d ' ')" == '177ELF' ]]; then
      mv "$out.tmp" "$out"
      return 0
    fi
  done
  rm -f "$out.tmp"
  return 1
}

# Unpacks the kernel package into a new cache entry $2 (built in a temp dir, renamed at the end
# so that an interrupted run never leaves a half-made entry).
vm_build_kernel_entry() {
  local deb="$1" entry="$2" tmp release kroot mod line ko name
  tmp=$(mktemp -d "$VM_CACHE/.unpack.XXXXXX")
  dpkg-deb -x "$deb" "$tmp/x" || { rm -rf "$tmp"; vm_die "dpkg-deb -x $deb failed"; }
  release=$(ls "$tmp/x/lib/modules" 2>/dev/null | head -n 1 || true)
  [[ -n "$release" ]] || { rm -rf "$tmp"; vm_die "no lib/modules/<release> in $deb"; }
  kroot="$tmp/x"
  # The .deb ships no modules.dep (the postinst makes it), so depmod first.
  depmod -b "$kroot" "$release" || { rm -rf "$tmp"; vm_die "depmod -b failed for $release"; }
  mkdir -p "$tmp/entry/modules"
  : >"$tmp/entry/modules.order"
  for mod in "${VM_MODULES[@]}"; do
    # -C /dev/null: the host's modprobe.d must not leak options in (seen: numdummies=0).
    modprobe -C /dev/null -d "$kroot" -S "$release" --show-depends "$mod" >"$tmp/deps" ||
      { rm -rf "$tmp"; vm_die "module $mod not found in $release"; }
    while read -r line; do
      [[ "$line" == insmod\ * ]] || continue # "builtin x" lines need nothing
      ko=$(awk '{ print $2 }' <<<"$line")
      name=$(basename "$ko")
      name="${name%.xz}"
      name="${name%.zst}"
      name="${name%.gz}"
      grep -qxF "$name" "$tmp/entry/modules.order" && continue
      case "$ko" in
      *.xz) xz -dc "$ko" >"$tmp/entry/modules/$name" ;;
      *.zst) zstd -qdc "$ko" >"$tmp/entry/modules/$name" ;;
      *.gz) gzip -dc "$ko" >"$tmp/entry/modules/$name" ;;
      *) cp "$ko" "$tmp/entry/modules/$name" ;;
      esac
      echo "$name" >>"$tmp/entry/modules.order"
    done <"$tmp/deps"
  done
  if ! vm_extract_vmlinux "$kroot/boot/vmlinuz-$release" "$tmp/entry/vmlinux"; then
    echo "rxe-run: note: could not extract an ELF vmlinux; booting the bzImage (slower)" >&2
    cp "$kroot/boot/vmlinuz-$release" "$tmp/entry/vmlinuz"
  fi
  echo "$release" >"$tmp/entry/release"
  rm -rf "$entry"
  mv "$tmp/entry" "$entry"
  rm -rf "$tmp"
}

# Builds (or reuses) the initramfs for kernel entry $1: static busybox, the modules, /init.
# Keyed by the content of everything that goes in, so an edited /init is picked up.
vm_initramfs() {
  local entry="$1" init="$2" busybox="$3" key out tmp
  key=$(cat "$init" "$entry/modules.order" "$busybox" | sha256sum | cut -c1-16)
  out="$entry/initramfs-$key.cpio"
  if [[ ! -s "$out" ]]; then
    tmp=$(mktemp -d "$VM_CACHE/.initramfs.XXXXXX")
    mkdir -p "$tmp/root/bin" "$tmp/root/dev" "$tmp/root/proc" "$tmp/root/sys" \
      "$tmp/root/lib/modules"
    cp "$busybox" "$tmp/root/bin/busybox"
    ln -s busybox "$tmp/root/bin/sh"
    cp "$init" "$tmp/root/init"
    chmod 755 "$tmp/root/init"
    cp "$entry/modules/"*.ko "$tmp/root/lib/modules/"
    cp "$entry/modules.order" "$tmp/root/modules.order"
    # Uncompressed: the kernel copies it as is, no decompression under TCG. No /dev/console
    # node (mknod needs root); /init mounts devtmpfs first and reopens its stdio there.
    (cd "$tmp/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$tmp/img" ||
      { rm -rf "$tmp"; vm_die "cpio failed building the initramfs"; }
    mv "$tmp/img" "$out"
    rm -rf "$tmp"
    # Older images of this kernel are dead weight.
    find "$entry" -maxdepth 1 -name 'initramfs-*.cpio' ! -name "initramfs-$key.cpio" -delete \
      2>/dev/null || true
  fi
  VM_INITRD="$out"
}

# Sets VM_KERNEL, VM_INITRD, VM_RELEASE. Downloads on first use; skips (77) when no kernel can
# be had (no apt lists and nothing cached), dies on real errors.
vm_prepare_kernel() {
  local init="$1" busybox="$2" pkg ver entry deb lock_fd
  mkdir -p "$VM_CACHE/debs" || vm_skip "cannot create the cache dir $VM_CACHE"
  # One preparer at a time (ctest -j runs several VM tests at once); others wait and reuse.
  exec {lock_fd}>"$VM_CACHE/.lock"
  flock "$lock_fd"
  read -r pkg ver < <(vm_resolve_kernel_package) || true
  if [[ -n "${pkg:-}" && -n "${ver:-}" ]]; then
    entry="$VM_CACHE/kernel-$pkg-$ver"
    if [[ ! -s "$entry/release" ]]; then
      deb=$(ls "$VM_CACHE/debs/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
      if [[ -z "$deb" ]]; then
        echo "rxe-run: first run: downloading the guest kernel $pkg $ver (~70 MB) into" \
          "$VM_CACHE" >&2
        if ! (cd "$VM_CACHE/debs" && apt-get download "$pkg=$ver") >"$VM_CACHE/download.log" 2>&1
        then
          sed 's/^/  apt: /' "$VM_CACHE/download.log" >&2
          flock -u "$lock_fd"
          vm_skip "cannot download $pkg=$ver (offline?); see the apt output above"
        fi
        deb=$(ls "$VM_CACHE/debs/${pkg}_"*.deb 2>/dev/null | head -n 1 || true)
        [[ -n "$deb" ]] || vm_die "apt-get download left no .deb in $VM_CACHE/debs"
      fi
      echo "rxe-run: unpacking $(basename "$deb") (once per kernel version)" >&2
      vm_build_kernel_entry "$deb" "$entry"
    fi
  else
    # apt cannot resolve the package (no lists, offline CI): use the newest cached kernel.
    entry=$(ls -d "$VM_CACHE"/kernel-*/ 2>/dev/null | sort -V | tail -n 1 || true)
    entry="${entry%/}"
    if [[ -z "$entry" || ! -s "$entry/release" ]]; then
      flock -u "$lock_fd"
      vm_skip "no guest kernel: apt-cache cannot resolve linux-image-amd64 and $VM_CACHE has no" \
        "cached kernel (run 'apt-get update', or set RDMATOP_VM_KERNEL_PACKAGE)"
    fi
  fi
  VM_RELEASE=$(cat "$entry/release")
  if [[ -s "$entry/vmlinux" ]]; then VM_KERNEL="$entry/vmlinux"; else VM_KERNEL="$entry/vmlinuz"; fi
  vm_initramfs "$entry" "$init" "$busybox"
  flock -u "$lock_fd"
  exec {lock_fd}>&-
}
