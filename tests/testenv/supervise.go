// `testenv component containerd ARGS...` runs Debian's containerd as a child
// and forwards SIGTERM/SIGINT to it, so the pid file names a process whose
// command line says it is a testenv component of this directory.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// supervisedPrograms are the external programs a component may run.
var supervisedPrograms = map[string]string{"containerd": "/usr/bin/containerd"}

func runSupervised(name string, args []string) int {
	path, ok := supervisedPrograms[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "testenv: no program for component %q\n", name)
		return 2
	}
	return supervise(name, exec.Command(path, args...))
}

// supervise runs cmd as a child on our stdout and stderr, forwards
// SIGTERM/SIGINT to it, and returns its exit code.
func supervise(name string, cmd *exec.Cmd) int {
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv %s: %v\n", name, err)
		return 1
	}
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv %s: %v\n", name, err)
		return 1
	}
	return 0
}
