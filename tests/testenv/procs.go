package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Component names, in start order. `down` stops them in reverse order.
var componentOrder = []string{"etcd", "kube-apiserver", "kube-controller-manager",
	"kube-scheduler", "containerd", "kubelet", "kube-proxy", "dns", "s3", "s3-tls", "provisioner"}

// coreComponents are those every testenv runs; the rest belong to the node.
var coreComponents = componentOrder[:3]

type pidEntry struct {
	component string
	pid       int
}

func pidFilePath(dir string) string { return filepath.Join(dir, "testenv.pid") }

func readPidFile(dir string) ([]pidEntry, error) {
	data, err := os.ReadFile(pidFilePath(dir))
	if err != nil {
		return nil, err
	}
	var out []pidEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		pid, err := strconv.Atoi(fields[1])
		if err != nil || pid <= 1 {
			continue
		}
		out = append(out, pidEntry{component: fields[0], pid: pid})
	}
	return out, nil
}

func writePidFile(dir string, entries []pidEntry) error {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s %d\n", e.component, e.pid)
	}
	return writeFileAtomic(pidFilePath(dir), []byte(b.String()), 0o644)
}

// isOurs reports whether pid is a live (non-zombie) testenv component process
// serving DIR. Checking the command line guards against pid reuse: we never
// signal a process that is not ours.
func isOurs(e pidEntry, dir string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", e.pid))
	if err != nil {
		return false
	}
	if !bytes.Contains(cmdline, []byte("\x00component\x00"+e.component+"\x00")) ||
		!bytes.Contains(cmdline, []byte(dir+"/")) {
		return false
	}
	return !isZombie(e.pid)
}

func isZombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // gone
	}
	// Format: pid (comm) state ...; comm may contain spaces and parens.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	return stat[i+2] == 'Z' || stat[i+2] == 'X'
}

// stopProcesses sends SIGTERM to each live entry in reverse start order,
// giving each a few seconds to exit before moving on, and SIGKILLs whatever
// is left when grace runs out.
func stopProcesses(dir string, entries []pidEntry, grace time.Duration) {
	ordered := make([]pidEntry, 0, len(entries))
	for i := len(componentOrder) - 1; i >= 0; i-- {
		for _, e := range entries {
			if e.component == componentOrder[i] {
				ordered = append(ordered, e)
			}
		}
	}
	for _, e := range entries { // anything with an unknown name last
		known := false
		for _, c := range componentOrder {
			known = known || c == e.component
		}
		if !known {
			ordered = append(ordered, e)
		}
	}
	deadline := time.Now().Add(grace)
	perStep := grace / 3
	for _, e := range ordered {
		if !isOurs(e, dir) {
			continue
		}
		_ = syscall.Kill(e.pid, syscall.SIGTERM)
		waitGone(dir, []pidEntry{e}, minTime(deadline, time.Now().Add(perStep)))
	}
	waitGone(dir, ordered, deadline)
	for _, e := range ordered {
		if isOurs(e, dir) {
			_ = syscall.Kill(e.pid, syscall.SIGKILL)
		}
	}
	waitGone(dir, ordered, time.Now().Add(5*time.Second))
}

func waitGone(dir string, entries []pidEntry, deadline time.Time) {
	for {
		alive := false
		for _, e := range entries {
			alive = alive || isOurs(e, dir)
		}
		if !alive || time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// ownsNode reports whether the machine's node belongs to dir.
func ownsNode(dir string) bool {
	owner, err := os.ReadFile(ownerFile())
	return err == nil && strings.TrimSpace(string(owner)) == dir
}

// lockDir takes an exclusive flock on DIR/.testenv.lock so that concurrent
// `up`/`down` calls on the same DIR serialize.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, ".testenv.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func runDown(args []string) int {
	fs := newFlagSet("down")
	dir := fs.String("dir", "", "testenv directory (required)")
	if !parseFlags(fs, args) || !requireDir(fs, *dir) {
		return 2
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fail("down", err)
	}
	if _, err := os.Stat(abs); os.IsNotExist(err) {
		// The directory is gone (e.g. a cleaned /tmp) but its node may not be.
		if ownsNode(abs) {
			return reportTeardown(teardownNode(abs))
		}
		return 0
	}
	lock, err := lockDir(abs)
	if err != nil {
		return fail("down", err)
	}
	defer lock.Close()
	entries, err := readPidFile(abs)
	if err != nil && !os.IsNotExist(err) {
		return fail("down", err)
	}
	stopProcesses(abs, entries, 15*time.Second)
	if err := os.Remove(pidFilePath(abs)); err != nil && !os.IsNotExist(err) {
		return fail("down", err)
	}
	if ownsNode(abs) {
		return reportTeardown(teardownNode(abs))
	}
	return 0
}

// reportTeardown prints what the node's teardown could not remove; any such
// error fails `down`, since the machine is not as it was.
func reportTeardown(errs []error) int {
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "testenv down:", err)
	}
	if len(errs) > 0 {
		return 1
	}
	return 0
}

// runDownNode: `testenv down-node` removes the machine's node whatever
// testenv directory owns it (a dead one included), for a clean start.
func runDownNode(args []string) int {
	fs := newFlagSet("down-node")
	if !parseFlags(fs, args) {
		return 2
	}
	owner, err := os.ReadFile(ownerFile())
	if os.IsNotExist(err) {
		if nodeNetworkExists() {
			return reportTeardown(teardownNode(""))
		}
		return 0
	}
	if err != nil {
		return fail("down-node", err)
	}
	dir := strings.TrimSpace(string(owner))
	if entries, err := readPidFile(dir); err == nil {
		stopProcesses(dir, entries, 15*time.Second)
		_ = os.Remove(pidFilePath(dir))
	}
	return reportTeardown(teardownNode(dir))
}
