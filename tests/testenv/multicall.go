// The testenv binary is multi-call: `testenv up` starts copies of itself as
// etcd, kube-apiserver and kube-controller-manager, each in its own process so
// their global flag sets and metric registries never meet.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "time/tzdata" // CronJob time zones

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kubeproxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

// runComponent runs one control-plane component in this process and never returns.
func runComponent(name string, args []string) {
	switch name {
	case "kube-apiserver":
		cmd := apiserver.NewAPIServerCommand()
		cmd.SetArgs(args)
		os.Exit(cli.Run(cmd))
	case "kube-controller-manager":
		cmd := controllermanager.NewControllerManagerCommand()
		cmd.SetArgs(args)
		os.Exit(cli.Run(cmd))
	case "kube-scheduler":
		cmd := scheduler.NewSchedulerCommand()
		cmd.SetArgs(args)
		os.Exit(cli.Run(cmd))
	case "kubelet":
		cmd := kubelet.NewKubeletCommand(context.Background())
		cmd.SetArgs(args)
		os.Exit(cli.Run(cmd))
	case "kube-proxy":
		cmd := kubeproxy.NewProxyCommand()
		cmd.SetArgs(args)
		os.Exit(cli.Run(cmd))
	case "containerd":
		os.Exit(runSupervised("containerd", args))
	case "dns":
		os.Exit(runDNS(args))
	case "s3", "s3-tls":
		os.Exit(runS3(name, args))
	case "provisioner":
		os.Exit(runProvisioner(args))
	case "etcd":
		os.Exit(runEtcd(args))
	}
	fmt.Fprintf(os.Stderr, "testenv: unknown component %q\n", name)
	os.Exit(2)
}

// runEtcd serves an embedded etcd; args: DATA_DIR CLIENT_URL PEER_URL.
func runEtcd(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: testenv component etcd DATA_DIR CLIENT_URL PEER_URL")
		return 2
	}
	cfg, err := etcdConfig(args[0], args[1], args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv etcd:", err)
		return 1
	}
	server, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv etcd:", err)
		return 1
	}
	defer server.Close()
	select {
	case <-server.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		fmt.Fprintln(os.Stderr, "testenv etcd: not ready after 60s")
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	select {
	case <-ctx.Done():
		return 0
	case err := <-server.Err():
		fmt.Fprintln(os.Stderr, "testenv etcd:", err)
		return 1
	}
}
