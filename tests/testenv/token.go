package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func runToken(args []string) int {
	fs := newFlagSet("token")
	dir := fs.String("dir", "", "testenv directory (required)")
	ns := fs.String("namespace", "default", "namespace of the ServiceAccount")
	sa := fs.String("serviceaccount", "", "ServiceAccount name (required)")
	duration := fs.Duration("duration", time.Hour, "token lifetime (the API enforces at least 10m)")
	audience := fs.String("audience", "", "comma-separated token audiences (default: the API server's)")
	if !parseFlags(fs, args) || !requireDir(fs, *dir) {
		return 2
	}
	if *sa == "" {
		fmt.Fprintln(fs.Output(), "testenv token: --serviceaccount is required")
		return 2
	}
	cs, err := clientsetFor(filepath.Join(*dir, "kubeconfig"))
	if err != nil {
		return fail("token", err)
	}
	seconds := int64(duration.Seconds())
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	if *audience != "" {
		req.Spec.Audiences = strings.Split(*audience, ",")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := cs.CoreV1().ServiceAccounts(*ns).CreateToken(ctx, *sa, req, metav1.CreateOptions{})
	if err != nil {
		return fail("token", err)
	}
	fmt.Println(resp.Status.Token)
	return 0
}
