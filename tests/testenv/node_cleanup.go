// What a node leaves on the machine and how `down` removes it; `testenv
// leftovers` lists whatever is still there.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const cgroupRoot = "/sys/fs/cgroup"

// kernelSettings are the machine-wide settings the kubelet sets at start
// (container_manager_linux.go setupKernelTunables); `up` saves them and
// `down` puts them back.
var kernelSettings = []string{
	"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes",
}

func savedKernelSettingsFile() string { return filepath.Join(nodeRoot, "kernel-settings.saved") }

// saveKernelSettings records the current values once: a second `up` after a
// crash must not record the kubelet's values as the machine's.
func saveKernelSettings() error {
	if _, err := os.Stat(savedKernelSettingsFile()); err == nil {
		return nil
	}
	var b strings.Builder
	for _, key := range kernelSettings {
		value, err := os.ReadFile(filepath.Join("/proc/sys", key))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s\n", key, strings.TrimSpace(string(value)))
	}
	return writeFileAtomic(savedKernelSettingsFile(), []byte(b.String()), 0o644)
}

func restoreKernelSettings() error {
	data, err := os.ReadFile(savedKernelSettingsFile())
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 {
			continue
		}
		if err := os.WriteFile(filepath.Join("/proc/sys", fields[0]), []byte(fields[1]), 0o644); err != nil {
			return fmt.Errorf("restoring %s: %w", fields[0], err)
		}
	}
	return os.Remove(savedKernelSettingsFile())
}

// nodeProcesses are the pids of container processes (in the kubepods
// cgroups) and of containerd shims serving the node's containerd.
func nodeProcesses() []int {
	seen := map[int]bool{}
	_ = filepath.WalkDir(filepath.Join(cgroupRoot, "pids", "kubepods"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
			return nil
		}
		data, _ := os.ReadFile(path)
		for _, field := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(field); err == nil {
				seen[pid] = true
			}
		}
		return nil
	})
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if bytes.Contains(cmdline, []byte(nodeRoot+"/")) && !isZombie(pid) {
			seen[pid] = true
		}
	}
	delete(seen, os.Getpid())
	pids := make([]int, 0, len(seen))
	for pid := range seen {
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	return pids
}

func killNodeProcesses() {
	for round := 0; round < 20; round++ {
		pids := nodeProcesses()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mountsUnder lists mount points below any of the prefixes, deepest first.
func mountsUnder(prefixes ...string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		point := strings.ReplaceAll(fields[4], `\040`, " ")
		for _, prefix := range prefixes {
			if point == prefix || strings.HasPrefix(point, prefix+"/") {
				points = append(points, point)
				break
			}
		}
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	return points
}

func unmountUnder(prefixes ...string) []error {
	var errs []error
	for _, point := range mountsUnder(prefixes...) {
		if err := syscall.Unmount(point, syscall.MNT_DETACH); err != nil && err != syscall.EINVAL &&
			err != syscall.ENOENT {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", point, err))
		}
	}
	return errs
}

// cgroupDirs lists name's cgroup directories in every v1 hierarchy (and v2),
// children first.
func cgroupDirs(name string) []string {
	var dirs []string
	hierarchies, _ := os.ReadDir(cgroupRoot)
	for _, h := range hierarchies {
		top := filepath.Join(cgroupRoot, h.Name(), name)
		_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	return dirs
}

func removeCgroups(name string) []error {
	var errs []error
	for _, dir := range cgroupDirs(name) {
		if err := syscall.Rmdir(dir); err != nil && err != syscall.ENOENT {
			errs = append(errs, fmt.Errorf("removing cgroup %s: %w", dir, err))
		}
	}
	return errs
}

// kubeletHardCoded are paths the kubelet and CNI use whatever their
// configuration says; each is removed only if the node created it (the
// owner file records which existed before).
var kubeletHardCoded = []string{"/var/lib/kubelet", "/var/log/containers", "/var/log/pods", "/var/lib/cni",
	"/run/containerd"}

func preexistingFile() string { return filepath.Join(nodeRoot, "preexisting") }

// `ip netns add` makes /run/netns a (shared) mount point, and `ip netns del`
// leaves it; the node undoes that when it made it and no namespace is left.
const (
	netnsDir        = "/run/netns"
	netnsMountToken = "mount:/run/netns"
)

func isMountPoint(path string) bool {
	for _, point := range mountsUnder(path) {
		if point == path {
			return true
		}
	}
	return false
}

func removeNetnsDir(keep map[string]bool) []error {
	if entries, err := os.ReadDir(netnsDir); err != nil || len(entries) > 0 {
		return nil
	}
	var errs []error
	for !keep[netnsMountToken] && isMountPoint(netnsDir) {
		if err := syscall.Unmount(netnsDir, syscall.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", netnsDir, err))
			break
		}
	}
	if !keep[netnsDir] {
		if err := os.Remove(netnsDir); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	return errs
}

// recordPreexisting notes which hard-coded paths existed before the node.
func recordPreexisting() error {
	var present []string
	for _, path := range append(kubeletHardCoded, netnsDir) {
		if _, err := os.Lstat(path); err == nil {
			present = append(present, path)
		}
	}
	if isMountPoint(netnsDir) {
		present = append(present, netnsMountToken)
	}
	return writeFileAtomic(preexistingFile(), []byte(strings.Join(present, "\n")+"\n"), 0o644)
}

func removeKubeletLeftovers() []error {
	data, err := os.ReadFile(preexistingFile())
	if err != nil {
		return nil // no node was set up here
	}
	keep := map[string]bool{}
	for _, line := range strings.Fields(string(data)) {
		keep[line] = true
	}
	errs := removeNetnsDir(keep)
	for _, path := range kubeletHardCoded {
		if keep[path] {
			continue
		}
		if len(mountsUnder(path)) > 0 {
			errs = append(errs, unmountUnder(path)...)
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// leftovers lists what a node left on the machine: processes, mounts, the
// network namespace and veth, cgroups, files and changed kernel settings.
func leftovers(dir string) []string {
	var found []string
	for _, pid := range nodeProcesses() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		found = append(found, fmt.Sprintf("process %d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	for _, point := range mountsUnder(nodeRoot, filepath.Join(dir, "node"), "/var/lib/kubelet", netnsPath()) {
		found = append(found, "mount "+point)
	}
	if nodeNetworkExists() {
		found = append(found, "network namespace "+nodeNetns+" or veth "+hostVeth)
	}
	for _, d := range cgroupDirs("kubepods") {
		found = append(found, "cgroup "+d)
	}
	if _, err := os.Stat(nodeRoot); err == nil {
		found = append(found, "directory "+nodeRoot)
	}
	return found
}

// runLeftovers: `testenv leftovers --dir DIR` prints what is left and exits 1
// if anything is.
func runLeftovers(args []string) int {
	fs := newFlagSet("leftovers")
	dir := fs.String("dir", "", "testenv directory (required)")
	if !parseFlags(fs, args) || !requireDir(fs, *dir) {
		return 2
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fail("leftovers", err)
	}
	found := leftovers(abs)
	for _, f := range found {
		fmt.Println(f)
	}
	if len(found) > 0 {
		return 1
	}
	return 0
}
