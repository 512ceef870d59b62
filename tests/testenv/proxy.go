package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// faultMatch selects requests. Empty fields match anything; regexes are
// unanchored (use ^...$ to anchor).
type faultMatch struct {
	Method         string `json:"method"`
	PathRegex      string `json:"pathRegex"`
	QueryRegex     string `json:"queryRegex"`
	UserAgentRegex string `json:"userAgentRegex"`
}

// faultRule is one entry of the fault file.
type faultRule struct {
	Match             faultMatch `json:"match"`
	Action            string     `json:"action"` // status | reset | delay
	Status            int        `json:"status"`
	Message           string     `json:"message"`
	RetryAfterSeconds int        `json:"retryAfterSeconds"`
	DelayMs           int        `json:"delayMs"`
	Times             *int       `json:"times"` // nil: every matching request

	path, query, userAgent *regexp.Regexp
}

func (r *faultRule) compile() error {
	var err error
	compile := func(expr string) *regexp.Regexp {
		if expr == "" || err != nil {
			return nil
		}
		var re *regexp.Regexp
		re, err = regexp.Compile(expr)
		return re
	}
	r.path = compile(r.Match.PathRegex)
	r.query = compile(r.Match.QueryRegex)
	r.userAgent = compile(r.Match.UserAgentRegex)
	if err != nil {
		return err
	}
	switch r.Action {
	case "status":
		if r.Status == 0 {
			r.Status = http.StatusServiceUnavailable
		}
		if r.Status < 400 || r.Status > 599 {
			return fmt.Errorf("status %d is not an error status", r.Status)
		}
	case "reset", "delay":
	default:
		return fmt.Errorf("unknown action %q (want status, reset or delay)", r.Action)
	}
	return nil
}

func (r *faultRule) matches(req *http.Request) bool {
	return (r.Match.Method == "" || strings.EqualFold(r.Match.Method, req.Method)) &&
		(r.path == nil || r.path.MatchString(req.URL.Path)) &&
		(r.query == nil || r.query.MatchString(req.URL.RawQuery)) &&
		(r.userAgent == nil || r.userAgent.MatchString(req.UserAgent()))
}

// parseFaults accepts either a JSON list of rules or {"rules": [...]}.
// Whitespace-only content means no rules.
func parseFaults(data []byte) ([]*faultRule, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	var rules []*faultRule
	if data[0] == '{' {
		var wrapper struct {
			Rules []*faultRule `json:"rules"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&wrapper); err != nil {
			return nil, err
		}
		rules = wrapper.Rules
	} else {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rules); err != nil {
			return nil, err
		}
	}
	for i, r := range rules {
		if r == nil {
			return nil, fmt.Errorf("rule %d: null", i)
		}
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("rule %d: %w", i, err)
		}
	}
	return rules, nil
}

// faults holds the rules of the fault file and how many more times each
// rule may fire. The file is re-read on every request; the counts are reset
// whenever its content changes.
type faults struct {
	path string

	mu        sync.Mutex
	sum       [sha256.Size]byte
	loaded    bool
	rules     []*faultRule
	remaining []int // -1: unlimited
}

// pick returns the first matching rule that has not used up its times, and
// its index, after counting the use.
func (f *faults) pick(req *http.Request) (*faultRule, int) {
	if f.path == "" {
		return nil, -1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloadLocked()
	for i, r := range f.rules {
		if !r.matches(req) {
			continue
		}
		if f.remaining[i] == 0 {
			continue
		}
		if f.remaining[i] > 0 {
			f.remaining[i]--
		}
		return r, i
	}
	return nil, -1
}

func (f *faults) reloadLocked() {
	data, err := os.ReadFile(f.path)
	if err != nil {
		if !os.IsNotExist(err) {
			log.Printf("reading fault file: %v (keeping previous rules)", err)
			return
		}
		data = nil // a missing file means no faults
	}
	sum := sha256.Sum256(data)
	if f.loaded && sum == f.sum {
		return
	}
	rules, err := parseFaults(data)
	if err != nil {
		// Likely a half-written file; write it atomically (temp + rename).
		log.Printf("fault file %s: %v (keeping previous rules)", f.path, err)
		return
	}
	f.sum, f.loaded, f.rules = sum, true, rules
	f.remaining = make([]int, len(rules))
	for i, r := range rules {
		f.remaining[i] = -1
		if r.Times != nil {
			f.remaining[i] = max(*r.Times, 0)
		}
	}
	log.Printf("fault file %s: %d rule(s) loaded", f.path, len(rules))
}

func (f *faults) snapshot() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.path != "" {
		f.reloadLocked()
	}
	type ruleState struct {
		Rule      *faultRule `json:"rule"`
		Remaining *int       `json:"remaining"` // null: unlimited
	}
	out := struct {
		File  string      `json:"file"`
		Rules []ruleState `json:"rules"`
	}{File: f.path, Rules: []ruleState{}}
	for i, r := range f.rules {
		st := ruleState{Rule: r}
		if f.remaining[i] >= 0 {
			n := f.remaining[i]
			st.Remaining = &n
		}
		out.Rules = append(out.Rules, st)
	}
	return out
}

// counter counts proxied requests.
type counter struct {
	mu       sync.Mutex
	total    int64
	faulted  int64
	byMethod map[string]int64
	byPath   map[string]int64
}

type counts struct {
	Total    int64            `json:"total"`
	Faulted  int64            `json:"faulted"`
	ByMethod map[string]int64 `json:"byMethod"`
	ByPath   map[string]int64 `json:"byPath"`
}

func newCounter() *counter {
	return &counter{byMethod: map[string]int64{}, byPath: map[string]int64{}}
}

func (c *counter) add(req *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total++
	c.byMethod[req.Method]++
	c.byPath[req.Method+" "+req.URL.Path]++
}

func (c *counter) addFault() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faulted++
}

// get returns the counts, zeroing them if reset is set.
func (c *counter) get(reset bool) counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := counts{Total: c.total, Faulted: c.faulted, ByMethod: c.byMethod, ByPath: c.byPath}
	if reset {
		c.total, c.faulted = 0, 0
		c.byMethod, c.byPath = map[string]int64{}, map[string]int64{}
	} else {
		out.ByMethod, out.ByPath = copyCounts(c.byMethod), copyCounts(c.byPath)
	}
	return out
}

func copyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

type proxy struct {
	faults *faults
	count  *counter
	// bearer forwards requests unchanged over a transport without client
	// certificate (bearer tokens and anonymous requests); admin forwards
	// with the admin certificate, impersonating the client certificate's
	// identity.
	bearer, admin *httputil.ReverseProxy
}

func newProxy(target *url.URL, ca, adminCert *certKey, faultFile string) (*proxy, error) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.certPEM)
	pair, err := tls.X509KeyPair(adminCert.certPEM, adminCert.keyPEM)
	if err != nil {
		return nil, err
	}
	transport := func(certs []tls.Certificate) *http.Transport {
		return &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: certs, MinVersion: tls.VersionTLS12},
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 100,
			IdleConnTimeout:     90 * time.Second,
		}
	}
	errorHandler := func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, context.Canceled) {
			return // the client went away
		}
		log.Printf("%s %s: upstream error: %v", r.Method, r.URL.Path, err)
		writeStatus(w, http.StatusBadGateway, "testenv proxy: upstream error: "+err.Error(), 0)
	}
	p := &proxy{faults: &faults{path: faultFile}, count: newCounter()}
	p.bearer = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
		},
		Transport:     transport(nil),
		FlushInterval: -1, // stream watches without buffering
		ErrorHandler:  errorHandler,
		ErrorLog:      log.Default(),
	}
	p.admin = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			leaf := pr.In.TLS.PeerCertificates[0]
			if isMasters(leaf) && hasImpersonation(pr.In.Header) {
				return // an admin client doing its own impersonation
			}
			for k := range pr.Out.Header {
				if strings.HasPrefix(k, "Impersonate-") {
					delete(pr.Out.Header, k)
				}
			}
			pr.Out.Header.Set("Impersonate-User", leaf.Subject.CommonName)
			for _, g := range leaf.Subject.Organization {
				pr.Out.Header.Add("Impersonate-Group", g)
			}
		},
		Transport:     transport([]tls.Certificate{pair}),
		FlushInterval: -1,
		ErrorHandler:  errorHandler,
		ErrorLog:      log.Default(),
	}
	return p, nil
}

func isMasters(cert *x509.Certificate) bool {
	for _, o := range cert.Subject.Organization {
		if o == "system:masters" {
			return true
		}
	}
	return false
}

func hasImpersonation(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(k, "Impersonate-") {
			return true
		}
	}
	return false
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/__testenv/") {
		p.serveControl(w, r)
		return
	}
	p.count.add(r)
	if rule, idx := p.faults.pick(r); rule != nil {
		p.count.addFault()
		log.Printf("fault rule %d (%s) on %s %s", idx, rule.Action, r.Method, r.URL.RequestURI())
		if rule.DelayMs > 0 {
			t := time.NewTimer(time.Duration(rule.DelayMs) * time.Millisecond)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		switch rule.Action {
		case "status":
			msg := rule.Message
			if msg == "" {
				msg = fmt.Sprintf("testenv proxy: injected fault (rule %d)", idx)
			}
			writeStatus(w, rule.Status, msg, rule.RetryAfterSeconds)
			return
		case "reset":
			resetConnection(w, r)
			return
		}
	}
	auth := r.Header.Get("Authorization")
	switch {
	case len(auth) > 7 && strings.EqualFold(auth[:7], "bearer "):
		p.bearer.ServeHTTP(w, r)
	case r.TLS != nil && len(r.TLS.PeerCertificates) > 0:
		if hasImpersonation(r.Header) && !isMasters(r.TLS.PeerCertificates[0]) {
			writeStatus(w, http.StatusForbidden,
				"testenv proxy: Impersonate-* headers are only passed through for system:masters client certificates", 0)
			return
		}
		p.admin.ServeHTTP(w, r)
	default:
		p.bearer.ServeHTTP(w, r) // anonymous, or whatever the client sent
	}
}

// resetConnection drops the client connection without a response.
func resetConnection(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 1 {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
	}
	// HTTP/2: the server resets the stream (RST_STREAM) on this panic.
	panic(http.ErrAbortHandler)
}

func (p *proxy) serveControl(w http.ResponseWriter, r *http.Request) {
	var body any
	switch {
	case r.URL.Path == "/__testenv/requests" && r.Method == http.MethodGet:
		body = p.count.get(false)
	case r.URL.Path == "/__testenv/requests/reset" && r.Method == http.MethodPost:
		body = p.count.get(true) // the counts before the reset
	case r.URL.Path == "/__testenv/faults" && r.Method == http.MethodGet:
		body = p.faults.snapshot()
	default:
		writeStatus(w, http.StatusNotFound, "testenv proxy: no such control endpoint "+r.Method+" "+r.URL.Path, 0)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(body)
}

func statusReason(code int) metav1.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusMethodNotAllowed:
		return metav1.StatusReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		return metav1.StatusReasonNotAcceptable
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusGone:
		return metav1.StatusReasonExpired
	case http.StatusRequestEntityTooLarge:
		return metav1.StatusReasonRequestEntityTooLarge
	case http.StatusUnsupportedMediaType:
		return metav1.StatusReasonUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return metav1.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	}
	if code >= 500 {
		return metav1.StatusReasonInternalError
	}
	return metav1.StatusReasonUnknown
}

// writeStatus writes a Kubernetes Status object, like the API server does.
func writeStatus(w http.ResponseWriter, code int, message string, retryAfter int) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  message,
		Reason:   statusReason(code),
		Code:     int32(code),
	}
	if retryAfter > 0 {
		st.Details = &metav1.StatusDetails{RetryAfterSeconds: int32(retryAfter)}
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	body, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}

func runProxy(args []string) int {
	fs := newFlagSet("proxy")
	dir := fs.String("dir", "", "testenv directory (required)")
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	faultFile := fs.String("faults", "", "JSON fault file, re-read on every request")
	if !parseFlags(fs, args) || !requireDir(fs, *dir) {
		return 2
	}
	log.SetPrefix("testenv proxy: ")
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fail("proxy", err)
	}
	if *faultFile != "" {
		if *faultFile, err = filepath.Abs(*faultFile); err != nil {
			return fail("proxy", err)
		}
	}
	upstream, err := serverFromKubeconfig(abs)
	if err != nil {
		return fail("proxy", fmt.Errorf("reading %s: %w (did `testenv up` run?)", filepath.Join(abs, "kubeconfig"), err))
	}
	target, err := url.Parse(upstream)
	if err != nil {
		return fail("proxy", err)
	}
	ca, err := loadCertKey(abs, "ca")
	if err != nil {
		return fail("proxy", err)
	}
	adminCert, err := loadCertKey(abs, "admin")
	if err != nil {
		return fail("proxy", err)
	}
	serving, err := newCert(certSpec{
		cn: "testenv-proxy", server: true, dnsNames: []string{"localhost"},
		ips: []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback},
	}, ca)
	if err != nil {
		return fail("proxy", err)
	}
	servingPair, err := tls.X509KeyPair(serving.certPEM, serving.keyPEM)
	if err != nil {
		return fail("proxy", err)
	}
	p, err := newProxy(target, ca, adminCert, *faultFile)
	if err != nil {
		return fail("proxy", err)
	}

	addr := *listen
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fail("proxy", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	kubeconfig := filepath.Join(abs, fmt.Sprintf("proxy-%d.kubeconfig", port))
	if err := writeKubeconfig(kubeconfig, "https://"+net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		ca.certPEM, adminUser, adminCert); err != nil {
		return fail("proxy", err)
	}
	defer os.Remove(kubeconfig)

	clientCAs := x509.NewCertPool()
	clientCAs.AppendCertsFromPEM(ca.certPEM)
	srv := &http.Server{
		Handler: p,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{servingPair},
			ClientAuth:   tls.VerifyClientCertIfGiven,
			ClientCAs:    clientCAs,
			NextProtos:   []string{"h2", "http/1.1"},
			MinVersion:   tls.VersionTLS12,
		},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.Default(),
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.ServeTLS(l, "", "") }()

	fmt.Printf("listening on %s\n", l.Addr())
	log.Printf("forwarding to %s, kubeconfig %s, faults %q", upstream, kubeconfig, *faultFile)
	select {
	case err := <-serveErr:
		return fail("proxy", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close() // watches never finish on their own
	}
	return 0
}
