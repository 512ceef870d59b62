// fluxpeer: Flux's apply engine (github.com/fluxcd/pkg/ssa) as a benchmark
// peer for opctl. It reads the same manifest files and drives the engine the
// way kustomize-controller does: a non-caching controller-runtime client with
// kustomize-controller's default rate limit (50 QPS, burst 100) and SSA
// concurrency (4), the owner labels kustomize-controller sets, and
// ApplyAllStaged (CRDs, ClusterRoles and Namespaces first, waited for, then
// the rest). `diff` runs the engine's server-side dry-run Diff on every object
// as `flux diff kustomization` does, with the same concurrency.
//
//	fluxpeer apply --kubeconfig K DIR     a pass: create, configure or skip each object
//	fluxpeer diff  --kubeconfig K DIR     what a pass would change (drift), nothing written
//
// Prints a JSON summary ({"created": n, "configured": n, "unchanged": n, ...}).
// Exit status: 0 done (diff: also with drift), 1 an error.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/utils"
	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The owner kustomize-controller uses: its field manager and label prefix.
var owner = ssa.Owner{Field: "kustomize-controller", Group: "kustomize.toolkit.fluxcd.io"}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "apply" && os.Args[1] != "diff") {
		fmt.Fprintln(os.Stderr, "usage: fluxpeer apply|diff --kubeconfig FILE [--qps 50 --burst 100 --concurrency 4] DIR")
		os.Exit(2)
	}
	mode := os.Args[1]
	flags := flag.NewFlagSet(mode, flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	qps := flags.Float64("qps", 50, "client rate limit (kustomize-controller's --kube-api-qps default)")
	burst := flags.Int("burst", 100, "client burst (kustomize-controller's --kube-api-burst default)")
	concurrency := flags.Int("concurrency", 4, "concurrent server-side applies (--concurrent-ssa default)")
	timeout := flags.Duration("timeout", 30*time.Minute, "the whole run")
	_ = flags.Parse(os.Args[2:])
	if flags.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "fluxpeer: one manifest directory expected")
		os.Exit(2)
	}
	summary, err := run(mode, flags.Arg(0), *kubeconfig, float32(*qps), *burst, *concurrency, *timeout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fluxpeer: %v\n", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(summary)
	fmt.Println(string(out))
}

func run(mode, dir, kubeconfig string, qps float32, burst, concurrency int, timeout time.Duration) (map[string]int, error) {
	objects, err := readObjects(dir)
	if err != nil {
		return nil, err
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	config.QPS, config.Burst = qps, burst
	config.UserAgent = "fluxpeer/ssa-v0.78.0"
	kubeClient, err := client.New(config, client.Options{})
	if err != nil {
		return nil, err
	}
	poller := polling.NewStatusPoller(kubeClient, kubeClient.RESTMapper(), polling.Options{})
	manager := ssa.NewResourceManager(kubeClient, poller, owner)
	manager.SetOwnerLabels(objects, "bench", "flux-system")
	manager.SetConcurrency(concurrency)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	summary := map[string]int{"objects": len(objects)}
	if mode == "apply" {
		changes, err := manager.ApplyAllStaged(ctx, objects, ssa.DefaultApplyOptions())
		if err != nil {
			return nil, err
		}
		for _, entry := range changes.Entries {
			summary[string(entry.Action)]++
		}
		return summary, nil
	}
	actions := make([]ssa.Action, len(objects))
	group, groupCtx := errgroup.WithContext(ctx)
	group.SetLimit(concurrency)
	for i, object := range objects {
		group.Go(func() error {
			entry, _, _, err := manager.Diff(groupCtx, object, ssa.DefaultDiffOptions())
			if err != nil {
				return err
			}
			actions[i] = entry.Action
			return nil
		})
	}
	if err := group.Wait(); err != nil {
		return nil, err
	}
	for _, action := range actions {
		summary[string(action)]++
	}
	return summary, nil
}

// Every .yaml/.yml file under dir, in path order, as kustomize-controller
// receives a build: one list of objects.
func readObjects(dir string) ([]*unstructured.Unstructured, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !entry.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var objects []*unstructured.Unstructured
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		read, err := utils.ReadObjects(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		objects = append(objects, read...)
	}
	return objects, nil
}
