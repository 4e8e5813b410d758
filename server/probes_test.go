package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server"
)

// downStore is an audit store whose Ping and Record fail while down is set.
type downStore struct {
	server.RecordHook
	down *atomic.Bool
}

func (d downStore) Ping(context.Context) error {
	if d.down.Load() {
		return errors.New("connection refused")
	}
	return nil
}

func (d downStore) Record(ctx context.Context, v *engine.Variant, res *engine.Result) (string, error) {
	if d.down.Load() {
		return "", errors.New("connection refused")
	}
	return "", nil
}

// TestProbes: /livez answers while the process serves; /readyz and
// /healthz turn 503 while the audit store does not answer, and come back
// with it, and for good once the server drains. None needs the token, and
// a render answers 503 with Retry-After while the store is down.
func TestProbes(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	srv.Token = "s3cret"
	var down atomic.Bool
	srv.Audit = downStore{RecordHook: func(*engine.Variant, *engine.Result) error { return nil }, down: &down}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	probe := func(path string, want int) {
		t.Helper()
		resp, body := call(t, ts, "GET", path, "", "")
		var p struct {
			Status string
			Error  *struct{ Kind, Reason string }
		}
		json.Unmarshal(body, &p)
		if resp.StatusCode != want || (want == 200) != (p.Status == "ok") || (want == 503) != (p.Error != nil && p.Error.Kind == "unavailable") {
			t.Errorf("GET %s: %d %s, want %d", path, resp.StatusCode, body, want)
		}
	}
	render := func(want int) {
		t.Helper()
		resp, body := call(t, ts, "POST", "/v1/render/delegation", input, "s3cret", "Content-Type", "application/json")
		if resp.StatusCode != want || want == 503 && resp.Header.Get("Retry-After") == "" {
			t.Errorf("render: %d %v %.200s, want %d", resp.StatusCode, resp.Header, body, want)
		}
	}
	for _, p := range []string{"/livez", "/readyz", "/healthz"} {
		probe(p, 200)
	}
	render(200)
	down.Store(true)
	probe("/livez", 200)
	probe("/readyz", 503)
	probe("/healthz", 503)
	render(503)
	down.Store(false)
	probe("/readyz", 200)
	render(200)
	srv.Drain()
	probe("/livez", 200)
	probe("/readyz", 503)
	probe("/healthz", 503)
}

// slowStore answers a ping once release is closed, counting the pings.
type slowStore struct {
	server.RecordHook
	pings   *atomic.Int32
	release chan struct{}
}

func (s slowStore) Ping(ctx context.Context) error {
	s.pings.Add(1)
	select {
	case <-s.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestProbesShareOnePing: /readyz needs no token, so a flood of probes
// must not become a flood of database queries: the probes that arrive
// while the store is asked wait for that one answer.
func TestProbesShareOnePing(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	var pings atomic.Int32
	store := slowStore{RecordHook: func(*engine.Variant, *engine.Result) error { return nil }, pings: &pings, release: make(chan struct{})}
	srv.Audit = store
	var arrived atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()
	const probes = 20
	var started, answered sync.WaitGroup
	codes := make(chan int, probes)
	for range probes {
		started.Add(1)
		answered.Add(1)
		go func() {
			defer answered.Done()
			started.Done()
			resp, _ := call(t, ts, "GET", "/readyz", "", "")
			codes <- resp.StatusCode
		}()
	}
	started.Wait()
	for arrived.Load() < probes || pings.Load() == 0 { // every probe is in, and one reached the store
		runtime.Gosched()
	}
	close(store.release)
	answered.Wait()
	close(codes)
	for code := range codes {
		if code != 200 {
			t.Errorf("a probe answered %d", code)
		}
	}
	if n := pings.Load(); n >= probes {
		t.Errorf("%d pings for %d probes that came together, want them shared", n, probes)
	}
}

// hungStore is an audit store whose ping never returns, its context
// ignored, until the test ends: a database behind a dead connection.
type hungStore struct {
	server.RecordHook
	done chan struct{}
}

func (h hungStore) Ping(context.Context) error {
	<-h.done
	return errors.New("the test ended")
}

// TestReadyzAnswersWhileTheStoreHangs: /readyz answers 503 naming the
// store, within its bound, while a ping hangs, and again for the probes
// after it (sharing the hung ping rather than piling up more); the bound
// is under the 1 s a Kubernetes probe waits by default.
func TestReadyzAnswersWhileTheStoreHangs(t *testing.T) {
	if server.DefaultReadyTimeout >= time.Second {
		t.Errorf("DefaultReadyTimeout %s: a Kubernetes probe waits 1 s", server.DefaultReadyTimeout)
	}
	srv := builtinServer()
	srv.ReadyTimeout = 50 * time.Millisecond // the bound itself; the test does not time it
	done := make(chan struct{})
	defer close(done)
	srv.Audit = hungStore{RecordHook: func(*engine.Variant, *engine.Result) error { return nil }, done: done}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for range 3 {
		resp, body := call(t, ts, "GET", "/readyz", "", "")
		if resp.StatusCode != 503 || !strings.Contains(string(body), "the audit store did not answer within 50ms") {
			t.Errorf("/readyz while the store hangs: %d %s", resp.StatusCode, body)
		}
	}
}

// TestKubernetesTimings: the probes and grace period of the Deployment in
// deploy/kubernetes fit what the server does: /readyz answers within its probe's timeout
// (server.DefaultReadyTimeout bounds its wait for the store), a drain
// (--drain-delay) fails readiness before the listener closes, and the
// grace period covers the drain and --shutdown-timeout.
func TestKubernetesTimings(t *testing.T) {
	data, err := os.ReadFile("../deploy/kubernetes/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Grace      int `yaml:"terminationGracePeriodSeconds"`
					Containers []struct {
						Name     string `yaml:"name"`
						Liveness struct {
							HTTPGet struct{ Path string } `yaml:"httpGet"`
						} `yaml:"livenessProbe"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	yaml.Unmarshal(data, &raw)
	spec := d.Spec.Template.Spec
	if len(spec.Containers) == 0 || spec.Containers[0].Name != "render" {
		t.Fatalf("the first container is not render serve: %+v", spec.Containers)
	}
	probe := raw["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["readinessProbe"].(map[string]any)
	timeout := time.Duration(probe["timeoutSeconds"].(int)) * time.Second
	period := time.Duration(probe["periodSeconds"].(int)) * time.Second
	failures := probe["failureThreshold"].(int)
	if server.DefaultReadyTimeout >= timeout {
		t.Errorf("/readyz may wait %s for the store, its probe only %s", server.DefaultReadyTimeout, timeout)
	}
	cfg := server.DefaultHTTPConfig()
	if period*time.Duration(failures) > cfg.DrainDelay {
		t.Errorf("readiness fails after %s × %d, after the %s drain", period, failures, cfg.DrainDelay)
	}
	if grace := time.Duration(spec.Grace) * time.Second; grace <= cfg.DrainDelay+cfg.ShutdownTimeout {
		t.Errorf("terminationGracePeriodSeconds %s, want more than the drain and shutdown timeout (%s)", grace, cfg.DrainDelay+cfg.ShutdownTimeout)
	}
	if spec.Containers[0].Liveness.HTTPGet.Path != "/livez" {
		t.Errorf("liveness probes %q, want /livez", spec.Containers[0].Liveness.HTTPGet.Path)
	}
}
