package main

import (
	"net/url"

	"go.etcd.io/etcd/server/v3/embed"
)

// etcdConfig is a single-member etcd on loopback, tuned for tests: test data
// is disposable, so fsync is off (much faster writes on slow disks).
func etcdConfig(dataDir, clientURL, peerURL string) (*embed.Config, error) {
	client, err := url.Parse(clientURL)
	if err != nil {
		return nil, err
	}
	peer, err := url.Parse(peerURL)
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dataDir
	cfg.Name = "testenv"
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peerURL
	cfg.LogLevel = "error"
	cfg.QuotaBackendBytes = 2 << 30
	cfg.UnsafeNoFsync = true
	return cfg, nil
}
