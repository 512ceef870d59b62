package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certKey is a certificate with its private key, both also kept PEM-encoded.
type certKey struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
	keyPEM  []byte
}

type certSpec struct {
	cn       string
	orgs     []string
	isCA     bool
	server   bool
	client   bool
	dnsNames []string
	ips      []net.IP
}

// newCert creates an ECDSA P-256 key and a certificate for it, signed by
// parent (self-signed when parent is nil).
func newCert(spec certSpec, parent *certKey) (*certKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: spec.cn, Organization: spec.orgs},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		DNSNames:              spec.dnsNames,
		IPAddresses:           spec.ips,
	}
	if spec.isCA {
		tmpl.IsCA = true
		tmpl.KeyUsage |= x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	}
	if spec.server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if spec.client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	signerCert, signerKey := tmpl, crypto.Signer(key)
	if parent != nil {
		signerCert, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, key.Public(), signerKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &certKey{
		cert:    cert,
		key:     key,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// write stores the pair as DIR/<name>.crt and DIR/<name>.key.
func (c *certKey) write(dir, name string) error {
	if err := writeFileAtomic(filepath.Join(dir, name+".crt"), c.certPEM, 0o644); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, name+".key"), c.keyPEM, 0o600)
}

// loadCertKey reads DIR/<name>.crt and DIR/<name>.key.
func loadCertKey(dir, name string) (*certKey, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, name+".crt"))
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, name+".key"))
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, errors.New(name + ": private key cannot sign")
	}
	return &certKey{cert: pair.Leaf, key: signer, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// pki is everything `up` generates.
type pki struct {
	ca, apiserver, admin, controllerManager *certKey
}

const (
	adminUser = "testenv-admin"
	kcmUser   = "system:kube-controller-manager"
)

// generatePKI creates the cluster's certificates; extraIPs are more SANs of
// the apiserver's serving certificate (the node's host link address).
func generatePKI(dir string, extraIPs ...net.IP) (*pki, error) {
	var p pki
	var err error
	if p.ca, err = newCert(certSpec{cn: "testenv-ca", isCA: true}, nil); err != nil {
		return nil, err
	}
	p.apiserver, err = newCert(certSpec{
		cn:     "kube-apiserver",
		server: true,
		dnsNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
		ips: append([]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1"), net.IPv6loopback}, extraIPs...),
	}, p.ca)
	if err != nil {
		return nil, err
	}
	if p.admin, err = newCert(certSpec{cn: adminUser, orgs: []string{"system:masters"}, client: true}, p.ca); err != nil {
		return nil, err
	}
	if p.controllerManager, err = newCert(certSpec{cn: kcmUser, client: true}, p.ca); err != nil {
		return nil, err
	}
	for name, ck := range map[string]*certKey{
		"ca": p.ca, "apiserver": p.apiserver, "admin": p.admin, "controller-manager": p.controllerManager,
	} {
		if err := ck.write(dir, name); err != nil {
			return nil, err
		}
	}
	// Service-account token signing key pair (RSA, as kube expects for RS256).
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, "sa.key"),
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}), 0o600); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, "sa.pub"),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		return nil, err
	}
	return &p, nil
}

// nodePKI are the certificates of the node's components, signed by the
// cluster CA: the kubelet serves with one (its client CA is the cluster CA)
// and each component authenticates to the apiserver with its own identity.
type nodePKI struct {
	kubeletServing, kubeletClient, apiserverKubeletClient, kubeProxy, scheduler, s3 *certKey
}

// certFile is one certificate to create and where to keep it.
type certFile struct {
	name string
	spec certSpec
	out  **certKey
}

func generateNodePKI(ca *certKey, certDir string) (*nodePKI, error) {
	var n nodePKI
	node := certSpec{cn: "system:node:" + nodeName, orgs: []string{"system:nodes"}}
	serving := node
	serving.server, serving.dnsNames, serving.ips = true, []string{nodeName}, []net.IP{net.ParseIP(nodeIP)}
	client := node
	client.client = true
	files := []certFile{
		{"kubelet", serving, &n.kubeletServing},
		{"kubelet-client", client, &n.kubeletClient},
		{"apiserver-kubelet-client", certSpec{cn: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"},
			client: true}, &n.apiserverKubeletClient},
		{"kube-proxy", certSpec{cn: "system:kube-proxy", client: true}, &n.kubeProxy},
		{"scheduler", certSpec{cn: "system:kube-scheduler", client: true}, &n.scheduler},
		{"s3", certSpec{cn: "testenv-s3", server: true, ips: []net.IP{net.ParseIP(nodeIP)}}, &n.s3},
	}
	for _, f := range files {
		ck, err := newCert(f.spec, ca)
		if err != nil {
			return nil, err
		}
		if err := ck.write(certDir, f.name); err != nil {
			return nil, err
		}
		*f.out = ck
	}
	return &n, nil
}

// writeFileAtomic writes via a temporary file and rename, so readers never
// see a half-written file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
