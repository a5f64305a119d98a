# FS_MSG: a kernel patch series that reports filesystem ENOSPC the moment
# it happens, the fsmsg listener, the alloc_test stressor, and the QEMU
# guest that proves them.  See README.md.
#
#   make demo     boot the guest, fill each filesystem, watch fsmsg report
#   make check-all every test: make check, then make check-debug (CI runs it)
#   make check    host-side tests, checkpatch, sparse, the guest suite
#   make help     all targets and variables

BUILD		?= $(CURDIR)/build
KERNEL_TARBALL	?= /usr/src/linux-source-6.12.tar.xz
KSRC		:= $(BUILD)/linux
KOBJ		:= $(BUILD)/kernel
KOBJ_DEBUG	:= $(BUILD)/kernel-debug
KCONFIG		:= kconfig/qemu.config
KCONFIG_DEBUG	:= kconfig/debug.config
BZIMAGE		:= $(KOBJ)/arch/x86/boot/bzImage
BZIMAGE_DEBUG	:= $(KOBJ_DEBUG)/arch/x86/boot/bzImage
PROBE		:= $(BUILD)/probe/fsmsg_probe
# The guest's other static helpers: the system calls busybox cannot make,
# device mapper, a slow dump client, XFS project quotas.
GUEST_TOOLS	:= $(BUILD)/probe/fsops $(BUILD)/probe/dmctl \
		   $(BUILD)/probe/dumpslow $(BUILD)/probe/prjquota
# The unpatched baseline: same tarball and configuration, no series.
KSRC_BASE	:= $(BUILD)/linux-base
KOBJ_BASE	:= $(BUILD)/kernel-base
BASE_CONFIG	:= $(BUILD)/base.config
NO_PATCHES	:= $(BUILD)/no-patches
BZIMAGE_BASE	:= $(KOBJ_BASE)/arch/x86/boot/bzImage
# The series without its data-lost patches (the first patch whose name says
# data-lost, and every patch after it): make bench-writeback's baseline.
KSRC_NOWB	:= $(BUILD)/linux-nowb
KOBJ_NOWB	:= $(BUILD)/kernel-nowb
NOWB_PATCHES	:= $(BUILD)/nowb-patches
BZIMAGE_NOWB	:= $(KOBJ_NOWB)/arch/x86/boot/bzImage
INITRAMFS	:= $(BUILD)/initramfs.cpio
IMAGES		:= $(BUILD)/images
GEN_INIT_CPIO	:= $(BUILD)/gen_init_cpio
JOBS		?= $(shell nproc)
KCC		?= $(if $(shell command -v ccache),ccache gcc,gcc)
V		?= 0

export KVM QEMU_TIMEOUT QEMU_SMP QEMU_MEM TESTS APPEND V

ifeq ($(V),1)
Q :=
else
Q := @
MAKEFLAGS += --no-print-directory
endif

KMAKE = $(MAKE) -C $(KSRC) O=$(KOBJ) CC="$(KCC)" V=$(V)
KMAKE_DEBUG = $(MAKE) -C $(KSRC) O=$(KOBJ_DEBUG) CC="$(KCC)" V=$(V)
KMAKE_BASE = $(MAKE) -C $(KSRC_BASE) O=$(KOBJ_BASE) CC="$(KCC)" V=$(V)
KMAKE_NOWB = $(MAKE) -C $(KSRC_NOWB) O=$(KOBJ_NOWB) CC="$(KCC)" V=$(V)

.PHONY: all help deps kernel kernel-debug kernel-base kernel-tree \
	kernel-tree-base base-config kernel-tree-nowb kernel-nowb \
	bench-writeback sparse tools probe initramfs \
	images qemu-test qemu-test-debug qemu-rerun demo bench check check-debug \
	check-all \
	check-host checkpatch check-uapi check-am clean distclean
.DELETE_ON_ERROR:

all: kernel tools initramfs

help:
	@echo 'Targets:'
	@echo '  demo        boot the guest, fill each filesystem with alloc_test, show fsmsg events'
	@echo '  check-all   every test: check, then check-debug (what CI runs)'
	@echo '  check       host tests + checkpatch + uapi check + git am + sparse + the guest suite'
	@echo '  qemu-test   build what is missing, boot the guest, run and judge its tests'
	@echo '  qemu-rerun  boot and test again without rebuilding anything'
	@echo '  check-debug the guest suite on a lockdep/KASAN/UBSAN/kmemleak kernel'
	@echo '  bench       the cost of the series: baseline and patched kernels, same run'
	@echo '  bench-writeback  writes each fsync()ed on RAM disks, against the series'
	@echo '              without its data-lost patches (make bench runs it last)'
	@echo '  kernel      apply patches/series to the 6.12 tree and build bzImage'
	@echo '  tools       build fsmsg and alloc_test (host and static builds)'
	@echo '  initramfs   build the guest initramfs'
	@echo '  checkpatch  scripts/checkpatch.pl --strict on every patch of the series'
	@echo '  check-am    git am of the series on the pristine tree gives what quilt gives'
	@echo '  sparse      make C=2 on the files the series touches: no new warnings'
	@echo '  clean       remove everything built except the kernel tree and objects'
	@echo '  distclean   remove build/ entirely'
	@echo 'Variables: V=1 (verbose), KVM=1 (use /dev/kvm), TESTS=pattern (guest cases),'
	@echo '  QEMU_TIMEOUT=seconds, JOBS=n, BUILD=dir'

# Installs missing Debian packages (as root); a no-op when all are there.
deps:
	$(Q)scripts/install-deps.sh

kernel-tree: deps
	$(Q)scripts/prepare-kernel.sh $(KERNEL_TARBALL) $(KSRC) patches

$(KOBJ)/.config: $(KCONFIG) $(KSRC)/.series-applied scripts/kernel-config.sh
	@echo "  CONFIG  $(KCONFIG)"
	$(Q)KCC="$(KCC)" scripts/kernel-config.sh $(KSRC) $(KOBJ) $(KCONFIG)

kernel: kernel-tree
	$(Q)$(MAKE) -f $(firstword $(MAKEFILE_LIST)) $(KOBJ)/.config
	$(Q)+$(KMAKE) -j$(JOBS) bzImage

# The same tree with lockdep, KASAN, UBSAN, kmemleak and debugobjects.
$(KOBJ_DEBUG)/.config: $(KCONFIG) $(KCONFIG_DEBUG) $(KSRC)/.series-applied \
		scripts/kernel-config.sh
	@echo "  CONFIG  $(KCONFIG) $(KCONFIG_DEBUG)"
	$(Q)KCC="$(KCC)" scripts/kernel-config.sh $(KSRC) $(KOBJ_DEBUG) \
		$(KCONFIG) $(KCONFIG_DEBUG)

kernel-debug: kernel-tree
	$(Q)$(MAKE) -f $(firstword $(MAKEFILE_LIST)) $(KOBJ_DEBUG)/.config
	$(Q)+$(KMAKE_DEBUG) -j$(JOBS) bzImage

kernel-tree-base: deps
	$(Q)mkdir -p $(NO_PATCHES)
	$(Q)[ -f $(NO_PATCHES)/series ] || : > $(NO_PATCHES)/series
	$(Q)scripts/prepare-kernel.sh $(KERNEL_TARBALL) $(KSRC_BASE) $(NO_PATCHES)

# The product's configuration without what only the series adds.
$(BASE_CONFIG): $(KCONFIG)
	$(Q)mkdir -p $(dir $@)
	$(Q)grep -v '^CONFIG_FS_MSG=' $< > $@

$(KOBJ_BASE)/.config: $(BASE_CONFIG) $(KSRC_BASE)/.series-applied \
		scripts/kernel-config.sh
	@echo "  CONFIG  $(BASE_CONFIG) (baseline)"
	$(Q)KCC="$(KCC)" scripts/kernel-config.sh $(KSRC_BASE) $(KOBJ_BASE) \
		$(BASE_CONFIG)

base-config: kernel-tree-base
	$(Q)$(MAKE) -f $(firstword $(MAKEFILE_LIST)) $(KOBJ_BASE)/.config

kernel-base: base-config
	$(Q)+$(KMAKE_BASE) -j$(JOBS) bzImage

kernel-tree-nowb: deps
	$(Q)mkdir -p $(NOWB_PATCHES)
	$(Q)sed -e 's/#.*//' -e '/^[[:space:]]*$$/d' patches/series | \
		sed '/data-lost/,$$d' > $(NOWB_PATCHES)/series
	$(Q)while read -r p; do cp patches/$$p $(NOWB_PATCHES)/; done \
		< $(NOWB_PATCHES)/series
	$(Q)scripts/prepare-kernel.sh $(KERNEL_TARBALL) $(KSRC_NOWB) $(NOWB_PATCHES)

$(KOBJ_NOWB)/.config: $(KCONFIG) $(KSRC_NOWB)/.series-applied \
		scripts/kernel-config.sh
	@echo "  CONFIG  $(KCONFIG) (the series without data-lost)"
	$(Q)KCC="$(KCC)" scripts/kernel-config.sh $(KSRC_NOWB) $(KOBJ_NOWB) \
		$(KCONFIG)

kernel-nowb: kernel-tree-nowb
	$(Q)$(MAKE) -f $(firstword $(MAKEFILE_LIST)) $(KOBJ_NOWB)/.config
	$(Q)+$(KMAKE_NOWB) -j$(JOBS) bzImage

# sparse on every C file the series touches, with and without the series.
sparse: kernel-tree base-config
	$(Q)$(MAKE) -f $(firstword $(MAKEFILE_LIST)) $(KOBJ)/.config
	$(Q)KCC="$(KCC)" scripts/sparse-check.sh $(KSRC) $(KOBJ) $(KSRC_BASE) \
		$(KOBJ_BASE) patches

tools: deps
	$(Q)+$(MAKE) -C alloc_test OUT=$(BUILD)/alloc_test
	$(Q)+$(MAKE) -C fsmsg OUT=$(BUILD)/fsmsg all static promcheck

images: deps
	@echo "  MKFS    $(IMAGES)"
	$(Q)scripts/make-images.sh $(IMAGES)

$(GEN_INIT_CPIO): | kernel-tree
	@echo "  HOSTCC  $@"
	$(Q)gcc -O2 -o $@ $(KSRC)/usr/gen_init_cpio.c

# The guest tests' hostile and malformed netlink client, and the other
# static helpers.
probe: $(PROBE) $(GUEST_TOOLS)
$(BUILD)/probe/%: initramfs/probe/%.c initramfs/probe/genl_req.h fsmsg/uapi/linux/fs_msg.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)gcc -std=gnu11 -Wall -Wextra -Werror -O2 -static -o $@ $<

initramfs: tools probe images $(GEN_INIT_CPIO)
	@echo "  CPIO    $(INITRAMFS)"
	$(Q)scripts/make-initramfs.sh $(GEN_INIT_CPIO) $(INITRAMFS) \
		$(BUILD)/fsmsg/fsmsg.static $(BUILD)/alloc_test/alloc_test.static \
		$(PROBE) $(BUILD)/fsmsg/promcheck.static $(IMAGES)/images.env \
		$(GUEST_TOOLS)

qemu-test: kernel initramfs
	$(Q)scripts/run-qemu.sh test $(BZIMAGE) $(INITRAMFS) $(IMAGES) $(BUILD)/log

# Fresh images, same kernel and tools.
qemu-rerun: images
	$(Q)scripts/run-qemu.sh test $(BZIMAGE) $(INITRAMFS) $(IMAGES) $(BUILD)/log

# The guest suite under the debug kernel: any lockdep, KASAN, UBSAN,
# sleeping-in-atomic or kmemleak report fails it.
# It runs for about 40 minutes under TCG: a longer default timeout.  RCU
# waits 120 s, not 21, before it reports a stall: a guest's one emulated
# CPU can spend 26 s in dm-thin's worker while a thin-pool case copies
# an image (rcu_sched starved, seen on a clean-clone CI run): TCG's speed
# under KASAN, not a stall the series causes.
qemu-test-debug: kernel-debug initramfs
	$(Q)QEMU_TIMEOUT=$${QEMU_TIMEOUT:-3600} \
		APPEND="rcupdate.rcu_cpu_stall_timeout=120 $${APPEND:-}" \
		scripts/run-qemu.sh test \
		$(BZIMAGE_DEBUG) $(INITRAMFS) $(IMAGES) $(BUILD)/log-debug

check-debug: qemu-test-debug

# Baseline against patched kernel, in one run; then fsmsg's host-side
# parse-and-format rate.  Results in build/bench/report.txt.
bench: kernel kernel-base tools probe $(GEN_INIT_CPIO)
	$(Q)scripts/bench.sh $(BZIMAGE_BASE) $(BZIMAGE) $(GEN_INIT_CPIO) \
		$(BUILD)/bench $(BUILD)/fsmsg/fsmsg.static \
		$(BUILD)/alloc_test/alloc_test.static $(PROBE) \
		$(BUILD)/fsmsg/promcheck.static
	$(Q)+$(MAKE) -C fsmsg OUT=$(BUILD)/fsmsg bench
	$(Q)[ -n "$(BENCH_PART)" ] || \
		$(MAKE) -f $(firstword $(MAKEFILE_LIST)) bench-writeback

# Writes each fsync()ed on RAM disks, where -icount counts every step of
# writeback: the series against itself without the data-lost patches.
# Results in build/bench-writeback/report.txt.
bench-writeback: kernel kernel-nowb tools probe $(GEN_INIT_CPIO)
	$(Q)BENCH_PART=fsync \
		BENCH_BASELINE="the series without its data-lost patches" \
		scripts/bench.sh $(BZIMAGE_NOWB) $(BZIMAGE) $(GEN_INIT_CPIO) \
		$(BUILD)/bench-writeback $(BUILD)/fsmsg/fsmsg.static \
		$(BUILD)/alloc_test/alloc_test.static $(PROBE) \
		$(BUILD)/fsmsg/promcheck.static

demo: kernel initramfs
	$(Q)scripts/run-qemu.sh demo $(BZIMAGE) $(INITRAMFS) $(IMAGES) $(BUILD)/log

check-host: tools
	$(Q)+$(MAKE) -C alloc_test OUT=$(BUILD)/alloc_test check
	$(Q)+$(MAKE) -C fsmsg OUT=$(BUILD)/fsmsg check

checkpatch: kernel-tree
	$(Q)scripts/checkpatch-series.sh $(KSRC) patches

check-uapi: kernel-tree
	$(Q)scripts/check-uapi.sh $(KSRC) fsmsg/uapi/linux/fs_msg.h

# The series as a maintainer applies it: git am on the pristine tree.
check-am: kernel-tree kernel-tree-base
	$(Q)scripts/check-am.sh $(KSRC_BASE) $(KSRC) patches $(BUILD)/git-am

# Cheap checks first, so a broken tool or patch fails before the long build.
check: check-host checkpatch check-uapi check-am sparse
	$(Q)$(MAKE) -f $(firstword $(MAKEFILE_LIST)) qemu-test

# The debug kernel's suite as a step of its own, after everything else
# passed: a cold check-all is about an hour, too long for every edit.
check-all: check
	$(Q)$(MAKE) -f $(firstword $(MAKEFILE_LIST)) check-debug

clean:
	$(Q)rm -rf $(BUILD)/alloc_test $(BUILD)/fsmsg $(BUILD)/images \
		$(BUILD)/log $(BUILD)/log-debug $(BUILD)/probe $(INITRAMFS) \
		$(INITRAMFS).list $(GEN_INIT_CPIO) $(BUILD)/bench \
		$(BUILD)/bench-writeback

distclean:
	$(Q)rm -rf $(BUILD)
