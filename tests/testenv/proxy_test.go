package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestFaultTimesAndReload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "faults.json")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := &faults{path: file}
	get := httptest.NewRequest(http.MethodGet, "https://x/api/v1/namespaces/a/configmaps?limit=1", nil)
	patch := httptest.NewRequest(http.MethodPatch, "https://x/api/v1/namespaces/a/configmaps/c", nil)

	if r, _ := f.pick(get); r != nil {
		t.Fatal("missing file must mean no faults")
	}
	write(`[{"match": {"method": "get", "pathRegex": "/configmaps$"}, "action": "status", "status": 429, "times": 2},
	        {"match": {"pathRegex": "configmaps"}, "action": "delay", "delayMs": 1}]`)
	for i, want := range []string{"status", "status", "delay", "delay"} {
		r, _ := f.pick(get)
		if r == nil || r.Action != want {
			t.Fatalf("request %d: got %+v, want %s", i, r, want)
		}
	}
	if r, idx := f.pick(patch); r == nil || idx != 1 {
		t.Fatalf("PATCH: got rule %d, want 1", idx)
	}
	// Same content: counts stay used up. New content: counts reset.
	write(`[{"match": {"method": "GET"}, "action": "status", "status": 503, "times": 1}]`)
	if r, _ := f.pick(get); r == nil || r.Status != 503 {
		t.Fatalf("after change: got %+v", r)
	}
	if r, _ := f.pick(get); r != nil {
		t.Fatalf("times exhausted: got %+v", r)
	}
	// A broken file keeps the previous rules (and counts).
	write(`[{"match": `)
	if r, _ := f.pick(get); r != nil {
		t.Fatalf("broken file: got %+v", r)
	}
	if _, err := parseFaults([]byte(`[{"action": "explode"}]`)); err == nil {
		t.Fatal("unknown action accepted")
	}
}

func TestStatusFaultBody(t *testing.T) {
	rec := httptest.NewRecorder()
	writeStatus(rec, 429, "slow down", 2)
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "2" {
		t.Fatalf("code %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	var st map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st["kind"] != "Status" || st["apiVersion"] != "v1" || st["status"] != "Failure" ||
		st["reason"] != "TooManyRequests" || st["code"] != float64(429) {
		t.Fatalf("body %s", rec.Body.String())
	}
}

func TestCounter(t *testing.T) {
	c := newCounter()
	c.add(httptest.NewRequest(http.MethodGet, "https://x/api/v1/namespaces/x/configmaps", nil))
	c.add(httptest.NewRequest(http.MethodGet, "https://x/api/v1/namespaces/x/configmaps?watch=1", nil))
	c.add(httptest.NewRequest(http.MethodPatch, "https://x/api/v1/namespaces/x/configmaps/a", nil))
	got := c.get(true)
	if got.Total != 3 || got.ByMethod["GET"] != 2 || got.ByPath["GET /api/v1/namespaces/x/configmaps"] != 2 {
		t.Fatalf("%+v", got)
	}
	if after := c.get(false); after.Total != 0 || len(after.ByPath) != 0 {
		t.Fatalf("after reset: %+v", after)
	}
}
