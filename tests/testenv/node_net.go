// The node's network: one network namespace that holds the node (containerd,
// kubelet, kube-proxy, DNS), its Pod bridge and every Pod and Service address,
// joined to the host by one veth pair. The host gets a single address on its
// end of that pair (the apiserver binds it) and one route to the Pod subnet;
// the namespace has no default route, so nothing in it reaches past the host.
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// One node per machine: kube-proxy's and the kubelet's iptables chains, the
// kubelet's device-plugin directory and kernel settings are machine-wide.
const (
	nodeName      = "testenv-node"
	nodeNetns     = "opctl-testenv"
	hostVeth      = "opte-host"
	nodeVeth      = "opte-node"
	podBridge     = "opte0"
	hostLinkIP    = "10.213.255.1" // host end of the veth pair; the apiserver binds it
	nodeLinkIP    = "10.213.255.2" // node end of the veth pair
	linkPrefix    = "/30"
	nodeIP        = "10.213.0.1" // the bridge: node InternalIP, Pods' gateway, DNS
	podSubnet     = "10.213.0.0/24"
	serviceSubnet = "10.0.0.0/24"
	clusterDNSIP  = nodeIP
	clusterDomain = "cluster.local"
)

func netnsPath() string { return filepath.Join("/run/netns", nodeNetns) }

// run runs a command and returns its error with its output.
func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// inNode runs a command inside the node's network namespace (network only:
// the mount namespace stays the host's, which containerd and the kubelet
// must share for volumes).
func inNode(name string, args ...string) error {
	return run("nsenter", append([]string{"--net=" + netnsPath(), "--", name}, args...)...)
}

// nodeCommand wraps argv so it runs inside the node's network namespace.
func nodeCommand(argv []string) []string {
	return append([]string{"nsenter", "--net=" + netnsPath(), "--"}, argv...)
}

// setupNodeNetwork creates the namespace, the veth pair, the bridge and the
// host route. It fails if any of them already exists.
func setupNodeNetwork() error {
	steps := [][]string{
		{"ip", "netns", "add", nodeNetns},
		{"ip", "link", "add", hostVeth, "type", "veth", "peer", "name", nodeVeth, "netns", nodeNetns},
		{"ip", "addr", "add", hostLinkIP + linkPrefix, "dev", hostVeth},
		{"ip", "link", "set", hostVeth, "up"},
		{"ip", "-n", nodeNetns, "link", "set", "lo", "up"},
		{"ip", "-n", nodeNetns, "addr", "add", nodeLinkIP + linkPrefix, "dev", nodeVeth},
		{"ip", "-n", nodeNetns, "link", "set", nodeVeth, "up"},
		{"ip", "-n", nodeNetns, "link", "add", podBridge, "type", "bridge"},
		{"ip", "-n", nodeNetns, "addr", "add", nodeIP + "/24", "dev", podBridge},
		{"ip", "-n", nodeNetns, "link", "set", podBridge, "up"},
		{"ip", "route", "add", podSubnet, "via", nodeLinkIP, "dev", hostVeth},
	}
	for _, s := range steps {
		if err := run(s[0], s[1:]...); err != nil {
			return err
		}
	}
	// Inside the namespace only: route between the bridge and the veth (Pods
	// reach the apiserver through the kubernetes Service), let bridged Pod
	// traffic pass iptables (Service replies on the same bridge), and no
	// reverse-path filter on the asymmetric Service paths.
	for key, value := range map[string]string{
		"net/ipv4/ip_forward":                      "1",
		"net/bridge/bridge-nf-call-iptables":       "1",
		"net/bridge/bridge-nf-call-ip6tables":      "1",
		"net/ipv4/conf/all/rp_filter":              "0",
		"net/ipv4/conf/default/rp_filter":          "0",
		"net/ipv4/conf/" + nodeVeth + "/rp_filter": "0",
	} {
		if err := inNode("sh", "-c", "echo "+value+" > /proc/sys/"+key); err != nil {
			return fmt.Errorf("setting %s in the node's network namespace: %w", key, err)
		}
	}
	return nil
}

// nodeNetworkExists reports whether the namespace or the host veth exists.
func nodeNetworkExists() bool {
	if _, err := os.Stat(netnsPath()); err == nil {
		return true
	}
	_, err := net.InterfaceByName(hostVeth)
	return err == nil
}

// removeNodeNetwork deletes the namespace (and with it the bridge, the veth
// pair, the host route and every iptables rule made inside it). Missing parts
// are not errors.
func removeNodeNetwork() []error {
	var errs []error
	if _, err := net.InterfaceByName(hostVeth); err == nil {
		if err := run("ip", "link", "del", hostVeth); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := os.Stat(netnsPath()); err == nil {
		if err := run("ip", "netns", "del", nodeNetns); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
