package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
# One event per request (ResponseComplete; long-running requests such as
# watches also log ResponseStarted).
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// Time budgets for each startup phase. The whole thing normally takes well
// under 30 s; the budgets are generous for loaded CI machines.
const (
	etcdTimeout      = 60 * time.Second
	apiserverTimeout = 90 * time.Second
	kcmTimeout       = 60 * time.Second
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// extraArgs are flags appended to the generated component command lines;
// later flags win, so they can also override the defaults.
type extraArgs struct{ apiserver, kcm stringList }

// startError says which component failed and why.
type startError struct {
	component string
	err       error
}

func (e *startError) Error() string { return e.component + " failed: " + e.err.Error() }

func runUp(args []string) int {
	fs := newFlagSet("up")
	dir := fs.String("dir", "", "directory for certificates, data, logs and kubeconfig (required)")
	audit := fs.Bool("audit", false, "write an audit log (level Metadata) to DIR/audit.log")
	var extra extraArgs
	fs.Var(&extra.apiserver, "apiserver-arg", "extra kube-apiserver flag, e.g. --apiserver-arg=--feature-gates=X=true (repeatable)")
	fs.Var(&extra.kcm, "controller-manager-arg", "extra kube-controller-manager flag (repeatable)")
	var node nodeOptions
	fs.BoolVar(&node.enabled, "node", false, "also start kube-scheduler and a node on which Pods run (one per machine)")
	fs.StringVar(&node.imagesDir, "images", "", "with --node: import every *.oci.tar in this directory into the node")
	if !parseFlags(fs, args) || !requireDir(fs, *dir) {
		return 2
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fail("up", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fail("up", err)
	}
	lock, err := lockDir(abs)
	if err != nil {
		return fail("up", err)
	}
	defer lock.Close()

	// Stop what we started if we are interrupted (e.g. a test harness timeout).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	kubeconfig := filepath.Join(abs, "kubeconfig")
	if running(abs) {
		fmt.Println(kubeconfig)
		return 0
	}
	// Leftovers of an earlier run that died or was half torn down.
	if entries, err := readPidFile(abs); err == nil {
		stopProcesses(abs, entries, 5*time.Second)
	}
	_ = os.Remove(pidFilePath(abs))

	for attempt := 1; ; attempt++ {
		err := startCluster(ctx, abs, *audit, extra, node)
		if err == nil {
			fmt.Println(kubeconfig)
			return 0
		}
		var se *startError
		if errors.As(err, &se) && attempt < 3 && ctx.Err() == nil && portClash(abs, se.component) {
			fmt.Fprintf(os.Stderr, "testenv up: %v; port clash, retrying with new ports\n", err)
			continue
		}
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "testenv up: interrupted; stopped the processes it had started")
			return 1
		}
		fmt.Fprintf(os.Stderr, "testenv up: %v\n", err)
		if errors.As(err, &se) {
			logPath := filepath.Join(abs, se.component+".log")
			fmt.Fprintf(os.Stderr, "--- last 30 lines of %s ---\n%s--- end of %s ---\n",
				logPath, tailFile(logPath, 30), filepath.Base(logPath))
		}
		return 1
	}
}

// running reports whether DIR holds a complete, healthy testenv.
func running(dir string) bool {
	entries, err := readPidFile(dir)
	if err != nil {
		return false
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if !isOurs(e, dir) {
			return false
		}
		seen[e.component] = true
	}
	for _, c := range coreComponents {
		if !seen[c] {
			return false
		}
	}
	server, err := serverFromKubeconfig(dir)
	if err != nil {
		return false
	}
	client, err := adminHTTPClient(dir, 5*time.Second)
	if err != nil {
		return false
	}
	return readyz(client, server) == nil
}

// startCluster starts etcd, kube-apiserver and kube-controller-manager and
// waits until they work. On failure it stops whatever it started.
func startCluster(ctx context.Context, dir string, audit bool, extra extraArgs, node nodeOptions) (err error) {
	begin := time.Now()
	for _, name := range []string{"kubeconfig", "audit.log", "audit-policy.yaml"} {
		_ = os.Remove(filepath.Join(dir, name))
	}
	if err := os.RemoveAll(filepath.Join(dir, "etcd")); err != nil {
		return err
	}
	bindIP := "127.0.0.1"
	var extraIPs []net.IP
	if node.enabled {
		if err := claimNode(dir); err != nil {
			return &startError{"node", err}
		}
		defer func() {
			if err != nil {
				teardownNode(dir)
			}
		}()
		bindIP = hostLinkIP
		extraIPs = append(extraIPs, net.ParseIP(hostLinkIP))
	}
	p, err := generatePKI(dir, extraIPs...)
	if err != nil {
		return fmt.Errorf("generating certificates: %w", err)
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdClient := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	etcdPeer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	server := "https://" + bindIP + ":" + strconv.Itoa(ports[2])
	if node.enabled {
		if err := prepareNode(dir, server, p); err != nil {
			return &startError{"node", err}
		}
	}
	kcmKubeconfig := filepath.Join(dir, "controller-manager.kubeconfig")
	if err := writeKubeconfig(kcmKubeconfig, server, p.ca.certPEM, kcmUser, p.controllerManager); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}

	var started []*child
	defer func() {
		if err != nil {
			entries := make([]pidEntry, 0, len(started))
			for _, c := range started {
				entries = append(entries, pidEntry{c.name, c.cmd.Process.Pid})
			}
			stopProcesses(dir, entries, 5*time.Second)
			_ = os.Remove(pidFilePath(dir))
		}
	}()
	startIn := func(name string, netns bool, args ...string) (*child, error) {
		c, err := startChild(dir, exe, name, netns, args)
		if err != nil {
			return nil, &startError{name, err}
		}
		started = append(started, c)
		entries := make([]pidEntry, 0, len(started))
		for _, c := range started {
			entries = append(entries, pidEntry{c.name, c.cmd.Process.Pid})
		}
		if err := writePidFile(dir, entries); err != nil {
			return nil, err
		}
		return c, nil
	}
	start := func(name string, args ...string) (*child, error) { return startIn(name, false, args...) }

	// etcd
	phase := time.Now()
	etcd, err := start("etcd", filepath.Join(dir, "etcd"), etcdClient, etcdPeer)
	if err != nil {
		return err
	}
	plain := &http.Client{Timeout: 2 * time.Second}
	if err := waitFor(ctx, etcd, etcdTimeout, started, func() error {
		return etcdHealthy(plain, etcdClient)
	}); err != nil {
		return err
	}
	etcdTime := time.Since(phase)

	// kube-apiserver
	phase = time.Now()
	apiArgs := []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(ports[2]),
		"--etcd-servers=" + etcdClient,
		"--tls-cert-file=" + filepath.Join(dir, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(dir, "apiserver.key"),
		"--client-ca-file=" + filepath.Join(dir, "ca.crt"),
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--profiling=false",
		// 127.0.0.1 is not a valid Endpoints address; without this the
		// apiserver logs an error for the "kubernetes" Service every 10 s.
		"--endpoint-reconciler-type=none",
	}
	if node.enabled {
		apiArgs = append(apiArgs, apiserverNodeArgs(dir)...)
	}
	if audit {
		policy := filepath.Join(dir, "audit-policy.yaml")
		if err := writeFileAtomic(policy, []byte(auditPolicy), 0o644); err != nil {
			return err
		}
		apiArgs = append(apiArgs,
			"--audit-policy-file="+policy,
			"--audit-log-path="+filepath.Join(dir, "audit.log"),
			"--audit-log-format=json",
			"--audit-log-mode=blocking",
		)
	}
	apiserver, err := start("kube-apiserver", append(apiArgs, extra.apiserver...)...)
	if err != nil {
		return err
	}
	admin, err := httpClientFor(p.ca, p.admin, 5*time.Second)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, apiserver, apiserverTimeout, started, func() error {
		return readyz(admin, server)
	}); err != nil {
		return err
	}
	apiTime := time.Since(phase)

	// kube-controller-manager
	phase = time.Now()
	kcmArgs := []string{
		"--kubeconfig=" + kcmKubeconfig,
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + filepath.Join(dir, "sa.key"),
		"--root-ca-file=" + filepath.Join(dir, "ca.crt"),
		"--cluster-signing-cert-file=" + filepath.Join(dir, "ca.crt"),
		"--cluster-signing-key-file=" + filepath.Join(dir, "ca.key"),
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		"--controllers=*",
		"--profiling=false",
	}
	kcm, err := start("kube-controller-manager", append(kcmArgs, extra.kcm...)...)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(&rest.Config{
		Host:      server,
		UserAgent: "testenv",
		Timeout:   5 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: p.ca.certPEM, CertData: p.admin.certPEM, KeyData: p.admin.keyPEM,
		},
	})
	if err != nil {
		return err
	}
	if err := waitFor(ctx, kcm, kcmTimeout, started, func() error {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return errors.New("ServiceAccount default/default not created yet")
		}
		return err
	}); err != nil {
		return err
	}
	kcmTime := time.Since(phase)

	var nodeTime time.Duration
	if node.enabled {
		waitNode := func(c *child, timeout time.Duration, check func() error) error {
			return waitFor(ctx, c, timeout, started, check)
		}
		if nodeTime, err = startNode(ctx, dir, node, cs, startIn, waitNode); err != nil {
			return err
		}
	}

	if err := writeKubeconfig(filepath.Join(dir, "kubeconfig"), server, p.ca.certPEM, adminUser, p.admin); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "testenv up: ready in %.1fs (etcd %.1fs, kube-apiserver %.1fs, kube-controller-manager %.1fs, node %.1fs), server %s\n",
		time.Since(begin).Seconds(), etcdTime.Seconds(), apiTime.Seconds(), kcmTime.Seconds(), nodeTime.Seconds(), server)
	return nil
}

// child is a started component process.
type child struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // set before exited is closed
}

// startChild starts `exe component NAME ARGS...` detached in its own session,
// with stdout and stderr appended to DIR/NAME.log.
// With netns it runs inside the node's network namespace.
func startChild(dir, exe, name string, netns bool, args []string) (*child, error) {
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	argv := append([]string{exe, "component", name}, args...)
	if netns {
		argv = nodeCommand(argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{name: name, cmd: cmd, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// waitFor polls check until it succeeds, blaming `subject` on timeout and any
// watched child that exits early.
func waitFor(ctx context.Context, subject *child, timeout time.Duration, watch []*child, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		if ctx.Err() != nil {
			return &startError{subject.name, errors.New("interrupted while waiting for it")}
		}
		for _, c := range watch {
			select {
			case <-c.exited:
				return &startError{c.name, fmt.Errorf("process exited early (%v)", c.err)}
			default:
			}
		}
		lastErr := check()
		if lastErr == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return &startError{subject.name, fmt.Errorf("not ready after %s: %v", timeout, lastErr)}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func etcdHealthy(client *http.Client, url string) error {
	resp, err := client.Get(url + "/health")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"true"`)) {
		return fmt.Errorf("etcd /health: %d %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	return nil
}

func readyz(client *http.Client, server string) error {
	resp, err := client.Get(server + "/readyz?verbose")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		var failed []string
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "[-]") {
				failed = append(failed, line)
			}
		}
		return fmt.Errorf("/readyz: %d %s", resp.StatusCode, strings.Join(failed, "; "))
	}
	return nil
}

// freePorts returns n distinct free loopback TCP ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close() // keep all open until done so they are distinct
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// portClash reports whether a component's log says its port was taken
// between our probe and its bind.
func portClash(dir, component string) bool {
	data, _ := os.ReadFile(filepath.Join(dir, component+".log"))
	return bytes.Contains(data, []byte("address already in use"))
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read: %v)\n", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := strings.Join(lines, "")
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}
