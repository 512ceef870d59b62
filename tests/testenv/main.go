// Command testenv runs a throwaway Kubernetes control plane (etcd,
// kube-apiserver, kube-controller-manager, no nodes) for opctl's tests.
//
//	testenv up    --dir DIR [--audit]
//	testenv down  --dir DIR
//	testenv token --dir DIR --namespace NS --serviceaccount NAME [--duration 1h]
//	testenv proxy --dir DIR --listen 127.0.0.1:PORT [--faults FILE]
//	testenv component etcd|kube-apiserver|kube-controller-manager ARGS...
//
// See README.md.
package main

import (
	"flag"
	"fmt"
	"os"
)

const usage = `usage:
  testenv up    --dir DIR [--audit] [--node [--images DIR]]
  testenv down  --dir DIR
  testenv down-node             (stop the machine's node, whichever testenv directory owns it)
  testenv leftovers --dir DIR   (what a node left on the machine; exit 1 if anything)
  testenv token --dir DIR [--namespace NS] --serviceaccount NAME [--duration 1h] [--audience AUD]
  testenv proxy --dir DIR [--listen 127.0.0.1:0] [--faults FILE]
  testenv component NAME ARGS...   (internal: etcd, kube-apiserver, kube-controller-manager,
                                   kube-scheduler, containerd, kubelet, kube-proxy, dns, provisioner)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "component":
		if len(args) < 1 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		runComponent(args[0], args[1:])
	case "up":
		os.Exit(runUp(args))
	case "down":
		os.Exit(runDown(args))
	case "down-node":
		os.Exit(runDownNode(args))
	case "leftovers":
		os.Exit(runLeftovers(args))
	case "token":
		os.Exit(runToken(args))
	case "proxy":
		os.Exit(runProxy(args))
	case "help", "-h", "--help":
		fmt.Print(usage)
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "testenv: unknown command %q\n%s", os.Args[1], usage)
	os.Exit(2)
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("testenv "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) bool {
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	return true
}

func requireDir(fs *flag.FlagSet, dir string) bool {
	if dir == "" {
		fmt.Fprintf(os.Stderr, "%s: --dir is required\n", fs.Name())
		return false
	}
	return true
}

func fail(cmd string, err error) int {
	fmt.Fprintf(os.Stderr, "testenv %s: %v\n", cmd, err)
	return 1
}
