// The node's S3 server, for the Backup kind's object-store target: Versity's
// S3 gateway (versitygw, Apache-2.0, built by build.sh from the Go module
// proxy next to this binary) on its posix backend, with real SigV4
// authentication. Two listeners on the node's address, so Pods reach them and
// nothing outside the node does: plain HTTP on s3Port and HTTPS on s3TLSPort
// with a certificate from the testenv CA. Both serve the same buckets.
//
// `testenv up --node` writes DIR/s3.json for tests:
//
//	{"endpoint": "http://10.213.0.1:9000", "tlsEndpoint": "https://10.213.0.1:9443",
//	 "region": "us-east-1", "caFile": "DIR/ca.crt",
//	 "accessKeyId": "...", "secretAccessKey": "..."}
package main

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

const (
	s3Port         = 9000
	s3TLSPort      = 9443
	s3Region       = "us-east-1"
	s3Timeout      = 30 * time.Second
	s3GatewayName  = "versitygw"
	s3AccessLength = 20
	s3SecretLength = 40
)

// s3Settings is DIR/s3.json: where the node's S3 server listens and its root
// credentials.
type s3Settings struct {
	Endpoint        string `json:"endpoint"`
	TLSEndpoint     string `json:"tlsEndpoint"`
	Region          string `json:"region"`
	CAFile          string `json:"caFile"`
	AccessKeyID     string `json:"accessKeyId"`
	SecretAccessKey string `json:"secretAccessKey"`
}

func s3SettingsPath(dir string) string { return filepath.Join(dir, "s3.json") }

// s3GatewayPath is versitygw next to this executable, where build.sh puts it.
func s3GatewayPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	path := filepath.Join(filepath.Dir(exe), s3GatewayName)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("the S3 gateway is not next to testenv (%s): build testenv with tests/testenv/build.sh, "+
			"which builds both", path)
	}
	return path, nil
}

// randomKey returns n characters of alphabet from crypto/rand.
func randomKey(n int, alphabet string) (string, error) {
	raw := make([]byte, n)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	out := make([]byte, n)
	for i, b := range raw {
		out[i] = alphabet[int(b)%len(alphabet)]
	}
	return string(out), nil
}

// writeS3Settings creates fresh root credentials for this testenv and writes
// DIR/s3.json (0600: it holds the secret key).
func writeS3Settings(dir string) (*s3Settings, error) {
	access, err := randomKey(s3AccessLength, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	if err != nil {
		return nil, err
	}
	secret, err := randomKey(s3SecretLength, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
	if err != nil {
		return nil, err
	}
	s := &s3Settings{
		Endpoint:        "http://" + net.JoinHostPort(nodeIP, strconv.Itoa(s3Port)),
		TLSEndpoint:     "https://" + net.JoinHostPort(nodeIP, strconv.Itoa(s3TLSPort)),
		Region:          s3Region,
		CAFile:          filepath.Join(dir, "ca.crt"),
		AccessKeyID:     access,
		SecretAccessKey: secret,
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return s, writeFileAtomic(s3SettingsPath(dir), append(data, '\n'), 0o600)
}

// startS3 starts the two gateways (component s3 and s3-tls) inside the node's
// network namespace and waits until both answer their health path.
func startS3(dir string, ca *certKey, start starter, wait func(*child, time.Duration, func() error) error) error {
	settings, err := writeS3Settings(dir)
	if err != nil {
		return &startError{"s3", err}
	}
	data := filepath.Join(dir, "s3", "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return &startError{"s3", err}
	}
	paths := newNodePaths(dir)
	plain, err := start("s3", true, s3SettingsPath(dir), data, net.JoinHostPort(nodeIP, strconv.Itoa(s3Port)))
	if err != nil {
		return err
	}
	secure, err := start("s3-tls", true, s3SettingsPath(dir), data, net.JoinHostPort(nodeIP, strconv.Itoa(s3TLSPort)),
		paths.file("s3.crt"), paths.file("s3.key"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	client := &http.Client{Timeout: 2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	healthy := func(endpoint string) func() error {
		return func() error {
			resp, err := client.Get(endpoint + s3HealthPath)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("GET %s%s: %s", endpoint, s3HealthPath, resp.Status)
			}
			return nil
		}
	}
	if err := wait(plain, s3Timeout, healthy(settings.Endpoint)); err != nil {
		return err
	}
	return wait(secure, s3Timeout, healthy(settings.TLSEndpoint))
}

const s3HealthPath = "/testenv-health"

// runS3 is `testenv component s3|s3-tls SETTINGS DATA_DIR LISTEN [CERT KEY]`:
// it runs the gateway as a child, its root credentials passed through the
// environment (never on a command line), and forwards SIGTERM/SIGINT to it,
// so the pid file names a process whose command line says what it is.
func runS3(name string, args []string) int {
	if len(args) != 3 && len(args) != 5 {
		fmt.Fprintf(os.Stderr, "usage: testenv component %s SETTINGS DATA_DIR LISTEN [CERT KEY]\n", name)
		return 2
	}
	raw, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv %s: %v\n", name, err)
		return 1
	}
	var settings s3Settings
	if err := json.Unmarshal(raw, &settings); err != nil {
		fmt.Fprintf(os.Stderr, "testenv %s: %s: %v\n", name, args[0], err)
		return 1
	}
	gateway, err := s3GatewayPath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv %s: %v\n", name, err)
		return 1
	}
	argv := []string{"--port", args[2], "--region", settings.Region, "--health", s3HealthPath, "--quiet"}
	if len(args) == 5 {
		argv = append(argv, "--cert", args[3], "--key", args[4])
	}
	argv = append(argv, "posix", args[1])
	cmd := exec.Command(gateway, argv...)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+settings.AccessKeyID,
		"ROOT_SECRET_ACCESS_KEY="+settings.SecretAccessKey)
	// The gateway must not outlive this process, even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return supervise(name, cmd)
}
