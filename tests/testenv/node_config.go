// Configuration files of the node's components: containerd, the CNI network,
// the kubelet and kube-proxy. Paths that hold sockets or the runtime's state
// live under nodeRoot (short, machine-wide: one node per machine); the files
// written here and the logs live in the testenv directory.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

const nodeRoot = "/var/lib/opctl-testenv"

// nodePaths are the node's files for one testenv directory.
type nodePaths struct {
	dir string // DIR/node: configuration written by up
}

func newNodePaths(dir string) nodePaths { return nodePaths{dir: filepath.Join(dir, "node")} }

func (p nodePaths) file(name string) string { return filepath.Join(p.dir, name) }
func (nodePaths) root(parts ...string) string {
	return filepath.Join(append([]string{nodeRoot}, parts...)...)
}
func (p nodePaths) containerdSocket() string { return p.root("containerd.sock") }
func (p nodePaths) volumesDir() string       { return p.root("volumes") }

// containerdConfig: the CRI plugin with runc under cgroupfs, overlayfs, the
// local sandbox image, and nothing that needs privileges root lacks here
// (negative oom_score_adj needs CAP_SYS_RESOURCE; AppArmor is absent).
func containerdConfig(p nodePaths) string {
	return fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[plugins."io.containerd.internal.v1.opt"]
  path = %[5]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/pause:1"
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  netns_mounts_under_state_dir = true
  max_container_log_line_size = 16384

  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = %[6]q

  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %[7]q
    max_conf_num = 1
`, p.root("containerd", "root"), p.root("containerd", "state"), p.containerdSocket(),
		p.root("containerd.sock.ttrpc"), p.root("containerd", "opt"), p.root("runc"), p.file("cni"))
}

// cniConfig: the Pods' bridge, no masquerade and no default route, so a Pod
// reaches other Pods, the node and Services, and nothing else.
func cniConfig(p nodePaths) string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "testenv",
  "plugins": [
    {
      "type": "bridge",
      "bridge": %q,
      "isGateway": true,
      "isDefaultGateway": false,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": %q,
        "ranges": [[{"subnet": %q, "gateway": %q}]],
        "routes": [{"dst": %q}]
      }
    }
  ]
}
`, podBridge, p.root("cni", "ipam"), podSubnet, nodeIP, serviceSubnet)
}

// kubeletConfig: see NODE-NOTES for why each setting matters here.
func kubeletConfig(dir string, p nodePaths) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[1]s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: %[2]q
tlsPrivateKeyFile: %[3]q
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[4]q}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://%[5]s
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
resolvConf: %[6]q
clusterDNS: [%[7]s]
clusterDomain: %[8]s
podLogsDir: %[9]q
volumePluginDir: %[10]q
syncFrequency: 5s
fileCheckFrequency: 5s
nodeStatusUpdateFrequency: 5s
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
imageMinimumGCAge: 87600h
evictionHard: {memory.available: "1Mi", nodefs.available: "1%%", imagefs.available: "1%%", nodefs.inodesFree: "1%%"}
serializeImagePulls: false
maxPods: 60
protectKernelDefaults: false
rotateCertificates: false
serverTLSBootstrap: false
shutdownGracePeriod: 0s
`, nodeIP, p.file("kubelet.crt"), p.file("kubelet.key"), filepath.Join(dir, "ca.crt"), p.containerdSocket(),
		p.file("resolv.conf"), clusterDNSIP, clusterDomain, p.root("pod-logs"), p.root("volume-plugins"))
}

// kubeProxyConfig: iptables mode inside the node's namespace; no OOM score
// change (needs CAP_SYS_RESOURCE) and no conntrack sysctls (host-wide).
func kubeProxyConfig(p nodePaths) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: %q
mode: iptables
hostnameOverride: %s
bindAddress: %s
clusterCIDR: %s
oomScoreAdj: 0
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["%s/32"]
iptables:
  localhostNodePorts: false
  syncPeriod: 5s
  minSyncPeriod: 0s
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`, p.file("kube-proxy.kubeconfig"), nodeName, nodeIP, podSubnet, nodeIP)
}

// writeNodeConfig writes every configuration file of the node.
func writeNodeConfig(dir string, p nodePaths) error {
	for _, d := range []string{p.dir, p.file("cni"), p.root(), p.volumesDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// No upstream resolver: Pods resolve cluster names only.
	files := map[string]string{
		"containerd.toml":         containerdConfig(p),
		"cni/10-testenv.conflist": cniConfig(p),
		"kubelet.yaml":            kubeletConfig(dir, p),
		"kube-proxy.yaml":         kubeProxyConfig(p),
		"resolv.conf":             "",
	}
	for name, content := range files {
		if err := writeFileAtomic(p.file(name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// kubeletArgs are the kubelet's flags besides its configuration file.
func kubeletArgs(p nodePaths) []string {
	return []string{
		"--config=" + p.file("kubelet.yaml"),
		"--kubeconfig=" + p.file("kubelet.kubeconfig"),
		"--hostname-override=" + nodeName,
		"--node-ip=" + nodeIP,
		"--root-dir=" + p.root("kubelet"),
		"--cert-dir=" + p.root("kubelet", "pki"),
		"--v=1",
	}
}
