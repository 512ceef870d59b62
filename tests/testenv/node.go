// `testenv up --node`: a scheduler and one node on which Pods really run —
// Debian's containerd and runc under the real kubelet, kube-proxy in iptables
// mode, a DNS server for Service names, an S3 server (s3.go) and a local-volume provisioner — all
// of it, except the scheduler and the provisioner, inside the node's own
// network namespace (node_net.go).
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	nodeReadyTimeout  = 90 * time.Second
	containerdTimeout = 30 * time.Second
)

// nodeOptions say whether `up` starts a node and where its images are.
type nodeOptions struct {
	enabled   bool
	imagesDir string // every *.oci.tar in it is imported into the node's image store
}

// starter starts one component (as startCluster's start does).
type starter func(name string, netns bool, args ...string) (*child, error)

// ownerFile names the testenv directory that owns the machine's node.
func ownerFile() string { return filepath.Join(nodeRoot, "owner") }

// claimNode makes sure no other live testenv has the node, cleans up what a
// dead one left, and creates the node's network for dir.
func claimNode(dir string) error {
	if owner, err := os.ReadFile(ownerFile()); err == nil {
		ownerDir := strings.TrimSpace(string(owner))
		if ownerDir != dir && running(ownerDir) {
			return fmt.Errorf("the machine's node belongs to the running testenv in %s; stop it first "+
				"(testenv down --dir %s): kube-proxy's and the kubelet's iptables chains and kernel settings are "+
				"machine-wide, so there is one node per machine", ownerDir, ownerDir)
		}
		teardownNode(ownerDir)
	} else if nodeNetworkExists() {
		teardownNode(dir)
	}
	if err := os.MkdirAll(nodeRoot, 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(ownerFile(), []byte(dir+"\n"), 0o644); err != nil {
		return err
	}
	if err := saveKernelSettings(); err != nil {
		return err
	}
	if err := recordPreexisting(); err != nil {
		return err
	}
	return setupNodeNetwork()
}

// apiserverNodeArgs let the apiserver reach the kubelet (logs, exec) and
// publish itself as the kubernetes Service's endpoint for Pods.
func apiserverNodeArgs(dir string) []string {
	return []string{
		"--bind-address=" + hostLinkIP,
		"--advertise-address=" + hostLinkIP,
		"--endpoint-reconciler-type=lease",
		"--kubelet-client-certificate=" + filepath.Join(dir, "node", "apiserver-kubelet-client.crt"),
		"--kubelet-client-key=" + filepath.Join(dir, "node", "apiserver-kubelet-client.key"),
		"--kubelet-certificate-authority=" + filepath.Join(dir, "ca.crt"),
		"--kubelet-preferred-address-types=InternalIP",
	}
}

// prepareNode writes the node's certificates, kubeconfigs and configuration
// before the apiserver starts (it reads its kubelet client certificate).
func prepareNode(dir, server string, p *pki) error {
	paths := newNodePaths(dir)
	if err := os.MkdirAll(paths.dir, 0o755); err != nil {
		return err
	}
	n, err := generateNodePKI(p.ca, paths.dir)
	if err != nil {
		return err
	}
	kubeconfigs := []struct {
		file, user string
		cert       *certKey
	}{
		{"kubelet.kubeconfig", "system:node:" + nodeName, n.kubeletClient},
		{"kube-proxy.kubeconfig", "system:kube-proxy", n.kubeProxy},
		{"scheduler.kubeconfig", "system:kube-scheduler", n.scheduler},
		{"admin.kubeconfig", adminUser, p.admin},
	}
	for _, k := range kubeconfigs {
		if err := writeKubeconfig(paths.file(k.file), server, p.ca.certPEM, k.user, k.cert); err != nil {
			return err
		}
	}
	return writeNodeConfig(dir, paths)
}

// startNode starts the scheduler and the node's components, imports the
// images, and waits until the node is Ready.
func startNode(ctx context.Context, dir string, opts nodeOptions, cs kubernetes.Interface, start starter,
	wait func(*child, time.Duration, func() error) error) (time.Duration, error) {
	phase := time.Now()
	paths := newNodePaths(dir)
	schedulerPort, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	if _, err := start("kube-scheduler", false, "--kubeconfig="+paths.file("scheduler.kubeconfig"),
		"--authentication-kubeconfig="+paths.file("scheduler.kubeconfig"),
		"--authorization-kubeconfig="+paths.file("scheduler.kubeconfig"),
		"--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(schedulerPort[0])); err != nil {
		return 0, err
	}
	containerd, err := start("containerd", true, "--config="+paths.file("containerd.toml"))
	if err != nil {
		return 0, err
	}
	if err := wait(containerd, containerdTimeout, func() error {
		return ctr(paths, "version")
	}); err != nil {
		return 0, err
	}
	if err := importImages(paths, opts.imagesDir); err != nil {
		return 0, &startError{"containerd", err}
	}
	kubelet, err := start("kubelet", true, kubeletArgs(paths)...)
	if err != nil {
		return 0, err
	}
	if _, err := start("kube-proxy", true, "--config="+paths.file("kube-proxy.yaml")); err != nil {
		return 0, err
	}
	if _, err := start("dns", true, paths.file("admin.kubeconfig"), clusterDNSIP+":53"); err != nil {
		return 0, err
	}
	ca, err := loadCertKey(dir, "ca")
	if err != nil {
		return 0, err
	}
	if err := startS3(dir, ca, start, wait); err != nil {
		return 0, err
	}
	if _, err := start("provisioner", false, paths.file("admin.kubeconfig"), paths.volumesDir()); err != nil {
		return 0, err
	}
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, defaultStorageClassObject(), metav1.CreateOptions{}); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		return 0, err
	}
	err = wait(kubelet, nodeReadyTimeout, func() error { return nodeReady(ctx, cs) })
	return time.Since(phase), err
}

func nodeReady(ctx context.Context, cs kubernetes.Interface) error {
	node, err := cs.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				return nil
			}
			return fmt.Errorf("node %s not Ready: %s", nodeName, c.Message)
		}
	}
	return fmt.Errorf("node %s has no Ready condition yet", nodeName)
}

// ctr runs Debian's ctr against the node's containerd, in the CRI namespace.
func ctr(p nodePaths, args ...string) error {
	return run("ctr", append([]string{"--address", p.containerdSocket(), "--namespace", "k8s.io"}, args...)...)
}

// importImages imports every OCI archive of dir; an empty dir is allowed
// (then only Pods whose images are missing fail, with ErrImagePull).
func importImages(p nodePaths, dir string) error {
	if dir == "" {
		return nil
	}
	archives, err := filepath.Glob(filepath.Join(dir, "*.oci.tar"))
	if err != nil {
		return err
	}
	sort.Strings(archives)
	for _, archive := range archives {
		if err := ctr(p, "images", "import", archive); err != nil {
			return fmt.Errorf("importing image %s: %w", filepath.Base(archive), err)
		}
	}
	return nil
}

// teardownNode removes everything the node of dir made on the machine:
// container processes and shims, mounts, the network namespace (and with it
// every iptables rule of the kubelet and kube-proxy), cgroups, files the
// kubelet hard-codes, and the kernel settings the kubelet changed.
func teardownNode(dir string) []error {
	var errs []error
	killNodeProcesses()
	errs = append(errs, unmountUnder(nodeRoot, filepath.Join(dir, "node"))...)
	errs = append(errs, removeNodeNetwork()...)
	errs = append(errs, removeCgroups("kubepods")...)
	if err := restoreKernelSettings(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, removeKubeletLeftovers()...)
	if err := os.RemoveAll(nodeRoot); err != nil {
		errs = append(errs, err)
	}
	return errs
}
