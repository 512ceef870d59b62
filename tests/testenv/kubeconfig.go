package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigBytes renders a kubeconfig with cluster, user and context all
// named "testenv". TLS is always verified against the CA.
func kubeconfigBytes(server string, caPEM []byte, user string, client *certKey) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["testenv"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{
		ClientCertificateData: client.certPEM,
		ClientKeyData:         client.keyPEM,
	}
	cfg.Contexts["testenv"] = &clientcmdapi.Context{Cluster: "testenv", AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = "testenv"
	return clientcmd.Write(*cfg)
}

func writeKubeconfig(path, server string, caPEM []byte, user string, client *certKey) error {
	data, err := kubeconfigBytes(server, caPEM, user, client)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data, 0o600)
}

// clientsetFor builds a client-go clientset from a kubeconfig file.
func clientsetFor(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "testenv"
	cfg.QPS, cfg.Burst = 50, 100
	return kubernetes.NewForConfig(cfg)
}

// adminHTTPClient is a plain HTTP client that trusts DIR's CA and presents
// the admin certificate.
func adminHTTPClient(dir string, timeout time.Duration) (*http.Client, error) {
	ca, err := loadCertKey(dir, "ca")
	if err != nil {
		return nil, err
	}
	admin, err := loadCertKey(dir, "admin")
	if err != nil {
		return nil, err
	}
	return httpClientFor(ca, admin, timeout)
}

func httpClientFor(ca, client *certKey, timeout time.Duration) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.certPEM) {
		return nil, errors.New("bad CA certificate")
	}
	pair, err := tls.X509KeyPair(client.certPEM, client.keyPEM)
	if err != nil {
		return nil, err
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}},
			DisableKeepAlives: true,
		},
	}, nil
}

// serverFromKubeconfig returns the API server URL of the current context.
func serverFromKubeconfig(dir string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return "", err
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		return "", errors.New("kubeconfig has no current context")
	}
	cluster, ok := cfg.Clusters[ctx.Cluster]
	if !ok {
		return "", errors.New("kubeconfig has no cluster " + ctx.Cluster)
	}
	return cluster.Server, nil
}
